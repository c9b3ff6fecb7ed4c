import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import type { FloatArray } from "@babylonjs/core/types.js";

/** Index and weight buffers, four influences each (the extra pair holds influences 5–8). */
const INFLUENCES = [
  [VertexBuffer.MatricesIndicesKind, VertexBuffer.MatricesWeightsKind],
  [VertexBuffer.MatricesIndicesExtraKind, VertexBuffer.MatricesWeightsExtraKind],
] as const;

/**
 * The bones of `skeleton` that move some vertex: weighted to by a mesh the skeleton skins, or holding a mesh
 * as a rigid part (an unskinned mesh below the bone or its node, as RobotExpressive's limbs and `attachToBone`).
 * Null when no mesh is skinned by the skeleton or hangs from its bones (a skeleton alone says nothing of what
 * deforms). Read once, when references are detected.
 */
export function deformingBones(skeleton: Skeleton): Set<Bone> | null {
  // a vertex's bone index is the joint index Babylon writes the bone's matrix at (Bone.getIndex)
  const byJoint: Bone[] = [];
  const byNode = new Map<unknown, Bone>();
  for (const bone of skeleton.bones) {
    const j = bone.getIndex();
    if (j >= 0) byJoint[j] = bone;
    byNode.set(bone, bone);
    const node = bone.getTransformNode();
    if (node !== null) byNode.set(node, bone);
  }
  let moving: Set<Bone> | null = null;
  for (const mesh of skeleton.getScene().meshes) {
    // the nearest bone above a rigid part carries it (nodes between, as a glTF node's primitives, passed over)
    let holder: Bone | undefined;
    for (let p = mesh.parent; p !== null && holder === undefined; p = p.parent) holder = byNode.get(p);
    if (holder !== undefined && mesh.skeleton === null && mesh.getTotalVertices() > 0)
      (moving ??= new Set<Bone>()).add(holder);
    if (mesh.skeleton !== skeleton) continue;
    for (const [indicesKind, weightsKind] of INFLUENCES) {
      const indices: FloatArray | null = mesh.getVerticesData(indicesKind);
      const weights: FloatArray | null = mesh.getVerticesData(weightsKind);
      if (indices === null || weights === null) continue;
      moving ??= new Set<Bone>();
      const n = Math.min(indices.length, weights.length);
      for (let i = 0; i < n; i++) {
        if (!(weights[i]! > 0)) continue;
        const bone = byJoint[indices[i]!];
        if (bone !== undefined) moving.add(bone);
      }
    }
  }
  return moving;
}
