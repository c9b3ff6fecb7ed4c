import { Quat, type ReadonlyQuat, fromToRotation, inverseRotateVector, multiply, rotateVector } from "../math/quat.js";
import { type ReadonlyVec3, Vec3, anyPerpendicular, cross, length, sub } from "../math/vec3.js";
import { FBBIKError } from "../solver/errors.js";
import type { IKPose } from "../solver/pose.js";

/** The relaxed (rest) pose of a {@link TwistRelaxerSolver}'s three bones, in one common frame. */
export interface TwistRestPose {
  /** The parent's rotation. */
  readonly parentRotation: ReadonlyQuat;
  /** The twisted bone's rotation. */
  readonly boneRotation: ReadonlyQuat;
  /** The child's rotation. */
  readonly childRotation: ReadonlyQuat;
  /** The twisted bone's position. */
  readonly bonePosition: ReadonlyVec3;
  /** The child's position (the twist axis runs from the bone to it). */
  readonly childPosition: ReadonlyVec3;
  /** The parent's position (the bones' size, for the zero-length check). */
  readonly parentPosition: ReadonlyVec3;
}

const qP = new Quat();
const qB = new Quat();
const qC = new Quat();
const tq = new Quat();
const axis = new Vec3();
const own = new Vec3();
const fromParent = new Vec3();
const fromChild = new Vec3();
const tv = new Vec3();
const tw = new Vec3();
/** How far past a half turn the twist between parent and child keeps to the side it came from (hysteresis). */
const PAST_HALF_TURN = Math.PI / 4;

/**
 * FinalIK's TwistRelaxer, engine-neutral: turns a bone about its own axis (toward its child) so that its twist
 * lies between its parent's and its child's, each measured from the rest pose (the most relaxed one), by
 * {@link parentChildCrossfade}. Only the twist changes: the bone keeps its direction, and a child under it keeps
 * its rotation, so a hand turned by the IK stays where the IK put it while the forearm takes part of its twist.
 * A twist between parent and child carried past the half turn keeps its side for up to 45° beyond it (not FinalIK's
 * flip at the half turn itself).
 */
export class TwistRelaxerSolver {
  /** How much of the relaxing applies, 0 to 1 (0: the bones are not touched). */
  weight = 1;
  /** Whose twist the bone follows: 0 the parent's, 1 the child's, 0.5 half way (the default); clamped to 0…1. */
  parentChildCrossfade = 0.5;
  /** A turn added about the twist axis, in radians (a rig whose relaxed twist is not its rest pose's). */
  twistAngleOffset = 0;
  /** The parent's id in the pose. */
  readonly parent: number;
  /** The twisted bone's id. */
  readonly bone: number;
  /** The child's id. */
  readonly child: number;
  /** True when the child hangs under the bone: its rotation is then put back after the bone turns. */
  readonly childFollows: boolean;
  /** The twist axis in the bone's own frame. */
  private readonly axisInBone = new Vec3();
  /** A direction across the axis, in the bone's, the parent's and the child's frames (the same one at rest). */
  private readonly acrossInBone = new Vec3();
  private readonly axisInParent = new Vec3();
  private readonly acrossInParent = new Vec3();
  private readonly axisInChild = new Vec3();
  private readonly acrossInChild = new Vec3();
  /** The last relax's twist from the parent to the child (NaN before the first): the side it is on. */
  private lastBetween = Number.NaN;

  /**
   * Measures the twist axis and the relaxed twist from `rest`. Throws {@link FBBIKError} when the bone has no
   * length toward its child (no axis to twist about).
   */
  constructor(parent: number, bone: number, child: number, rest: TwistRestPose, childFollows: boolean) {
    this.parent = parent;
    this.bone = bone;
    this.child = child;
    this.childFollows = childFollows;
    const a = sub(new Vec3(), rest.childPosition, rest.bonePosition);
    const len = length(a);
    const size = Math.max(len, length(sub(new Vec3(), rest.bonePosition, rest.parentPosition)));
    // a bone shorter than a millionth of the limb has no direction to twist about
    if (!(len > 1e-6 * size) || !Number.isFinite(len)) {
      throw new FBBIKError([`bone ${bone} has no length toward its child ${child}: no twist axis`]);
    }
    a.x /= len;
    a.y /= len;
    a.z /= len;
    const across = anyPerpendicular(new Vec3(), a);
    inverseRotateVector(this.axisInBone, rest.boneRotation, a);
    inverseRotateVector(this.acrossInBone, rest.boneRotation, across);
    inverseRotateVector(this.axisInParent, rest.parentRotation, a);
    inverseRotateVector(this.acrossInParent, rest.parentRotation, across);
    inverseRotateVector(this.axisInChild, rest.childRotation, a);
    inverseRotateVector(this.acrossInChild, rest.childRotation, across);
  }

  /**
   * Relaxes the bone's twist on `pose` (after the IK): turns it about its axis to its parent's and child's twist
   * mixed by {@link parentChildCrossfade}, plus {@link twistAngleOffset}, by {@link weight}; the child keeps its
   * rotation. Nothing is written at weight 0.
   */
  relax(pose: IKPose): void {
    const w = this.weight;
    if (!(w > 0)) return;
    pose.getRotation(this.parent, qP);
    pose.getRotation(this.bone, qB);
    pose.getRotation(this.child, qC);
    rotateVector(axis, qB, this.axisInBone);
    rotateVector(own, qB, this.acrossInBone);
    this.carried(fromParent, qP, this.axisInParent, this.acrossInParent);
    this.carried(fromChild, qC, this.axisInChild, this.acrossInChild);
    // signed angles about the axis, in (-π, π]; the dot products written out, as the turn's quaternion below: this
    // method is past V8's inlining budget, and a double returned from or handed to a call left out is boxed
    // (ARCHITECTURE.md, "Doubles across calls")
    cross(tv, own, fromParent);
    const toParent = Math.atan2(
      tv.x * axis.x + tv.y * axis.y + tv.z * axis.z,
      own.x * fromParent.x + own.y * fromParent.y + own.z * fromParent.z,
    );
    // a twist of exactly half a turn between them has no shorter side: atan2 picks one, never NaN
    cross(tv, fromParent, fromChild);
    let between = Math.atan2(
      tv.x * axis.x + tv.y * axis.y + tv.z * axis.z,
      fromParent.x * fromChild.x + fromParent.y * fromChild.y + fromParent.z * fromChild.z,
    );
    // a twist carried past the half turn stays on its side (up to PAST_HALF_TURN beyond it), not flipping the bone
    // to the other side in one frame, and a hand held at the half turn does not flip it to and fro
    const last = this.lastBetween;
    if (between - last > Math.PI && between - 2 * Math.PI >= -Math.PI - PAST_HALF_TURN) between -= 2 * Math.PI;
    else if (last - between > Math.PI && between + 2 * Math.PI <= Math.PI + PAST_HALF_TURN) between += 2 * Math.PI;
    this.lastBetween = between;
    // clamped as the weight (NaN kept, skipped below): beyond 0 or 1 it carried the twist past the parent or child
    const cf = this.parentChildCrossfade < 0 ? 0 : this.parentChildCrossfade > 1 ? 1 : this.parentChildCrossfade;
    const turn = (toParent + cf * between + this.twistAngleOffset) * (w < 1 ? w : 1);
    if (!Number.isFinite(turn) || turn === 0) return;
    const s = Math.sin(turn * 0.5);
    tq.x = axis.x * s;
    tq.y = axis.y * s;
    tq.z = axis.z * s;
    tq.w = Math.cos(turn * 0.5);
    multiply(tq, tq, qB);
    pose.setRotation(this.bone, tq);
    if (this.childFollows) pose.setRotation(this.child, qC);
  }

  /**
   * Into `out`: the rest-pose direction across the axis as a neighbour (rotation `q`) carries it, swung by the
   * shortest arc from the neighbour's idea of the axis onto the bone's, so the neighbour's swing (the elbow's
   * bend, the wrist's) does not count as twist.
   */
  private carried(out: Vec3, q: ReadonlyQuat, axisIn: ReadonlyVec3, acrossIn: ReadonlyVec3): void {
    rotateVector(tv, q, axisIn);
    rotateVector(tw, q, acrossIn);
    fromToRotation(tq, tv, axis);
    rotateVector(out, tq, tw);
  }
}
