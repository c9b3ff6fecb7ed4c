/**
 * Reading world transforms of a loaded model in scenario tests: bone and node world positions (forcing
 * the world matrix, so a probe never sees last frame's cache) and the character's height for tolerances.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { LoadedModel } from "./babylon-scene.js";

/** World position of a glTF bone (through its linked TransformNode), as a fresh Vector3. */
export function worldPos(bone: Bone): Vector3 {
  return nodePos(bone.getTransformNode()!);
}

/** World position of a node, as a fresh Vector3. */
export function nodePos(n: TransformNode): Vector3 {
  n.computeWorldMatrix(true);
  return n.getAbsolutePosition().clone();
}

/** Joint extent along world y (max − min over the skeleton): the character's height for tolerances. */
export function height(m: LoadedModel): number {
  let lo = Infinity;
  let hi = -Infinity;
  for (const b of m.skeleton.bones) {
    const y = worldPos(b).y;
    lo = Math.min(lo, y);
    hi = Math.max(hi, y);
  }
  return hi - lo;
}

/** The bone and every bone under it. */
export function subtree(root: Bone): Bone[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...out[i]!.getChildren());
  return out;
}
