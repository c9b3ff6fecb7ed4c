/**
 * FABRIK's help for a hinge: the joint before it rolls about its own bone so that the hinge's plane holds the
 * point its bones must reach, which the hinge alone (it drops every turn off its axis) cannot; when the joint's own
 * limit holds the roll back, the joint swivels its bone about the line to that point instead. Before a single hinge it
 * also tries the hinge's joint on the other side of that line, so a one-sided hinge (a knee) bends forward.
 * @module
 */
import {
  Quat,
  type ReadonlyQuat,
  copyQuat,
  fromToRotation,
  multiply,
  multiplyConjugate,
  normalizeQuat,
  quatFromArray,
  rotateVector,
} from "../math/quat.js";
import { Vec3, cross, normalize } from "../math/vec3.js";
import { clampToLimit } from "./limits/chain-limits.js";
import { type RotationLimit, type SingleAxisLimit, isSingleAxisLimit } from "./limits/rotation-limit.js";

/** The swivel's step, as a fraction of a turn (22.5°), when the joint's own limit holds the roll back. */
const SWIVEL_STEPS = 16;

/** A trial whose child's bone points within about 0.08° of the far point (1 − cos) needs no further search. */
const SERVED = 1e-6;

const ax = new Vec3();
const line = new Vec3();
const bone = new Vec3();
const a = new Vec3();
const c = new Vec3();
const d = new Vec3();
const w = new Vec3();
const tip = new Vec3();
const offset = new Vec3();
const childOffset = new Vec3();
const change = new Quat();
const child0 = new Quat();
const swivel = new Quat();
const swivelled = new Quat();
const swivelledChild = new Quat();
const roll = new Quat();
const trial = new Quat();
const turned = new Quat();
const child = new Quat();
const turn = new Quat();
const best = new Quat();
const kept = new Quat();

/**
 * A single hinge's two sides ({@link pickSide}) reach alike when their scores (cosines) differ by less than this
 * (about 0.08°): the one that turns the joint less then wins.
 */
const ALIKE = 1e-6;

/** The best trial so far, kept in an object so no double crosses a call. */
class Choice {
  score = -3;
  heldBack = false;
  /** The swivel being tried and the best one's (radians about the line to the far point). */
  trying = 0;
  angle = 0;
}
const choice = new Choice();

/** Where the roll and swivel look from: the joint, its bone, its limit, its child's hinge and the far point. */
export class BeforeHinge {
  /** The joint's index in the chain. */
  i = 0;
  /** The previous joint's rotation (or the root parent's), the joint's limit is taken relative to. */
  readonly parent = new Quat();
  /** The joint's own limit, or null. */
  own: RotationLimit | null = null;
  /** The next joint's single-axis limit. */
  hinge: SingleAxisLimit | null = null;
  /** The point the hinge's plane must hold (the next joint that is no hinge, or the tip), in component space. */
  readonly far = new Vec3();
  /** The index of the joint at `far`. */
  farIndex = 0;
  /** Whether the bone may swivel about the line to `far` when the joint's limit holds the roll back. */
  swivel = true;
  /** Whether that swivel's search ends in half and quarter steps about the best (else whole steps only). */
  fine = true;
  /**
   * What the hinge aims, in its own frame, when `useChord`: a two-hinge run's chord to `far` (hinge-chord.ts
   * `runChord`); else its own bone.
   */
  readonly chord = new Vec3();
  /** Whether the hinge aims {@link chord} rather than its bone. */
  useChord = false;
}

/**
 * Sets `h` up for joint `i` of `joints` (their limits as the solve applies them: none when `limitsOn` is false; `P`
 * the joints' positions): true when joint `i + 1` is a hinge and joint `i` is not (a hinge cannot roll: its own
 * clamp would take the roll back and turn it about its axis), the far point then the next joint after the hinge that
 * is no hinge, or the tip (a run of hinges bends in one plane).
 */
export function setUpBeforeHinge(
  h: BeforeHinge,
  joints: readonly { readonly limit: RotationLimit | null }[],
  limitsOn: boolean,
  i: number,
  P: Float64Array,
): boolean {
  const n = joints.length;
  if (!limitsOn || i + 2 >= n) return false;
  const hinge = joints[i + 1]!.limit;
  if (hinge === null || !isSingleAxisLimit(hinge)) return false;
  const own = joints[i]!.limit;
  if (own !== null && isSingleAxisLimit(own)) return false;
  let far = i + 2;
  while (far < n - 1) {
    const next = joints[far]!.limit;
    if (next === null || !isSingleAxisLimit(next)) break;
    far++;
  }
  h.i = i;
  h.farIndex = far;
  h.useChord = false;
  h.own = own;
  h.hinge = hinge;
  h.far.x = P[3 * far]!;
  h.far.y = P[3 * far + 1]!;
  h.far.z = P[3 * far + 2]!;
  return true;
}

/**
 * Tries `turned = trial · rot` (`trial` module scratch): the joint clamped by its own limit, its child turned with it
 * (what the limit left of the turn), then turned toward the far point and clamped by its hinge; the score is how
 * near the child's bone (or the run's chord, `h.useChord`) points to the far point. Keeps the best in `choice` and
 * `best`.
 */
function tryTurn(rot: ReadonlyQuat, P: Float64Array, h: BeforeHinge): void {
  multiply(turned, trial, rot);
  multiply(child, trial, child0);
  let heldBack = false;
  if (h.own !== null && clampToLimit(h.own, h.parent, turned)) {
    heldBack = true;
    // the child turns with what the limit leaves of the joint's turn
    multiply(turn, trial, rot);
    multiplyConjugate(turn, turned, turn);
    multiply(child, turn, child);
  }
  const i3 = 3 * h.i;
  rotateVector(tip, turned, offset);
  w.x = h.far.x - P[i3]! - tip.x;
  w.y = h.far.y - P[i3 + 1]! - tip.y;
  w.z = h.far.z - P[i3 + 2]! - tip.z;
  if (!(w.x * w.x + w.y * w.y + w.z * w.z > 0)) return;
  normalize(w, w);
  rotateVector(d, child, childOffset);
  fromToRotation(turn, d, w);
  multiply(child, turn, child);
  normalizeQuat(child, child);
  clampToLimit(h.hinge!, turned, child);
  rotateVector(d, child, childOffset);
  normalize(d, d);
  const score = d.x * w.x + d.y * w.y + d.z * w.z;
  // a trial must do better than the one before by more than rounding
  if (score > choice.score + 1e-12) {
    choice.score = score;
    choice.heldBack = heldBack;
    choice.angle = choice.trying;
    best.x = trial.x;
    best.y = trial.y;
    best.z = trial.z;
    best.w = trial.w;
  }
}

/**
 * Turns `rot` (joint `h.i`'s component-space rotation, just turned from `oldRot` onto its bone's wanted direction) so
 * that joint `h.i + 1`'s hinge, clamped, points its bone (or its run's chord, `h.useChord`) nearest the far point: of
 * no roll and the two rolls about the bone that put the hinge's axis across the way to the far point, the one that
 * does best once the joint's own limit and the hinge are applied. When the joint's limit holds that roll back (and
 * `h.swivel`), the bone also swivels about the line from the joint to the far point, which keeps the next joint's
 * distance from it: from FABRIK's swivel in steps of 22.5° the way the result improves, then (`h.fine`) in half and
 * quarter steps about the best. Before a single hinge, a joint turned more than a quarter turn also tries the other
 * side of the line to the far point ({@link pickSide}). `R`, `O` and `P` are the solver's rotations, bone vectors and
 * positions. Allocation-free.
 */
export function placeBeforeHinge(
  rot: Quat,
  oldRot: ReadonlyQuat,
  R: Float64Array,
  O: Float64Array,
  P: Float64Array,
  h: BeforeHinge,
): void {
  const hinge = h.hinge;
  if (hinge === null || !hinge.singleAxis(ax)) return;
  const i3 = 3 * h.i;
  offset.x = O[i3]!;
  offset.y = O[i3 + 1]!;
  offset.z = O[i3 + 2]!;
  childOffset.x = h.useChord ? h.chord.x : O[i3 + 3]!;
  childOffset.y = h.useChord ? h.chord.y : O[i3 + 4]!;
  childOffset.z = h.useChord ? h.chord.z : O[i3 + 5]!;
  line.x = h.far.x - P[i3]!;
  line.y = h.far.y - P[i3 + 1]!;
  line.z = h.far.z - P[i3 + 2]!;
  const onLine = line.x * line.x + line.y * line.y + line.z * line.z > 0;
  if (onLine) normalize(line, line);
  // the child as it turns with this joint
  multiplyConjugate(change, rot, oldRot);
  quatFromArray(child0, R, 4 * (h.i + 1));
  multiply(child0, change, child0);
  choice.score = -3;
  choice.heldBack = false;
  choice.trying = 0;
  choice.angle = 0;
  swivelTo(rot, P, h);
  // FABRIK's own swivel stays unless the joint's limit holds back the roll the hinge needs
  if (h.swivel && onLine && choice.heldBack && !served()) climbSwivel(rot, P, h);
  if (onLine && h.farIndex === h.i + 2 && choice.score >= -2) pickSide(rot, oldRot, P, h);
  if (choice.score < -2) return;
  multiply(rot, best, rot);
  normalizeQuat(rot, rot);
}

/**
 * For a single hinge: FABRIK may leave the hinge's joint on the side it cannot bend to (a knee behind the line from
 * hip to ankle), and the roll then turns the bone before it about half a turn so the hinge bends its own way, which
 * in the world is backward. When the trial kept turns the joint more than a quarter turn from `oldRot` (its rotation
 * before the pass: the animated one in the first), tries the other side, the bone swivelled half a turn about the
 * line to the far point (the hinge's joint mirrored about that line, its distances kept), and keeps the side that
 * reaches nearer or, where both reach alike, the one that turns the joint less: a knee bends the way the animation
 * bends it.
 */
function pickSide(rot: ReadonlyQuat, oldRot: ReadonlyQuat, P: Float64Array, h: BeforeHinge): void {
  // |q · oldRot| is the cosine of half the turn from oldRot: the larger, the smaller the turn
  multiply(turned, best, rot);
  const asIs = Math.abs(turned.x * oldRot.x + turned.y * oldRot.y + turned.z * oldRot.z + turned.w * oldRot.w);
  if (asIs > Math.SQRT1_2) return;
  copyQuat(kept, best);
  const keptScore = choice.score;
  const keptAngle = choice.angle;
  const keptHeldBack = choice.heldBack;
  choice.score = -3;
  choice.trying = Math.PI;
  swivelTo(rot, P, h);
  const gain = choice.score - keptScore;
  if (gain > ALIKE) return;
  if (gain > -ALIKE) {
    multiply(turned, best, rot);
    const mirrored = Math.abs(turned.x * oldRot.x + turned.y * oldRot.y + turned.z * oldRot.z + turned.w * oldRot.w);
    if (mirrored > asIs) return;
  }
  copyQuat(best, kept);
  choice.score = keptScore;
  choice.angle = keptAngle;
  choice.heldBack = keptHeldBack;
}

/** True when the best trial points the child's bone at the far point (to {@link SERVED}). */
function served(): boolean {
  return choice.score > 1 - SERVED;
}

/**
 * Swivels from FABRIK's own the way the result improves, step by step, then (`h.fine`) halves the step twice about
 * the best.
 */
function climbSwivel(rot: ReadonlyQuat, P: Float64Array, h: BeforeHinge): void {
  const step = (2 * Math.PI) / SWIVEL_STEPS;
  choice.trying = step;
  swivelTo(rot, P, h);
  choice.trying = -step;
  swivelTo(rot, P, h);
  const way = choice.angle > 0 ? step : choice.angle < 0 ? -step : 0;
  for (let m = 2; way !== 0 && m <= SWIVEL_STEPS >> 1 && !served(); m++) {
    const before = choice.score;
    choice.trying = m * way;
    swivelTo(rot, P, h);
    if (!(choice.score > before)) break;
  }
  for (let fine = step * 0.5; h.fine && fine > step * 0.2 && !served(); fine *= 0.5) {
    const at = choice.angle;
    choice.trying = at + fine;
    swivelTo(rot, P, h);
    choice.trying = at - fine;
    swivelTo(rot, P, h);
  }
}

/** Sets the swivel to `choice.trying` radians about the line to the far point, then tries the rolls there. */
function swivelTo(rot: ReadonlyQuat, P: Float64Array, h: BeforeHinge): void {
  const half = choice.trying * 0.5;
  const s = Math.sin(half);
  swivel.x = line.x * s;
  swivel.y = line.y * s;
  swivel.z = line.z * s;
  swivel.w = Math.cos(half);
  multiply(swivelled, swivel, rot);
  multiply(swivelledChild, swivel, child0);
  rollsAcross(rot, P, h);
}

/**
 * Tries no roll and the two rolls about the swivelled bone (`swivelled`, its child `swivelledChild`) that put the
 * hinge's axis across the way from the next joint to the far point: a(φ)·w = C + A cos φ + B sin φ for the axis
 * rolled by φ, zero at ψ ± δ.
 */
function rollsAcross(rot: ReadonlyQuat, P: Float64Array, h: BeforeHinge): void {
  const i3 = 3 * h.i;
  rotateVector(bone, swivelled, offset);
  w.x = h.far.x - P[i3]! - bone.x;
  w.y = h.far.y - P[i3 + 1]! - bone.y;
  w.z = h.far.z - P[i3 + 2]! - bone.z;
  // dot products written out: a double returned by a call is boxed when V8 does not inline it
  if (!(bone.x * bone.x + bone.y * bone.y + bone.z * bone.z > 0) || !(w.x * w.x + w.y * w.y + w.z * w.z > 0)) return;
  normalize(bone, bone);
  normalize(w, w);
  rotateVector(a, swivelledChild, ax);
  const along = a.x * bone.x + a.y * bone.y + a.z * bone.z;
  a.x -= along * bone.x;
  a.y -= along * bone.y;
  a.z -= along * bone.z;
  cross(c, bone, a);
  const C = along * (bone.x * w.x + bone.y * w.y + bone.z * w.z);
  const A = a.x * w.x + a.y * w.y + a.z * w.z;
  const B = c.x * w.x + c.y * w.y + c.z * w.z;
  const r = Math.sqrt(A * A + B * B);
  const rolls = r > 1e-9 ? 3 : 1;
  const psi = Math.atan2(B, A);
  const x = rolls > 1 ? -C / r : 0;
  const delta = Math.acos(x < -1 ? -1 : x > 1 ? 1 : x);
  // no roll puts the axis across (|C| ≥ r): ψ + δ and ψ − δ are then one roll, tried once
  const last = rolls > 1 && (x <= -1 || x >= 1) ? 2 : rolls;
  // away from FABRIK's swivel only the rolls across are worth a trial
  for (let m = choice.trying === 0 || rolls === 1 ? 0 : 1; m < last; m++) {
    const phi = m === 0 ? 0 : m === 1 ? psi + delta : psi - delta;
    const s = Math.sin(phi * 0.5);
    roll.x = bone.x * s;
    roll.y = bone.y * s;
    roll.z = bone.z * s;
    roll.w = Math.cos(phi * 0.5);
    multiply(trial, roll, swivel);
    tryTurn(rot, P, h);
  }
}
