/**
 * An FBBIK with everything hooked on it at once allocates nothing a frame once warm: a grounder on static
 * ground, a cup held by an interaction whose grip's pivot turns toward the hand every frame, the other hand on a
 * holster under the pelvis (the interaction's target followed through TargetAnchor), a head effector
 * on a moving headset, a hit reaction playing (effector and bone hit points) and a LookAtIK on the spine. In a
 * fresh module graph (vitest.config.ts, HEAP), a file of its own: which calls V8 inlines depends on what warmed
 * up first (after family-frame-heap's scene the grounder's and the hit reaction's clamps and angles, handed to
 * calls as doubles, cost 16 B a frame in one run of two).
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { Curve } from "../../src/math/curve.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { FBBIKHeadEffector } from "../../src/effectors/head/fbbik-head-effector.js";
import { InteractionCurveType } from "../../src/effectors/interaction/interaction-curves.js";
import { InteractionObject } from "../../src/effectors/interaction/interaction-object.js";
import { InteractionSystem } from "../../src/effectors/interaction/interaction-system.js";
import { InteractionTarget } from "../../src/effectors/interaction/interaction-target.js";
import { HitPointBone, HitPointEffector, HitReaction } from "../../src/effectors/modifiers/hit-reaction.js";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { height, worldPos } from "../helpers/scene-probes.js";

it("FBBIK (fitted elbows), grounder, a held cup with a turning pivot, a hand on a holster, head effector, hit reaction and a LookAtIK: 0 B a frame", async () => {
  const m = await loadModel("Mannequin");
  const scene = m.scene;
  const h = height(m);
  const ik = FullBodyBipedIK.create(scene, m.skeleton);
  // the fitted elbow side on both arms (the right hand's reach to the cup turns its elbow)
  ik.solver.leftArmChain.bendConstraint.naturalElbowWeight = 1;
  ik.solver.rightArmChain.bendConstraint.naturalElbowWeight = 1;
  const r = ik.references;
  const ground = CreateGround("ground", { width: 10 * h, height: 10 * h }, scene);
  GrounderFBBIK.create(ik, { raycast: StaticGroundRaycast.fromMeshes([ground]).raycast });
  const system = new InteractionSystem(ik);
  const look = LookAtIK.create(scene, { spine: r.spine, head: r.head! });
  scene.render();
  const headset = new TransformNode("headset", scene);
  headset.rotationQuaternion = Quaternion.Identity();
  FBBIKHeadEffector.create(ik, { target: headset });
  // a cup whose grip turns toward the hand every frame (rotateOnce false), held by curves that never end
  const cup = new TransformNode("cup", scene);
  cup.position.copyFrom(Vector3.Lerp(worldPos(r.rightHand), worldPos(r.rightUpperArm), 0.3));
  cup.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.3, 0.2, 0.1);
  const pivot = new TransformNode("pivot", scene);
  pivot.parent = cup;
  const grip = new TransformNode("grip", scene);
  grip.parent = pivot;
  grip.position.set(0.05 * h, 0.01, 0.02);
  const forever = (a: number, b: number) => Curve.linear(0, a, 1e9, b);
  const target = new InteractionTarget(FullBodyBipedEffector.RightHand, grip, {
    pivot,
    rotateOnce: false,
    swingWeight: 0.5,
  });
  const hold = new InteractionObject(cup, {
    targets: [target],
    weightCurves: [
      { type: InteractionCurveType.PositionWeight, curve: forever(0.3, 0.9) },
      { type: InteractionCurveType.RotationWeight, curve: forever(0.3, 0.9) },
    ],
  });
  expect(system.startInteraction(FullBodyBipedEffector.RightHand, hold, false)).toBe(true);
  // the left hand on a holster under the pelvis: its target follows the bone through the hand's TargetAnchor
  const holster = new TransformNode("holster", scene);
  holster.parent = r.pelvis.getTransformNode()!;
  holster.setAbsolutePosition(Vector3.Lerp(worldPos(r.leftThigh), worldPos(r.leftHand), 0.5));
  const draw = new InteractionObject(holster, {
    weightCurves: [
      { type: InteractionCurveType.PositionWeight, curve: forever(0.6, 0.9) },
      { type: InteractionCurveType.RotationWeight, curve: forever(0.3, 0.5) },
    ],
  });
  expect(system.startInteraction(FullBodyBipedEffector.LeftHand, draw, false)).toBe(true);
  const box = CreateBox("chest", { size: 0.2 * h }, scene);
  const chest = worldPos(r.spine.at(-1)!);
  box.position.copyFrom(chest);
  const hit = new HitReaction(ik, {
    effectorHitPoints: [
      new HitPointEffector({
        collider: box,
        crossFadeTime: 0,
        offsetInForceDirection: forever(0.3, 0.7),
        offsetInUpDirection: forever(0.3, 0.7),
        effectorLinks: [{ effector: FullBodyBipedEffector.Body, weight: 0.7 }],
      }),
    ],
    boneHitPoints: [
      new HitPointBone({
        collider: box,
        crossFadeTime: 0,
        aroundCenterOfMass: forever(3.3, 7.1),
        boneLinks: [{ bone: r.spine[0]!, weight: 0.75 }],
      }),
    ],
  });
  hit.hit(box, new Vector3(0.013, 0.001, 0.027), chest.add(new Vector3(0.01, 0.1 * h, 0)));
  const head = worldPos(r.head!);
  const places = Array.from({ length: 16 }, (_, i) =>
    head.add(new Vector3(Math.sin(i), 0, Math.cos(i)).scale(0.03 * h)),
  );
  const frame = (f: number): void => {
    headset.position.copyFrom(places[f % 16]!);
    look.targetPosition.copyFrom(places[(f + 5) % 16]!);
    renderWithoutDrawing(scene);
  };
  const least = bytesPerFrame(frame, 10_000);
  // the grip's pivot turned through Babylon's math: doubles handed to RotationAxisToRef, SlerpToRef, set,
  // setTranslationFromFloats and decompose's setters, 320 B a frame (0.02 B with them written out)
  console.log(`mixed frame heap: ${least.toFixed(2)} B a frame`);
  expect(hit.inProgress && system.getInteractionEffector(FullBodyBipedEffector.RightHand).inInteraction).toBe(true);
  expect(system.getInteractionEffector(FullBodyBipedEffector.LeftHand).inInteraction).toBe(true);
  expect(ik.solver.leftHandEffector._anchor!.bone).toBe(ik.rig.idOf(r.pelvis));
  expect(ik.warningsRaised.concat(look.warningsRaised)).toEqual([]);
  // printed with the failure (npm test prints a failing test's output): where the bytes come from
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(least).toBeLessThan(1);
  m.dispose();
});
