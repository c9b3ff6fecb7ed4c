/**
 * A bone's world pose and what hangs on it, whether Babylon links the bone to a TransformNode (glTF) or
 * animates the bone itself (a native .babylon skeleton, whose bones live in their skinned mesh's space).
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton";
import { Matrix, Quaternion, type Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { Node } from "@babylonjs/core/node";
import { boneWorldMatrixToRef } from "../../src/babylon/world-matrix";

/** What carries a bone's local pose: its linked node, or the bone itself (both have rotationQuaternion). */
export type Joint = TransformNode | Bone;

const skins = new WeakMap<Skeleton, AbstractMesh>();

/** The mesh the skeleton deforms (a bone-only skeleton's space in the world), or null if none does. */
export function skinOf(skeleton: Skeleton): AbstractMesh | null {
  let mesh = skins.get(skeleton);
  if (mesh === undefined) {
    mesh = skeleton.getScene().meshes.find((m) => m.skeleton === skeleton);
    if (mesh !== undefined) skins.set(skeleton, mesh);
  }
  return mesh ?? null;
}

/** A node's world matrix, its ancestors recomputed first (the parents' cached matrices may be stale). */
export function freshWorldMatrix(n: TransformNode): Matrix {
  const chain: TransformNode[] = [];
  let p: Node | null = n;
  while (p !== null) {
    if (p instanceof TransformNode) chain.push(p);
    p = p.parent;
  }
  let m: Matrix = n.getWorldMatrix();
  for (let i = chain.length - 1; i >= 0; i--) m = chain[i]!.computeWorldMatrix(true);
  return m;
}

/** The bone's world matrix now (its node's, or its absolute matrix in its skinned mesh's world), into `out`. */
export function boneWorldMatrix(bone: Bone, out = new Matrix()): Matrix {
  const node = bone.getTransformNode();
  if (node !== null) return out.copyFrom(freshWorldMatrix(node));
  const skin = skinOf(bone.getSkeleton());
  if (skin !== null) freshWorldMatrix(skin);
  return boneWorldMatrixToRef(bone, skin, out);
}

export function bonePos(bone: Bone): Vector3 {
  return boneWorldMatrix(bone).getTranslation();
}

/** The bone's world rotation as Babylon decomposes it (the convention of an effector's rotation and target). */
export function boneRotation(bone: Bone): Quaternion {
  const q = new Quaternion();
  boneWorldMatrix(bone).decompose(undefined, q);
  return q;
}

/** What carries the bone's local pose: the node a glTF links it to, else the bone. */
export function jointOf(bone: Bone): Joint {
  return bone.getTransformNode() ?? bone;
}

/** A copy of the joint's local rotation. */
export function localRotation(j: Joint): Quaternion {
  return j.rotationQuaternion?.clone() ?? Quaternion.FromEulerVector(j.rotation);
}

/** The world matrix of the space the bone's local pose is in: its node's parent, its parent bone, or its skin. */
export function parentWorldMatrix(bone: Bone): Matrix {
  const node = bone.getTransformNode();
  if (node !== null) return node.parent instanceof TransformNode ? freshWorldMatrix(node.parent) : Matrix.Identity();
  const parent = bone.getParent();
  if (parent !== null) return boneWorldMatrix(parent);
  const skin = skinOf(bone.getSkeleton());
  return skin !== null ? freshWorldMatrix(skin).clone() : Matrix.Identity();
}

/**
 * The frame a child hung on the bone follows (see {@link hangOnBone}): the linked node's world matrix, or
 * Babylon's `attachToBone` frame (the bone's final matrix in its skin's world).
 */
export function hangFrame(bone: Bone, out = new Matrix()): Matrix {
  const node = bone.getTransformNode();
  if (node !== null) return out.copyFrom(freshWorldMatrix(node));
  const skin = skinOf(bone.getSkeleton());
  bone.getSkeleton().prepare(true);
  if (skin === null) return out.copyFrom(bone.getFinalMatrix());
  return bone.getFinalMatrix().multiplyToRef(freshWorldMatrix(skin), out);
}

/**
 * Makes `child` follow the bone from now on, its world pose kept: parented to the linked node, or attached
 * to the bone (`attachToBone`) when the skeleton has no nodes.
 */
export function hangOnBone(child: TransformNode, bone: Bone): void {
  const node = bone.getTransformNode();
  if (node !== null) {
    freshWorldMatrix(node);
    child.setParent(node);
    return;
  }
  const world = freshWorldMatrix(child).clone();
  const skin = skinOf(bone.getSkeleton());
  if (skin === null) throw new Error(`The bone ${bone.name} has neither a node nor a skinned mesh.`);
  const determinant = child.scalingDeterminant;
  child.attachToBone(bone, skin);
  // the local pose below is exact in the bone's frame, mirror included: no extra flip
  child.scalingDeterminant = determinant;
  const local = world.multiply(hangFrame(bone).invert());
  child.rotationQuaternion ??= new Quaternion();
  local.decompose(child.scaling, child.rotationQuaternion, child.position);
  child.computeWorldMatrix(true);
}
