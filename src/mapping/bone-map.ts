import {
  Quat,
  conjugateMultiply,
  fromToRotation,
  inverseRotateVector,
  multiply,
  nlerpRef,
  rotateVector,
} from "../math/quat.js";
import { orthoNormalize } from "../math/direction.js";
import { NumberRef } from "../math/number-ref.js";
import { type ReadonlyVec3, Vec3, add, copy, lerpRef, sub } from "../math/vec3.js";
import type { IKNode } from "../solver/node.js";
import { planeRotation } from "../solver/plane.js";
import type { IKPose } from "../solver/pose.js";

const v1 = new Vec3();
const v2 = new Vec3();
const v3 = new Vec3();
const q1 = new Quat();
const q2 = new Quat();
const effectorWeight = new NumberRef();

/** What the mappings read from the solver while writing. */
export interface MappingSolver {
  /** The solver's master weight. */
  readonly ikPositionWeight: number;
}

/** Weight 1, for the mapping steps that always apply fully. */
export const FULL_WEIGHT: Readonly<NumberRef> = new NumberRef(1);

/**
 * One bone of the skeleton as the mapping sees it (FinalIK's IKMapping.BoneMap): its pose in the
 * {@link IKPose}, the solver node it stands for (if any) and what writing it back needs — its rotation
 * relative to a plane of three nodes, swing and twist axes, an IK position, a maintained rotation.
 */
export class BoneMap {
  /** Pose id of the bone. */
  readonly bone: number;
  /** The solver node of this bone, or null when it is not a node (spine bones other than the root node). */
  node: IKNode | null = null;
  /** Distance to the next bone of its chain (spine FABRIK). */
  length = 0;
  /** The bone's axis toward the next bone, in the bone's space. */
  readonly localSwingAxis = new Vec3();
  /** The bone's twist reference axis, in the bone's space. */
  readonly localTwistAxis = new Vec3(1, 0, 0);
  /** Bone rotation relative to its plane's frame, read from the animation. */
  readonly defaultLocalTargetRotation = new Quat();
  /** Bone position relative to its plane's frame, read from the animation. */
  readonly planePosition = new Vec3();
  /** Where the spine FABRIK wants the bone. */
  readonly ikPosition = new Vec3();
  /** World rotation stored for maintainRotation. */
  readonly maintainRotationValue = new Quat();
  private plane1: IKNode | null = null;
  private plane2: IKNode | null = null;
  private plane3: IKNode | null = null;
  private readonly pose: IKPose;

  /** Creates the map of pose bone `bone`. */
  constructor(pose: IKPose, bone: number, node: IKNode | null = null) {
    this.pose = pose;
    this.bone = bone;
    this.node = node;
  }

  /** Current component-space position of the bone. */
  position(out: Vec3): Vec3 {
    return this.pose.getPosition(this.bone, out);
  }

  /** Current component-space rotation of the bone. */
  rotation(out: Quat): Quat {
    return this.pose.getRotation(this.bone, out);
  }

  /** Uses the triangle of three solver nodes as this bone's plane, and reads the plane-relative pose. */
  setPlane(n1: IKNode, n2: IKNode, n3: IKNode): void {
    this.plane1 = n1;
    this.plane2 = n2;
    this.plane3 = n3;
    this.updatePlane(true, true);
  }

  /** Re-reads the bone's rotation and/or position relative to its plane's animated frame. */
  updatePlane(rotation: boolean, position: boolean): void {
    const t = this.animatedPlaneRotation(q1);
    if (rotation) conjugateMultiply(this.defaultLocalTargetRotation, t, this.rotation(q2));
    if (position) inverseRotateVector(this.planePosition, t, sub(v1, this.position(v1), this.plane1!.bonePosition));
  }

  /** Where the plane's solved frame carries the bone. */
  getPlanePosition(out: Vec3): Vec3 {
    return this.getPlanePositionIn(this.solverPlaneRotation(q1), out);
  }

  /** {@link getPlanePosition} with the plane's solved frame already computed ({@link solverPlaneRotation}). */
  getPlanePositionIn(planeRotation: Quat, out: Vec3): Vec3 {
    rotateVector(out, planeRotation, this.planePosition);
    return add(out, out, this.plane1!.solverPosition);
  }

  /** Rotates the bone with its plane's solved frame, by `weight.value`. */
  rotateToPlane(weight: Readonly<NumberRef>): void {
    this.rotateToPlaneIn(this.solverPlaneRotation(q1), weight);
  }

  /** {@link rotateToPlane} with the plane's solved frame already computed ({@link solverPlaneRotation}). */
  rotateToPlaneIn(planeRotation: Quat, weight: Readonly<NumberRef>): void {
    const target = multiply(q2, planeRotation, this.defaultLocalTargetRotation);
    if (weight.value < 1) nlerpRef(target, this.rotation(q1), target, weight);
    this.pose.setRotation(this.bone, target);
  }

  /** Stores the length to `next` and the local axis pointing at it. */
  setLengthAndSwingAxis(next: BoneMap): void {
    const p = this.position(v1);
    const d = sub(v2, next.position(v3), p);
    this.length = Math.sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    inverseRotateVector(this.localSwingAxis, this.rotation(q1), d);
  }

  /** Stores the local axis along `a − b` (two other bones' positions). */
  setLocalSwingAxisBetween(a: BoneMap, b: BoneMap): void {
    sub(v1, a.position(v1), b.position(v2));
    inverseRotateVector(this.localSwingAxis, this.rotation(q1), v1);
  }

  /** Stores the local twist axis: `twistDirection` made perpendicular to `normalDirection`. */
  setLocalTwistAxis(twistDirection: ReadonlyVec3, normalDirection: ReadonlyVec3): void {
    const normal = copy(v1, normalDirection);
    const twist = copy(v2, twistDirection);
    orthoNormalize(normal, twist);
    inverseRotateVector(this.localTwistAxis, this.rotation(q1), twist);
  }

  /** Rotates the bone so its swing axis points from its current position at `target`, by `weight.value`. */
  swing(target: ReadonlyVec3, weight: Readonly<NumberRef>): void {
    if (!(weight.value > 0)) return;
    const r = this.rotation(q1);
    rotateVector(v1, r, this.localSwingAxis);
    sub(v2, target, this.position(v3));
    fromToRotation(q2, v1, v2);
    multiply(q2, q2, r);
    if (weight.value < 1) nlerpRef(q2, r, q2, weight);
    this.pose.setRotation(this.bone, q2);
  }

  /** Rotates the bone about `normalDirection` so its twist axis follows `twistDirection`, by `weight.value`. */
  twist(twistDirection: ReadonlyVec3, normalDirection: ReadonlyVec3, weight: Readonly<NumberRef>): void {
    if (!(weight.value > 0)) return;
    const normal = copy(v1, normalDirection);
    const twist = copy(v2, twistDirection);
    orthoNormalize(normal, twist);
    const r = this.rotation(q1);
    rotateVector(v3, r, this.localTwistAxis);
    fromToRotation(q2, v3, twist);
    multiply(q2, q2, r);
    if (weight.value < 1) nlerpRef(q2, r, q2, weight);
    this.pose.setRotation(this.bone, q2);
  }

  /** Stores the bone's current world rotation. */
  maintainRotation(): void {
    this.rotation(this.maintainRotationValue);
  }

  /** Rotates back toward the stored rotation by `weight.value`. */
  rotateToMaintain(weight: Readonly<NumberRef>): void {
    const w = weight.value;
    if (!(w > 0)) return;
    if (w >= 1) {
      this.pose.setRotation(this.bone, this.maintainRotationValue);
      return;
    }
    nlerpRef(q1, this.rotation(q1), this.maintainRotationValue, weight);
    this.pose.setRotation(this.bone, q1);
  }

  /** Rotates toward the node's effector rotation by `weight.value` × the effector's rotation weight. */
  rotateToEffector(weight: Readonly<NumberRef>): void {
    const node = this.node;
    if (node === null) return;
    const w = weight.value * node.effectorRotationWeight;
    if (!(w > 0)) return;
    if (w >= 1) {
      this.pose.setRotation(this.bone, node.solverRotation);
      return;
    }
    effectorWeight.value = w;
    nlerpRef(q1, this.rotation(q1), node.solverRotation, effectorWeight);
    this.pose.setRotation(this.bone, q1);
  }

  /** Moves the bone toward its node's solved position by `weight.value`. */
  fixToNode(weight: Readonly<NumberRef>): void {
    const node = this.node;
    if (node === null || !(weight.value > 0)) return;
    lerpRef(v1, this.position(v1), node.solverPosition, weight);
    this.pose.setPosition(this.bone, v1);
  }

  /** Moves the bone to its IK position. */
  setToIKPosition(): void {
    this.pose.setPosition(this.bone, this.ikPosition);
  }

  /** The plane's frame from the animated positions of its nodes (identity when nodes 1 and 3 coincide). */
  private animatedPlaneRotation(out: Quat): Quat {
    return planeRotation(out, this.plane1!.bonePosition, this.plane2!.bonePosition, this.plane3!.bonePosition);
  }

  /**
   * The plane's frame from the solved positions of its nodes. Constant while the mapping writes (the
   * mapping never moves solver nodes): compute it once and pass it to the `…In` methods.
   */
  solverPlaneRotation(out: Quat): Quat {
    return planeRotation(out, this.plane1!.solverPosition, this.plane2!.solverPosition, this.plane3!.solverPosition);
  }
}
