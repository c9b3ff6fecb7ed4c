/**
 * The shared frame of the chain solvers (CCD, FABRIK): read the pose once, solve in flat arrays, push out of
 * colliders in sub-steps, write the pose once.
 * About 600 lines: the frame's seven stages share the flat arrays; each is a short method here.
 * @module
 */
import { BeforeHinge, placeBeforeHinge, setUpBeforeHinge } from "./hinge-roll.js";
import { aimRunChord } from "./hinge-chord.js";
import { hingeRunEnd, placeHingeRun } from "./hinge-run.js";
import { checkLimitUnshared, clampToLimit, readRestLocals } from "./limits/chain-limits.js";
import {
  Quat,
  type ReadonlyQuat,
  copyQuat,
  fromToRotation,
  identity,
  inverseRotateVector,
  isFiniteQuat,
  multiply,
  multiplyConjugate,
  normalizeQuat,
  quatFromArray,
  quatToArray,
  rotateVector,
  slerpByRef,
} from "../math/quat.js";
import { NumberRef } from "../math/number-ref.js";
import { clamp01 } from "../math/scalar.js";
import { Vec3, isFiniteVec } from "../math/vec3.js";
import { FBBIKError } from "../solver/errors.js";
import type { IKPose } from "../solver/pose.js";
import { ON_POINT } from "../math/on-point.js";
import { JointBone } from "./joint-bone.js";
import { ColliderStep, type JointColliders } from "./joint-colliders.js";
import type { RotationLimit } from "./limits/rotation-limit.js";

/**
 * Where the target lay at the last solve: within the chain's reach, beyond the straightened chain, or inside the
 * blind zone near the root that the longest bone leaves (closer than `longest − (sum of the others)`).
 */
export type JointReach = "reachable" | "beyond" | "blind";

/** Setup options of an {@link IKSolverJoints}. */
export interface IKSolverJointsOptions {
  /**
   * The bone the first joint's local rotation (and so its limit) is taken relative to, normally its parent.
   * Without it the first joint's limit works in component space.
   */
  rootParent?: number;
  /** Names a bone in error messages (defaults to "bone <id>"). */
  boneName?: (bone: number) => string;
}

const v = new Vec3();
const dir = new Vec3();
const cur = new Vec3();
const want = new Vec3();
const oldRot = new Quat();
const rot = new Quat();
const turn = new Quat();
const change = new Quat();
const parentRot = new Quat();
const blend = new Quat();
const weightRef = new NumberRef();

/**
 * Base of the chain solvers, bound to an {@link IKPose} and a chain of bones from root to tip (each bone the
 * parent or an ancestor of the next; bones in between keep their local transforms). All numbers are in the pose's
 * component space.
 *
 * `update()` runs, allocation-free:
 * 1. InitTransform: reads every joint's position and rotation once into flat arrays, with the bone lengths and
 *    each bone's vector in its joint's frame (so positions can be rebuilt from rotations with exact lengths).
 * 2. ResetConstraints: `colliders.update(pose)`; limits work relative to the rest rotations stored at setup.
 * 3. Reachability: a target at or beyond the straightened chain's length straightens the chain toward it; a target
 *    inside the blind zone (nearer the root than `longest bone − sum of the others`) folds the chain so that the
 *    longest bone points at it and every other bone straight back, which puts the tip on the nearest point it can
 *    reach (along the target's ray from the root; along the current tip's when the target is on the root, within
 *    `ON_POINT` of the chain's length: float noise has no direction). Both
 *    apply the limits root to tip and skip the solver's step, as iterating toward an unreachable point would only
 *    creep to the same pose; `lastReach` says which happened.
 * 4. SolveImpl: the solver's own step on the arrays, toward `goal` (with `collideInIterations`, keeping the joints
 *    out of the colliders inside its iterations).
 * 5. `subSteps` sub-steps with `alpha = k / subSteps`, each `colliders.resolveStep(...)`; if anything moved, the
 *    rotations are re-derived root to tip, each joint turned by the shortest arc from its bone's direction before
 *    the sub-steps to the direction toward the moved child (bone lengths kept), and clamped by its limit again
 *    when `limitsAfterColliders` (the default; false: colliders win).
 * 6. The tip's rotation blended toward `ikRotation` by `ikRotationWeight` (then clamped by the tip's limit).
 * 7. The rotations written once, root to tip, each slerped from its animated value by `ikPositionWeight`.
 *
 * Error policy: bad setup throws {@link FBBIKError} naming the bone; a non-finite target or weight, or a pose that
 * reads non-finite, skips the frame (nothing written). Weight 0 writes nothing (the pose stays bit-exact).
 */
export abstract class IKSolverJoints {
  /** The pose read and written. */
  readonly pose: IKPose;
  /** The joints, root first. */
  readonly bones: readonly JointBone[];
  /** Number of joints. */
  readonly count: number;
  /** The target position of the tip (FinalIK's IKPosition). */
  readonly ikPosition = new Vec3();
  /** The target rotation of the tip (FinalIK's IKRotation), used when `ikRotationWeight` > 0. */
  readonly ikRotation = new Quat();
  /** How much of the solved pose is written, in [0, 1]; 0 leaves the pose untouched. */
  ikPositionWeight = 1;
  /** How much the tip turns to `ikRotation`, in [0, 1]. */
  ikRotationWeight = 0;
  /** The solver stops iterating once the tip is this close to the target (component-space units; 0: never). */
  tolerance = 0;
  /** Most iterations per solve. */
  maxIterations = 4;
  /** Collider sub-steps per solve (used only with `colliders`). */
  subSteps = 1;
  /** Colliders the joints and segments are pushed out of after the solver's step, or null. */
  colliders: JointColliders | null = null;
  /** Clearance kept between the chain and the colliders. */
  colliderRadius = 0;
  /**
   * After the collider sub-steps, clamp every joint by its limit again (root to tip, lengths kept): the limits
   * win over the colliders' push-out, which can otherwise bend a joint past its limit while the chain sweeps
   * across a collider. Default true; false: colliders win (a joint may leave its limit, never the collider's
   * surface). No effect without colliders or limits.
   */
  limitsAfterColliders = true;
  /**
   * With `colliders`: push the joints out of them inside the solver's iterations too, the sub-steps after the solve
   * staying the guarantee (default true). FABRIK pushes after every backward reach, so the chain wraps round a
   * collider between the root and the target and the tip still reaches; CCD after every iteration when limits hold
   * after the colliders (`limitsAfterColliders`), so the limits' clamp after the sub-steps has less push-out to
   * undo. False: the solver's step ignores the colliders, only the sub-steps push out. No effect without colliders.
   */
  collideInIterations = true;
  /**
   * Whether the joints' rotation limits ({@link setLimit}) are applied (FinalIK's useRotationLimits); false sets
   * them aside without removing them. Default true.
   */
  useRotationLimits = true;
  /**
   * Whether the rotation pass rolls a joint before a hinge (single-axis limit) so the hinge's plane holds where its
   * bone must point (FABRIK, which places joints before turning bones; CCD turns about the hinge itself).
   */
  protected rollsForHinges = false;
  /** With {@link rollsForHinges}: whether the joint before a hinge also swivels when its limit holds the roll back. */
  protected swivelsForHinges = true;
  /** With {@link swivelsForHinges}: whether that swivel's search ends in finer steps about the best. */
  protected fineSwivels = true;
  /** Iterations the last solve ran. */
  lastIterations = 0;
  /** Where the target lay at the last solve. */
  lastReach: JointReach = "reachable";

  /** Joint positions, 3 per joint. */
  protected readonly positions: Float64Array;
  /** Joint rotations (x, y, z, w), 4 per joint. */
  protected readonly rotations: Float64Array;
  /** Rotations as read, for the weight blend. */
  protected readonly startRotations: Float64Array;
  /** Each bone's vector (joint i to joint i+1) in joint i's frame, 3 per joint (the tip's unused). */
  protected readonly offsets: Float64Array;
  /** Bone lengths, one per joint but the tip. */
  protected readonly lengths: Float64Array;
  /** Sum of the bone lengths. */
  protected chainLength = 0;
  /** Longest bone. */
  protected longestBone = 0;
  /** Rotation the first joint's local rotation is relative to (the root parent's, or identity). */
  protected readonly rootParentRotation = new Quat();
  /** The point the solver's step aims the tip at (the target, or its reachable stand-in). */
  protected readonly goal = new Vec3();
  private readonly solvedPositions: Float64Array;
  /** A copy of `positions` the colliders push, to measure how deep the chain lies inside them. */
  private readonly probePositions: Float64Array;
  /** How far the colliders would push the chain's deepest joint, as {@link measureCollisionDepth} last found it. */
  protected collisionDepth = 0;
  /** The sub-step's clearance and alpha, handed to the colliders in an object (no double crosses the call). */
  private readonly colliderStep = new ColliderStep();
  /** What the roll before a hinge looks from (FABRIK's rotation pass). */
  private readonly beforeHinge = new BeforeHinge();
  private readonly restLocals: Quat[];
  private readonly rootParent: number;

  /** Binds the solver to `pose` and the chain `boneIds` (root first, at least two). Throws {@link FBBIKError}. */
  constructor(pose: IKPose, boneIds: readonly number[], options: IKSolverJointsOptions = {}) {
    const name = options.boneName ?? ((b: number) => `bone ${b}`);
    const problems: string[] = [];
    if (boneIds.length < 2) problems.push(`a joint chain needs at least two bones, got ${boneIds.length}`);
    const seen = new Set<number>();
    for (const id of boneIds) {
      if (!Number.isInteger(id) || id < 0) problems.push(`${String(id)} is not a bone id`);
      else if (seen.has(id)) problems.push(`${name(id)} appears twice in the chain`);
      seen.add(id);
    }
    const rp = options.rootParent ?? -1;
    if (options.rootParent !== undefined && (!Number.isInteger(rp) || rp < 0 || seen.has(rp))) {
      problems.push(`root parent ${String(rp)} is not a bone outside the chain`);
    }
    if (problems.length > 0) throw new FBBIKError(problems, this.getClassName());
    const n = boneIds.length;
    this.pose = pose;
    this.count = n;
    this.bones = boneIds.map((id) => new JointBone(id));
    this.rootParent = rp;
    this.positions = new Float64Array(3 * n);
    this.rotations = new Float64Array(4 * n);
    this.startRotations = new Float64Array(4 * n);
    this.offsets = new Float64Array(3 * n);
    this.lengths = new Float64Array(n);
    this.solvedPositions = new Float64Array(3 * n);
    this.probePositions = new Float64Array(3 * n);
    this.restLocals = boneIds.map(() => new Quat());
    this.readRestPose();
  }

  /**
   * Stores the pose's current local rotations (each joint relative to the previous one, the first relative to the
   * root parent) as the rest rotations the limits work from, and hands them to the limits already set. On a Babylon
   * component the pose is the one last solved: the component's own `readRestPose()` reads the bones.
   */
  readRestPose(): void {
    readRestLocals(
      this.pose,
      this.rootParent,
      this.bones.map((b) => b.id),
      this.restLocals,
    );
    for (let i = 0; i < this.count; i++) this.bones[i]!.limit?.setDefaultLocalRotation(this.restLocals[i]!);
  }

  /**
   * Sets joint `index`'s rotation limit (or removes it with null), relative to the stored rest rotation. One limit
   * object per joint: it keeps its joint's rest rotation (share none between joints or solvers).
   * @throws RangeError when `index` is not a joint of the chain.
   * @throws FBBIKError when `limit` is already another joint's of this chain.
   */
  setLimit(index: number, limit: RotationLimit | null): void {
    const bone = this.bones[index];
    if (bone === undefined) throw new RangeError(`joint ${index} is not in the chain (0..${this.count - 1})`);
    checkLimitUnshared(this.bones, index, limit, this.getClassName());
    bone.limit = limit;
    limit?.setDefaultLocalRotation(this.restLocals[index]!);
  }

  /** True when any joint has a limit. */
  hasLimits(): boolean {
    for (let i = 0; i < this.count; i++) if (this.bones[i]!.limit !== null) return true;
    return false;
  }

  /** True when the solve applies limits: some joint has one and {@link useRotationLimits} is on. */
  protected limitsActive(): boolean {
    return this.useRotationLimits && this.hasLimits();
  }

  /** Joint `index`'s limit as the solve applies it: null when it has none or {@link useRotationLimits} is off. */
  protected activeLimit(index: number): RotationLimit | null {
    return this.useRotationLimits ? this.bones[index]!.limit : null;
  }

  /** The rest local rotation of joint `index` the limits work from. */
  getRestLocalRotation(index: number, out: Quat): Quat {
    return copyQuat(out, this.restLocals[index]!);
  }

  /** Reads, solves and writes the chain (see the class description). Never throws for per-frame input. */
  update(): void {
    if (!(this.ikPositionWeight > 0)) return;
    if (!this.beginSolve(true)) return;
    if (this.lastReach === "reachable") this.solveImpl();
    this.endSolve();
  }

  /**
   * Steps 1–3 of `update()`: validates the target, reads the pose, resets the constraints and, with `checkReach`,
   * settles reachability (straightening or folding the chain when the target is out of reach: `lastReach` is then
   * "beyond" or "blind" and the solver's step is to be skipped). False when the frame is skipped. Building block for
   * composite solvers; `update()` is the normal entry.
   */
  beginSolve(checkReach: boolean): boolean {
    this.lastIterations = 0;
    if (!isFiniteVec(this.ikPosition)) return false;
    if (!this.initTransform()) return false;
    this.resetConstraints();
    if (!checkReach) {
      this.lastReach = "reachable";
      this.goal.x = this.ikPosition.x;
      this.goal.y = this.ikPosition.y;
      this.goal.z = this.ikPosition.z;
      return true;
    }
    return this.settleReach();
  }

  /** Steps 5–7 of `update()`: collider sub-steps, the tip's target rotation, the write-back. */
  endSolve(): void {
    if (!(this.ikPositionWeight > 0)) return;
    this.solveSubSteps();
    this.applyTargetRotation();
    this.writePose();
  }

  /** The solver's own step: moves the joints in `positions`/`rotations` so the tip reaches `goal`. */
  protected abstract solveImpl(): void;

  /**
   * The solver's class name, as Babylon's own objects report theirs; its set-up errors name it. A subclass
   * overrides it (the base constructor calls it, so it must not read the subclass's fields).
   */
  getClassName(): string {
    return "IKSolverJoints";
  }

  /** Reads the joints from the pose (step 1). False when the pose reads non-finite. */
  protected initTransform(): boolean {
    const n = this.count;
    const P = this.positions;
    const R = this.rotations;
    const pose = this.pose;
    for (let i = 0; i < n; i++) {
      const id = this.bones[i]!.id;
      pose.getPosition(id, v);
      pose.getRotation(id, rot);
      if (!isFiniteVec(v) || !isFiniteQuat(rot)) return false;
      normalizeQuat(rot, rot);
      P[3 * i] = v.x;
      P[3 * i + 1] = v.y;
      P[3 * i + 2] = v.z;
      quatToArray(R, 4 * i, rot);
      quatToArray(this.startRotations, 4 * i, rot);
    }
    if (this.rootParent >= 0) {
      pose.getRotation(this.rootParent, this.rootParentRotation);
      if (!isFiniteQuat(this.rootParentRotation)) return false;
      normalizeQuat(this.rootParentRotation, this.rootParentRotation);
    } else {
      identity(this.rootParentRotation);
    }
    let sum = 0;
    let longest = 0;
    for (let i = 0; i < n - 1; i++) {
      const dx = P[3 * i + 3]! - P[3 * i]!;
      const dy = P[3 * i + 4]! - P[3 * i + 1]!;
      const dz = P[3 * i + 5]! - P[3 * i + 2]!;
      const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
      this.lengths[i] = l;
      sum += l;
      if (l > longest) longest = l;
      v.x = dx;
      v.y = dy;
      v.z = dz;
      quatFromArray(rot, R, 4 * i);
      inverseRotateVector(v, rot, v);
      this.offsets[3 * i] = v.x;
      this.offsets[3 * i + 1] = v.y;
      this.offsets[3 * i + 2] = v.z;
    }
    this.lengths[n - 1] = 0;
    this.chainLength = sum;
    this.longestBone = longest;
    return Number.isFinite(sum);
  }

  /** Step 2: brings the constraints up to this frame. Subclasses that cache per-frame limit data extend it. */
  protected resetConstraints(): void {
    if (this.colliders !== null) this.colliders.update(this.pose);
  }

  /** Sets `goal` and `lastReach`; straightens the chain when the target is beyond reach. */
  private settleReach(): boolean {
    const P = this.positions;
    const t = this.ikPosition;
    const rx = P[0]!;
    const ry = P[1]!;
    const rz = P[2]!;
    let dx = t.x - rx;
    let dy = t.y - ry;
    let dz = t.z - rz;
    let d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const total = this.chainLength;
    const near = ON_POINT * total;
    const onRoot = !(d > near) && d < total;
    if (onRoot) {
      // on the root (a node on the root bone reads float noise off it): aim along the current tip, not that noise
      const k = 3 * (this.count - 1);
      dx = P[k]! - rx;
      dy = P[k + 1]! - ry;
      dz = P[k + 2]! - rz;
      let dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (!(dl > 0)) {
        dx = 1;
        dy = 0;
        dz = 0;
        dl = 1;
      }
      dx *= near / dl;
      dy *= near / dl;
      dz *= near / dl;
      d = near;
    }
    if (!(d < total)) {
      this.lastReach = "beyond";
      this.goal.x = t.x;
      this.goal.y = t.y;
      this.goal.z = t.z;
      if (d > 0) {
        dir.x = dx / d;
        dir.y = dy / d;
        dir.z = dz / d;
        this.straightenToward();
      }
      return true;
    }
    const inner = 2 * this.longestBone - total;
    if (d < inner) {
      this.lastReach = "blind";
      const s = inner / d;
      this.goal.x = rx + dx * s;
      this.goal.y = ry + dy * s;
      this.goal.z = rz + dz * s;
      dir.x = dx / d;
      dir.y = dy / d;
      dir.z = dz / d;
      this.foldToward();
      return true;
    }
    this.lastReach = "reachable";
    this.goal.x = onRoot ? rx + dx : t.x;
    this.goal.y = onRoot ? ry + dy : t.y;
    this.goal.z = onRoot ? rz + dz : t.z;
    return true;
  }

  /** Points the longest bone along the unit direction `dir` and the others back, limits applied. */
  private foldToward(): void {
    const P = this.positions;
    const dx = dir.x;
    const dy = dir.y;
    const dz = dir.z;
    let longest = 0;
    for (let i = 1; i < this.count - 1; i++) if (this.lengths[i]! > this.lengths[longest]!) longest = i;
    for (let i = 1; i < this.count; i++) {
      const l = i - 1 === longest ? this.lengths[i - 1]! : -this.lengths[i - 1]!;
      P[3 * i] = P[3 * i - 3]! + dx * l;
      P[3 * i + 1] = P[3 * i - 2]! + dy * l;
      P[3 * i + 2] = P[3 * i - 1]! + dz * l;
    }
    this.syncFromPositions(true);
  }

  /** Points every bone along the unit direction `dir` from the root, limits applied root to tip. */
  private straightenToward(): void {
    const P = this.positions;
    const dx = dir.x;
    const dy = dir.y;
    const dz = dir.z;
    let along = 0;
    for (let i = 1; i < this.count; i++) {
      along += this.lengths[i - 1]!;
      P[3 * i] = P[0]! + dx * along;
      P[3 * i + 1] = P[1]! + dy * along;
      P[3 * i + 2] = P[2]! + dz * along;
    }
    this.syncFromPositions(true);
  }

  /**
   * Makes the rotations follow the positions: root to tip, each joint is turned with its parent's change, then by
   * the shortest arc from its bone's direction to the direction from its (rebuilt) position to its child's wanted
   * position, clamped by its limit when `applyLimits`, and its child's position rebuilt from the bone's vector
   * (lengths exact). The tip turns with its parent (and is clamped by its own limit). With {@link rollsForHinges}
   * and limits, hinges get help first: the joint before one aims it (hinge-chord.ts, hinge-roll.ts) and a run of them
   * has its inner joints placed where it can bend (hinge-run.ts).
   */
  protected syncFromPositions(applyLimits: boolean): void {
    const n = this.count;
    identity(change);
    copyQuat(parentRot, this.rootParentRotation);
    const helps = applyLimits && this.rollsForHinges && this.useRotationLimits;
    // the loop only calls: run unoptimised (even only until V8 enters its optimised loop), it boxes no double
    // (the pass computing them itself: 123.9 KB a solve round a ball, ARCHITECTURE.md "Doubles across calls")
    for (let i = 0; i < n - 1; i++) this.syncJoint(i, applyLimits, helps);
    const R = this.rotations;
    const k = 4 * (n - 1);
    quatFromArray(oldRot, R, k);
    multiply(rot, change, oldRot);
    normalizeQuat(rot, rot);
    if (applyLimits) this.clampJoint(n - 1, parentRot, rot);
    quatToArray(R, k, rot);
  }

  /**
   * Joint `i` of {@link syncFromPositions} (not the tip): turned with its parent's change in `change`, then toward
   * its child's wanted position, clamped, its child's position rebuilt; `change` and `parentRot` left for the next.
   */
  private syncJoint(i: number, applyLimits: boolean, helps: boolean): void {
    const P = this.positions;
    const R = this.rotations;
    const O = this.offsets;
    const h = this.beforeHinge;
    const beforeHinge = helps && setUpBeforeHinge(h, this.bones, true, i, P);
    if (beforeHinge) aimRunChord(h, this.bones, this.restLocals, O, P);
    if (helps) {
      const end = hingeRunEnd(this.bones, i);
      if (end > i) placeHingeRun(this.bones, i, end, change, parentRot, R, O, P);
    }
    quatFromArray(oldRot, R, 4 * i);
    multiply(rot, change, oldRot);
    cur.x = O[3 * i]!;
    cur.y = O[3 * i + 1]!;
    cur.z = O[3 * i + 2]!;
    rotateVector(cur, rot, cur);
    const i3 = 3 * i;
    want.x = P[i3 + 3]! - P[i3]!;
    want.y = P[i3 + 4]! - P[i3 + 1]!;
    want.z = P[i3 + 5]! - P[i3 + 2]!;
    fromToRotation(turn, cur, want);
    multiply(rot, turn, rot);
    normalizeQuat(rot, rot);
    if (beforeHinge) {
      h.swivel = this.swivelsForHinges;
      h.fine = this.fineSwivels;
      copyQuat(h.parent, parentRot);
      placeBeforeHinge(rot, oldRot, R, O, P, h);
    }
    if (applyLimits) this.clampJoint(i, parentRot, rot);
    quatToArray(R, 4 * i, rot);
    cur.x = O[i3]!;
    cur.y = O[i3 + 1]!;
    cur.z = O[i3 + 2]!;
    rotateVector(cur, rot, cur);
    P[i3 + 3] = P[i3]! + cur.x;
    P[i3 + 4] = P[i3 + 1]! + cur.y;
    P[i3 + 5] = P[i3 + 2]! + cur.z;
    multiplyConjugate(change, rot, oldRot);
    copyQuat(parentRot, rot);
  }

  /**
   * Clamps joint `index`'s component-space rotation `rotation` (in place) by its limit, its local rotation taken
   * relative to `parent` (the previous joint's rotation, or the root parent's). True when it changed.
   */
  protected clampJoint(index: number, parent: ReadonlyQuat, rotation: Quat): boolean {
    const limit = this.activeLimit(index);
    return limit !== null && clampToLimit(limit, parent, rotation);
  }

  /**
   * Step 5: collider sub-steps, then rotations re-derived from the moved joints; with `limitsAfterColliders` (and
   * limits) each sub-step's push-out is clamped by the limits before the next, so the last word is the limits'.
   */
  private solveSubSteps(): void {
    const c = this.colliders;
    const steps = this.subSteps;
    if (c === null || !(steps >= 1)) return;
    const P = this.positions;
    this.solvedPositions.set(P);
    const each = this.limitsAfterColliders && this.limitsActive();
    let moved = false;
    const s = Math.floor(steps);
    const step = this.colliderStep;
    step.radius = this.colliderRadius > 0 ? this.colliderRadius : 0;
    for (let k = 1; k <= s; k++) {
      step.alpha = k / s;
      if (!c.resolveStep(P, this.count, step)) continue;
      moved = true;
      if (!each) continue;
      if (!this.syncMoved(true)) return;
      moved = false;
      this.solvedPositions.set(P);
    }
    if (moved) this.syncMoved(false);
  }

  /**
   * Pushes the joints in `positions` out of the colliders where they stand at this frame's end (alpha 1), with
   * the clearance, the root kept: for a solver that keeps its joints out while it iterates (`collideInIterations`).
   * The sub-steps stay the final word. False when nothing moved (no colliders, or a collider that wrote NaN).
   */
  protected pushOutOfColliders(): boolean {
    const c = this.colliders;
    if (c === null) return false;
    const step = this.colliderStep;
    step.radius = this.colliderRadius > 0 ? this.colliderRadius : 0;
    step.alpha = 1;
    const P = this.positions;
    this.solvedPositions.set(P);
    if (!c.resolveStep(P, this.count, step)) return false;
    return this.keepPushed();
  }

  /**
   * Sets {@link collisionDepth} to how far a push out of the colliders where they stand at this frame's end would
   * move the chain's joints in `positions` (the farthest one; 0 when clear, or without colliders), leaving them as
   * they are.
   */
  protected measureCollisionDepth(): void {
    this.collisionDepth = 0;
    const c = this.colliders;
    if (c === null) return;
    const step = this.colliderStep;
    step.radius = this.colliderRadius > 0 ? this.colliderRadius : 0;
    step.alpha = 1;
    const P = this.positions;
    const Q = this.probePositions;
    Q.set(P);
    if (!c.resolveStep(Q, this.count, step)) return;
    let deepest = 0;
    for (let i = 3; i < P.length; i += 3) {
      const x = Q[i]! - P[i]!;
      const y = Q[i + 1]! - P[i + 1]!;
      const z = Q[i + 2]! - P[i + 2]!;
      const d = x * x + y * y + z * z;
      if (d > deepest) deepest = d;
    }
    // a collider that wrote NaN reads as clear: its pushes are ignored everywhere else too
    this.collisionDepth = deepest > 0 ? Math.sqrt(deepest) : 0;
  }

  /** Rotations re-derived from the pushed joints, the root kept; false (joints put back) if a collider wrote NaN. */
  private syncMoved(applyLimits: boolean): boolean {
    if (!this.keepPushed()) return false;
    this.syncFromPositions(applyLimits);
    return true;
  }

  /**
   * Takes the joints a collider pushed from `solvedPositions`: all put back (false) if it wrote NaN, else the root
   * put back where it was, its rotation then turning to reach the moved second joint.
   */
  private keepPushed(): boolean {
    const P = this.positions;
    for (let i = 0; i < P.length; i++) {
      if (!Number.isFinite(P[i]!)) {
        // a collider that wrote garbage is ignored
        P.set(this.solvedPositions);
        return false;
      }
    }
    P[0] = this.solvedPositions[0]!;
    P[1] = this.solvedPositions[1]!;
    P[2] = this.solvedPositions[2]!;
    return true;
  }

  /** Step 6: turns the tip toward `ikRotation` by `ikRotationWeight`, then clamps it by its limit. */
  private applyTargetRotation(): void {
    weightRef.value = clamp01(this.ikRotationWeight);
    if (!(weightRef.value > 0) || !isFiniteQuat(this.ikRotation)) return;
    const n = this.count;
    normalizeQuat(turn, this.ikRotation);
    quatFromArray(rot, this.rotations, 4 * (n - 1));
    slerpByRef(rot, rot, turn, weightRef);
    quatFromArray(parentRot, this.rotations, 4 * (n - 2));
    this.clampJoint(n - 1, parentRot, rot);
    quatToArray(this.rotations, 4 * (n - 1), rot);
  }

  /** Step 7: writes the rotations root to tip, each slerped from its animated value by `ikPositionWeight`. */
  private writePose(): void {
    const n = this.count;
    weightRef.value = this.ikPositionWeight;
    const R = this.rotations;
    for (let i = 0; i < 4 * n; i++) if (!Number.isFinite(R[i]!)) return;
    for (let i = 0; i < n; i++) {
      quatFromArray(rot, R, 4 * i);
      if (weightRef.value < 1) {
        quatFromArray(blend, this.startRotations, 4 * i);
        slerpByRef(rot, blend, rot, weightRef);
      }
      this.pose.setRotation(this.bones[i]!.id, rot);
    }
  }
}
