/**
 * FABRIK's help for a hinge: the joint before it rolls about its own bone so that the hinge's plane holds the
 * direction its bone must point, which the hinge alone (it drops every turn off its axis) cannot reach.
 * @module
 */
import {
  Quat,
  type ReadonlyQuat,
  fromToRotation,
  multiply,
  multiplyConjugate,
  normalizeQuat,
  quatFromArray,
  rotateVector,
} from "../math/quat.js";
import { Vec3, cross, normalize } from "../math/vec3.js";
import { clampToLimit } from "./limits/chain-limits.js";
import type { SingleAxisLimit } from "./limits/rotation-limit.js";

const b = new Vec3();
const w = new Vec3();
const ax = new Vec3();
const a = new Vec3();
const c = new Vec3();
const d = new Vec3();
const offset = new Vec3();
const change = new Quat();
const child0 = new Quat();
const childOld = new Quat();
const roll = new Quat();
const best = new Quat();
const rolled = new Quat();
const child = new Quat();
const turn = new Quat();

/**
 * Rolls `rot` (joint `i`'s component-space rotation, just turned from `oldRot` onto its bone's wanted direction)
 * about its bone so that joint `i + 1`'s hinge `limit`, clamped, points its bone nearest the wanted position of joint
 * `i + 2` (`P`, 3 per joint): of no roll and the two rolls that put the hinge's axis across that direction, the one
 * whose clamped bone points nearest it. `R` and `O` are the solver's rotations and bone vectors. Allocation-free.
 */
export function rollForChildHinge(
  rot: Quat,
  oldRot: ReadonlyQuat,
  R: Float64Array,
  O: Float64Array,
  P: Float64Array,
  i: number,
  limit: SingleAxisLimit,
): void {
  if (!limit.singleAxis(ax)) return;
  const i3 = 3 * i;
  b.x = P[i3 + 3]! - P[i3]!;
  b.y = P[i3 + 4]! - P[i3 + 1]!;
  b.z = P[i3 + 5]! - P[i3 + 2]!;
  w.x = P[i3 + 6]! - P[i3 + 3]!;
  w.y = P[i3 + 7]! - P[i3 + 4]!;
  w.z = P[i3 + 8]! - P[i3 + 5]!;
  // dot products written out: a double returned by a call is boxed when V8 does not inline it
  if (!(b.x * b.x + b.y * b.y + b.z * b.z > 0) || !(w.x * w.x + w.y * w.y + w.z * w.z > 0)) return;
  normalize(b, b);
  normalize(w, w);
  offset.x = O[i3 + 3]!;
  offset.y = O[i3 + 4]!;
  offset.z = O[i3 + 5]!;
  // the child as it turns with this joint, and its hinge axis in component space
  multiplyConjugate(change, rot, oldRot);
  quatFromArray(childOld, R, 4 * (i + 1));
  multiply(child0, change, childOld);
  rotateVector(a, child0, ax);
  // a(φ)·w = C + A cos φ + B sin φ for the axis rolled by φ about b: the rolls that zero it
  const along = a.x * b.x + a.y * b.y + a.z * b.z;
  a.x -= along * b.x;
  a.y -= along * b.y;
  a.z -= along * b.z;
  cross(c, b, a);
  const C = along * (b.x * w.x + b.y * w.y + b.z * w.z);
  const A = a.x * w.x + a.y * w.y + a.z * w.z;
  const B = c.x * w.x + c.y * w.y + c.z * w.z;
  const r = Math.sqrt(A * A + B * B);
  if (!(r > 1e-9)) return;
  const psi = Math.atan2(B, A);
  const x = -C / r;
  const delta = Math.acos(x < -1 ? -1 : x > 1 ? 1 : x);
  let bestScore = -2;
  for (let k = 0; k < 3; k++) {
    const phi = k === 0 ? 0 : k === 1 ? psi + delta : psi - delta;
    const s = Math.sin(phi * 0.5);
    roll.x = b.x * s;
    roll.y = b.y * s;
    roll.z = b.z * s;
    roll.w = Math.cos(phi * 0.5);
    multiply(rolled, roll, rot);
    multiply(child, roll, child0);
    rotateVector(d, child, offset);
    fromToRotation(turn, d, w);
    multiply(child, turn, child);
    normalizeQuat(child, child);
    clampToLimit(limit, rolled, child);
    rotateVector(d, child, offset);
    normalize(d, d);
    const score = d.x * w.x + d.y * w.y + d.z * w.z;
    // a roll must do better than none by more than rounding
    if (score > bestScore + 1e-12) {
      bestScore = score;
      best.x = roll.x;
      best.y = roll.y;
      best.z = roll.z;
      best.w = roll.w;
    }
  }
  multiply(rot, best, rot);
  normalizeQuat(rot, rot);
}
