/** The character's meshes' extent (their bounding boxes in the spawn pose), for framing and clearances. */
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Character } from "../kit";

/** The farthest any mesh's bounding box reaches along `dir` (world, from the origin). */
export function meshExtent(c: Character, dir: Vector3): number {
  let best = -Infinity;
  for (const m of c.meshes) {
    // the world box is refreshed with the world matrix; a mesh not yet rendered has a stale one
    m.computeWorldMatrix(true);
    for (const v of m.getBoundingInfo().boundingBox.vectorsWorld) best = Math.max(best, Vector3.Dot(v, dir));
  }
  return best;
}

/** The character's height for framing: its joints' extent or its meshes' top (a chibi's head), the larger. */
export function frameHeight(c: Character): number {
  return Math.max(c.h, meshExtent(c, Vector3.Up()));
}
