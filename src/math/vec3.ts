/**
 * Allocation-free 3D vector math, out-parameter style (gl-matrix's convention: the first argument
 * receives the result and is returned). Every function tolerates `out` aliasing an input.
 *
 * No Babylon import: the solver runs on these plain objects so that the hot path stays monomorphic
 * and free of Babylon's setters.
 * @module
 */

import { NumberRef } from "./number-ref.js";

/** A mutable 3D vector with plain numeric fields. */
export class Vec3 {
  // Initialised where declared: a field defined as undefined first makes V8 box every later double store.
  /** X component. */
  x = 0;
  /** Y component. */
  y = 0;
  /** Z component. */
  z = 0;

  /** Creates a vector, (0, 0, 0) by default. */
  constructor(x = 0, y = 0, z = 0) {
    this.x = x;
    this.y = y;
    this.z = z;
  }
}

/** t for the number-taking wrappers of the Ref helpers ({@link lerp}). */
const scratchT = new NumberRef();

/**
 * Anything with x, y, z (a Babylon `Vector3` qualifies for reading). The solver calls these functions too: hand
 * them a `Vec3` or a `Vector3`, not a plain `{ x, y, z }` object, or the solver's frame allocates (ARCHITECTURE.md,
 * "Doubles across calls").
 */
export interface ReadonlyVec3 {
  /** The x component. */
  readonly x: number;
  /** The y component. */
  readonly y: number;
  /** The z component. */
  readonly z: number;
}

/** Sets `out` to (x, y, z). */
export function set(out: Vec3, x: number, y: number, z: number): Vec3 {
  out.x = x;
  out.y = y;
  out.z = z;
  return out;
}

/** Copies `a` into `out`. */
export function copy(out: Vec3, a: ReadonlyVec3): Vec3 {
  out.x = a.x;
  out.y = a.y;
  out.z = a.z;
  return out;
}

/** Sets `out` to the three numbers of `a` from offset `o` (a flat store's entry). */
export function fromArray(out: Vec3, a: ArrayLike<number>, o: number): Vec3 {
  out.x = a[o]!;
  out.y = a[o + 1]!;
  out.z = a[o + 2]!;
  return out;
}

/** Writes `v` into `a` at offset `o` (three numbers). */
export function toArray(a: Float64Array, o: number, v: ReadonlyVec3): void {
  a[o] = v.x;
  a[o + 1] = v.y;
  a[o + 2] = v.z;
}

/** Sets `out` to zero. */
export function zero(out: Vec3): Vec3 {
  out.x = 0;
  out.y = 0;
  out.z = 0;
  return out;
}

/** out = a + b */
export function add(out: Vec3, a: ReadonlyVec3, b: ReadonlyVec3): Vec3 {
  out.x = a.x + b.x;
  out.y = a.y + b.y;
  out.z = a.z + b.z;
  return out;
}

/** out = a − b */
export function sub(out: Vec3, a: ReadonlyVec3, b: ReadonlyVec3): Vec3 {
  out.x = a.x - b.x;
  out.y = a.y - b.y;
  out.z = a.z - b.z;
  return out;
}

/** out = a × s */
export function scale(out: Vec3, a: ReadonlyVec3, s: number): Vec3 {
  out.x = a.x * s;
  out.y = a.y * s;
  out.z = a.z * s;
  return out;
}

/** out = a + b × s */
export function scaleAndAdd(out: Vec3, a: ReadonlyVec3, b: ReadonlyVec3, s: number): Vec3 {
  out.x = a.x + b.x * s;
  out.y = a.y + b.y * s;
  out.z = a.z + b.z * s;
  return out;
}

/** out = −a */
export function negate(out: Vec3, a: ReadonlyVec3): Vec3 {
  out.x = -a.x;
  out.y = -a.y;
  out.z = -a.z;
  return out;
}

/** Dot product. */
export function dot(a: ReadonlyVec3, b: ReadonlyVec3): number {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

/** out = a × b (the coordinate cross product; it does not depend on the scene's handedness). */
export function cross(out: Vec3, a: ReadonlyVec3, b: ReadonlyVec3): Vec3 {
  const ax = a.x;
  const ay = a.y;
  const az = a.z;
  const bx = b.x;
  const by = b.y;
  const bz = b.z;
  out.x = ay * bz - az * by;
  out.y = az * bx - ax * bz;
  out.z = ax * by - ay * bx;
  return out;
}

/** Euclidean length. */
export function length(a: ReadonlyVec3): number {
  return Math.sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
}

/** Squared length. */
export function lengthSq(a: ReadonlyVec3): number {
  return a.x * a.x + a.y * a.y + a.z * a.z;
}

/** Distance between two points. */
export function distance(a: ReadonlyVec3, b: ReadonlyVec3): number {
  const x = a.x - b.x;
  const y = a.y - b.y;
  const z = a.z - b.z;
  return Math.sqrt(x * x + y * y + z * z);
}

/** Squared distance between two points. */
export function distanceSq(a: ReadonlyVec3, b: ReadonlyVec3): number {
  const x = a.x - b.x;
  const y = a.y - b.y;
  const z = a.z - b.z;
  return x * x + y * y + z * z;
}

/**
 * Unit vector in the direction of `a`. Fallback: a zero (or non-finite-length) vector yields the zero
 * vector, like Unity's `normalized`, so callers can test for zero instead of catching NaN.
 */
export function normalize(out: Vec3, a: ReadonlyVec3): Vec3 {
  const l = Math.sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
  if (l > 0 && l < Infinity) {
    const inv = 1 / l;
    out.x = a.x * inv;
    out.y = a.y * inv;
    out.z = a.z * inv;
  } else {
    out.x = 0;
    out.y = 0;
    out.z = 0;
  }
  return out;
}

/** Linear interpolation with t clamped to [0, 1] (Unity's `Vector3.Lerp`). t = 0 returns `a` exactly. */
export function lerp(out: Vec3, a: ReadonlyVec3, b: ReadonlyVec3, t: number): Vec3 {
  scratchT.value = t;
  return lerpByRef(out, a, b, scratchT);
}

/** {@link lerp} with `t` read from `t.value` (see {@link NumberRef}). */
export function lerpByRef(out: Vec3, a: ReadonlyVec3, b: ReadonlyVec3, t: Readonly<NumberRef>): Vec3 {
  const w = t.value;
  if (!(w > 0)) return copy(out, a);
  if (w >= 1) return copy(out, b);
  out.x = a.x + (b.x - a.x) * w;
  out.y = a.y + (b.y - a.y) * w;
  out.z = a.z + (b.z - a.z) * w;
  return out;
}

/** Linear interpolation without clamping t. */
export function lerpUnclamped(out: Vec3, a: ReadonlyVec3, b: ReadonlyVec3, t: number): Vec3 {
  out.x = a.x + (b.x - a.x) * t;
  out.y = a.y + (b.y - a.y) * t;
  out.z = a.z + (b.z - a.z) * t;
  return out;
}

/** Exact component equality. */
export function equals(a: ReadonlyVec3, b: ReadonlyVec3): boolean {
  return a.x === b.x && a.y === b.y && a.z === b.z;
}

/** True when every component is a finite number. */
export function isFiniteVec(a: ReadonlyVec3): boolean {
  return Number.isFinite(a.x) && Number.isFinite(a.y) && Number.isFinite(a.z);
}

/** True when the vector is exactly zero. */
export function isZero(a: ReadonlyVec3): boolean {
  return a.x === 0 && a.y === 0 && a.z === 0;
}

/** The component of `v` along `n` (Unity's `Vector3.Project`). A zero `n` yields zero. */
export function project(out: Vec3, v: ReadonlyVec3, n: ReadonlyVec3): Vec3 {
  const nn = n.x * n.x + n.y * n.y + n.z * n.z;
  if (!(nn > 0)) return zero(out);
  const s = (v.x * n.x + v.y * n.y + v.z * n.z) / nn;
  out.x = n.x * s;
  out.y = n.y * s;
  out.z = n.z * s;
  return out;
}

/** `v` minus its component along `n`. A zero `n` returns `v` unchanged. */
export function projectOnPlane(out: Vec3, v: ReadonlyVec3, n: ReadonlyVec3): Vec3 {
  const nn = n.x * n.x + n.y * n.y + n.z * n.z;
  if (!(nn > 0)) return copy(out, v);
  const s = (v.x * n.x + v.y * n.y + v.z * n.z) / nn;
  out.x = v.x - n.x * s;
  out.y = v.y - n.y * s;
  out.z = v.z - n.z * s;
  return out;
}

/**
 * Angle between two vectors in radians, in [0, π]. Computed with atan2(|a×b|, a·b), which stays
 * accurate near 0 and π where acos loses precision. Either vector zero → 0.
 */
export function angle(a: ReadonlyVec3, b: ReadonlyVec3): number {
  return angleByRef(scratchT, a, b).value;
}

/** {@link angle} written into `out.value` (per-frame code: no double is returned; see {@link NumberRef}). */
export function angleByRef(out: NumberRef, a: ReadonlyVec3, b: ReadonlyVec3): NumberRef {
  const cx = a.y * b.z - a.z * b.y;
  const cy = a.z * b.x - a.x * b.z;
  const cz = a.x * b.y - a.y * b.x;
  const s = Math.sqrt(cx * cx + cy * cy + cz * cz);
  const c = a.x * b.x + a.y * b.y + a.z * b.z;
  out.value = s === 0 && c === 0 ? 0 : Math.atan2(s, c);
  return out;
}

/**
 * Writes into `out` a unit vector perpendicular to `a` (deterministic: built from the axis along
 * which `a` is smallest). A zero `a` yields +X.
 */
export function anyPerpendicular(out: Vec3, a: ReadonlyVec3): Vec3 {
  const ax = Math.abs(a.x);
  const ay = Math.abs(a.y);
  const az = Math.abs(a.z);
  let x: number;
  let y: number;
  let z: number;
  // cross(a, axis) with the axis of the smallest component keeps the result well conditioned
  if (ax <= ay && ax <= az) {
    x = 0;
    y = a.z;
    z = -a.y;
  } else if (ay <= az) {
    x = -a.z;
    y = 0;
    z = a.x;
  } else {
    x = a.y;
    y = -a.x;
    z = 0;
  }
  const l = Math.sqrt(x * x + y * y + z * z);
  if (!(l > 0) || l === Infinity) {
    out.x = 1;
    out.y = 0;
    out.z = 0;
    return out;
  }
  out.x = x / l;
  out.y = y / l;
  out.z = z / l;
  return out;
}
