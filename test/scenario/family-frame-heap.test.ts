/**
 * A frame of several IKs of the family in one scene allocates nothing once warm: a rider's FullBodyBipedIK with
 * a hand on a rein its mount holds, the mount's LookAtIK and LimbIK moving that hand (so every IK looks for the
 * IKs it hangs from: babylon/solve-order.ts); colliders on moving nodes (a ball a tail swings round, a pillar
 * a hand stays out of) and on nodes under bones (a shield in a hand, a spike on the tail); two LimbIK legs at weight
 * 0 run after both, whose code V8 then compiles differently. In a fresh module graph (vitest.config.ts, HEAP): garbage
 * left by earlier files would be collected during the loop and counted as this one's.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { expect, it } from "vitest";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { BoneCollider } from "../../src/babylon/bone-collider.js";
import { CCDIK } from "../../src/babylon/chain-ik.js";
import { FBBIKColliders } from "../../src/babylon/fbbik-colliders.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { movingDeckBytes, weightlessLegsBesideDeck } from "../helpers/moving-deck.js";
import { height, worldPos } from "../helpers/scene-probes.js";
import { buildTail } from "../helpers/tail-rig.js";

it("a rider's hand on a rein held by its mount's LimbIK, under the mount's LookAtIK: 0 B a frame", async () => {
  const m = await loadModel("Mannequin");
  const twin = m.container.instantiateModelsToScene((n) => `rider_${n}`, false, { doNotInstantiate: true });
  const rider = FullBodyBipedIK.create(m.scene, twin.skeletons[0]!);
  const r = resolveBipedReferences(m.skeleton).references;
  LookAtIK.create(m.scene, { spine: r.spine, head: r.head! });
  const arm = LimbIK.create(m.scene, r.rightUpperArm, r.rightForearm, r.rightHand);
  m.scene.render();
  const rein = new TransformNode("rein", m.scene);
  rein.parent = r.rightHand.getTransformNode()!;
  const rr = rider.references;
  rein.setAbsolutePosition(Vector3.Lerp(worldPos(rr.rightHand), worldPos(rr.rightUpperArm), 0.3));
  rider.solver.rightHandEffector.target = rein;
  rider.solver.rightHandEffector.positionWeight = 1;
  // the places made beforehand: a double handed to Babylon's setters may be boxed
  const grip = worldPos(r.rightHand);
  const places = Array.from({ length: 16 }, (_, i) => grip.add(new Vector3(0, Math.sin(i), Math.cos(i)).scale(0.05)));
  const frame = (f: number): void => {
    arm.targetPosition.copyFrom(places[f % 16]!);
    renderWithoutDrawing(m.scene);
  };
  const least = bytesPerFrame(frame, 10_000);
  // the rider's effector wrote its target's rotation through Quaternion.set, which V8 did not inline in this
  // scene: four boxed doubles, 64 B a frame
  console.log(`family frame heap: ${least.toFixed(2)} B a frame`);
  // printed with the failure (npm test prints a failing test's output): where the bytes come from
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(least).toBeLessThan(1);
  m.dispose();
});

it("a tail round a moving ball node, a hand out of a moving pillar node, nodes under bones: 0 B a frame", async () => {
  const m = await loadModel("Mannequin");
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const h = height(m);
  const r = ik.references;
  const pillar = new TransformNode("pillar", m.scene);
  const at = Vector3.Lerp(worldPos(r.leftUpperArm), worldPos(r.leftHand), 0.6);
  // a shield under the right hand: placed from the solved hand, the left hand kept out of it
  const shield = new TransformNode("shield", m.scene);
  shield.parent = r.rightHand.getTransformNode()!;
  shield.position.set(0, 0.1, 0);
  FBBIKColliders.create(ik, {
    colliders: [
      BoneCollider.capsule(pillar, new Vector3(0, -0.3 * h, 0), new Vector3(0, 0.3 * h, 0), 0.05 * h),
      BoneCollider.sphere(shield, 0.1),
    ],
    clearance: 0.01 * h,
  });
  ik.solver.leftHandEffector.position.copyFrom(at);
  ik.solver.leftHandEffector.positionWeight = 1;
  const tail = buildTail({ count: 24 });
  const ball = new TransformNode("ball", tail.scene);
  const target = new TransformNode("target", tail.scene);
  // a spike under a tail segment: carried by the segment's pose in each sub-step
  const spike = new TransformNode("spike", tail.scene);
  spike.attachToBone(tail.bones[12]!, tail.mesh);
  spike.position.set(0.15, 0, 0);
  const ccd = CCDIK.create(tail.scene, tail.bones, {
    target,
    colliders: [BoneCollider.sphere(ball, 0.25), BoneCollider.sphere(spike, 0.03)],
  });
  ccd.solver.subSteps = 4;
  ccd.solver.colliderRadius = 0.02;
  // the places made beforehand: a double handed to Babylon's setters may be boxed
  const ring = (k: number, radius: number, y: number) =>
    Array.from({ length: 16 }, (_, i) => new Vector3(radius * Math.cos(k * i), y, radius * Math.sin(k * i)));
  const balls = ring(0.2, 0.45, 1.2);
  const targets = ring(0.4, 0.9, 1.3);
  const pillars = Array.from({ length: 16 }, (_, i) => at.add(new Vector3(0.01 * h * Math.sin(i), 0, 0)));
  const frame = (f: number): void => {
    ball.position.copyFrom(balls[f % 16]!);
    target.position.copyFrom(targets[f % 16]!);
    pillar.position.copyFrom(pillars[f % 16]!);
    renderWithoutDrawing(m.scene);
    renderWithoutDrawing(tail.scene);
  };
  const least = bytesPerFrame(frame, 10_000);
  console.log(`node colliders frame heap: ${least.toFixed(2)} B a frame`);
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(ccd.warningsRaised).toEqual([]);
  expect(least).toBeLessThan(1);
  tail.dispose();
  m.dispose();
});

it("two LimbIK legs at weight 0 beside a moving deck, after the scenes above: 0 B a frame", async () => {
  const m = await loadModel("Mannequin");
  const { deck, h } = weightlessLegsBesideDeck(m);
  m.scene.render();
  // 40 B while the scene updater's followFrameGraph held the frame graph's observer as an arrow: V8 made that
  // function's context on every call it ran unoptimised or uninlined (after the scenes above, not alone)
  const least = await movingDeckBytes(
    m.scene,
    deck,
    "limb legs",
    new Vector3(h, 0, 0),
    0.05 * h,
    new Vector3(1, 0, 1),
    0.1,
  );
  expect(least).toBeLessThan(1);
  m.dispose();
});
