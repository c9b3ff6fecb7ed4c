/**
 * Pushing a chain out of placed capsules while keeping its segment lengths: what a solver that rebuilds its
 * joints from bone directions and lengths needs (the joint frame's sub-steps). Flat numbers as in push-out.ts;
 * allocation-free, no double crosses a call.
 * @module
 */
import { pushPointOut, pushSegmentEndOut } from "./push-out.js";

/** Numbers per placed shape: axis start (3), axis end (3), radius. */
const SHAPE = 7;
/** Bisection steps on the turn angle: the angle to 2⁻³² of the bracket (below 1e-9 rad for a bracket ≤ π). */
const BISECTIONS = 32;

/** A segment's start (3) and end (3), pushed on a copy to test whether it is clear. */
const probe = new Float64Array(6);
/** Turn-plane frame: the start direction u0 (0–2) and its unit perpendicular toward the push (3–5). */
const frame = new Float64Array(6);
/** {@link place}'s length (0) and angle (1): doubles handed over in an array, not as arguments. */
const arc = new Float64Array(2);

/**
 * Root to tip, each joint is put back at its segment's length from the settled previous joint (the first
 * joint never moves), along the way to where it was; when the joint or its segment is inside a collider,
 * the segment is turned about its start, in the plane of its direction and the way one push-out step
 * moves it, by the smallest angle (bisection to 2⁻³² of the bracket) that clears every collider. So joints
 * and segments end outside, and every segment keeps its length. `lengths` (n − 1 used) receives the lengths;
 * `shapes` holds the placed shapes with radius + clearance; `valid[c]` is 1 for the colliders to use. True
 * when a joint moved.
 */
export function resolveKeepingLengths(
  positions: Float64Array,
  n: number,
  lengths: Float64Array,
  shapes: Float64Array,
  valid: Uint8Array,
): boolean {
  for (let j = 0; j + 1 < n; j++) {
    const o = j * 3;
    const dx = positions[o + 3]! - positions[o]!;
    const dy = positions[o + 4]! - positions[o + 1]!;
    const dz = positions[o + 5]! - positions[o + 2]!;
    lengths[j] = Math.sqrt(dx * dx + dy * dy + dz * dz);
  }
  let moved = false;
  let parentMoved = false;
  for (let j = 1; j < n; j++) {
    const a = (j - 1) * 3;
    const b = j * 3;
    if (parentMoved) keepLength(positions, a, b, lengths, j - 1);
    if (!(lengths[j - 1]! > 0) || clear(positions, a, b, shapes, valid)) continue;
    turnClear(positions, a, b, lengths, j - 1, shapes, valid);
    moved = true;
    parentMoved = true;
  }
  return moved;
}

/** True when the point at `b` and the segment from `a` to it are outside every valid collider. */
function clear(pos: Float64Array, a: number, b: number, shapes: Float64Array, valid: Uint8Array): boolean {
  for (let c = 0; c < valid.length; c++) {
    if (valid[c] !== 1) continue;
    for (let k = 0; k < 3; k++) {
      probe[k] = pos[a + k]!;
      probe[3 + k] = pos[b + k]!;
    }
    if (pushPointOut(probe, 3, shapes, c * SHAPE)) return false;
    if (pushSegmentEndOut(probe, 0, 3, shapes, c * SHAPE)) return false;
  }
  return true;
}

/**
 * Turns the segment from `a` to `b` about `a` out of the colliders (see `resolveKeepingLengths`); left
 * where one push-out step took it when no turn up to π clears it (squeezed between colliders).
 */
function turnClear(
  pos: Float64Array,
  a: number,
  b: number,
  lengths: Float64Array,
  k: number,
  shapes: Float64Array,
  valid: Uint8Array,
): void {
  const len = lengths[k]!;
  for (let i = 0; i < 3; i++) frame[i] = (pos[b + i]! - pos[a + i]!) / len;
  // one push-out step shows which way to turn
  for (let c = 0; c < valid.length; c++) {
    if (valid[c] !== 1) continue;
    pushPointOut(pos, b, shapes, c * SHAPE);
    pushSegmentEndOut(pos, a, b, shapes, c * SHAPE);
  }
  keepLength(pos, a, b, lengths, k);
  let px = (pos[b]! - pos[a]!) / len;
  let py = (pos[b + 1]! - pos[a + 1]!) / len;
  let pz = (pos[b + 2]! - pos[a + 2]!) / len;
  const along = px * frame[0]! + py * frame[1]! + pz * frame[2]!;
  px -= frame[0]! * along;
  py -= frame[1]! * along;
  pz -= frame[2]! * along;
  const pl = Math.sqrt(px * px + py * py + pz * pz);
  // no usable turn plane (the push did not turn the segment): keep the pushed place
  if (!(pl > 1e-12)) return;
  frame[3] = px / pl;
  frame[4] = py / pl;
  frame[5] = pz / pl;
  arc[0] = len;
  const pushed = Math.atan2(pl, along);
  let lo = 0;
  let hi = pushed;
  for (;;) {
    arc[1] = hi;
    place(pos, a, b);
    if (clear(pos, a, b, shapes, valid)) break;
    if (hi >= Math.PI) {
      // squeezed: no turn clears it; keep the pushed place
      arc[1] = pushed;
      place(pos, a, b);
      return;
    }
    lo = hi;
    hi = hi * 2 < Math.PI ? hi * 2 : Math.PI;
  }
  for (let i = 0; i < BISECTIONS; i++) {
    arc[1] = 0.5 * (lo + hi);
    place(pos, a, b);
    if (clear(pos, a, b, shapes, valid)) hi = arc[1]!;
    else lo = arc[1]!;
  }
  arc[1] = hi;
  place(pos, a, b);
}

/** Puts the point at `b` at `arc[0]` from `a`, turned by `arc[1]` from the frame's u0 toward its perpendicular. */
function place(pos: Float64Array, a: number, b: number): void {
  const c = Math.cos(arc[1]!) * arc[0]!;
  const s = Math.sin(arc[1]!) * arc[0]!;
  pos[b] = pos[a]! + frame[0]! * c + frame[3]! * s;
  pos[b + 1] = pos[a + 1]! + frame[1]! * c + frame[4]! * s;
  pos[b + 2] = pos[a + 2]! + frame[2]! * c + frame[5]! * s;
}

/** Puts the point at `b` of `pos` at `lengths[k]` from the point at `a`, along the way from `a` to it. */
function keepLength(pos: Float64Array, a: number, b: number, lengths: Float64Array, k: number): void {
  const dx = pos[b]! - pos[a]!;
  const dy = pos[b + 1]! - pos[a + 1]!;
  const dz = pos[b + 2]! - pos[a + 2]!;
  const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(d > 0) || d === Infinity) return;
  const f = lengths[k]! / d;
  pos[b] = pos[a]! + dx * f;
  pos[b + 1] = pos[a + 1]! + dy * f;
  pos[b + 2] = pos[a + 2]! + dz * f;
}
