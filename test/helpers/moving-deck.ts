/**
 * The grounders' heap tests' frame: a deck that rises, sinks and tilts every frame under the characters, its poses
 * made beforehand (a double handed to Babylon's setters may be boxed), and the bytes such a frame leaves.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import type { LoadedModel } from "./babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "./frame-heap.js";
import { height } from "./scene-probes.js";

/** A biped's two LimbIK legs at weight 0 and an 8 h deck at x = h beside it: the start of the legs' heap tests. */
export function weightlessLegsBesideDeck(m: LoadedModel): { legs: LimbIK[]; deck: Mesh; h: number; pelvis: Bone } {
  const scene = m.scene;
  const h = height(m);
  const r = resolveBipedReferences(m.skeleton).references;
  const legs = [
    LimbIK.create(scene, r.leftThigh, r.leftCalf, r.leftFoot),
    LimbIK.create(scene, r.rightThigh, r.rightCalf, r.rightFoot),
  ];
  for (const leg of legs) leg.solver.ikPositionWeight = leg.solver.ikRotationWeight = 0;
  const deck = CreateGround("deck", { width: 8 * h, height: 8 * h }, scene);
  deck.position.x = h;
  deck.rotationQuaternion = new Quaternion();
  return { legs, deck, h, pelvis: r.pelvis };
}

/**
 * The least bytes a frame of `scene` leaves over 10,000 frames while `deck` rises and sinks by `rise` over `at` and
 * tilts by `tilt` radians about `axis`; printed with `label`, and where they come from when there are any.
 */
export async function movingDeckBytes(
  scene: Scene,
  deck: Mesh,
  label: string,
  at: Vector3,
  rise: number,
  axis: Vector3,
  tilt: number,
): Promise<number> {
  deck.rotationQuaternion ??= new Quaternion();
  const heights = Array.from({ length: 64 }, (_, i) => new Vector3(at.x, at.y + Math.sin(i / 10) * rise, at.z));
  const tilts = Array.from({ length: 64 }, (_, i) => Quaternion.RotationAxis(axis, tilt * Math.sin(i / 7)));
  const frame = (f: number): void => {
    deck.position.copyFrom(heights[f % 64]!);
    deck.rotationQuaternion!.copyFrom(tilts[f % 64]!);
    renderWithoutDrawing(scene);
  };
  const least = bytesPerFrame(frame, 10_000);
  console.log(`${label} frame heap: ${least.toFixed(2)} B a frame`);
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  return least;
}
