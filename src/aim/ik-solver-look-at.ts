/**
 * IKSolverLookAt: FinalIK's LookAtIK, engine-neutral.
 * @module
 */
import { slerpVectorsByRef } from "../math/direction.js";
import { NumberRef } from "../math/number-ref.js";
import { Quat, fromToRotation, inverseRotateVector, multiply, nlerpByRef, rotateVector } from "../math/quat.js";
import { clamp01 } from "../math/scalar.js";
import {
  type ReadonlyVec3,
  Vec3,
  add,
  distance,
  fromArray,
  isFiniteVec,
  isZero,
  length,
  normalize,
  scaleAndAdd,
  toArray,
} from "../math/vec3.js";
import type { IKPose } from "../solver/pose.js";
import { offsetWithin } from "../joints/far-target.js";
import { checkBones, ensure } from "../joints/pose-checks.js";
import { clampFractionByRef } from "./clamp-fraction.js";
import { RigidChain } from "./rigid-chain.js";

/** Setup options of {@link IKSolverLookAt}: at least one of spine, head, eyes. */
export interface IKSolverLookAtOptions {
  /** Spine bones, bottom to top, each a descendant of the one before. */
  spine?: readonly number[];
  /** The head, a descendant of the last spine bone. */
  head?: number;
  /** Eyes, descendants of the head. */
  eyes?: readonly number[];
  /** The direction the character faces in the setup pose, component space; default (0, 0, 1). */
  forward?: ReadonlyVec3;
}

/** Why the last {@link IKSolverLookAt.solve} left the pose untouched ("" when it did not). */
export type LookAtSkipReason = "" | "weight" | "input" | "pose";

/**
 * FinalIK's default spine weight curve: keys (0, 0.3) and (1, 1) with flat tangents, so the lowest
 * spine bone turns 30 % of the way the top one does, easing in between.
 */
export function defaultSpineWeightCurve(t: number): number {
  return 0.3 + 0.7 * t * t * (3 - 2 * t);
}

const pos = new Vec3();
const fwd = new Vec3();
const baseDir = new Vec3();
const toTarget = new Vec3();
const look = new Vec3();
const v = new Vec3();
const r = new Quat();
const q = new Quat();
// numbers handed to helpers by reference (see NumberRef)
const frac = new NumberRef();
const partFrac = new NumberRef();
const partWeight = new NumberRef();
const clampIn = new NumberRef();
const clampRef = new NumberRef();
const smoothRef = new NumberRef();
const farLimit = new NumberRef();
/** Targets farther than this many rig sizes are brought in along their ray. */
const FAR = 1e6;

/**
 * Turns a spine, a head and eyes toward {@link ikPosition} (FinalIK's LookAtIK), component space.
 *
 * Each part has a forward: the setup `forward` carried by the bone's rotation. Each {@link solve} reads
 * the bones once, then:
 * - spine: the look direction from the top spine bone to the target (+ {@link spineTargetOffset}),
 *   clamped around the bottom spine bone's animated forward by {@link clampWeight}; spine bone i looks
 *   along the base turned by {@link spineWeights}[i] of that way, by bodyWeight × ikPositionWeight;
 * - head: the direction to the target, blended from its base (the top spine bone's solved forward, or the
 *   head's animated forward without a spine) by headWeight × ikPositionWeight, clamped around the base by
 *   {@link clampWeightHead}; the head turns toward it by headWeight × ikPositionWeight;
 * - eyes: each toward the target, clamped around the solved head's forward by {@link clampWeightEyes},
 *   by eyesWeight × ikPositionWeight;
 * then writes the bones once, spine first.
 *
 * The clamp bound: a part's look direction is never more than (1 − clamp) × 180° from its base
 * (clamp 0.5 → 90°; see `clampFractionByRef`), and with its weight × ikPositionWeight = 1 the part's
 * forward is exactly that direction. A target on a part's position leaves that part as it is. Bad input
 * leaves the pose untouched for the frame ({@link skipReason}); ikPositionWeight 0 writes nothing.
 * Allocation-free per solve.
 */
export class IKSolverLookAt {
  /** Spine bone ids, bottom to top. */
  readonly spine: readonly number[];
  /** Head bone id, or −1. */
  readonly head: number;
  /** Eye bone ids. */
  readonly eyes: readonly number[];
  /** The point to look at, component space (ahead of the head or top bone until set). */
  readonly ikPosition = new Vec3();
  /** Master weight, 0..1. */
  ikPositionWeight = 1;
  /** Spine weight, 0..1. */
  bodyWeight = 0.5;
  /** Head weight, 0..1. */
  headWeight = 0.5;
  /** Eyes weight, 0..1. */
  eyesWeight = 1;
  /**
   * Spine clamp, 0..1: at most (1 − clampWeight) × 180° from the base; a target further round fades the turn
   * back toward the base, to none straight behind (the head and eyes clamps alike).
   */
  clampWeight = 0.5;
  /** Head clamp, 0..1. */
  clampWeightHead = 0.5;
  /** Eyes clamp, 0..1. */
  clampWeightEyes = 0.5;
  /** Rounds of smoothing of the clamps (0..2). */
  clampSmoothing = 2;
  /** Added to the target for the spine only (component space). */
  readonly spineTargetOffset = new Vec3();
  /**
   * Share of the spine's turn per spine bone, bottom to top (FinalIK's spineWeightCurve sampled at
   * i / (n − 1)); {@link defaultSpineWeightCurve} until changed or set by {@link setSpineWeightCurve}.
   */
  readonly spineWeights: Float64Array;
  /** Why the last solve wrote nothing ("" when it wrote). */
  skipReason: LookAtSkipReason = "";

  private readonly pose: IKPose;
  private readonly chain: RigidChain;
  /** Each entry's forward in its own frame, 3 per entry. */
  private readonly axes: Float64Array;
  /** The spine bones' look directions, 3 per spine bone. */
  private readonly spineDirs: Float64Array;
  private readonly headEntry: number;
  /** The bones' setup extent (sum of the distances between entries), the scale of FAR. */
  private readonly size: number;

  /**
   * Binds the solver to the bones of `pose` and reads their setup forwards.
   * @throws FBBIKError naming the bone when an id is bad or repeated, no bone is given, `forward` is zero,
   * or the pose is not finite.
   */
  constructor(pose: IKPose, options: IKSolverLookAtOptions) {
    const spine = [...(options.spine ?? [])];
    const head = options.head ?? -1;
    const eyes = [...(options.eyes ?? [])];
    const ids = [...spine, ...(head >= 0 ? [head] : []), ...eyes];
    const roles = [
      ...spine.map((_, i) => `spine bone ${i}`),
      ...(head >= 0 ? ["the head"] : []),
      ...eyes.map((_, i) => `eye ${i}`),
    ];
    checkBones(pose, "IKSolverLookAt", ids.length > 0 ? ids : [-1], ids.length > 0 ? roles : ["a bone (none given)"]);
    this.pose = pose;
    this.spine = spine;
    this.head = head;
    this.eyes = eyes;
    const ns = spine.length;
    this.headEntry = head >= 0 ? ns : -1;
    const eyeParent = head >= 0 ? ns : ns - 1;
    const parents = ids.map((_, i) => (i < ns ? i - 1 : i === this.headEntry ? ns - 1 : eyeParent));
    this.chain = new RigidChain(ids, parents, ids.length);
    ensure(this.chain.read(pose), pose, ids[0]!, "IKSolverLookAt", "has a non-finite pose among the look-at bones");
    const forward = normalize(new Vec3(), options.forward ?? new Vec3(0, 0, 1));
    ensure(length(forward) > 0, pose, ids[0]!, "IKSolverLookAt", "was given a zero or non-finite forward");
    this.axes = new Float64Array(3 * ids.length);
    for (let i = 0; i < ids.length; i++) {
      inverseRotateVector(v, this.chain.getRotation(i, r), forward);
      toArray(this.axes, 3 * i, v);
    }
    this.spineDirs = new Float64Array(3 * ns);
    this.spineWeights = new Float64Array(ns);
    this.setSpineWeightCurve(defaultSpineWeightCurve);
    const top = this.headEntry >= 0 ? this.headEntry : ns > 0 ? ns - 1 : ns;
    let size = 0;
    for (let i = 1; i < ids.length; i++)
      size += distance(this.chain.getPosition(i - 1, v), this.chain.getPosition(i, pos));
    this.size = size > 0 ? size : 1;
    this.chain.getPosition(top, pos);
    scaleAndAdd(this.ikPosition, pos, forward, 3 * this.size);
  }

  /** Solves one frame: reads the bones, turns spine, head and eyes, writes them (nothing at weight 0). */
  solve(): void {
    this.skipReason = this.solveFrame();
  }

  /** One solve; returns why it wrote nothing, or "" when it wrote. */
  private solveFrame(): LookAtSkipReason {
    const wIn = this.ikPositionWeight;
    if (!Number.isFinite(wIn)) return "input";
    // weights clamped to [0, 1] inline and handed on by reference: no double crosses a call (see NumberRef)
    const w = wIn > 0 ? (wIn < 1 ? wIn : 1) : 0;
    if (w <= 0) return "weight";
    if (!this.inputUsable()) return "input";
    if (!this.chain.read(this.pose)) return "pose";
    // targets beyond FAR rig sizes are brought in along their ray: the look directions stay, squares do not overflow
    farLimit.value = FAR * this.size;
    smoothRef.value = this.clampSmoothing;
    const bw = this.bodyWeight;
    partWeight.value = (bw > 0 ? (bw < 1 ? bw : 1) : 0) * w;
    this.solveSpine();
    const hw = this.headWeight;
    partWeight.value = (hw > 0 ? (hw < 1 ? hw : 1) : 0) * w;
    this.solveHead();
    const ew = this.eyesWeight;
    partWeight.value = (ew > 0 ? (ew < 1 ? ew : 1) : 0) * w;
    this.solveEyes();
    this.chain.write(this.pose);
    return "";
  }

  /** Sets {@link spineWeights} from a curve over t = 0 (bottom spine bone) … 1 (top). Setup-time. */
  setSpineWeightCurve(curve: (t: number) => number): void {
    const n = this.spine.length;
    for (let i = 0; i < n; i++) this.spineWeights[i] = clamp01(n === 1 ? 1 : curve(i / (n - 1)));
  }

  private inputUsable(): boolean {
    if (!isFiniteVec(this.ikPosition) || !isFiniteVec(this.spineTargetOffset)) return false;
    if (!Number.isFinite(this.bodyWeight) || !Number.isFinite(this.headWeight)) return false;
    if (!Number.isFinite(this.eyesWeight) || !Number.isFinite(this.clampWeight)) return false;
    if (!Number.isFinite(this.clampWeightHead) || !Number.isFinite(this.clampWeightEyes)) return false;
    const sw = this.spineWeights;
    for (let i = 0; i < sw.length; i++) if (!Number.isFinite(sw[i]!)) return false;
    return Number.isFinite(this.clampSmoothing);
  }

  /** Sets `clampRef` to a clamp weight limited to [0, 1]. */
  private setClamp(c: NumberRef): void {
    const v = c.value;
    clampRef.value = v > 0 ? (v < 1 ? v : 1) : 0;
  }

  private solveSpine(): void {
    const n = this.spine.length;
    if (!(partWeight.value > 0) || n === 0) return;
    add(v, this.ikPosition, this.spineTargetOffset);
    if (!offsetWithin(toTarget, this.chain.getPosition(n - 1, pos), v, farLimit)) return;
    normalize(toTarget, toTarget);
    this.forwardOf(0, baseDir);
    clampIn.value = this.clampWeight;
    this.setClamp(clampIn);
    clampFractionByRef(frac, baseDir, toTarget, clampRef, smoothRef);
    const dirs = this.spineDirs;
    const sw = this.spineWeights;
    for (let i = 0; i < n; i++) {
      const k = sw[i]!;
      partFrac.value = (k > 0 ? (k < 1 ? k : 1) : 0) * frac.value;
      slerpVectorsByRef(look, baseDir, toTarget, partFrac);
      toArray(dirs, 3 * i, look);
    }
    for (let i = 0; i < n; i++) this.lookAt(i, fromArray(look, dirs, 3 * i));
  }

  private solveHead(): void {
    const h = this.headEntry;
    const weight = partWeight.value;
    if (!(weight > 0) || h < 0) return;
    const n = this.spine.length;
    this.forwardOf(n > 0 ? n - 1 : h, baseDir);
    if (!offsetWithin(toTarget, this.chain.getPosition(h, pos), this.ikPosition, farLimit)) return;
    normalize(toTarget, toTarget);
    // FinalIK blends the head's look direction by its weight and then turns by the weight again
    toTarget.x = baseDir.x + (toTarget.x - baseDir.x) * weight;
    toTarget.y = baseDir.y + (toTarget.y - baseDir.y) * weight;
    toTarget.z = baseDir.z + (toTarget.z - baseDir.z) * weight;
    normalize(toTarget, toTarget);
    if (isZero(toTarget)) return;
    clampIn.value = this.clampWeightHead;
    this.setClamp(clampIn);
    clampFractionByRef(frac, baseDir, toTarget, clampRef, smoothRef);
    slerpVectorsByRef(look, baseDir, toTarget, frac);
    this.lookAt(h, look);
  }

  private solveEyes(): void {
    const ne = this.eyes.length;
    if (!(partWeight.value > 0) || ne === 0) return;
    const first = this.chain.count - ne;
    clampIn.value = this.clampWeightEyes;
    this.setClamp(clampIn);
    for (let e = first; e < first + ne; e++) {
      this.forwardOf(this.headEntry >= 0 ? this.headEntry : e, baseDir);
      if (!offsetWithin(toTarget, this.chain.getPosition(e, pos), this.ikPosition, farLimit)) continue;
      normalize(toTarget, toTarget);
      clampFractionByRef(frac, baseDir, toTarget, clampRef, smoothRef);
      slerpVectorsByRef(look, baseDir, toTarget, frac);
      this.lookAt(e, look);
    }
  }

  /** Turns entry `i` so its forward goes toward unit `dir` by the part's weight (normalised blend of rotations). */
  private lookAt(i: number, dir: Vec3): void {
    this.forwardOf(i, fwd);
    fromToRotation(q, fwd, dir);
    this.chain.getRotation(i, r);
    multiply(q, q, r);
    nlerpByRef(q, r, q, partWeight);
    this.chain.setRotation(i, q);
  }

  /** Entry `i`'s current forward (unit) in component space. */
  private forwardOf(i: number, out: Vec3): Vec3 {
    fromArray(out, this.axes, 3 * i);
    this.chain.getRotation(i, r);
    return normalize(out, rotateVector(out, r, out));
  }
}
