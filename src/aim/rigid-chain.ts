/**
 * The bones an aim or look-at solver turns, held as flat component-space transforms with their rigid
 * offsets from each other, so turning one bone carries its descendants without touching the pose.
 * @module
 */
import {
  Quat,
  type ReadonlyQuat,
  conjugateMultiply,
  inverseRotateVector,
  isFiniteQuat,
  multiply,
  normalizeQuat,
  quatFromArray,
  quatToArray,
  rotateVector,
} from "../math/quat.js";
import { Vec3, fromArray, isFiniteVec, toArray } from "../math/vec3.js";
import type { IKPose } from "../solver/pose.js";

const p = new Vec3();
const r = new Quat();
const pr = new Quat();
const tmpQ = new Quat();

/**
 * Entries in depth-first order, each with the index of its parent entry (−1 for the first, or any entry
 * under nothing else): the parent must be a pose ancestor of the entry's bone, so the entry moves
 * rigidly with it. {@link read} takes the pose once; {@link rotate} turns an entry about its own
 * position and carries its subtree; {@link write} sets the first `writeCount` entries' rotations,
 * parents first (entries after them, such as a gun the aim is measured on, only follow).
 * Allocation-free after construction.
 */
export class RigidChain {
  /** Number of entries. */
  readonly count: number;
  /** Pose bone id per entry. */
  readonly bones: Int32Array;
  /** Parent entry per entry, −1 for none. */
  readonly parents: Int32Array;
  /** One past each entry's last descendant entry. */
  readonly subtreeEnd: Int32Array;
  /** Component-space positions, 3 per entry. */
  readonly positions: Float64Array;
  /** Component-space rotations (x, y, z, w), 4 per entry. */
  readonly rotations: Float64Array;
  /** Entries [0, writeCount) are written back; the rest (an aim point on a gun) only follow. */
  readonly writeCount: number;
  private readonly localPositions: Float64Array;
  private readonly localRotations: Float64Array;

  /** Entries for `bones` under `parents` (each parent index before its child; subtrees contiguous). */
  constructor(bones: readonly number[], parents: readonly number[], writeCount: number) {
    const n = bones.length;
    this.count = n;
    this.bones = Int32Array.from(bones);
    this.parents = Int32Array.from(parents);
    this.writeCount = writeCount;
    this.subtreeEnd = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      let end = i + 1;
      while (end < n && this.isBelow(end, i)) end++;
      this.subtreeEnd[i] = end;
    }
    this.positions = new Float64Array(3 * n);
    this.rotations = new Float64Array(4 * n);
    this.localPositions = new Float64Array(3 * n);
    this.localRotations = new Float64Array(4 * n);
  }

  /** Reads every entry from the pose and derives the rigid offsets. False when the pose is not finite. */
  read(pose: IKPose): boolean {
    for (let i = 0; i < this.count; i++) {
      const b = this.bones[i]!;
      pose.getPosition(b, p);
      pose.getRotation(b, r);
      if (!isFiniteVec(p) || !isFiniteQuat(r)) return false;
      normalizeQuat(r, r);
      toArray(this.positions, 3 * i, p);
      quatToArray(this.rotations, 4 * i, r);
    }
    for (let i = 0; i < this.count; i++) this.deriveLocal(i);
    return true;
  }

  /** Turns entry `i` by `q` (component space, about the entry's position); its subtree follows. */
  rotate(i: number, q: ReadonlyQuat): void {
    quatFromArray(r, this.rotations, 4 * i);
    multiply(r, q, r);
    normalizeQuat(r, r);
    this.setRotation(i, r);
  }

  /** Sets entry `i`'s component-space rotation; its subtree follows. */
  setRotation(i: number, q: ReadonlyQuat): void {
    quatToArray(this.rotations, 4 * i, q);
    const par = this.parents[i]!;
    if (par >= 0) {
      quatFromArray(pr, this.rotations, 4 * par);
      conjugateMultiply(tmpQ, pr, q);
      quatToArray(this.localRotations, 4 * i, tmpQ);
    }
    this.forward(i + 1, this.subtreeEnd[i]!);
  }

  /** Writes entry `i`'s component-space position into `out`. */
  getPosition(i: number, out: Vec3): Vec3 {
    return fromArray(out, this.positions, 3 * i);
  }

  /** Writes entry `i`'s component-space rotation into `out`. */
  getRotation(i: number, out: Quat): Quat {
    return quatFromArray(out, this.rotations, 4 * i);
  }

  /** Writes entries [0, writeCount) to the pose, parents first. */
  write(pose: IKPose): void {
    for (let i = 0; i < this.writeCount; i++) {
      quatFromArray(r, this.rotations, 4 * i);
      pose.setRotation(this.bones[i]!, r);
    }
  }

  /** Recomputes entries [from, to) from their parents and rigid offsets (entries under nothing stay). */
  private forward(from: number, to: number): void {
    const pos = this.positions;
    const rot = this.rotations;
    for (let j = from; j < to; j++) {
      const par = this.parents[j]!;
      if (par < 0) continue;
      quatFromArray(pr, rot, 4 * par);
      fromArray(p, this.localPositions, 3 * j);
      rotateVector(p, pr, p);
      pos[3 * j] = pos[3 * par]! + p.x;
      pos[3 * j + 1] = pos[3 * par + 1]! + p.y;
      pos[3 * j + 2] = pos[3 * par + 2]! + p.z;
      quatFromArray(r, this.localRotations, 4 * j);
      multiply(r, pr, r);
      quatToArray(rot, 4 * j, r);
    }
  }

  private deriveLocal(i: number): void {
    const par = this.parents[i]!;
    if (par < 0) return;
    quatFromArray(pr, this.rotations, 4 * par);
    p.x = this.positions[3 * i]! - this.positions[3 * par]!;
    p.y = this.positions[3 * i + 1]! - this.positions[3 * par + 1]!;
    p.z = this.positions[3 * i + 2]! - this.positions[3 * par + 2]!;
    inverseRotateVector(p, pr, p);
    toArray(this.localPositions, 3 * i, p);
    quatFromArray(r, this.rotations, 4 * i);
    conjugateMultiply(r, pr, r);
    quatToArray(this.localRotations, 4 * i, r);
  }

  private isBelow(j: number, i: number): boolean {
    for (let a = this.parents[j]!; a >= 0; a = this.parents[a]!) if (a === i) return true;
    return false;
  }
}
