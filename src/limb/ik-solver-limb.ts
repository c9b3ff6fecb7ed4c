/**
 * IKSolverLimb: FinalIK's LimbIK (IKSolverTrigonometric with bend modifiers), engine-neutral and exact.
 * @module
 */
import { NumberRef } from "../math/number-ref.js";
import {
  Quat,
  conjugateMultiply,
  copyQuat,
  fromToRotation,
  identity,
  inverseRotateVector,
  isFiniteQuat,
  multiply,
  multiplyConjugate,
  normalizeQuat,
  rotateVector,
  slerpByRef,
} from "../math/quat.js";
import {
  type ReadonlyVec3,
  Vec3,
  add,
  anyPerpendicular,
  copy,
  cross,
  dot,
  isFiniteVec,
  length,
  normalize,
  sub,
} from "../math/vec3.js";
import type { IKPose } from "../solver/pose.js";
import { offsetWithin } from "../joints/far-target.js";
import { ON_POINT } from "../math/on-point.js";
import { LimbLengths, limbMiddle } from "./limb-geometry.js";
import { naturalPole } from "../solver/natural-pole.js";
import { elbowPole } from "../solver/elbow-pole.js";
import { checkBones, ensure } from "../joints/pose-checks.js";

/**
 * Where the bend normal comes from each frame (FinalIK's LimbIK.bendModifier), blended over
 * {@link IKSolverLimb.bendNormal} by {@link IKSolverLimb.bendModifierWeight}:
 * - `animation`: the animated bend plane, carried by the upper bone's animated rotation;
 * - `target`: the bend normal turned by the target rotation's change from the end bone's rest rotation;
 * - `parent`: the bend normal turned by the parent bone's change from its rest rotation;
 * - `goal`: the plane through the root, the target and {@link IKSolverLimb.bendGoal};
 * - `arm` (FinalIK's name): the elbow (or knee) to the side it bends to by nature for the direction the limb
 *   reaches in, from the character's forward and up ({@link IKSolverLimb.setNaturalFrame}), turning with the
 *   parent bone. An elbow follows a table of hand directions fitted to UAL's clips (elbow-pole.ts; our own fit, not
 *   FinalIK's table) when the frame has the arm's outward side, else FullBodyBipedIK's rule (natural-pole.ts: behind
 *   the shoulder–hand line, down when the hand reaches forward); a knee goes forward and up. Where the side is
 *   undefined or the fitted motion disagrees, the bend normal stays.
 */
export type LimbBendModifier = "animation" | "target" | "parent" | "goal" | "arm";

/** Every {@link LimbBendModifier}, in FinalIK's order: what a setting or option loaded at run time may be. */
export const LIMB_BEND_MODIFIERS: readonly LimbBendModifier[] = ["animation", "target", "parent", "goal", "arm"];

/** Setup options of {@link IKSolverLimb}. */
export interface IKSolverLimbOptions {
  /** The upper bone's parent, for the `parent` bend modifier (its rest rotation is read at setup). */
  parent?: number;
  /** Bend normal in component space; default: the setup pose's plane, cross(middle − upper, end − middle). */
  bendNormal?: ReadonlyVec3;
}

/**
 * Why the last {@link IKSolverLimb.solve} left the pose untouched ("" when it did not): weights 0, a
 * non-finite input, a non-finite or collapsed pose, or a target on the root (or out of floating range).
 */
export type LimbSkipReason = "" | "weight" | "input" | "pose" | "target unusable";

// scratch: one solve at a time per thread, so module-level is enough
const p1 = new Vec3();
const p2 = new Vec3();
const p3 = new Vec3();
const r1 = new Quat();
const r2 = new Quat();
const r3 = new Quat();
const rParent = new Quat();
const anim3 = new Quat();
const normal = new Vec3();
const term = new Vec3();
const side = new Vec3();
const dir = new Vec3();
const mid = new Vec3();
const target = new Vec3();
const va = new Vec3();
const vb = new Vec3();
const ga = new Vec3();
const gb = new Vec3();
const q = new Quat();
const qs = new Quat();
const delta = new Quat();
const solved = new Quat();
const goalRot = new Quat();
const unitQ = new Quat();
const pole = new Vec3();
const reach = new Vec3();
const frameForward = new Vec3();
const frameUp = new Vec3();
const frameOutward = new Vec3();
const lengths = new LimbLengths();
// weights handed to helpers by reference (see NumberRef)
const weight = new NumberRef();
const bendT = new NumberRef();
const goalT = new NumberRef();
const poleT = new NumberRef();
const rotT = new NumberRef();
const farLimit = new NumberRef();

/** Relative size below which a length, distance or cross product counts as zero. */
const EPS = 1e-10;
/** The natural pole's length over which the `arm` modifier fades in (it vanishes where the side is undefined). */
const POLE_LOW = 0.1;
const POLE_HIGH = 0.3;
/** Targets farther than this many limb lengths are brought in along their ray. */
const FAR = 1e6;

/**
 * Analytic two-bone IK (FinalIK's LimbIK): an upper, a middle and an end bone (shoulder, elbow, hand or
 * hip, knee, foot) bound to an {@link IKPose} in component space.
 *
 * Each {@link solve} reads the three bones once (and the parent, for the `parent` modifier), places the
 * middle joint by the law of cosines in the bend plane (its normal is cross(middle − upper, end − middle);
 * {@link LimbBendModifier}, then {@link bendGoal}), turns the upper bone onto it and the middle bone onto
 * the target, blends each turn by {@link ikPositionWeight} (a slerp of the bone's rotation, as FinalIK
 * does: the end is on the target at weight 1), sets the end bone's rotation ({@link ikRotationWeight},
 * then {@link maintainRotationWeight}, which therefore wins), and writes the bones once, root first.
 *
 * Reachability: a reachable target is met exactly (to rounding); a target beyond l1 + l2 gets the limb
 * straight, pointing at it; a target inside the blind zone (nearer the root than |l1 − l2|) gets the
 * limb folded flat toward it. Bad input (non-finite target, weight or pose, a bone of zero length, the
 * target on the root) leaves the pose untouched for that frame and sets {@link skipReason}. Weights 0
 * write nothing. Allocation-free per solve.
 */
export class IKSolverLimb {
  /** The upper bone (shoulder, thigh). */
  readonly bone1: number;
  /** The middle bone (elbow, knee). */
  readonly bone2: number;
  /** The end bone (hand, foot). */
  readonly bone3: number;
  /** The upper bone's parent for the `parent` bend modifier, or −1. */
  readonly parent: number;
  /** Target position of the end bone, component space (the end bone's setup position until set). */
  readonly ikPosition = new Vec3();
  /** How much the limb reaches for {@link ikPosition}, 0..1 (FinalIK's IKPositionWeight). */
  ikPositionWeight = 1;
  /** Target rotation of the end bone, component space (its setup rotation until set). */
  readonly ikRotation = new Quat();
  /** How much the end bone takes {@link ikRotation}, 0..1. */
  ikRotationWeight = 1;
  /** The bend normal the modifiers start from, component space: the bend plane is ⟂ to it. */
  readonly bendNormal = new Vec3();
  /** Where the bend normal comes from each frame. */
  bendModifier: LimbBendModifier = "animation";
  /** Blend of the modifier's normal over {@link bendNormal}, 0..1, capped at {@link ikPositionWeight}. */
  bendModifierWeight = 1;
  /** A point the middle joint bends toward (FinalIK's bendGoal / SetBendGoalPosition), component space. */
  readonly bendGoal = new Vec3();
  /** Blend of the goal's plane over the modified normal, 0..1 (0: the goal only serves the `goal` modifier). */
  bendGoalWeight = 0;
  /** How much the end bone keeps its animated component-space rotation, 0..1 (applied last, × ikPositionWeight). */
  maintainRotationWeight = 0;
  /** Why the last solve wrote nothing ("" when it wrote). */
  skipReason: LimbSkipReason = "";

  private readonly pose: IKPose;
  /** The setup bend normal in the upper bone's frame (the `animation` modifier). */
  private readonly localBendNormal = new Vec3();
  // the character's forward and up for the `arm` modifier, in the parent's frame (component space without one)
  private naturalSide = 0;
  private readonly localForward = new Vec3();
  private readonly localUp = new Vec3();
  // the arm's outward side in the same frame; zero when not given (the elbow then follows naturalPole's rule)
  private readonly localOutward = new Vec3();
  private readonly endRest = new Quat();
  private readonly parentRest = new Quat();

  /**
   * Binds the solver to three bones of `pose` (each a descendant of the one before) and reads their
   * setup pose: the target starts on the end bone, the bend normal on the setup plane.
   * @throws FBBIKError naming the bone when an id is bad or repeated, a bone has zero length, or the pose
   * is not finite.
   */
  constructor(pose: IKPose, bone1: number, bone2: number, bone3: number, options: IKSolverLimbOptions = {}) {
    const parent = options.parent ?? -1;
    const ids = parent >= 0 ? [bone1, bone2, bone3, parent] : [bone1, bone2, bone3];
    checkBones(pose, "IKSolverLimb", ids, ["the upper bone", "the middle bone", "the end bone", "the parent"]);
    this.pose = pose;
    this.bone1 = bone1;
    this.bone2 = bone2;
    this.bone3 = bone3;
    this.parent = parent;
    pose.getPosition(bone1, p1);
    pose.getPosition(bone2, p2);
    pose.getPosition(bone3, p3);
    pose.getRotation(bone1, r1);
    pose.getRotation(bone3, this.endRest);
    for (const b of ids) {
      ensure(
        isFiniteVec(pose.getPosition(b, va)) && isFiniteQuat(pose.getRotation(b, q)),
        pose,
        b,
        "IKSolverLimb",
        "has a non-finite pose",
      );
    }
    if (parent >= 0) pose.getRotation(parent, this.parentRest);
    const l1 = length(sub(va, p2, p1));
    const l2 = length(sub(vb, p3, p2));
    ensure(l1 > EPS * (l1 + l2), pose, bone1, "IKSolverLimb", "has zero length (the upper bone ends where it starts)");
    ensure(l2 > EPS * (l1 + l2), pose, bone2, "IKSolverLimb", "has zero length (the middle bone ends where it starts)");
    if (options.bendNormal !== undefined) {
      normalize(this.bendNormal, options.bendNormal);
      ensure(length(this.bendNormal) > 0, pose, bone1, "IKSolverLimb", "was given a zero or non-finite bendNormal");
    } else {
      cross(normal, va, vb);
      // a straight setup pose has no plane: any normal ⟂ the limb, to be replaced by a goal or the user
      if (length(normal) > EPS * l1 * l2) normalize(this.bendNormal, normal);
      else anyPerpendicular(this.bendNormal, va);
    }
    const r1inv = conjugateMultiply(q, r1, unitQ);
    rotateVector(this.localBendNormal, r1inv, this.bendNormal);
    copy(this.ikPosition, p3);
    copyQuat(this.ikRotation, this.endRest);
  }

  /** Solves one frame: reads the pose, solves, writes the three bones (nothing when the weights are 0). */
  solve(): void {
    this.skipReason = this.solveFrame();
  }

  /**
   * Tells the `arm` bend modifier what the limb is and which way the character faces: `side` −1 for an arm (the
   * elbow bends back), +1 for a leg (the knee bends forward), 0 for neither (the modifier then leaves the bend
   * normal); `forward` and `up` in component space as the pose stands now (made perpendicular), kept in the parent
   * bone's frame so they turn with it. `outward`, for an arm, points away from the body on the arm's side (for
   * the left arm, the character's left): with it the elbow follows a table fitted to motion capture (elbow-pole.ts),
   * without it FullBodyBipedIK's rule (natural-pole.ts). The Babylon LimbIK sets it for an arm or leg the biped
   * detection finds.
   * @throws FBBIKError when forward and up are parallel, zero or not finite, or outward is not across them.
   */
  setNaturalFrame(side: -1 | 0 | 1, forward: ReadonlyVec3, up: ReadonlyVec3, outward?: ReadonlyVec3): void {
    if (side === 0) {
      this.naturalSide = 0;
      return;
    }
    normalize(frameUp, up);
    const d = dot(forward, frameUp);
    frameForward.x = forward.x - frameUp.x * d;
    frameForward.y = forward.y - frameUp.y * d;
    frameForward.z = forward.z - frameUp.z * d;
    normalize(frameForward, frameForward);
    ensure(
      isFiniteVec(frameForward) && length(frameForward) > 0.5 && length(frameUp) > 0.5,
      this.pose,
      this.bone1,
      "IKSolverLimb",
      "was given a natural frame whose forward and up are parallel, zero or not finite",
    );
    if (this.parent >= 0) {
      this.pose.getRotation(this.parent, rParent);
      normalizeQuat(rParent, rParent);
      inverseRotateVector(this.localForward, rParent, frameForward);
      inverseRotateVector(this.localUp, rParent, frameUp);
    } else {
      copy(this.localForward, frameForward);
      copy(this.localUp, frameUp);
    }
    this.localOutward.x = 0;
    this.localOutward.y = 0;
    this.localOutward.z = 0;
    if (side < 0 && outward !== undefined) {
      // outward made perpendicular to forward and up, so the three are the table's frame
      const o = dot(outward, frameForward);
      const u = dot(outward, frameUp);
      frameOutward.x = outward.x - frameForward.x * o - frameUp.x * u;
      frameOutward.y = outward.y - frameForward.y * o - frameUp.y * u;
      frameOutward.z = outward.z - frameForward.z * o - frameUp.z * u;
      ensure(
        isFiniteVec(frameOutward) && length(frameOutward) > 0.5 * length(outward),
        this.pose,
        this.bone1,
        "IKSolverLimb",
        "was given a natural frame whose outward is not finite, or not across forward and up",
      );
      normalize(frameOutward, frameOutward);
      if (this.parent >= 0) inverseRotateVector(this.localOutward, rParent, frameOutward);
      else copy(this.localOutward, frameOutward);
    }
    this.naturalSide = side;
  }

  /** One solve; returns why it wrote nothing, or "" when it wrote. */
  private solveFrame(): LimbSkipReason {
    const wIn = this.ikPositionWeight;
    const wrIn = this.ikRotationWeight;
    const wmIn = this.maintainRotationWeight;
    const wbIn = this.bendModifierWeight;
    const wgIn = this.bendGoalWeight;
    if (!Number.isFinite(wIn) || !Number.isFinite(wrIn) || !Number.isFinite(wmIn)) return "input";
    if (!Number.isFinite(wbIn) || !Number.isFinite(wgIn)) return "input";
    // weights clamped to [0, 1] inline: per-frame code passes no double through a call (see NumberRef)
    const w = wIn > 0 ? (wIn < 1 ? wIn : 1) : 0;
    const wr = wrIn > 0 ? (wrIn < 1 ? wrIn : 1) : 0;
    if (w <= 0 && wr <= 0) return "weight";
    if (w > 0 && !isFiniteVec(this.ikPosition)) return "input";
    if (wr > 0 && !isFiniteQuat(this.ikRotation)) return "input";
    if (w > 0 && (wgIn > 0 || this.bendModifier === "goal") && !isFiniteVec(this.bendGoal)) return "input";
    const pose = this.pose;
    pose.getPosition(this.bone1, p1);
    pose.getPosition(this.bone2, p2);
    pose.getPosition(this.bone3, p3);
    pose.getRotation(this.bone1, r1);
    pose.getRotation(this.bone2, r2);
    pose.getRotation(this.bone3, r3);
    if (!isFiniteVec(p1) || !isFiniteVec(p2) || !isFiniteVec(p3)) return "pose";
    if (!isFiniteQuat(r1) || !isFiniteQuat(r2) || !isFiniteQuat(r3)) return "pose";
    copyQuat(anim3, r3);
    weight.value = w;
    if (w > 0) {
      sub(va, p2, p1);
      sub(vb, p3, p2);
      const l1 = Math.sqrt(va.x * va.x + va.y * va.y + va.z * va.z);
      const l2 = Math.sqrt(vb.x * vb.x + vb.y * vb.y + vb.z * vb.z);
      if (!(l1 > EPS * (l1 + l2)) || !(l2 > EPS * (l1 + l2))) return "pose";
      // a target beyond FAR limb lengths is brought in along its ray: the straight limb points the same way
      farLimit.value = FAR * (l1 + l2);
      if (!offsetWithin(dir, p1, this.ikPosition, farLimit)) return "target unusable";
      const d = Math.sqrt(dir.x * dir.x + dir.y * dir.y + dir.z * dir.z);
      if (!(d > ON_POINT * (l1 + l2))) return "target unusable";
      add(target, p1, dir);
      lengths.upper = l1;
      lengths.lower = l2;
      const bw = wbIn > 0 ? (wbIn < w ? wbIn : w) : 0;
      bendT.value = bw;
      goalT.value = wgIn > 0 ? (wgIn < 1 ? wgIn : 1) : 0;
      if (!this.bendNormalToRef(normal)) return "input";
      this.bendSide(side, normal);
      limbMiddle(mid, p1, target, side, lengths);
      // upper bone onto the middle joint, blended by weight; the rest of the limb follows rigidly
      fromToRotation(q, va, sub(term, mid, p1));
      multiply(solved, q, r1);
      slerpByRef(solved, r1, solved, weight);
      multiplyConjugate(delta, solved, r1);
      copyQuat(r1, solved);
      add(p2, p1, rotateVector(va, delta, va));
      add(p3, p1, rotateVector(term, delta, sub(term, p3, p1)));
      multiply(r2, delta, r2);
      multiply(r3, delta, r3);
      // middle bone onto the target
      fromToRotation(q, sub(va, p3, p2), sub(vb, target, p2));
      multiply(solved, q, r2);
      slerpByRef(solved, r2, solved, weight);
      multiplyConjugate(delta, solved, r2);
      copyQuat(r2, solved);
      multiply(r3, delta, r3);
    }
    let endChanged = false;
    if (wr > 0) {
      rotT.value = wr;
      slerpByRef(r3, r3, normalizeQuat(goalRot, this.ikRotation), rotT);
      endChanged = true;
    }
    const wm = (wmIn > 0 ? (wmIn < 1 ? wmIn : 1) : 0) * w;
    if (wm > 0) {
      rotT.value = wm;
      slerpByRef(r3, r3, anim3, rotT);
      endChanged = true;
    }
    if (w > 0) {
      pose.setRotation(this.bone1, r1);
      pose.setRotation(this.bone2, r2);
    }
    if (endChanged) pose.setRotation(this.bone3, r3);
    return "";
  }

  /**
   * The frame's unit bend normal: {@link bendNormal}, the modifier's normal blended over it by `bendT`
   * (already capped at the position weight, as FinalIK does), the goal's plane blended over that by
   * `goalT`. False when a needed input is not usable (the normal then would be NaN).
   */
  private bendNormalToRef(out: Vec3): boolean {
    if (!isFiniteVec(this.bendNormal)) return false;
    normalize(out, this.bendNormal);
    if (bendT.value > 0) {
      switch (this.bendModifier) {
        case "animation":
          rotateVector(term, r1, this.localBendNormal);
          this.blendNormal(out, term, bendT);
          break;
        case "target":
          normalizeQuat(goalRot, this.ikRotation);
          multiplyConjugate(q, goalRot, this.endRest);
          slerpByRef(qs, identity(qs), q, bendT);
          rotateVector(out, qs, out);
          break;
        case "parent":
          if (this.parent >= 0) {
            this.pose.getRotation(this.parent, rParent);
            if (!isFiniteQuat(rParent)) return false;
            multiplyConjugate(q, rParent, this.parentRest);
            slerpByRef(qs, identity(qs), q, bendT);
            rotateVector(out, qs, out);
          }
          break;
        case "goal":
          if (this.goalNormal(term)) this.blendNormal(out, term, bendT);
          break;
        case "arm":
          if (!this.naturalNormal(out)) return false;
          break;
      }
    }
    if (goalT.value > 0 && this.goalNormal(term)) this.blendNormal(out, term, goalT);
    return true;
  }

  /**
   * The `arm` modifier: the normal that bends the limb to its natural side for the reach from the root to the
   * target, blended over `out` by `bendT` and by how defined that side is (`term` is scratch). False when the
   * parent's rotation is not usable.
   */
  private naturalNormal(out: Vec3): boolean {
    if (this.naturalSide === 0) return true;
    if (this.parent >= 0) {
      this.pose.getRotation(this.parent, rParent);
      if (!isFiniteQuat(rParent)) return false;
      normalizeQuat(rParent, rParent);
      rotateVector(frameForward, rParent, this.localForward);
      rotateVector(frameUp, rParent, this.localUp);
      rotateVector(frameOutward, rParent, this.localOutward);
    } else {
      copy(frameForward, this.localForward);
      copy(frameUp, this.localUp);
      copy(frameOutward, this.localOutward);
    }
    sub(reach, target, p1);
    const rl = Math.sqrt(reach.x * reach.x + reach.y * reach.y + reach.z * reach.z);
    if (!(rl > 0)) return true;
    reach.x /= rl;
    reach.y /= rl;
    reach.z /= rl;
    const o = this.localOutward;
    if (o.x !== 0 || o.y !== 0 || o.z !== 0) elbowPole(pole, reach, frameForward, frameUp, frameOutward);
    else naturalPole(pole, reach, frameForward, frameUp, this.naturalSide);
    const pl = Math.sqrt(pole.x * pole.x + pole.y * pole.y + pole.z * pole.z);
    const gate = (pl - POLE_LOW) / (POLE_HIGH - POLE_LOW);
    if (!(gate > 0)) return true;
    // the normal whose bend side, cross(reach, normal), is the pole: cross(pole, reach) / |pole|
    term.x = (pole.y * reach.z - pole.z * reach.y) / pl;
    term.y = (pole.z * reach.x - pole.x * reach.z) / pl;
    term.z = (pole.x * reach.y - pole.y * reach.x) / pl;
    poleT.value = bendT.value * (gate < 1 ? gate : 1);
    this.blendNormal(out, term, poleT);
    return true;
  }

  /** out = normalize(lerp(out, unit `n`, t)); a blend that cancels keeps `out`. */
  private blendNormal(out: Vec3, n: Vec3, t: Readonly<NumberRef>): void {
    const k = t.value;
    const x = out.x + (n.x - out.x) * k;
    const y = out.y + (n.y - out.y) * k;
    const z = out.z + (n.z - out.z) * k;
    const l = Math.sqrt(x * x + y * y + z * z);
    if (!(l > EPS)) return;
    out.x = x / l;
    out.y = y / l;
    out.z = z / l;
  }

  /** The goal plane's unit normal, cross(goal − root, target − root); false when the three are collinear. */
  private goalNormal(out: Vec3): boolean {
    sub(ga, this.bendGoal, p1);
    sub(gb, target, p1);
    cross(out, ga, gb);
    const l = Math.sqrt(out.x * out.x + out.y * out.y + out.z * out.z);
    const la = Math.sqrt(ga.x * ga.x + ga.y * ga.y + ga.z * ga.z);
    const lb = Math.sqrt(gb.x * gb.x + gb.y * gb.y + gb.z * gb.z);
    if (!(l > EPS * la * lb)) return false;
    out.x /= l;
    out.y /= l;
    out.z /= l;
    return true;
  }

  /**
   * Unit direction from the root → target line (`dir`) toward the middle joint: cross(dir, normal), since
   * the normal is cross(upper, lower). A normal along the line falls back to the animated middle joint's
   * side, then to any perpendicular.
   */
  private bendSide(out: Vec3, n: Vec3): void {
    const dl = Math.sqrt(dir.x * dir.x + dir.y * dir.y + dir.z * dir.z);
    cross(out, dir, n);
    const l = Math.sqrt(out.x * out.x + out.y * out.y + out.z * out.z);
    if (l > EPS * dl) {
      out.x /= l;
      out.y /= l;
      out.z /= l;
      return;
    }
    sub(term, p2, p1);
    const k = (term.x * dir.x + term.y * dir.y + term.z * dir.z) / (dl * dl);
    term.x -= dir.x * k;
    term.y -= dir.y * k;
    term.z -= dir.z * k;
    const lt = Math.sqrt(term.x * term.x + term.y * term.y + term.z * term.z);
    if (lt > EPS * lengths.upper) normalize(out, term);
    else anyPerpendicular(out, dir);
  }
}
