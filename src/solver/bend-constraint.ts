import { clampDirectionRef, orthoNormalize } from "../math/direction.js";
import {
  Quat,
  copyQuat,
  fromToRotation,
  inverseRotateVector,
  isIdentityApprox,
  multiply,
  nlerpRef,
  rotateVector,
} from "../math/quat.js";
import {
  type ReadonlyVec3,
  Vec3,
  copy,
  cross,
  isZero,
  lengthSq,
  lerpRef,
  negate,
  normalize,
  set,
  sub,
} from "../math/vec3.js";
import { NumberRef } from "../math/number-ref.js";
import type { IKNode } from "./node.js";
import type { IKPose } from "./pose.js";

const v1 = new Vec3();
const v2 = new Vec3();
const v3 = new Vec3();
const q1 = new Quat();
const q2 = new Quat();
const q3 = new Quat();
/** Weights handed to the interpolation helpers by reference (see NumberRef). */
const weight = new NumberRef();

/** What limitBend and getDir read from the solver. */
export interface BendSolver {
  /** The solver's master weight. */
  readonly ikPositionWeight: number;
}

/**
 * Bend direction of a three-bone limb (FinalIK's IKConstraintBend): which way the elbow or knee points.
 * By default it carries the animated bend plane along with the limb; a bend goal, an explicit
 * `direction` with `weight`, the end effector's rotation and the plane rotation offset of
 * maintainRelativePositionWeight steer it.
 */
export class BendConstraint {
  /** Upper arm or thigh. */
  bone1: IKNode | null = null;
  /** Forearm or calf. */
  bone2: IKNode | null = null;
  /** Hand or foot. */
  bone3: IKNode | null = null;
  /**
   * Component-space position the elbow/knee should point at, or null. While set, `direction` follows it
   * every frame (FinalIK's bendGoal Transform; the Babylon layer copies a node's position here).
   */
  bendGoal: Vec3 | null = null;
  /** Bend direction used with `weight` (component space). Recomputed at initiate. */
  readonly direction = new Vec3(1, 0, 0);
  /** Twist of the bend plane from the end effector's maintainRelativePositionWeight (set by the biped). */
  readonly rotationOffset = new Quat();
  /** Weight of `direction` / the bend goal against the animated bend, [0, 1]. Default 0. */
  weight = 0;
  /** Bend direction in the first bone's space, captured at initiate. */
  readonly defaultLocalDirection = new Vec3();
  /** Bend-plane normal in the last bone's space, captured at initiate. */
  readonly defaultChildDirection = new Vec3();
  /** LimitBend allows the lower bone to deviate this weight from the default bend (0.505 ≈ 89°). */
  clampF = 0.505;
  /** True once initiate succeeded. */
  initiated = false;
  /** True when the limb was straight at initiate, so the default bend direction is a guess. */
  straightAtInitiate = false;
  private limbOrientationsSet = false;
  // cos of the allowed cone's angle for the last clamp weight: the weight rarely changes between frames
  private coneClampWeight = Number.NaN;
  private coneCos = 1;

  /** Assigns the three limb nodes. */
  setBones(bone1: IKNode, bone2: IKNode, bone3: IKNode): void {
    this.bone1 = bone1;
    this.bone2 = bone2;
    this.bone3 = bone3;
  }

  /**
   * Captures the default bend direction from the animated pose (node bone positions and rotations must
   * be read). `straightFallback`, when given, is the side a limb that is straight in this pose should bend
   * toward (component space). Returns false when bones are missing.
   */
  initiate(straightFallback: ReadonlyVec3 | null = null): boolean {
    const b1 = this.bone1;
    const b2 = this.bone2;
    const b3 = this.bone3;
    if (b1 === null || b2 === null || b3 === null) return false;
    const limb = sub(v1, b3.bonePosition, b1.bonePosition);
    const upper = sub(v2, b2.bonePosition, b1.bonePosition);
    // a straight limb leaves the bend plane undefined; orthoNormalize still yields a perpendicular
    cross(v3, limb, upper);
    // sin² of the bend angle below 1e-6 (about 0.06°): no usable bend plane
    this.straightAtInitiate = lengthSq(v3) <= 1e-6 * lengthSq(limb) * lengthSq(upper);
    // direction: the elbow/knee side, perpendicular to the upper bone, in the bend plane
    const dir = copy(this.direction, this.straightAtInitiate && straightFallback !== null ? straightFallback : upper);
    orthoNormalize(limb, dir);
    sub(v2, b2.bonePosition, b1.bonePosition);
    orthoNormalize(v2, dir);
    this.initiated = true;
    if (!this.limbOrientationsSet) {
      inverseRotateVector(this.defaultLocalDirection, b1.boneRotation, dir);
      sub(v1, b3.bonePosition, b1.bonePosition);
      normalize(v1, v1);
      cross(v1, v1, dir);
      inverseRotateVector(this.defaultChildDirection, b3.boneRotation, v1);
    }
    return true;
  }

  /**
   * Overrides the default bend axes in bone space (FinalIK's SetLimbOrientation): `upper` is the first
   * bone's local axis pointing to the bend side, `last` the last bone's local bend-plane normal. Used for
   * rigs whose limbs are straight at initiate.
   */
  setLimbOrientation(upper: Vec3, last: Vec3): void {
    normalize(this.defaultLocalDirection, upper);
    normalize(this.defaultChildDirection, last);
    this.limbOrientationsSet = true;
  }

  /**
   * LimitBend: un-inverts an elbow or knee in the animated pose before solving (FinalIK rotates the real
   * bones; here the pose and the node snapshots change together). The lower bone is clamped to within
   * about 89° × solverWeight of the default bend side; when the end effector is weighted the bend plane
   * also turns toward the default bend side by positionWeight × solverWeight. The last bone keeps its
   * rotation.
   */
  limitBend(pose: IKPose, solver: BendSolver, endPositionWeight: Readonly<NumberRef>): void {
    if (!this.initiated) return;
    // weights by reference: this call is too big for V8 to inline, and double arguments would be boxed
    const solverWeight = solver.ikPositionWeight;
    const positionWeight = endPositionWeight.value;
    const b1 = this.bone1!;
    const b2 = this.bone2!;
    const b3 = this.bone3!;
    // n: the side the lower bone must not face away from
    rotateVector(v1, b1.boneRotation, this.defaultLocalDirection);
    negate(v1, v1);
    const a = sub(v2, b3.bonePosition, b2.bonePosition);
    // inside the allowed cone (angle < π(1 − clampWeight)) nothing changes: test that inline, so the
    // clamp only runs for a limb that needs it
    const clampWeight = this.clampF * solverWeight;
    const al = Math.sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
    const cosA = al > 0 ? (a.x * v1.x + a.y * v1.y + a.z * v1.z) / al : 1;
    if (clampWeight !== this.coneClampWeight) {
      this.coneClampWeight = clampWeight;
      this.coneCos = Math.cos(Math.PI * (1 - clampWeight));
    }
    const inside = !(clampWeight > 0) || (clampWeight < 1 && cosA > this.coneCos + 1e-12);
    weight.value = clampWeight;
    const changed = inside ? false : clampDirectionRef(v3, a, v1, weight, 0);
    const lastRotation = copyQuat(q3, b3.boneRotation);
    let touched = false;
    if (changed) {
      fromToRotation(q1, a, v3);
      multiply(q2, q1, b2.boneRotation);
      pose.setRotation(b2.bone, q2);
      touched = true;
      refresh(pose, b2, b3);
    }
    if (positionWeight > 0) {
      const normal = sub(v2, b2.bonePosition, b1.bonePosition);
      const tangent = sub(v3, b3.bonePosition, b2.bonePosition);
      orthoNormalize(normal, tangent);
      fromToRotation(q1, tangent, v1);
    }
    // a bend plane already on the default side needs no turn (and no rounding-level rewrite of the bone)
    if (positionWeight > 0 && !(Math.abs(q1.w) > 1 - 1e-15)) {
      multiply(q2, q1, b2.boneRotation);
      weight.value = positionWeight * solverWeight;
      nlerpRef(q2, b2.boneRotation, q2, weight);
      pose.setRotation(b2.bone, q2);
      touched = true;
      refresh(pose, b2, b3);
    }
    if (touched) {
      pose.setRotation(b3.bone, lastRotation);
      pose.getRotation(b3.bone, b3.boneRotation);
    }
  }

  /**
   * The bend direction for the final trigonometric pass, written into `out` (component space, not
   * necessarily unit). Zero when not initiated.
   */
  getDir(out: Vec3, solver: BendSolver): Vec3 {
    if (!this.initiated) return set(out, 0, 0, 0);
    const b1 = this.bone1!;
    const b2 = this.bone2!;
    const b3 = this.bone3!;
    const w = this.weight * solver.ikPositionWeight;
    const goal = this.bendGoal;
    if (goal !== null) {
      sub(v1, goal, b1.solverPosition);
      if (!isZero(v1)) copy(this.direction, v1);
    }
    if (w >= 1) return normalize(out, this.direction);
    // the animated bend direction, carried along with the swing of the limb
    const s = sub(v2, b3.solverPosition, b1.solverPosition);
    sub(v1, b3.bonePosition, b1.bonePosition);
    fromToRotation(q1, v1, s);
    sub(v3, b2.bonePosition, b1.bonePosition);
    rotateVector(out, q1, v3);
    const erw = b3.effectorRotationWeight;
    if (erw > 0) {
      // the effector's rotation defines the bend plane through the default plane normal
      rotateVector(v1, b3.solverRotation, this.defaultChildDirection);
      cross(v1, s, v1);
      negate(v1, v1);
      weight.value = erw;
      lerpRef(out, out, v1, weight);
    }
    if (!isIdentityApprox(this.rotationOffset)) {
      // keep only the swing part of the offset about the solved limb axis, then twist the plane
      rotateVector(v1, this.rotationOffset, s);
      fromToRotation(q1, v1, s);
      multiply(q1, q1, this.rotationOffset);
      rotateVector(out, q1, out);
    }
    if (w <= 0) return out;
    // Deviation from FinalIK for scale invariance: blend unit directions (FinalIK blends the
    // upper-bone-length vector with the unit direction, which depends on the rig's units).
    normalize(out, out);
    normalize(v1, this.direction);
    weight.value = w;
    return lerpRef(out, out, v1, weight);
  }
}

function refresh(pose: IKPose, b2: IKNode, b3: IKNode): void {
  pose.getRotation(b2.bone, b2.boneRotation);
  pose.getPosition(b3.bone, b3.bonePosition);
  pose.getRotation(b3.bone, b3.boneRotation);
}
