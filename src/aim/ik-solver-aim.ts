/**
 * IKSolverAim: FinalIK's AimIK, engine-neutral.
 * @module
 */
import { NumberRef } from "../math/number-ref.js";
import {
  Quat,
  copyQuat,
  fromToRotation,
  identity,
  isFiniteQuat,
  nlerpByRef,
  normalizeQuat,
  rotateVector,
} from "../math/quat.js";
import type { RotationLimit } from "../joints/limits/rotation-limit.js";
import { checkLimitUnshared, clampToLimit, readRestLocals } from "../joints/limits/chain-limits.js";
import { slerpVectorsByRef } from "../math/direction.js";
import {
  type ReadonlyVec3,
  Vec3,
  add,
  angleByRef,
  copy,
  distance,
  isFiniteVec,
  isZero,
  length,
  normalize,
  projectOnPlane,
  scaleAndAdd,
  sub,
} from "../math/vec3.js";
import type { IKPose } from "../solver/pose.js";
import { offsetWithin } from "../joints/far-target.js";
import { ON_POINT } from "../math/on-point.js";
import { checkBones, ensure } from "../joints/pose-checks.js";
import { clampFractionByRef } from "./clamp-fraction.js";
import { RigidChain } from "./rigid-chain.js";

/** One bone of an aim chain and how much it takes part (0..1; FinalIK's bones[i].weight). */
export interface AimBone {
  /** Pose bone id. */
  readonly bone: number;
  /** How much this bone turns toward the target, 0..1. */
  weight: number;
  /** The bone's rotation limit, or null; set it with {@link IKSolverAim.setLimit} so its rest rotation is given. */
  limit: RotationLimit | null;
}

/** Setup options of {@link IKSolverAim}. */
export interface IKSolverAimOptions {
  /** The bone carrying the aim (a gun under the hand); default the last chain bone. Must follow it rigidly. */
  aimBone?: number;
  /** The aiming axis in the aim bone's local frame; default (0, 0, 1). */
  axis?: ReadonlyVec3;
  /** Where the aim ray starts, in the aim bone's local frame (a barrel's muzzle); default its origin. */
  aimOffset?: ReadonlyVec3;
  /** The axis turned toward {@link IKSolverAim.polePosition}, in the aim bone's frame; default (0, 1, 0). */
  poleAxis?: ReadonlyVec3;
  /**
   * Pose id of the first bone's parent, the frame of that bone's rotation limit (each other bone's is the chain
   * bone before it); default none: component space.
   */
  rootParent?: number;
}

/** Why the last {@link IKSolverAim.solve} left the pose untouched ("" when it did not). */
export type AimSkipReason = "" | "weight" | "input" | "pose" | "target on aim point";

const RAD = Math.PI / 180;
/** The most passes one solve runs, whatever {@link IKSolverAim.maxIterations} says (a bound on a frame's cost). */
export const MAX_PASSES = 100;
/** Relative size below which a distance counts as zero. */
const EPS = 1e-10;

const point = new Vec3();
const axisW = new Vec3();
const poleW = new Vec3();
const dir = new Vec3();
const base = new Vec3();
const clamped = new Vec3();
const goalDir = new Vec3();
const v = new Vec3();
const u = new Vec3();
const q = new Quat();
const r = new Quat();
const unit = new Quat();
const parentRot = new Quat();
// numbers handed to helpers by reference (see NumberRef)
const frac = new NumberRef();
const weightRef = new NumberRef();
const angleOut = new NumberRef();
const clampRef = new NumberRef();
const smoothRef = new NumberRef();
const turnRef = new NumberRef();
const poleRef = new NumberRef();
const farLimit = new NumberRef();
/** Targets farther than this many chain lengths are brought in along their ray. */
const FAR = 1e6;

/**
 * Turns a chain of bones so that an axis of its last bone (or of a bone rigidly under it, from a point
 * on it: a gun's barrel) points at {@link ikPosition} (FinalIK's AimIK), component space.
 *
 * Each {@link solve}: reads the chain once; the aim goal is the target direction clamped around the
 * animated axis ({@link clampWeight}: at most (1 − clampWeight) × 180° from it) and blended from the
 * animated axis by {@link ikPositionWeight}, fixed for the frame; then up to {@link maxIterations} passes
 * root to tip, each bone turned by the shortest rotation taking the current axis onto the goal, scaled by
 * (i + 1)/n × its weight (the last bone by its weight alone) so the turn spreads along the chain, and
 * twisted about the axis toward {@link polePosition} by {@link poleWeight}, then turned back inside its
 * rotation limit, if it has one ({@link setLimit}, {@link useRotationLimits}); a pass after the first is
 * skipped once the axis is within {@link tolerance} degrees of the goal; finally writes the chain once,
 * root first. A target is always "reachable" unless it is on the aim point (then the frame is
 * skipped); with the aim point off the last bone's pivot, each pass gets closer, not exact.
 * Bad input leaves the pose untouched for the frame ({@link skipReason}); ikPositionWeight 0 writes
 * nothing. Allocation-free per solve.
 */
export class IKSolverAim {
  /** The chain, root first; each bone a descendant of the one before. */
  readonly bones: readonly AimBone[];
  /** The bone the aim is measured on. */
  readonly aimBone: number;
  /** The aiming axis, aim bone's local frame. */
  readonly axis: Vec3;
  /** Where the aim ray starts, aim bone's local frame. */
  readonly aimOffset: Vec3;
  /** The axis twisted toward the pole, aim bone's local frame. */
  readonly poleAxis: Vec3;
  /** The point to aim at, component space (3 chain lengths along the setup axis until set). */
  readonly ikPosition = new Vec3();
  /** How far the aim turns from the animated axis toward the target, 0..1. */
  ikPositionWeight = 1;
  /** The point the pole axis twists toward, component space. */
  readonly polePosition = new Vec3();
  /** How much the pole twists the aim, 0..1. */
  poleWeight = 0;
  /** Degrees: a pass after the first is skipped when the axis is this close to the goal (0: all passes). */
  tolerance = 0;
  /** Passes over the chain per solve (at most `MAX_PASSES`). */
  maxIterations = 4;
  /**
   * Limits the aim to (1 − clampWeight) × 180° from the animated axis, 0..1 (0: no limit). A target further round
   * is not held at that angle: the turn fades back toward the animated axis, to none for a target straight behind
   * (so the aim does not flip sides as the target passes behind). With 0.1, the default, a target 175° round turns
   * the aim about 100°; set 0 to have the rotation limits alone stop the turn.
   */
  clampWeight = 0.1;
  /** Rounds of smoothing of the clamp (0..2). */
  clampSmoothing = 2;
  /**
   * Whether the bones' rotation limits ({@link setLimit}) are applied, after each bone's turn in every pass
   * (FinalIK's useRotationLimits). Default true.
   */
  useRotationLimits = true;
  /** Why the last solve wrote nothing ("" when it wrote). */
  skipReason: AimSkipReason = "";
  /** Passes the last solve ran. */
  iterationsUsed = 0;

  private readonly pose: IKPose;
  private readonly chain: RigidChain;
  private readonly aimEntry: number;
  /** The chain's setup length (bones and aim offset), the scale of the zero thresholds. */
  private readonly size: number;
  private readonly goal = new Vec3();
  private readonly rootParent: number;
  private readonly rootParentRotation = new Quat();
  private readonly restLocals: Quat[];

  /**
   * Binds the solver to `bones` (root first) of `pose`. Setup reads the pose for the default target.
   * @throws FBBIKError naming the bone when an id is bad or repeated, the axis is zero, or the pose is not finite.
   */
  constructor(pose: IKPose, bones: readonly number[], options: IKSolverAimOptions = {}) {
    const n = bones.length;
    const last = bones[n - 1] ?? -1;
    const aimBone = options.aimBone ?? last;
    const separate = aimBone !== last;
    const ids = separate ? [...bones, aimBone] : [...bones];
    checkBones(pose, "IKSolverAim", n > 0 ? ids : [-1], [...bones.map((_, i) => `chain bone ${i}`), "the aim bone"]);
    const rp = options.rootParent ?? -1;
    ensure(
      options.rootParent === undefined || (Number.isInteger(rp) && rp >= 0 && !ids.includes(rp)),
      pose,
      n > 0 ? bones[0]! : -1,
      "IKSolverAim",
      "was given a rootParent that is not a bone id outside the chain",
    );
    this.rootParent = rp;
    this.pose = pose;
    this.bones = bones.map((bone) => ({ bone, weight: 1, limit: null }));
    this.restLocals = bones.map(() => new Quat());
    this.aimBone = aimBone;
    this.axis = copy(new Vec3(), options.axis ?? new Vec3(0, 0, 1));
    this.aimOffset = copy(new Vec3(), options.aimOffset ?? new Vec3());
    this.poleAxis = copy(new Vec3(), options.poleAxis ?? new Vec3(0, 1, 0));
    ensure(
      isFiniteVec(this.axis) && length(this.axis) > 0,
      pose,
      aimBone,
      "IKSolverAim",
      "was given a zero or non-finite axis",
    );
    ensure(isFiniteVec(this.aimOffset), pose, aimBone, "IKSolverAim", "was given a non-finite aimOffset");
    ensure(isFiniteVec(this.poleAxis), pose, aimBone, "IKSolverAim", "was given a non-finite poleAxis");
    this.chain = new RigidChain(
      ids,
      ids.map((_, i) => i - 1),
      n,
    );
    this.aimEntry = ids.length - 1;
    ensure(this.chain.read(pose), pose, aimBone, "IKSolverAim", "has a non-finite pose in the chain");
    let size = length(this.aimOffset);
    const c = this.chain;
    for (let i = 1; i < ids.length; i++) size += distance(c.getPosition(i - 1, v), c.getPosition(i, u));
    this.size = size > 0 ? size : 1;
    this.aimPoint();
    scaleAndAdd(this.ikPosition, point, axisW, 3 * this.size);
    rotateVector(poleW, this.chain.getRotation(this.aimEntry, r), this.poleAxis);
    scaleAndAdd(this.polePosition, point, normalize(poleW, poleW), 3 * this.size);
    this.readRestPose();
  }

  /**
   * Takes the pose as it stands (each bone's rotation relative to the chain bone before it, the first's to
   * {@link IKSolverAimOptions.rootParent}) as the rest rotations the limits work from, and hands them to the limits
   * already set. The constructor takes the pose it is given. On AimIK the pose is the one last solved:
   * `AimIK.readRestPose()` reads the bones.
   */
  readRestPose(): void {
    readRestLocals(
      this.pose,
      this.rootParent,
      this.bones.map((b) => b.bone),
      this.restLocals,
    );
    for (let i = 0; i < this.bones.length; i++) this.bones[i]!.limit?.setDefaultLocalRotation(this.restLocals[i]!);
  }

  /**
   * Sets bone `index`'s rotation limit (or removes it with null), relative to its rest rotation
   * ({@link readRestPose}). The limit turns the bone back inside after each of its turns toward the target.
   * One limit object per bone: it keeps its bone's rest rotation (share none between bones or solvers).
   * @throws RangeError when `index` is not a bone of the chain.
   * @throws FBBIKError when `limit` is already another bone's of this chain.
   */
  setLimit(index: number, limit: RotationLimit | null): void {
    const bone = this.bones[index];
    if (bone === undefined) throw new RangeError(`bone ${index} is not in the chain (0..${this.bones.length - 1})`);
    checkLimitUnshared(this.bones, index, limit, "IKSolverAim");
    bone.limit = limit;
    limit?.setDefaultLocalRotation(this.restLocals[index]!);
  }

  /** Solves one frame: reads the chain, aims it, writes it (nothing when ikPositionWeight is 0). */
  solve(): void {
    this.iterationsUsed = 0;
    this.skipReason = this.solveFrame();
  }

  /** One solve; returns why it wrote nothing, or "" when it wrote. */
  private solveFrame(): AimSkipReason {
    const wIn = this.ikPositionWeight;
    if (!Number.isFinite(wIn)) return "input";
    // weights clamped to [0, 1] inline: per-frame code passes no double through a call (see NumberRef)
    const w = wIn > 0 ? (wIn < 1 ? wIn : 1) : 0;
    if (w <= 0) return "weight";
    if (!this.inputUsable()) return "input";
    if (!this.chain.read(this.pose)) return "pose";
    const limits = this.useRotationLimits && this.hasLimits();
    if (limits) {
      if (this.rootParent >= 0) this.pose.getRotation(this.rootParent, this.rootParentRotation);
      else identity(this.rootParentRotation);
      if (!isFiniteQuat(this.rootParentRotation)) return "pose";
      normalizeQuat(this.rootParentRotation, this.rootParentRotation);
    }
    this.aimPoint();
    // a target beyond FAR chain lengths is brought in along its ray (squares would overflow; same direction)
    farLimit.value = FAR * this.size;
    if (!offsetWithin(dir, point, this.ikPosition, farLimit)) return "target on aim point";
    const dl = Math.sqrt(dir.x * dir.x + dir.y * dir.y + dir.z * dir.z);
    if (!(dl > ON_POINT * this.size)) return "target on aim point";
    // the goal: clamped around the animated axis, blended from it by the weight, fixed for the frame
    base.x = axisW.x * dl;
    base.y = axisW.y * dl;
    base.z = axisW.z * dl;
    const cw = this.clampWeight;
    clampRef.value = cw > 0 ? (cw < 1 ? cw : 1) : 0;
    smoothRef.value = this.clampSmoothing;
    clampFractionByRef(frac, axisW, dir, clampRef, smoothRef);
    slerpVectorsByRef(clamped, base, dir, frac);
    weightRef.value = w;
    slerpVectorsByRef(goalDir, base, clamped, weightRef);
    add(this.goal, point, goalDir);
    const mi = this.maxIterations;
    const passes = mi < MAX_PASSES ? mi : MAX_PASSES;
    const tol = this.tolerance;
    for (let it = 0; it < passes; it++) {
      if (it >= 1 && tol > 0 && this.angleToGoal(angleOut).value < tol * RAD) break;
      this.pass(limits);
      this.iterationsUsed = it + 1;
    }
    this.chain.write(this.pose);
    return "";
  }

  private inputUsable(): boolean {
    if (!isFiniteVec(this.ikPosition) || !isFiniteVec(this.axis) || isZero(this.axis)) return false;
    if (!isFiniteVec(this.aimOffset) || !Number.isFinite(this.clampWeight)) return false;
    if (!Number.isFinite(this.clampSmoothing) || !Number.isFinite(this.tolerance)) return false;
    if (!Number.isFinite(this.maxIterations) || !Number.isFinite(this.poleWeight)) return false;
    if (this.poleWeight > 0 && (!isFiniteVec(this.polePosition) || !isFiniteVec(this.poleAxis))) return false;
    const bones = this.bones;
    for (let i = 0; i < bones.length; i++) if (!Number.isFinite(bones[i]!.weight)) return false;
    return true;
  }

  /** True when any bone has a rotation limit. */
  hasLimits(): boolean {
    const bones = this.bones;
    for (let i = 0; i < bones.length; i++) if (bones[i]!.limit !== null) return true;
    return false;
  }

  /** One pass root to tip, each bone turned back inside its limit after its turns when `limits`. */
  private pass(limits: boolean): void {
    const bones = this.bones;
    const n = bones.length;
    const step = 1 / n;
    const pw = this.poleWeight;
    const pole = pw > 0 ? (pw < 1 ? pw : 1) : 0;
    for (let i = 0; i < n; i++) {
      const wIn = bones[i]!.weight;
      const bw = wIn > 0 ? (wIn < 1 ? wIn : 1) : 0;
      const wi = i < n - 1 ? step * (i + 1) * bw : bw;
      if (!(wi > 0)) continue;
      this.aimPoint();
      fromToRotation(q, axisW, sub(v, this.goal, point));
      turnRef.value = wi;
      if (wi < 1) nlerpByRef(q, identity(unit), q, turnRef);
      this.chain.rotate(i, q);
      poleRef.value = wi * pole;
      if (pole > 0) this.twistToPole(i, poleRef);
      if (limits) this.limitBone(i);
    }
  }

  /** Turns bone `i` back inside its limit, relative to the bone before it (its subtree follows). */
  private limitBone(i: number): void {
    const limit = this.bones[i]!.limit;
    if (limit === null) return;
    const c = this.chain;
    if (i > 0) c.getRotation(i - 1, parentRot);
    else copyQuat(parentRot, this.rootParentRotation);
    if (clampToLimit(limit, parentRot, c.getRotation(i, r))) c.setRotation(i, r);
  }

  /** Twists bone `i` about the aim axis so the pole axis turns toward the pole by `t`. */
  private twistToPole(i: number, t: Readonly<NumberRef>): void {
    this.aimPoint();
    this.chain.getRotation(this.aimEntry, r);
    rotateVector(poleW, r, this.poleAxis);
    projectOnPlane(u, poleW, axisW);
    farLimit.value = FAR * this.size;
    if (!offsetWithin(v, point, this.polePosition, farLimit)) return;
    projectOnPlane(v, v, axisW);
    const lu = Math.sqrt(u.x * u.x + u.y * u.y + u.z * u.z);
    const lv = Math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    if (!(lu > EPS) || !(lv > EPS * this.size)) return;
    fromToRotation(q, u, v);
    if (t.value < 1) nlerpByRef(q, identity(unit), q, t);
    this.chain.rotate(i, q);
  }

  /** Writes into `out.value` the angle in radians between the current axis and the goal direction. */
  private angleToGoal(out: NumberRef): NumberRef {
    this.aimPoint();
    return angleByRef(out, axisW, sub(v, this.goal, point));
  }

  /** The aim ray's start and unit axis in component space, from the chain's current state. */
  private aimPoint(): void {
    const c = this.chain;
    c.getRotation(this.aimEntry, r);
    c.getPosition(this.aimEntry, point);
    add(point, point, rotateVector(v, r, this.aimOffset));
    normalize(axisW, rotateVector(axisW, r, this.axis));
  }
}
