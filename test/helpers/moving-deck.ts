/**
 * The grounders' heap tests' frame: a deck that rises, sinks and tilts every frame under the characters, its poses
 * made beforehand (a double handed to Babylon's setters may be boxed), and the bytes such a frame leaves.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "./frame-heap.js";

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
