/**
 * PelvisConstraint: the pelvis part of FinalIK's BipedIK (its `solvers.pelvis`), engine-neutral.
 * @module
 */
import { NumberRef } from "../math/number-ref.js";
import { Quat, isFiniteQuat, multiply, slerpByRef } from "../math/quat.js";
import { Vec3, add, isFiniteVec, lerpByRef } from "../math/vec3.js";
import type { IKPose } from "../solver/pose.js";

const p = new Vec3();
const r = new Quat();

/**
 * Moves and turns one bone (the pelvis) on top of its animated pose, as FinalIK's BipedIK does with its pelvis
 * constraint: first the offsets (position added, rotation turned by `rotationOffset`), then toward the target
 * position and rotation by their weights. Everything in the pose's component space.
 */
export class PelvisConstraint {
  /** [0, 1] How far the bone moves from its offset position to {@link position}. */
  positionWeight = 0;
  /** [0, 1] How far the bone turns from its offset rotation to {@link rotation}. */
  rotationWeight = 0;
  /** Added to the animated position before the target is weighed in. */
  readonly positionOffset = new Vec3();
  /** Turns the animated rotation (`rotationOffset × rotation`) before the target is weighed in. */
  readonly rotationOffset = new Quat();
  /** The target position. */
  readonly position = new Vec3();
  /** The target rotation. */
  readonly rotation = new Quat();
  /** The bone's id in the pose. */
  readonly bone: number;
  private readonly pose: IKPose;
  // weights travel by reference into the math (see NumberRef)
  private readonly weight = new NumberRef();

  /** A constraint on bone `bone` of `pose`. */
  constructor(pose: IKPose, bone: number) {
    this.pose = pose;
    this.bone = bone;
  }

  /**
   * True when solving would change nothing: no offset and both weights 0 (the bone is then left untouched, so
   * the animated pose stays bit for bit).
   */
  get idle(): boolean {
    const o = this.positionOffset;
    const q = this.rotationOffset;
    return (
      !(this.positionWeight > 0) &&
      !(this.rotationWeight > 0) &&
      o.x === 0 &&
      o.y === 0 &&
      o.z === 0 &&
      q.x === 0 &&
      q.y === 0 &&
      q.z === 0
    );
  }

  /** Applies the offsets and the weighted targets to the bone; a non-finite input leaves the bone as it is. */
  solve(): void {
    if (this.idle) return;
    const pose = this.pose;
    const id = this.bone;
    const w = this.weight;
    pose.getPosition(id, p);
    add(p, p, this.positionOffset);
    w.value = Math.min(1, this.positionWeight);
    if (w.value > 0) lerpByRef(p, p, this.position, w);
    if (isFiniteVec(p)) pose.setPosition(id, p);
    pose.getRotation(id, r);
    multiply(r, this.rotationOffset, r);
    w.value = Math.min(1, this.rotationWeight);
    if (w.value > 0) slerpByRef(r, r, this.rotation, w);
    if (isFiniteQuat(r)) pose.setRotation(id, r);
  }
}
