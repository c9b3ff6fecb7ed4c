import { NumberRef } from "../math/number-ref.js";
import {
  Quat,
  conjugateMultiply,
  copyQuat,
  inverseRotateVector,
  isFiniteQuat,
  multiply,
  normalizeQuat,
  quatFromArray,
  quatToArray,
  slerpByRef,
} from "../math/quat.js";
import { Vec3, fromArray, isFiniteVec, sub, toArray } from "../math/vec3.js";
import { FBBIKError } from "../solver/errors.js";
import type { IKPose } from "../solver/pose.js";
import { JacobianEffector } from "./jacobian-effector.js";
import type { JacobianJoint } from "./jacobian-joint.js";
import { JacobianKinematics } from "./jacobian-kinematics.js";
import { straightenToward } from "./straighten.js";
import { MAX_JACOBIAN_ITERATIONS, iterationBound } from "../joints/iteration-bound.js";

/** Options of {@link IKSolverJacobian}. */
export interface IKSolverJacobianOptions {
  /**
   * The bone whose frame the root joint's angles and limits are relative to (the root's parent bone).
   * Default: none, component space.
   */
  rootParent?: number;
}

const q = new Quat();
const q2 = new Quat();
const v = new Vec3();
const v2 = new Vec3();
const blend = new NumberRef();
/**
 * Band under which a level counts as met, relative to L: its lower levels' null-space steps raise it at second
 * order (1e-3..1e-8 cm measured on Soldier), and a strict comparison rejected them all (the solve crawled).
 */
const BAND = 1e-9;
/** Relative change of a level's error that counts as none: what a correction leaves of a residual it cannot remove. */
const REL = 1e-9;
/** Most correction steps after a step on several levels (3 took Soldier's stalls from 287 to 90 frames in 1,080). */
const CORRECTIONS = 3;
/** λ of a correction step relative to `damping`·L: nearly Gauss–Newton, the levels corrected are close to met. */
const CORRECTION_MU = 1e-3;

/**
 * Damped least squares (Levenberg–Marquardt) IK on a chain or a tree of joints with several end effectors:
 * the accuracy yardstick of the family. Slower than CCD or FABRIK by design.
 *
 * Per {@link update}: reads every joint from the pose once, expresses the animated pose in the joints'
 * angles (limits clamp it), then iterates Δθ = Jᵀ(JJᵀ + λ²I)⁻¹e over the weighted effector errors e, in
 * preallocated Float64Arrays with a Cholesky solve of its own (allocation-free), and writes the joints back
 * root to tip. λ = `damping`·L (L the joints' total length, so the solve is scale-equivariant); with
 * `adaptiveDamping` λ shrinks after a step that lowers the error and grows after one that does not (the
 * step is then undone), which converges quadratically near the answer and never diverges.
 *
 * Conflicting effectors of one `priority` are resolved by their weights (weighted least squares); a lower
 * priority is solved in the null space of the higher ones (task priority), and a step is kept when it lowers
 * the errors compared level by level from the highest priority, after up to three near Gauss–Newton steps on the
 * higher levels undo its second-order disturbance of them (a higher level within 1e-9·L counts as met); each level
 * has its own damping factor.
 *
 * Reachability first: an effector's target farther from its root joint than the effector's path
 * straightened is replaced by the reachable point on the line to it; when that effector is the only one on,
 * its path is straightened at the target directly (free joints turned root to tip, the shortest way, within
 * their limits) and, when that already meets the target (no hinge or limit in the way, no rotation target),
 * no iteration runs. Otherwise the iterations go on from there. The blind zone near the root needs no
 * special case: its targets are reachable for a tree of free joints, and the least-squares answer otherwise;
 * but a target on the root joint itself (within `ON_POINT` of the path) is float noise off it, which the fold
 * followed a new way each frame: the effector is held at its animated position for the frame
 * ({@link JacobianEffector.targetOnRoot}).
 * A target or weight that is not finite switches its effector off for the frame; with no effector on, or
 * `ikPositionWeight` ≤ 0, nothing is written.
 */
export class IKSolverJacobian {
  /** Master weight in [0, 1]: the solved local rotations are slerped from the animated ones by it. */
  ikPositionWeight = 1;
  /** Most iterations per update. */
  maxIterations = 100;
  /** Stop when every effector is within this distance of its target (rotation: angle × L). 0: iterate on. */
  tolerance = 0;
  /** λ relative to the joints' total length L. */
  damping = 0.05;
  /** Levenberg–Marquardt adaptation of λ (true) or a fixed λ with every step taken (false). */
  adaptiveDamping = true;
  /** Largest change of one angle per iteration, radians (the whole step is scaled down to it). */
  maxStep = 0.5;
  /** Iterations the last update ran. */
  lastIterations = 0;
  /** Largest effector error after the last update (distance; rotation as angle × L), or NaN when skipped. */
  lastError = Number.NaN;
  /** The effectors, in the order added. */
  readonly effectors: JacobianEffector[] = [];
  private readonly pose: IKPose;
  private readonly k: JacobianKinematics;
  private readonly rootParent: number;
  /** Levenberg–Marquardt factor on λ per priority level, adapted per step. */
  private mu = new Float64Array(1);
  /** Iterations of the current update (correction steps count). */
  private iterations = 0;
  /** λ without its factor, `damping`·L, per update (a field: a double returned by a call may be boxed). */
  private lambda = 0;

  /**
   * Builds the solver on `joints` (parents listed before children) of `pose`, whose current pose becomes the
   * rest pose the angles and limits are measured from. Throws {@link FBBIKError} naming every bad joint.
   */
  constructor(pose: IKPose, joints: readonly JacobianJoint[], options: IKSolverJacobianOptions = {}) {
    this.pose = pose;
    this.rootParent = options.rootParent ?? -1;
    const problems = validate(joints, this.rootParent);
    if (problems.length > 0) throw new FBBIKError(problems, "IKSolverJacobian");
    this.k = new JacobianKinematics(joints);
    const restProblems = this.readRest();
    if (restProblems.length > 0) throw new FBBIKError(restProblems, "IKSolverJacobian");
  }

  /** Number of joints. */
  get jointCount(): number {
    return this.k.n;
  }

  /** The angles of the last update (radians), per joint from {@link dofOffset}: x, y, z or a hinge's one. */
  get angles(): Float64Array {
    return this.k.theta;
  }

  /** Where joint `joint`'s angles start in {@link angles}; its count is 3, 1 (hinge) or 0 (locked). */
  dofOffset(joint: number): number {
    return this.k.dofStart[joint]!;
  }

  /**
   * Adds an end effector on `bone` (one of the joints' bones), reallocating the solve's buffers (setup
   * time). Throws {@link FBBIKError} when the bone is not a joint.
   */
  addEffector(bone: number): JacobianEffector {
    const joint = this.k.jointOf(bone);
    if (joint < 0)
      throw new FBBIKError([`effector bone ${bone} is not one of the solver's joints`], "IKSolverJacobian");
    const e = new JacobianEffector(bone, joint);
    this.effectors.push(e);
    this.k.setEffectors(this.effectors);
    this.mu = new Float64Array(this.effectors.length);
    return e;
  }

  /** Solves and writes the joints back to the pose (nothing is written when there is nothing to do). */
  update(): void {
    this.lastIterations = 0;
    this.lastError = Number.NaN;
    const effectors = this.effectors;
    for (let e = 0; e < effectors.length; e++) effectors[e]!.targetOnRoot = false;
    const w = this.ikPositionWeight;
    if (!(w > 0) || !this.read()) return;
    const k = this.k;
    if (!k.activate(effectors)) return;
    this.iterate();
    for (let e = 0; e < effectors.length; e++) effectors[e]!.targetOnRoot = k.fx.onRoot[e] === 1;
    blend.value = w < 1 ? w : 1;
    this.write();
  }

  /** Reads the rest local rotations at setup; problems for bones that read non-finite. */
  private readRest(): string[] {
    const k = this.k;
    const problems: string[] = [];
    if (!this.readParentFrame()) problems.push(`root parent bone ${this.rootParent} reads a non-finite rotation`);
    for (let i = 0; i < k.n; i++) {
      this.pose.getRotation(k.bone[i]!, q);
      this.pose.getPosition(k.bone[i]!, v);
      if (!isFiniteQuat(q) || !isFiniteVec(v)) problems.push(`joint bone ${k.bone[i]} reads a non-finite transform`);
      normalizeQuat(q, q);
      quatToArray(k.wRot, i * 4, q);
      const p = k.parent[i]!;
      if (p < 0) copyQuat(q2, k.parentFrame);
      else quatFromArray(q2, k.wRot, p * 4);
      conjugateMultiply(q, q2, q);
      quatToArray(k.rest, i * 4, normalizeQuat(q, q));
    }
    return problems;
  }

  /** Reads the root parent's rotation into the kinematics' parent frame; false when not finite. */
  private readParentFrame(): boolean {
    const f = this.k.parentFrame;
    if (this.rootParent < 0) {
      f.x = 0;
      f.y = 0;
      f.z = 0;
      f.w = 1;
      return true;
    }
    this.pose.getRotation(this.rootParent, f);
    if (!isFiniteQuat(f)) return false;
    normalizeQuat(f, f);
    return true;
  }

  /**
   * Reads the joints once: world transforms, local offsets and the animated local rotations, expressed as
   * angles (clamped to the limits). False when anything reads non-finite (the frame is skipped).
   */
  private read(): boolean {
    const k = this.k;
    if (!this.readParentFrame()) return false;
    for (let i = 0; i < k.n; i++) {
      this.pose.getRotation(k.bone[i]!, q);
      this.pose.getPosition(k.bone[i]!, v);
      if (!isFiniteQuat(q) || !isFiniteVec(v)) return false;
      normalizeQuat(q, q);
      quatToArray(k.wRot, i * 4, q);
      toArray(k.wPos, i * 3, v);
    }
    let length = 0;
    for (let i = 0; i < k.n; i++) {
      const p = k.parent[i]!;
      if (p < 0) {
        copyQuat(q2, k.parentFrame);
        fromArray(v, k.wPos, i * 3);
      } else {
        quatFromArray(q2, k.wRot, p * 4);
        fromArray(v, k.wPos, i * 3);
        fromArray(v2, k.wPos, p * 3);
        inverseRotateVector(v, q2, sub(v, v, v2));
        length += Math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
      }
      toArray(k.localPos, i * 3, v);
      quatFromArray(q, k.wRot, i * 4);
      conjugateMultiply(q, q2, q);
      normalizeQuat(q, q);
      quatToArray(k.anim, i * 4, q);
      k.setAnglesFrom(i, q);
    }
    k.length = length > 0 ? length : 1;
    return true;
  }

  /** The Levenberg–Marquardt loop on the kinematics' angles. */
  private iterate(): void {
    const k = this.k;
    const fx = k.fx;
    const dls = k.dls;
    k.clampTargets();
    k.forward();
    // reachability first: one effector beyond its reach → the path straight at it, often the whole answer
    if (fx.clamped === 1 && fx.activeCount === 1) straightenToward(k, fx.lastClamped);
    k.computeError();
    k.saveBest();
    // below 1e-14 of the length the error is rounding: no step can lower it
    const floor = 1e-14 * k.length;
    fx.floorSq = floor * floor;
    const adaptive = this.adaptiveDamping;
    const band = BAND * k.length;
    fx.bandSq = adaptive ? band * band : 0;
    fx.rel = adaptive ? REL : 1e-15;
    this.mu.fill(1);
    this.lambda = (this.damping > 0 && this.damping < Infinity ? this.damping : 0.05) * k.length;
    const maxIt = iterationBound(this.maxIterations, MAX_JACOBIAN_ITERATIONS);
    this.iterations = 0;
    while (this.iterations < maxIt && this.lmStep()) this.iterations++;
    if (fx.levels > 1 && adaptive) {
      // a few steps on the top priority alone, strict: the lower levels' steps left it up to the band off
      dls.levels = 1;
      dls.rows = fx.levelStart[1]!;
      fx.bandSq = 0;
      fx.rel = 1e-15;
      this.mu.fill(1);
      for (let polish = 0; polish < 10 && fx.levelErr[0]! > fx.floorSq && this.lmStep(); polish++) {
        this.iterations++;
      }
      dls.levels = fx.levels;
      dls.rows = fx.rows;
    }
    // every exit leaves the best angles current: a rejected step is undone at once
    this.lastIterations = this.iterations;
    this.lastError = k.maxError;
  }

  /**
   * One Levenberg–Marquardt iteration, level l's λ = damping·L·`mu[l]`: false when the solve should stop
   * (converged, stuck, or no step possible).
   */
  private lmStep(): boolean {
    const k = this.k;
    const fx = k.fx;
    const dls = k.dls;
    const tol = this.tolerance > 0 ? this.tolerance : 0;
    if (k.maxError <= tol || k.maxError * k.maxError <= fx.floorSq) return false;
    const adaptive = this.adaptiveDamping;
    const lambda = this.lambda;
    const mu = this.mu;
    k.buildJacobian();
    for (let l = 0; l < dls.levels; l++) {
      const x = lambda * mu[l]!;
      dls.levelLambdaSq[l] = x * x;
    }
    dls.maxStep = this.maxStep > 0 ? this.maxStep : 0.5;
    if (!dls.step()) return adaptive && this.grow(-1);
    k.forward();
    k.computeError();
    const stepSize = dls.stepSize;
    if (adaptive) this.correct();
    if (!adaptive || fx.improved()) {
      k.saveBest();
      if (adaptive) for (let l = 0; l < dls.levels; l++) if (mu[l]! > 1e-6) mu[l] = mu[l]! * 0.5;
      return stepSize >= 1e-13;
    }
    k.restoreBest();
    return this.grow(fx.decided);
  }

  /**
   * After a step rejected at level `d` (−1: the solve failed, or no level changed): grows the factors of that level
   * and those below it, or only of those below it when it was met (it rose only by their steps' second-order
   * disturbance), so a lower level's failures do not slow a higher one. False when they are spent.
   */
  private grow(d: number): boolean {
    const fx = this.k.fx;
    const mu = this.mu;
    const levels = this.k.dls.levels;
    const from = d < 0 ? 0 : d < levels - 1 && !(fx.bestLevelErr[d]! > fx.bandSq) ? d + 1 : d;
    if (from >= levels) return false;
    for (let l = from; l < levels; l++) mu[l] = mu[l]! * 4;
    return mu[from]! < 1e6;
  }

  /**
   * After a step on several levels: a few nearly Gauss–Newton steps on the levels above the lowest alone while one
   * of them is above its best, so the lowest level's null-space step is judged after its second-order disturbance of
   * them is undone (a step back onto where they are met) rather than rejected for it.
   */
  private correct(): void {
    const k = this.k;
    const fx = k.fx;
    const dls = k.dls;
    const levels = dls.levels - 1;
    if (levels < 1) return;
    dls.levels = levels;
    dls.rows = fx.levelStart[levels]!;
    const x = this.lambda * CORRECTION_MU;
    for (let l = 0; l < levels; l++) dls.levelLambdaSq[l] = x * x;
    for (let c = 0; c < CORRECTIONS && this.iterations < this.maxIterations && fx.rose(levels); c++) {
      k.buildJacobian();
      if (!dls.step()) break;
      k.forward();
      k.computeError();
      this.iterations++;
    }
    dls.levels = fx.levels;
    dls.rows = fx.rows;
  }

  /** Writes the joints' rotations root to tip, slerped from the animated ones by `blend` when below 1. */
  private write(): void {
    const k = this.k;
    const partial = blend.value < 1;
    for (let i = 0; i < k.n; i++) {
      k.solvedLocal(q, i);
      if (partial) {
        quatFromArray(q2, k.anim, i * 4);
        slerpByRef(q, q2, q, blend);
      }
      const p = k.parent[i]!;
      if (p < 0) copyQuat(q2, k.parentFrame);
      else quatFromArray(q2, k.wRot, p * 4);
      multiply(q, q2, q);
      normalizeQuat(q, q);
      quatToArray(k.wRot, i * 4, q);
      this.pose.setRotation(k.bone[i]!, q);
    }
  }
}

/** Setup problems of a joint list, each naming the joint's bone. */
function validate(joints: readonly JacobianJoint[], rootParent: number): string[] {
  const problems: string[] = [];
  if (joints.length === 0) problems.push("no joints");
  if (!Number.isInteger(rootParent) || rootParent < -1) problems.push(`root parent ${rootParent} is not a bone id`);
  const seen = new Set<number>();
  joints.forEach((j, i) => {
    const name = `joint ${i} (bone ${j.bone})`;
    if (!Number.isInteger(j.bone) || j.bone < 0) problems.push(`${name}: not a bone id`);
    if (seen.has(j.bone)) problems.push(`${name}: the bone is listed twice`);
    seen.add(j.bone);
    const p = j.parent ?? i - 1;
    if (!Number.isInteger(p) || p < -1 || p >= i) problems.push(`${name}: parent ${p} is not a joint listed before it`);
    const dofs = j.locked === true ? 0 : j.hingeAxis !== undefined ? 1 : 3;
    if (j.hingeAxis !== undefined) {
      const a = j.hingeAxis;
      const l = Math.hypot(a.x, a.y, a.z);
      if (!(l > 0) || l === Infinity) problems.push(`${name}: hinge axis is zero or not finite`);
    }
    for (const [label, arr] of [
      ["min", j.min],
      ["max", j.max],
    ] as const) {
      if (arr !== undefined && arr.length !== dofs) {
        problems.push(`${name}: ${label} has ${arr.length} angles for ${dofs} degrees of freedom`);
      }
      if (arr?.some((x) => Number.isNaN(x))) problems.push(`${name}: ${label} has a NaN angle`);
    }
    if (j.min !== undefined && j.max !== undefined) {
      for (let d = 0; d < Math.min(j.min.length, j.max.length); d++) {
        if (j.min[d]! > j.max[d]!) problems.push(`${name}: min ${j.min[d]} > max ${j.max[d]} for angle ${d}`);
      }
    }
  });
  return problems;
}
