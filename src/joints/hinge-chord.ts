/**
 * FABRIK's help for the joint before a run of two hinges (a wrist before a finger): it aims the run's chord, from the
 * first hinge to the point after the run, rather than the first hinge's bone, and stands at that chord's length from
 * the point, the inner hinge at the angle its range allows nearest FABRIK's; the roll and swivel of hinge-roll.ts then
 * turn the chord as they turn a single hinge's bone.
 * @module
 */
import { Quat, type ReadonlyQuat, multiply, rotateVector } from "../math/quat.js";
import { type ReadonlyVec3, Vec3, cross } from "../math/vec3.js";
import type { BeforeHinge } from "./hinge-roll.js";
import { type RotationLimit, isSingleAxisLimit } from "./limits/rotation-limit.js";

const axis = new Vec3();
const e = new Vec3();
const f = new Vec3();
const g = new Vec3();
const par = new Vec3();
const perp = new Vec3();
const across = new Vec3();
const bent = new Quat();
const clamped = new Quat();
const chordTry = new Vec3();

/** A trial of a two-hinge run's inner hinge, in an object so no double crosses a call. */
class ChordFit {
  /** The inner hinge's angle from rest, before its clamp (radians). */
  theta = 0;
  /** The chord's length asked for. */
  length = 0;
  /** How far the clamped chord's length ends from it. */
  off = 0;
}
const fit = new ChordFit();

/**
 * For the two-hinge run at joints `i + 1` and `i + 2` (`inner` joint `i + 2`'s limit as the solve applies it,
 * `restLocal` its rest rotation relative to joint `i + 1`; `O` and `P` the bone vectors and positions): writes into
 * `out` the run's chord, from joint `i + 1` to joint `i + 3`, in joint `i + 1`'s frame, with the inner hinge at the
 * angle its range allows that makes the chord's length nearest joint `i + 1`'s distance from `far`. The first hinge
 * turns the chord about its axis as it turns a bone, so the joint before the run can aim the chord as it aims a single
 * hinge's bone. False when joint `i + 2` has no axis.
 */
function runChord(
  out: Vec3,
  inner: RotationLimit,
  restLocal: ReadonlyQuat,
  O: Float64Array,
  P: Float64Array,
  i: number,
  far: ReadonlyVec3,
): boolean {
  if (!isSingleAxisLimit(inner) || !inner.singleAxis(axis)) return false;
  const n3 = 3 * (i + 1);
  const fx = far.x - P[n3]!;
  const fy = far.y - P[n3 + 1]!;
  const fz = far.z - P[n3 + 2]!;
  fit.length = Math.sqrt(fx * fx + fy * fy + fz * fz);
  const b3 = 3 * (i + 2);
  // the inner bone split about the inner hinge's axis: what stays, and the part the hinge turns (and its quarter turn)
  const along = O[b3]! * axis.x + O[b3 + 1]! * axis.y + O[b3 + 2]! * axis.z;
  par.x = along * axis.x;
  par.y = along * axis.y;
  par.z = along * axis.z;
  perp.x = O[b3]! - par.x;
  perp.y = O[b3 + 1]! - par.y;
  perp.z = O[b3 + 2]! - par.z;
  cross(across, axis, perp);
  rotateVector(g, restLocal, par);
  g.x += O[b3 - 3]!;
  g.y += O[b3 - 2]!;
  g.z += O[b3 - 1]!;
  rotateVector(perp, restLocal, perp);
  rotateVector(across, restLocal, across);
  // |chord|² = K + A cos θ + B sin θ for the inner hinge at θ from rest
  const K = g.x * g.x + g.y * g.y + g.z * g.z + perp.x * perp.x + perp.y * perp.y + perp.z * perp.z;
  const A = 2 * (g.x * perp.x + g.y * perp.y + g.z * perp.z);
  const B = 2 * (g.x * across.x + g.y * across.y + g.z * across.z);
  const r = Math.sqrt(A * A + B * B);
  const phi = Math.atan2(B, A);
  const x = r > 0 ? (fit.length * fit.length - K) / r : 0;
  const delta = Math.acos(x < -1 ? -1 : x > 1 ? 1 : x);
  let best = Infinity;
  for (let k = 0; k < 2; k++) {
    fit.theta = k === 0 ? phi + delta : phi - delta;
    chordAt(chordTry, inner, restLocal, O, i);
    if (fit.off < best) {
      best = fit.off;
      out.x = chordTry.x;
      out.y = chordTry.y;
      out.z = chordTry.z;
    }
  }
  return true;
}

/** The chord with the inner hinge turned `fit.theta` from rest and clamped by `inner`, into `out`; `fit.off` set. */
function chordAt(out: Vec3, inner: RotationLimit, restLocal: ReadonlyQuat, O: Float64Array, i: number): void {
  const s = Math.sin(fit.theta * 0.5);
  bent.x = axis.x * s;
  bent.y = axis.y * s;
  bent.z = axis.z * s;
  bent.w = Math.cos(fit.theta * 0.5);
  multiply(clamped, restLocal, bent);
  inner.apply(clamped);
  const b3 = 3 * (i + 2);
  out.x = O[b3]!;
  out.y = O[b3 + 1]!;
  out.z = O[b3 + 2]!;
  rotateVector(out, clamped, out);
  out.x += O[b3 - 3]!;
  out.y += O[b3 - 2]!;
  out.z += O[b3 - 1]!;
  fit.off = Math.abs(Math.sqrt(out.x * out.x + out.y * out.y + out.z * out.z) - fit.length);
}

/**
 * Moves joint `i + 1` (bone `i`'s length from joint `i`, `O` the bone vectors) to `chord`'s length from `far`,
 * nearest where it is: onto the circle where the two spheres meet, in the plane through joint `i`, `far` and it (onto
 * the line when they do not meet).
 */
function reachChord(P: Float64Array, O: Float64Array, i: number, far: ReadonlyVec3, chord: ReadonlyVec3): void {
  const i3 = 3 * i;
  const length = Math.sqrt(O[i3]! * O[i3]! + O[i3 + 1]! * O[i3 + 1]! + O[i3 + 2]! * O[i3 + 2]!);
  const c2 = chord.x * chord.x + chord.y * chord.y + chord.z * chord.z;
  const dx = far.x - P[i3]!;
  const dy = far.y - P[i3 + 1]!;
  const dz = far.z - P[i3 + 2]!;
  const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(d > 0) || !(length > 0)) return;
  e.x = dx / d;
  e.y = dy / d;
  e.z = dz / d;
  // the side: joint i + 1's offset from the line, as it is
  f.x = P[i3 + 3]! - P[i3]!;
  f.y = P[i3 + 4]! - P[i3 + 1]!;
  f.z = P[i3 + 5]! - P[i3 + 2]!;
  const on = f.x * e.x + f.y * e.y + f.z * e.z;
  f.x -= on * e.x;
  f.y -= on * e.y;
  f.z -= on * e.z;
  const side = Math.sqrt(f.x * f.x + f.y * f.y + f.z * f.z);
  let x = (length * length - c2 + d * d) / (2 * d);
  if (x > length) x = length;
  if (x < -length) x = -length;
  const y = side > 0 ? Math.sqrt(length * length - x * x) / side : 0;
  P[i3 + 3] = P[i3]! + x * e.x + y * f.x;
  P[i3 + 4] = P[i3 + 1]! + x * e.y + y * f.y;
  P[i3 + 5] = P[i3 + 2]! + x * e.z + y * f.z;
}

/**
 * When joint `h.i` stands before a run of exactly two hinges (`joints` their limits as the solve applies them,
 * `restLocals` the joints' rest rotations, `O` and `P` the solver's bone vectors and positions): sets `h.chord` (and
 * `h.useChord`) and moves joint `h.i + 1` to the chord's length from `h.far`. Allocation-free.
 */
export function aimRunChord(
  h: BeforeHinge,
  joints: readonly { readonly limit: RotationLimit | null }[],
  restLocals: readonly ReadonlyQuat[],
  O: Float64Array,
  P: Float64Array,
): void {
  const i = h.i;
  if (h.farIndex !== i + 3) return;
  if (!runChord(h.chord, joints[i + 2]!.limit!, restLocals[i + 2]!, O, P, i, h.far)) return;
  h.useChord = true;
  reachChord(P, O, i, h.far, h.chord);
}
