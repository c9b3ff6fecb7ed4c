/**
 * Fading the hooks' `enabled` allocates nothing once warm: a head effector, a grounder, an offset modifier and colliders on
 * one FullBodyBipedIK, switched off and on over enableFadeSeconds alone, reversed mid-fade, and with the IK (the
 * demo's switch). In a fresh module graph (vitest.config.ts, HEAP): garbage left by earlier files would be
 * collected during the loop and counted as this one's.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { expect, it } from "vitest";
import { BoneCollider } from "../../src/babylon/bone-collider.js";
import { FBBIKColliders } from "../../src/babylon/fbbik-colliders.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { FBBIKHeadEffector } from "../../src/effectors/head/fbbik-head-effector.js";
import { EffectorOffset } from "../../src/effectors/modifiers/effector-offset.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { height, worldPos } from "../helpers/scene-probes.js";

it("a head effector, a grounder, an offset modifier and colliders fading off and on, alone and with the IK: 0 B a frame", async () => {
  const m = await loadModel("Mannequin");
  const scene = m.scene;
  const h = height(m);
  const fade = { enableFadeSeconds: 0.3 };
  const ik = FullBodyBipedIK.create(scene, m.skeleton, fade);
  const ground = CreateGround("ground", { width: 10 * h, height: 10 * h }, scene);
  const grounder = GrounderFBBIK.create(ik, { raycast: StaticGroundRaycast.fromMeshes([ground]).raycast, ...fade });
  scene.render();
  const headset = new TransformNode("headset", scene);
  headset.position.copyFrom(worldPos(ik.references.head!).add(new Vector3(0, -0.1 * h, 0.05 * h)));
  headset.rotationQuaternion = Quaternion.Identity();
  const head = FBBIKHeadEffector.create(ik, { target: headset, ...fade });
  const offset = new EffectorOffset(ik, fade);
  offset.leftHandOffset.set(0, 0.1 * h, 0.1 * h);
  // the right hand's target inside a pillar: the colliders keep it out
  const pillar = new TransformNode("pillar", scene);
  const reach = worldPos(ik.references.rightHand).add(new Vector3(0, 0.04 * h, 0.06 * h));
  pillar.position.copyFrom(reach.add(new Vector3(0, 0, 0.04 * h)));
  ik.solver.rightHandEffector.position.copyFrom(reach);
  ik.solver.rightHandEffector.positionWeight = 1;
  const colliders = FBBIKColliders.create(ik, { colliders: [BoneCollider.sphere(pillar, 0.1 * h)], ...fade });
  const hooks = [head, grounder, offset, colliders];
  const all = [ik, ...hooks];
  const flip = (xs: { enabled: boolean }[]): void => {
    for (let i = 0; i < xs.length; i++) xs[i]!.enabled = !xs[i]!.enabled;
  };
  scene.render();
  // 0.3 s is 19 frames of 16 ms: the hooks off at 0, reversed at 8 and 12, on at 40; all with the IK at 60, 80
  const frame = (f: number): void => {
    const k = f % 100;
    if (k === 0 || k === 8 || k === 12 || k === 40) flip(hooks);
    if (k === 60 || k === 80) flip(all);
    renderWithoutDrawing(scene);
  };
  // the schedule goes through every state: fading (alone, with the IK), settled on, settled off
  const seen = new Set<string>();
  for (let f = 0; f < 100; f++) {
    frame(f);
    seen.add(`${ik.isFading}/${hooks.map((x) => x.isFading).join("/")}`);
  }
  expect([...seen].sort()).toEqual([
    "false/false/false/false/false",
    "false/true/true/true/true",
    "true/false/false/false/false",
    "true/true/true/true/true",
  ]);
  const least = bytesPerFrame(frame, 10_000);
  console.log(`hook fade frame heap: ${least.toFixed(2)} B a frame`);
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(ik.warningsRaised.filter((w) => !w.cause.startsWith("straight"))).toEqual([]);
  expect(least).toBeLessThan(1);
  m.dispose();
});
