import {
  Quat,
  type ReadonlyQuat,
  conjugateMultiply,
  copyQuat,
  inverseRotateVector,
  multiply,
  normalizeQuat,
  rotateVector,
} from "../math/quat.js";
import { type ReadonlyVec3, Vec3, add, copy, sub } from "../math/vec3.js";
import type { FixedBone, RestorablePose } from "./biped-mapping.js";

/** One bone of a {@link HierarchyPose}. */
export interface HierarchyBone {
  /** Name, for messages. */
  name: string;
  /** Index of the parent bone, or -1 for a bone directly under component space. */
  parent: number;
  /** Local position (in the parent's frame). */
  position: ReadonlyVec3;
  /** Local rotation (relative to the parent). */
  rotation: ReadonlyQuat;
}

const tmp = new Vec3();
const tmpQ = new Quat();

/**
 * An in-memory skeleton with its own forward kinematics into component space: flat arrays in depth-first
 * order, so every bone's descendants are the contiguous range after it. Reads are array lookups; a write
 * updates the written bone's subtree at once.
 */
export class HierarchyPose implements RestorablePose {
  /** Parent index per bone (-1 for roots). */
  readonly parents: readonly number[];
  /** Bone names. */
  readonly names: readonly string[];
  /** Local positions. */
  readonly localPositions: Vec3[];
  /** Local rotations. */
  readonly localRotations: Quat[];
  /** Component-space positions. */
  readonly positions: Vec3[];
  /** Component-space rotations. */
  readonly rotations: Quat[];
  /** One past the last descendant of each bone. */
  readonly subtreeEnd: readonly number[];
  private defaults: { bone: number; position: Vec3 | null; rotation: Quat }[] = [];

  /**
   * Builds the pose from bones listed in depth-first pre-order (each bone's parent appears before it and
   * its subtree is contiguous). Throws otherwise.
   */
  constructor(bones: readonly HierarchyBone[]) {
    const n = bones.length;
    const parents = bones.map((b) => b.parent);
    const ends = new Array<number>(n).fill(n);
    // depth-first pre-order check with a stack of open ancestors
    const stack: number[] = [];
    for (let i = 0; i < n; i++) {
      const p = parents[i]!;
      while (stack.length > 0 && stack[stack.length - 1] !== p) ends[stack.pop()!] = i;
      if (p >= 0 && stack.length === 0) {
        throw new Error(
          `HierarchyPose: bone ${i} (${bones[i]!.name}) does not follow its parent's subtree (bones must be in ` +
            `depth-first order)`,
        );
      }
      stack.push(i);
    }
    while (stack.length > 0) ends[stack.pop()!] = n;
    this.parents = parents;
    this.subtreeEnd = ends;
    this.names = bones.map((b) => b.name);
    this.localPositions = bones.map((b) => new Vec3(b.position.x, b.position.y, b.position.z));
    this.localRotations = bones.map((b) => normalizeQuat(new Quat(), b.rotation));
    this.positions = bones.map(() => new Vec3());
    this.rotations = bones.map(() => new Quat());
    this.updateRange(0, n);
  }

  /** Number of bones. */
  get count(): number {
    return this.parents.length;
  }

  /** Index of the bone named `name`, or -1. */
  indexOf(name: string): number {
    return this.names.indexOf(name);
  }

  /** The bone's name. */
  getName(bone: number): string {
    return this.names[bone] ?? `bone ${bone}`;
  }

  /** @inheritdoc */
  getPosition(bone: number, out: Vec3): Vec3 {
    return copy(out, this.positions[bone]!);
  }

  /** @inheritdoc */
  getRotation(bone: number, out: Quat): Quat {
    return copyQuat(out, this.rotations[bone]!);
  }

  /** @inheritdoc */
  setRotation(bone: number, rotation: ReadonlyQuat): void {
    const p = this.parents[bone]!;
    const local = this.localRotations[bone]!;
    if (p < 0) copyQuat(local, rotation);
    else conjugateMultiply(local, this.rotations[p]!, rotation);
    normalizeQuat(local, local);
    this.updateRange(bone, this.subtreeEnd[bone]!);
  }

  /** @inheritdoc */
  setPosition(bone: number, position: ReadonlyVec3): void {
    const p = this.parents[bone]!;
    const local = this.localPositions[bone]!;
    if (p < 0) copy(local, position);
    else inverseRotateVector(local, this.rotations[p]!, sub(tmp, position, this.positions[p]!));
    this.updateRange(bone, this.subtreeEnd[bone]!);
  }

  /** Sets a bone's local rotation and updates its subtree. */
  setLocalRotation(bone: number, rotation: ReadonlyQuat): void {
    normalizeQuat(this.localRotations[bone]!, rotation);
    this.updateRange(bone, this.subtreeEnd[bone]!);
  }

  /** Sets a bone's local position and updates its subtree. */
  setLocalPosition(bone: number, position: ReadonlyVec3): void {
    copy(this.localPositions[bone]!, position);
    this.updateRange(bone, this.subtreeEnd[bone]!);
  }

  /** @inheritdoc */
  storeDefaultLocalState(bones: readonly FixedBone[]): void {
    this.defaults = bones.map((b) => ({
      bone: b.bone,
      position: b.position
        ? new Vec3(this.localPositions[b.bone]!.x, this.localPositions[b.bone]!.y, this.localPositions[b.bone]!.z)
        : null,
      rotation: copyQuat(new Quat(), this.localRotations[b.bone]!),
    }));
  }

  /** @inheritdoc */
  fixTransforms(): void {
    for (const d of this.defaults) {
      if (d.position !== null) copy(this.localPositions[d.bone]!, d.position);
      copyQuat(this.localRotations[d.bone]!, d.rotation);
    }
    this.updateRange(0, this.count);
  }

  /** Copies all local transforms from another pose of the same skeleton. */
  copyLocalsFrom(other: HierarchyPose): void {
    for (let i = 0; i < this.count; i++) {
      copy(this.localPositions[i]!, other.localPositions[i]!);
      copyQuat(this.localRotations[i]!, other.localRotations[i]!);
    }
    this.updateRange(0, this.count);
  }

  /** A deep copy. */
  clone(): HierarchyPose {
    return new HierarchyPose(
      this.names.map((name, i) => ({
        name,
        parent: this.parents[i]!,
        position: this.localPositions[i]!,
        rotation: this.localRotations[i]!,
      })),
    );
  }

  /** Forward kinematics for bones [from, to). */
  private updateRange(from: number, to: number): void {
    for (let i = from; i < to; i++) {
      const p = this.parents[i]!;
      if (p < 0) {
        copy(this.positions[i]!, this.localPositions[i]!);
        copyQuat(this.rotations[i]!, this.localRotations[i]!);
      } else {
        const pr = this.rotations[p]!;
        rotateVector(tmp, pr, this.localPositions[i]!);
        add(this.positions[i]!, this.positions[p]!, tmp);
        multiply(tmpQ, pr, this.localRotations[i]!);
        copyQuat(this.rotations[i]!, tmpQ);
      }
    }
  }
}
