/**
 * An interaction whose target hangs from the character's own bones (a pistol in a holster on the hip or the
 * thigh): read before the solve it stands where the animation has that bone, and the body effector or the
 * grounder then moves the bone. The hand must land where the holster is shown after the solve. h = height.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { GroundingQuality, type GroundingHit } from "../../src/effectors/grounding/grounding-common.js";
import { InteractionCurveType } from "../../src/effectors/interaction/interaction-curves.js";
import { InteractionObject } from "../../src/effectors/interaction/interaction-object.js";
import { InteractionSystem } from "../../src/effectors/interaction/interaction-system.js";
import { Curve } from "../../src/math/curve.js";
import type { ReadonlyVec3 } from "../../src/math/vec3.js";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones.js";
import { type LoadedModel, type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { height, nodePos, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

const { LeftHand, RightHand } = FullBodyBipedEffector;

interface Holster {
  m: LoadedModel;
  ik: FullBodyBipedIK;
  system: InteractionSystem;
  h: number;
  node: TransformNode;
}

/** The character's forward: across the thighs, toward the toes. */
function forwardOf(ik: FullBodyBipedIK): Vector3 {
  const r = ik.references;
  const forward = Vector3.Cross(worldPos(r.rightThigh).subtract(worldPos(r.leftThigh)), Vector3.Up()).normalize();
  const toe = r.leftFoot.getTransformNode()!.getChildren()[0] as TransformNode | undefined;
  if (toe !== undefined && Vector3.Dot(nodePos(toe).subtract(worldPos(r.leftFoot)), forward) < 0)
    forward.scaleInPlace(-1);
  return forward;
}

/**
 * The character (Xbot playing its idle unless `still`) with a holster beside the left hip, under the pelvis, or on
 * the front of the left thigh, under the thigh; the holster turned as the left hand is.
 */
async function holster(name: ModelName, on: "pelvis" | "thigh", still = false): Promise<Holster> {
  const m = await loadModel(name, { clips: (c) => c === "idle" && !still });
  open.push(m);
  m.container.animationGroups.find((g) => g.name === "idle")?.start(true);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  const h = height(m);
  const r = ik.references;
  const outward = worldPos(r.leftThigh).subtract(worldPos(r.rightThigh)).normalize();
  const node = new TransformNode("holster", m.scene);
  const parent = (on === "pelvis" ? r.pelvis : r.leftThigh).getTransformNode()!;
  node.parent = parent;
  const knee = worldPos(r.leftCalf);
  const place =
    on === "pelvis"
      ? worldPos(r.leftThigh)
          .add(outward.scale(0.07 * h))
          .add(new Vector3(0, 0.06 * h, 0))
      : Vector3.Lerp(worldPos(r.leftThigh), knee, 0.12)
          .add(outward.scale(0.04 * h))
          .add(forwardOf(ik).scale(0.04 * h));
  // within 0.85 of the arm's length from the shoulder (RiggedFigure's arms end above its thigh)
  const shoulder = worldPos(r.leftUpperArm);
  const arm =
    Vector3.Distance(shoulder, worldPos(r.leftForearm)) +
    Vector3.Distance(worldPos(r.leftForearm), worldPos(r.leftHand));
  const toPlace = place.subtract(shoulder);
  node.setAbsolutePosition(shoulder.add(toPlace.scale(Math.min(1, (0.85 * arm) / toPlace.length()))));
  const hand = r.leftHand.getTransformNode()!;
  hand.computeWorldMatrix(true);
  const parentRotation = Quaternion.Inverse(parent.absoluteRotationQuaternion);
  node.rotationQuaternion = parentRotation.multiply(hand.absoluteRotationQuaternion);
  node.computeWorldMatrix(true);
  return { m, ik, system: new InteractionSystem(ik), h, node };
}

/** A reach to full weight (position and rotation) at 0.4 s, a pause at 0.5 s. */
function draw(node: TransformNode, pickUp = false): InteractionObject {
  const reach = Curve.linear(0, 0, 0.4, 1);
  return new InteractionObject(node, {
    weightCurves: [
      { type: InteractionCurveType.PositionWeight, curve: reach },
      { type: InteractionCurveType.RotationWeight, curve: reach },
    ],
    events: [{ time: 0.5, pause: true, pickUp }],
  });
}

/** The body effector 0.1 h down and 0.1 h forward of the animated pelvis, every frame. */
function pushBody(x: Holster): void {
  const forward = forwardOf(x.ik);
  const body = x.ik.solver.bodyEffector;
  body.positionWeight = 0;
  const shift = forward.scale(0.1 * x.h).add(new Vector3(0, -0.1 * x.h, 0));
  x.m.scene.onBeforeRenderObservable.add(() => body.positionOffset.addInPlace(shift));
}

/** Flat ground 0.08 h below the character's root: the grounder lowers the pelvis and the feet onto it. */
function lowGround(x: Holster): GrounderFBBIK {
  const y = x.ik.rig.characterRoot!.getAbsolutePosition().y - 0.08 * x.h;
  const raycast = (origin: ReadonlyVec3, direction: ReadonlyVec3, maxDistance: number, out: GroundingHit) => {
    if (!(direction.y < 0) || origin.y < y) return false;
    const d = (origin.y - y) / -direction.y;
    if (d > maxDistance) return false;
    out.distance = d;
    out.point.x = origin.x + direction.x * d;
    out.point.y = y;
    out.point.z = origin.z + direction.z * d;
    out.normal.x = 0;
    out.normal.y = 1;
    out.normal.z = 0;
    return true;
  };
  return new GrounderFBBIK(x.ik, { raycast, quality: GroundingQuality.Fastest });
}

/** Over 30 frames of the pause: the left hand's largest distance from the holster (h) and turn from it (°). */
function missAtPause(x: Holster): { distance: number; degrees: number } {
  const r = x.ik.references;
  const hand = r.leftHand.getTransformNode()!;
  let frames = 0;
  while (!x.system.isPaused(LeftHand) && frames++ < 120) x.m.scene.render();
  expect(x.system.isPaused(LeftHand)).toBe(true);
  const out = { distance: 0, degrees: 0 };
  for (let f = 0; f < 30; f++) {
    x.m.scene.render();
    out.distance = Math.max(out.distance, Vector3.Distance(worldPos(r.leftHand), nodePos(x.node)) / x.h);
    const dot = Math.abs(Quaternion.Dot(hand.absoluteRotationQuaternion, x.node.absoluteRotationQuaternion));
    out.degrees = Math.max(out.degrees, (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI);
  }
  return out;
}

const MODELS: ModelName[] = ["Xbot", "Superhero", "RiggedFigure"];

describe("an interaction target under the character's own bones", () => {
  for (const name of MODELS) {
    it.skipIf(!modelAvailable(name))(
      `${name}: a hand drawing from a holster on the hip or the thigh lands on it with the body moved or grounded`,
      async () => {
        let distance = 0;
        let degrees = 0;
        for (const on of ["pelvis", "thigh"] as const) {
          for (const drive of ["body", "grounder"] as const) {
            const x = await holster(name, on);
            const grounder = drive === "grounder" ? lowGround(x) : null;
            if (drive === "body") pushBody(x);
            x.system.startInteraction(LeftHand, draw(x.node), false);
            const miss = missAtPause(x);
            console.log(
              `${name} holster on the ${on}, ${drive}: hand ${miss.distance.toExponential(2)} h off, ` +
                `${miss.degrees.toExponential(2)}°`,
            );
            distance = Math.max(distance, miss.distance);
            degrees = Math.max(degrees, miss.degrees);
            grounder?.dispose();
          }
        }
        // was 0.10 to 0.11 h off with the body moved 0.14 h, 0.08 h with the grounder (up to 12°)
        expect(distance).toBeLessThan(1e-6);
        expect(degrees).toBeLessThan(0.05);
      },
    );
  }
});

describe("an effector target under the character's own bones, with the grounder", () => {
  for (const name of MODELS) {
    it.skipIf(!modelAvailable(name))(
      `${name}: a hand on a holster lands on it where the grounder lowered the pelvis`,
      async () => {
        let worst = 0;
        for (const on of ["pelvis", "thigh"] as const) {
          const x = await holster(name, on);
          const grounder = lowGround(x);
          const e = x.ik.solver.leftHandEffector;
          e.target = x.node;
          e.positionWeight = 1;
          e.rotationWeight = 1;
          let miss = 0;
          for (let f = 0; f < 60; f++) {
            x.m.scene.render();
            if (f >= 30)
              miss = Math.max(miss, Vector3.Distance(worldPos(x.ik.references.leftHand), nodePos(x.node)) / x.h);
          }
          console.log(`${name} hand on a holster on the ${on}, grounder: ${miss.toExponential(2)} h off`);
          worst = Math.max(worst, miss);
          grounder.dispose();
        }
        // was 0.08 h: the target taken relative to the pelvis the grounder had lowered in the rig, not in Babylon
        expect(worst).toBeLessThan(1e-6);
      },
    );
  }
});

describe("picking up from a holster under the character's own bones", () => {
  for (const name of MODELS) {
    it.skipIf(!modelAvailable(name))(
      `${name}: the pistol leaves the holster where the holster is shown, and the hand keeps it there`,
      async () => {
        let jump = 0;
        let after = 0;
        for (const drive of ["body", "grounder"] as const) {
          // still: anything that moves the pistol after the pick-up is the pick-up's doing
          const x = await holster(name, "pelvis", true);
          const grounder = drive === "grounder" ? lowGround(x) : null;
          if (drive === "body") pushBody(x);
          const pistol = new TransformNode("pistol", x.m.scene);
          pistol.parent = x.node;
          pistol.rotationQuaternion = Quaternion.Identity();
          x.system.startInteraction(LeftHand, draw(pistol, true), false);
          let frames = 0;
          while (!x.system.isPaused(LeftHand) && frames++ < 120) x.m.scene.render();
          const hand = x.ik.references.leftHand.getTransformNode();
          expect(pistol.parent).toBe(hand);
          // taken from the holster: where the holster is now
          const out = Vector3.Distance(nodePos(pistol), nodePos(x.node)) / x.h;
          let last = nodePos(pistol);
          let moved = 0;
          for (let f = 0; f < 30; f++) {
            x.m.scene.render();
            const now = nodePos(pistol);
            moved = Math.max(moved, Vector3.Distance(now, last) / x.h);
            last = now;
          }
          console.log(
            `${name} pick-up from the hip, ${drive}: the pistol ${out.toExponential(2)} h from the holster at the ` +
              `pick-up, moving ${moved.toExponential(2)} h a frame after`,
          );
          jump = Math.max(jump, out);
          after = Math.max(after, moved);
          grounder?.dispose();
        }
        // was 0.07 to 0.11 h: the pick-up pose where the animation had the holster, the hand then went there
        expect(jump).toBeLessThan(1e-6);
        expect(after).toBeLessThan(1e-6);
      },
    );
  }
});

describe("an object the other hand holds", () => {
  for (const name of ["Mannequin", "Superhero"] as const) {
    it.skipIf(!modelAvailable(name))(
      `${name}: the reaching hand is on it in the frame the holding hand moves, not a frame behind`,
      async () => {
        const m = await loadModel(name);
        open.push(m);
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
        m.scene.render();
        const h = height(m);
        const system = new InteractionSystem(ik);
        const r = ik.references;
        const forward = forwardOf(ik);
        const side = worldPos(r.rightUpperArm).subtract(worldPos(r.leftUpperArm)).normalize();
        const mid = worldPos(r.leftUpperArm).add(worldPos(r.rightUpperArm)).scale(0.5);
        const ball = new TransformNode("ball", m.scene);
        ball.position.copyFrom(mid.add(forward.scale(0.25 * h)).add(new Vector3(0, -0.12 * h, 0)));
        const reach = Curve.linear(0, 0, 0.4, 1);
        const hold = () =>
          new InteractionObject(ball, {
            weightCurves: [{ type: InteractionCurveType.PositionWeight, curve: reach }],
            events: [{ time: 0.5, pickUp: true, pause: true }],
          });
        system.startInteraction(RightHand, hold(), false);
        for (let f = 0; f < 40; f++) m.scene.render();
        expect(ball.parent).toBe(r.rightHand.getTransformNode());
        // the right hand sways from side to side (about its pick-up place) while the left reaches for the ball
        let t = 0;
        const right = ik.solver.rightHandEffector;
        system.onPostInteractionUpdateObservable.add(() => {
          t += 1;
          right.position.addInPlace(side.scale(0.06 * h * Math.sin(t * 0.2)));
        });
        system.startInteraction(LeftHand, hold(), false);
        const ie = system.getInteractionEffector(LeftHand);
        let worst = 0;
        let moved = 0;
        let last = nodePos(ball);
        let samples = 0;
        for (let f = 0; f < 40 && !ie.pickedUp; f++) {
          m.scene.render();
          const now = nodePos(ball);
          moved = Math.max(moved, Vector3.Distance(now, last) / h);
          last = now;
          if (ie.weight < 1 || ie.timer < 0.4) continue;
          samples++;
          worst = Math.max(worst, Vector3.Distance(worldPos(r.leftHand), now) / h);
        }
        console.log(
          `${name}: the left hand at most ${worst.toExponential(2)} h off the ball over ${samples} frames, the ball ` +
            `moving up to ${moved.toExponential(2)} h a frame`,
        );
        expect(samples).toBeGreaterThan(2);
        expect(moved).toBeGreaterThan(1e-3);
        // was 1.2e-2 h, a frame of the ball's motion: read where the holding hand was shown the frame before
        expect(worst).toBeLessThan(1e-6);
      },
    );
  }
});
