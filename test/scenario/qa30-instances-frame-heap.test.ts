/**
 * A character drawn only by instances of its skinned meshes (`createInstance`) allocates nothing a frame once warm:
 * UAL's `__root__` disabled (the original kept as a template) with instances under a moving node in view, a
 * FullBodyBipedIK under IKLevelOfDetail (levelled where the instances are) with a moving hand target, and a twin's
 * LimbIK likewise drawn by instances only. Each frame runs RigVisibility's test with the root disabled (its check for
 * meshes added, the meshes outside the root) and the level of detail's look at each instance, also with the sources
 * given a null LOD level (each instance read against it at its place, drawn and not). In a fresh module graph
 * (vitest.config.ts, HEAP).
 */
import "@babylonjs/core/Meshes/instancedMesh.js";
import type { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { expect, it } from "vitest";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { height, worldPos } from "../helpers/scene-probes.js";

it("a character drawn by its instances alone, its root disabled, levelled where they are: 0 B a frame", async () => {
  const m = await loadModel("UAL", { clips: (c) => c === "Idle_Loop" });
  const scene = m.scene;
  const h = height(m);
  const twin = m.container.instantiateModelsToScene((n) => `twin_${n}`, false, { doNotInstantiate: true });
  const twinRoot = twin.rootNodes[0] as TransformNode;
  const holder = new TransformNode("holder", scene);
  holder.position.set(20, 0, 0);
  const instance = (skeleton: Skeleton, x: number): void => {
    for (const s of scene.meshes.filter((x) => x.skeleton === skeleton && x.getTotalVertices() > 0) as Mesh[]) {
      const i = s.createInstance(`instance of ${s.name}`);
      i.parent = holder;
      i.position.x = x;
    }
  };
  instance(m.skeleton, 0);
  instance(twin.skeletons[0]!, 1);
  const ik = FullBodyBipedIK.create(scene, m.skeleton);
  const lod = IKLevelOfDetail.for(scene);
  lod.budgetMs = Number.POSITIVE_INFINITY;
  const r = resolveBipedReferences(twin.skeletons[0]!).references;
  const arm = LimbIK.create(scene, r.leftUpperArm, r.leftForearm, r.leftHand);
  scene.render();
  const hand = ik.solver.leftHandEffector;
  hand.positionWeight = 1;
  const reach = worldPos(ik.references.leftHand).add(new Vector3(0.1 * h, 0.3 * h, 0.1 * h));
  const grip = Vector3.Lerp(worldPos(r.leftHand), worldPos(r.leftUpperArm), 0.3);
  arm.solver.ikPositionWeight = 1;
  m.root.setEnabled(false);
  twinRoot.setEnabled(false);
  // the camera before the instances: the template is out of its view
  const camera = scene.activeCamera as FreeCamera;
  camera.position.set(20, 1, -4);
  camera.setTarget(new Vector3(20, 1, 0));
  // the places made beforehand: a double handed to Babylon's setters may be boxed
  const wobble = Array.from({ length: 16 }, (_, i) => new Vector3(0, Math.sin(i), Math.cos(i)).scale(0.02 * h));
  const targets = wobble.map((w) => reach.add(w));
  const grips = wobble.map((w) => grip.add(w));
  const holders = wobble.map((w) => new Vector3(20, 0, 0).add(w));
  const frame = (f: number): void => {
    hand.position.copyFrom(targets[f % 16]!);
    arm.targetPosition.copyFrom(grips[f % 16]!);
    holder.position.copyFrom(holders[f % 16]!);
    renderWithoutDrawing(scene);
  };
  for (let f = 0; f < 120; f++) frame(f);
  // the template is out of view, its instances in it: Full, and both IKs on their targets
  expect(lod.levelOf(ik)).toBe(IKLevel.Full);
  expect(Vector3.Distance(worldPos(ik.references.leftHand), targets[119 % 16]!) / h).toBeLessThan(1e-4);
  expect(Vector3.Distance(worldPos(r.leftHand), grips[119 % 16]!) / h).toBeLessThan(1e-4);
  const least = bytesPerFrame(frame, 10_000);
  console.log(`instances frame heap: ${least.toFixed(2)} B a frame`);
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(least).toBeLessThan(1);
  // the sources given a null level past 20 m: each instance is read at its place against them (Babylon's choice),
  // drawn at 4 m (levelled), none drawn at 30 m (Off)
  for (const s of scene.meshes.filter((x) => x.skeleton === m.skeleton && x.getClassName() === "Mesh") as Mesh[])
    if (s.getTotalVertices() > 0) s.addLODLevel(20, null);
  for (const [distance, level] of [
    [4, IKLevel.Full],
    [30, IKLevel.Off],
  ] as const) {
    camera.position.set(20, 1, -distance);
    for (let f = 0; f < 200; f++) frame(f);
    expect(lod.levelOf(ik)).toBe(level);
    const levelled = bytesPerFrame(frame, 10_000);
    console.log(`instances past a null LOD level at ${distance} m: ${levelled.toFixed(2)} B a frame`);
    if (levelled >= 1) console.log(await whereFramesAllocate(frame));
    expect(levelled).toBeLessThan(1);
  }
  m.dispose();
});
