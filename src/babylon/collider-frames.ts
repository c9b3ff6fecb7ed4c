import type { Matrix } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Quat, copyQuat } from "../math/quat.js";
import { Vec3, copy } from "../math/vec3.js";
import type { IKPose } from "../solver/pose.js";
import {
  axisLengths,
  currentWorldMatrix,
  hasRotation,
  isMirror,
  rotationFromMatrix,
  transformPoint,
  transformVector,
} from "./world-matrix.js";

const axis = new Vec3();
const moved = new Vec3();

/**
 * The frames a {@link BoneColliderSet}'s colliders hang on, as its engine-neutral ColliderSet reads them by id:
 * ids below {@link base} are the rig's bones (read from the step's pose), ids from `base` on are nodes outside
 * the rig (a ball, a pillar), placed in component space from their world matrices by {@link placeNode} every
 * frame. So a node's collider is interpolated over the sub-steps like a bone's. Allocation-free per frame.
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
    if (!hasRotation(m)) return false;
    rotationFromMatrix(m, this.rotations[slot]!);
    const p = this.positions[slot]!;
    p.x = m[12]!;
    p.y = m[13]!;
    p.z = m[14]!;
    const mirrored = isMirror(m);
    axisLengths(m, scale);
    if (mirrored) scale.y = -scale.y;
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
