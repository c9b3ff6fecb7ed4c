import type { Matrix } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Node } from "@babylonjs/core/node.js";
import { Quat, copyQuat, rotateVector } from "../math/quat.js";
import { type ReadonlyVec3, Vec3, copy } from "../math/vec3.js";
import type { IKPose } from "../solver/pose.js";
import {
  currentWorldMatrix,
  hasRotation,
  isMirror,
  rotationFromMatrix,
  transformPoint,
  transformVector,
} from "./world-matrix.js";

const axis = new Vec3();
const moved = new Vec3();
const bonePos = new Vec3();
const boneRot = new Quat();

/**
 * The frames a {@link BoneColliderSet}'s colliders hang on, as its engine-neutral ColliderSet reads them by id:
 * ids below {@link base} are the rig's bones (read from the step's pose), ids from `base` on are nodes outside
 * the rig, placed in component space every frame: from their world matrices by {@link placeNode} (a ball, a
 * pillar), or, under a bone of the rig (a shield in the hand), by {@link placeOnBone} from that bone's pose. So a
 * node's collider is interpolated over the sub-steps like a bone's. Allocation-free per frame.
 */
export class ColliderFrames {
  /** The pose the bone ids are read from (the step's; set before each read). */
  pose: IKPose | null = null;
  /** The first id that is a node's. */
  readonly base: number;
  private readonly positions: Vec3[];
  private readonly rotations: Quat[];
  /** The node's matrix in component space, in doubles (Babylon's own are single precision by default). */
  private readonly m = new Float64Array(16);
  /** A node's transform relative to the bone it hangs under, in doubles (the product of the local matrices). */
  private readonly rel = new Float64Array(16);
  private readonly row = new Float64Array(4);

  /** Ids from `base` on, for `nodes` nodes. */
  constructor(base: number, nodes: number) {
    this.base = base;
    this.positions = Array.from({ length: nodes }, () => new Vec3());
    this.rotations = Array.from({ length: nodes }, () => new Quat());
    this.m[15] = 1;
  }

  /**
   * Places node `slot` (id `base + slot`) from `node`'s current world matrix brought into component space by
   * `worldToComponent`: its origin, its rotation in Babylon's convention, and into `scale` its signed per-axis
   * scale (Y negative when the node is mirrored in component space, as rotationFromMatrix flips Y), so that a
   * local point p lands at origin + rotation · (p ⊙ scale). False when the node has no rotation (scaled to 0,
   * not finite).
   */
  placeNode(slot: number, node: TransformNode, worldToComponent: Matrix, scale: Vec3): boolean {
    const w = currentWorldMatrix(node).m;
    const c = worldToComponent.m;
    const m = this.m;
    // the node's axes (rows) and origin through component space, one row at a time
    for (let r = 0; r < 4; r++) {
      axis.x = w[4 * r]!;
      axis.y = w[4 * r + 1]!;
      axis.z = w[4 * r + 2]!;
      if (r < 3) transformVector(c, axis, moved);
      else transformPoint(c, axis, moved);
      m[4 * r] = moved.x;
      m[4 * r + 1] = moved.y;
      m[4 * r + 2] = moved.z;
    }
    return this.store(slot, scale);
  }

  /**
   * Places node `slot` under `anchor`, a node (or Bone) of the rig that is bone `bone` of `pose`: the node's
   * transform relative to the anchor (the local matrices between them, as Babylon last composed them, so from
   * before the solve) times the bone's pose now (`boneScale` its component-space scale), so that the node
   * follows the solved or interpolated bone, not the animated one Babylon's world matrix still shows. `scale`
   * as in {@link placeNode}; false when the node has no rotation.
   */
  placeOnBone(
    slot: number,
    node: TransformNode,
    anchor: Node,
    pose: IKPose,
    bone: number,
    boneScale: ReadonlyVec3,
    scale: Vec3,
  ): boolean {
    // brings the local matrices up to date (recomputed only when something moved)
    currentWorldMatrix(node);
    const r = this.rel;
    r.set(node._localMatrix.m);
    for (let a = node.parent; a !== null && a !== anchor; a = a.parent) {
      appendAffine(r, (a as TransformNode)._localMatrix.m, this.row);
    }
    pose.getPosition(bone, bonePos);
    pose.getRotation(bone, boneRot);
    const m = this.m;
    // the bone's matrix (row vectors): its scaled, rotated axes, then its position
    for (let k = 0; k < 3; k++) {
      axis.x = k === 0 ? 1 : 0;
      axis.y = k === 1 ? 1 : 0;
      axis.z = k === 2 ? 1 : 0;
      rotateVector(moved, boneRot, axis);
      const s = k === 0 ? boneScale.x : k === 1 ? boneScale.y : boneScale.z;
      m[4 * k] = moved.x * s;
      m[4 * k + 1] = moved.y * s;
      m[4 * k + 2] = moved.z * s;
    }
    m[12] = bonePos.x;
    m[13] = bonePos.y;
    m[14] = bonePos.z;
    prependAffine(m, r, this.row);
    return this.store(slot, scale);
  }

  /** Stores node `slot`'s place from {@link m} (its matrix in component space); false when it has no rotation. */
  private store(slot: number, scale: Vec3): boolean {
    const m = this.m;
    if (!hasRotation(m)) return false;
    rotationFromMatrix(m, this.rotations[slot]!);
    const p = this.positions[slot]!;
    p.x = m[12]!;
    p.y = m[13]!;
    p.z = m[14]!;
    const mirrored = isMirror(m);
    scale.x = Math.sqrt(m[0]! * m[0]! + m[1]! * m[1]! + m[2]! * m[2]!);
    const sy = Math.sqrt(m[4]! * m[4]! + m[5]! * m[5]! + m[6]! * m[6]!);
    scale.y = mirrored ? -sy : sy;
    scale.z = Math.sqrt(m[8]! * m[8]! + m[9]! * m[9]! + m[10]! * m[10]!);
    return true;
  }

  /** The component position of id `bone` (a rig bone's, or a placed node's). */
  getPosition(bone: number, out: Vec3): Vec3 {
    if (bone < this.base) return this.pose!.getPosition(bone, out);
    return copy(out, this.positions[bone - this.base]!);
  }

  /** The component rotation of id `bone` (a rig bone's, or a placed node's). */
  getRotation(bone: number, out: Quat): Quat {
    if (bone < this.base) return this.pose!.getRotation(bone, out);
    return copyQuat(out, this.rotations[bone - this.base]!);
  }
}

/** `r` = `r` × `b` for affine row-vector matrices (`b`'s last column 0, 0, 0, 1); `row` is scratch. */
function appendAffine(r: Float64Array, b: ArrayLike<number>, row: Float64Array): void {
  for (let i = 0; i < 4; i++) {
    const x = r[4 * i]!;
    const y = r[4 * i + 1]!;
    const z = r[4 * i + 2]!;
    const w = i === 3 ? 1 : 0;
    for (let c = 0; c < 3; c++) row[c] = x * b[c]! + y * b[4 + c]! + z * b[8 + c]! + w * b[12 + c]!;
    r[4 * i] = row[0]!;
    r[4 * i + 1] = row[1]!;
    r[4 * i + 2] = row[2]!;
  }
}

/** `m` = `a` × `m` for affine row-vector matrices; `row` is scratch. */
function prependAffine(m: Float64Array, a: Float64Array, row: Float64Array): void {
  // m's rows are read while written: the columns are done one at a time, all rows of `a` at once
  for (let c = 0; c < 3; c++) {
    const b0 = m[c]!;
    const b1 = m[4 + c]!;
    const b2 = m[8 + c]!;
    const b3 = m[12 + c]!;
    for (let i = 0; i < 4; i++) {
      row[i] = a[4 * i]! * b0 + a[4 * i + 1]! * b1 + a[4 * i + 2]! * b2 + (i === 3 ? b3 : 0);
    }
    for (let i = 0; i < 4; i++) m[4 * i + c] = row[i]!;
  }
}
