/**
 * An effector target hanging from one of the character's own bones (a rifle in the right hand, the left hand
 * on its grip): read from the animated pose before the solve, it is off where the bone ends after it.
 */
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { height, nodePos, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

const CLIPS: Partial<Record<ModelName, string>> = { Xbot: "idle", UAL: "Idle_Loop" };

interface Rifle {
  m: LoadedModel;
  ik: FullBodyBipedIK;
  h: number;
  grip: TransformNode;
  rightTarget: TransformNode;
}

/**
 * The right hand on a target in front of the chest (position and rotation), a rifle parented to the right
 * hand's bone (or, `byTarget`, to that target), the left hand's target on the rifle's grip, the body pushed
 * down and forward by its effector.
 */
async function rifle(name: ModelName, byTarget: boolean, atAnimated = false): Promise<Rifle> {
  const clip = CLIPS[name]!;
  const m = await loadModel(name, { clips: (c) => c === clip });
  open.push(m);
  m.container.animationGroups.find((g) => g.name === clip)!.start(true);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  const h = height(m);
  const r = ik.references;
  const up = Vector3.Up();
  const side = worldPos(r.rightUpperArm).subtract(worldPos(r.leftUpperArm)).normalize();
  let forward = Vector3.Cross(up, side).normalize();
  const toe = r.leftFoot.getChildren()[0];
  if (toe !== undefined && Vector3.Dot(worldPos(toe).subtract(worldPos(r.leftFoot)), forward) < 0)
    forward = forward.negate();
  const chest = worldPos(r.rightUpperArm).add(worldPos(r.leftUpperArm)).scale(0.5);
  const handNode = r.rightHand.getTransformNode()!;
  const handWorld = handNode.computeWorldMatrix(true);
  const handScale = new Vector3();
  const handRotation = new Quaternion();
  handWorld.decompose(handScale, handRotation, new Vector3());
  const rightTarget = new TransformNode("rightTarget", m.scene);
  rightTarget.position.copyFrom(
    atAnimated
      ? worldPos(r.rightHand)
      : chest
          .add(forward.scale(0.22 * h))
          .add(up.scale(-0.12 * h))
          .add(side.scale(0.04 * h)),
  );
  rightTarget.rotationQuaternion = handRotation.clone();
  rightTarget.computeWorldMatrix(true);
  // the rifle along the character's forward, held at the right hand's target
  const rifleWorld = Matrix.Compose(
    Vector3.One(),
    Quaternion.FromLookDirectionLH(forward, up),
    rightTarget.position.add(side.scale(-0.02 * h)),
  );
  const parentWorld = byTarget
    ? rightTarget.getWorldMatrix()
    : Matrix.Compose(handScale, handRotation, rightTarget.position);
  const local = rifleWorld.multiply(parentWorld.clone().invert());
  const rifleNode = new TransformNode("rifle", m.scene);
  rifleNode.parent = byTarget ? rightTarget : handNode;
  rifleNode.rotationQuaternion = new Quaternion();
  local.decompose(rifleNode.scaling, rifleNode.rotationQuaternion, rifleNode.position);
  const grip = new TransformNode("grip", m.scene);
  grip.parent = rifleNode;
  grip.position.set(-0.05 * h, -0.02 * h, 0.2 * h);
  const s = ik.solver;
  s.rightHandEffector.target = rightTarget;
  s.rightHandEffector.positionWeight = 1;
  s.rightHandEffector.rotationWeight = 1;
  s.leftHandEffector.target = grip;
  s.leftHandEffector.positionWeight = 1;
  const body = new TransformNode("bodyTarget", m.scene);
  body.position.copyFrom(
    worldPos(r.pelvis)
      .add(up.scale(-0.08 * h))
      .add(forward.scale(0.05 * h)),
  );
  s.bodyEffector.target = body;
  s.bodyEffector.positionWeight = 1;
  return { m, ik, h, grip, rightTarget };
}

/**
 * Over `frames` frames after 10: the left hand's largest distance from its target and turn from its
 * rotation, the right hand's from its target, and (with `reference`) the largest distance of a bone from
 * the reference character's (fractions of the height, degrees).
 */
function worstMiss(
  x: Rifle,
  frames: number,
  reference: Rifle | null = null,
): { left: number; right: number; degrees: number; body: number } {
  const out = { left: 0, right: 0, degrees: 0, body: 0 };
  const handNode = x.ik.references.leftHand.getTransformNode()!;
  for (let f = 0; f < 10 + frames; f++) {
    x.m.scene.render();
    reference?.m.scene.render();
    if (f < 10) continue;
    const hand = worldPos(x.ik.references.leftHand);
    out.left = Math.max(out.left, Vector3.Distance(hand, nodePos(x.grip)) / x.h);
    const right = Vector3.Distance(worldPos(x.ik.references.rightHand), nodePos(x.rightTarget)) / x.h;
    out.right = Math.max(out.right, right);
    const dot = Math.abs(Quaternion.Dot(handNode.absoluteRotationQuaternion, x.grip.absoluteRotationQuaternion));
    out.degrees = Math.max(out.degrees, (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI);
    if (reference === null) continue;
    x.m.skeleton.bones.forEach((b, i) => {
      const d = Vector3.Distance(worldPos(b), worldPos(reference.m.skeleton.bones[i]!)) / x.h;
      out.body = Math.max(out.body, d);
    });
  }
  return out;
}

describe("an effector target under the character's own bones", () => {
  for (const name of ["Xbot", "UAL"] as const) {
    it.skipIf(!modelAvailable(name))(
      `${name}: a left hand on the grip of a rifle held by the right hand, and on the hip, lands there`,
      async () => {
        // the reference: the rifle hung from the right hand's target, where the right hand ends
        const x = await rifle(name, false);
        const reference = await rifle(name, true);
        x.ik.solver.leftHandEffector.rotationWeight = 1;
        reference.ik.solver.leftHandEffector.rotationWeight = 1;
        const miss = worstMiss(x, 20, reference);
        console.log(
          `${name} rifle in the right hand: left hand ${(miss.left * 100).toExponential(2)} % of h off the grip ` +
            `(${miss.degrees.toExponential(2)}°), right hand ${(miss.right * 100).toExponential(2)} % off its ` +
            `target, bones ${(miss.body * 100).toExponential(2)} % from the rifle hung from the target`,
        );
        // was 29 % (Xbot) and 35 % (UAL): the grip read where the animation held the right hand; without the
        // grip placed where the last solve left the hand before the solve, the body leant toward the old place
        // (12 and 13 % of h from the reference)
        expect(miss.left).toBeLessThan(5e-4);
        expect(miss.degrees).toBeLessThan(0.05);
        expect(miss.right).toBeLessThan(1e-4);
        expect(miss.body).toBeLessThan(5e-4);
        // a hand on the character's own hip, the body pushed down and forward (was 14 % and 25 % of h off)
        const s = x.ik.solver;
        const r = x.ik.references;
        s.rightHandEffector.positionWeight = 0;
        s.rightHandEffector.rotationWeight = 0;
        s.leftHandEffector.rotationWeight = 0;
        const hip = new TransformNode("hip", x.m.scene);
        hip.parent = r.pelvis.getTransformNode()!;
        const side = worldPos(r.leftThigh).subtract(worldPos(r.pelvis)).normalize();
        hip.setAbsolutePosition(
          worldPos(r.leftThigh)
            .add(side.scale(0.08 * x.h))
            .add(new Vector3(0, 0.06 * x.h, 0)),
        );
        s.leftHandEffector.target = hip;
        x.grip = hip;
        const onHip = worstMiss(x, 10);
        console.log(`${name} hand on the hip: ${(onHip.left * 100).toExponential(2)} % of h off`);
        expect(onHip.left).toBeLessThan(5e-4);
      },
    );
  }
});
