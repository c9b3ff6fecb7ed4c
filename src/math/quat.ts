/**
 * Allocation-free quaternion math, out-parameter style. Quaternions are (x, y, z, w) with w the scalar
 * part; `multiply(out, a, b)` is the Hamilton product a·b, which applies b first, then a (the same
 * order as Unity's and Babylon's `a * b`). Every function tolerates `out` aliasing an input.
 * @module
 */
import { NumberRef } from "./number-ref.js";
import { type ReadonlyVec3, Vec3, anyPerpendicular } from "./vec3.js";

/** t for the number-taking wrappers of the Ref helpers ({@link nlerp}). */
const scratchT = new NumberRef();

/** A mutable quaternion with plain numeric fields; identity by default. */
export class Quat {
  // Initialised where declared: a field defined as undefined first makes V8 box every later double store.
  /** X of the vector part. */
  x = 0;
  /** Y of the vector part. */
  y = 0;
  /** Z of the vector part. */
  z = 0;
  /** Scalar part. */
  w = 1;

  /** Creates a quaternion, identity by default. */
  constructor(x = 0, y = 0, z = 0, w = 1) {
    this.x = x;
    this.y = y;
    this.z = z;
    this.w = w;
  }
}

/** Anything with x, y, z, w (a Babylon `Quaternion` qualifies for reading). */
export interface ReadonlyQuat {
  /** The x component. */
  readonly x: number;
  /** The y component. */
  readonly y: number;
  /** The z component. */
  readonly z: number;
  /** The w component. */
  readonly w: number;
}

/** Sets `out` to identity. */
export function identity(out: Quat): Quat {
  out.x = 0;
  out.y = 0;
  out.z = 0;
  out.w = 1;
  return out;
}

/** Sets `out` to (x, y, z, w). */
export function setQuat(out: Quat, x: number, y: number, z: number, w: number): Quat {
  out.x = x;
  out.y = y;
  out.z = z;
  out.w = w;
  return out;
}

/** Sets `out` to the four numbers of `a` from offset `o` (x, y, z, w: a flat store's entry). */
export function quatFromArray(out: Quat, a: ArrayLike<number>, o: number): Quat {
  out.x = a[o]!;
  out.y = a[o + 1]!;
  out.z = a[o + 2]!;
  out.w = a[o + 3]!;
  return out;
}

/** Writes `q` into `a` at offset `o` (x, y, z, w). */
export function quatToArray(a: Float64Array, o: number, q: ReadonlyQuat): void {
  a[o] = q.x;
  a[o + 1] = q.y;
  a[o + 2] = q.z;
  a[o + 3] = q.w;
}

/** Copies `a` into `out`. */
export function copyQuat(out: Quat, a: ReadonlyQuat): Quat {
  out.x = a.x;
  out.y = a.y;
  out.z = a.z;
  out.w = a.w;
  return out;
}

/** out = a · b (apply b, then a). */
export function multiply(out: Quat, a: ReadonlyQuat, b: ReadonlyQuat): Quat {
  const ax = a.x;
  const ay = a.y;
  const az = a.z;
  const aw = a.w;
  const bx = b.x;
  const by = b.y;
  const bz = b.z;
  const bw = b.w;
  out.x = aw * bx + ax * bw + ay * bz - az * by;
  out.y = aw * by - ax * bz + ay * bw + az * bx;
  out.z = aw * bz + ax * by - ay * bx + az * bw;
  out.w = aw * bw - ax * bx - ay * by - az * bz;
  return out;
}

/** out = conjugate(a) · b, i.e. inverse(a) · b for a unit `a` (expresses b in a's frame). */
export function conjugateMultiply(out: Quat, a: ReadonlyQuat, b: ReadonlyQuat): Quat {
  const ax = -a.x;
  const ay = -a.y;
  const az = -a.z;
  const aw = a.w;
  const bx = b.x;
  const by = b.y;
  const bz = b.z;
  const bw = b.w;
  out.x = aw * bx + ax * bw + ay * bz - az * by;
  out.y = aw * by - ax * bz + ay * bw + az * bx;
  out.z = aw * bz + ax * by - ay * bx + az * bw;
  out.w = aw * bw - ax * bx - ay * by - az * bz;
  return out;
}

/** out = a · conjugate(b), i.e. a · inverse(b) for a unit `b`. */
export function multiplyConjugate(out: Quat, a: ReadonlyQuat, b: ReadonlyQuat): Quat {
  const ax = a.x;
  const ay = a.y;
  const az = a.z;
  const aw = a.w;
  const bx = -b.x;
  const by = -b.y;
  const bz = -b.z;
  const bw = b.w;
  out.x = aw * bx + ax * bw + ay * bz - az * by;
  out.y = aw * by - ax * bz + ay * bw + az * bx;
  out.z = aw * bz + ax * by - ay * bx + az * bw;
  out.w = aw * bw - ax * bx - ay * by - az * bz;
  return out;
}

/** Conjugate: the inverse of a unit quaternion. */
export function conjugate(out: Quat, a: ReadonlyQuat): Quat {
  out.x = -a.x;
  out.y = -a.y;
  out.z = -a.z;
  out.w = a.w;
  return out;
}

/** Inverse of any non-zero quaternion; a zero quaternion yields identity. */
export function invert(out: Quat, a: ReadonlyQuat): Quat {
  const n = a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w;
  if (!(n > 0) || n === Infinity) return identity(out);
  const inv = 1 / n;
  out.x = -a.x * inv;
  out.y = -a.y * inv;
  out.z = -a.z * inv;
  out.w = a.w * inv;
  return out;
}

/** Four-dimensional dot product. */
export function dotQuat(a: ReadonlyQuat, b: ReadonlyQuat): number {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

/** Unit quaternion in the direction of `a`. Fallback: zero or non-finite length yields identity. */
export function normalizeQuat(out: Quat, a: ReadonlyQuat): Quat {
  const l = Math.sqrt(a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w);
  if (!(l > 0) || l === Infinity) return identity(out);
  const inv = 1 / l;
  out.x = a.x * inv;
  out.y = a.y * inv;
  out.z = a.z * inv;
  out.w = a.w * inv;
  return out;
}

/** out = q applied to v (q must be unit). */
export function rotateVector(out: Vec3, q: ReadonlyQuat, v: ReadonlyVec3): Vec3 {
  const qx = q.x;
  const qy = q.y;
  const qz = q.z;
  const qw = q.w;
  const vx = v.x;
  const vy = v.y;
  const vz = v.z;
  // t = 2 (q.xyz × v); v' = v + w t + q.xyz × t
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out.x = vx + qw * tx + (qy * tz - qz * ty);
  out.y = vy + qw * ty + (qz * tx - qx * tz);
  out.z = vz + qw * tz + (qx * ty - qy * tx);
  return out;
}

/** out = inverse(q) applied to v (q must be unit). */
export function inverseRotateVector(out: Vec3, q: ReadonlyQuat, v: ReadonlyVec3): Vec3 {
  const qx = -q.x;
  const qy = -q.y;
  const qz = -q.z;
  const qw = q.w;
  const vx = v.x;
  const vy = v.y;
  const vz = v.z;
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out.x = vx + qw * tx + (qy * tz - qz * ty);
  out.y = vy + qw * ty + (qz * tx - qx * tz);
  out.z = vz + qw * tz + (qx * ty - qy * tx);
  return out;
}

/**
 * Normalised linear blend along the shorter arc, t clamped to [0, 1] (Unity's `Quaternion.Lerp`).
 * t ≤ 0 returns `a` unchanged and t ≥ 1 returns `b` (sign-aligned with `a`) so that zero weights are exact.
 */
export function nlerp(out: Quat, a: ReadonlyQuat, b: ReadonlyQuat, t: number): Quat {
  scratchT.value = t;
  return nlerpByRef(out, a, b, scratchT);
}

/** {@link nlerp} with `t` read from `t.value` (see {@link NumberRef}). */
export function nlerpByRef(out: Quat, a: ReadonlyQuat, b: ReadonlyQuat, t: Readonly<NumberRef>): Quat {
  const w = t.value;
  if (!(w > 0)) return copyQuat(out, a);
  const d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  const s = d < 0 ? -1 : 1;
  if (w >= 1) {
    out.x = b.x * s;
    out.y = b.y * s;
    out.z = b.z * s;
    out.w = b.w * s;
    return out;
  }
  const u = 1 - w;
  const k = w * s;
  out.x = a.x * u + b.x * k;
  out.y = a.y * u + b.y * k;
  out.z = a.z * u + b.z * k;
  out.w = a.w * u + b.w * k;
  return normalizeQuat(out, out);
}

/** Spherical interpolation along the shorter arc, t clamped to [0, 1]. */
export function slerp(out: Quat, a: ReadonlyQuat, b: ReadonlyQuat, t: number): Quat {
  scratchT.value = t;
  return slerpByRef(out, a, b, scratchT);
}

/** {@link slerp} with `t` read from `t.value` (see {@link NumberRef}). */
export function slerpByRef(out: Quat, a: ReadonlyQuat, b: ReadonlyQuat, tRef: Readonly<NumberRef>): Quat {
  const t = tRef.value;
  if (!(t > 0)) return copyQuat(out, a);
  let bx = b.x;
  let by = b.y;
  let bz = b.z;
  let bw = b.w;
  let d = a.x * bx + a.y * by + a.z * bz + a.w * bw;
  if (d < 0) {
    d = -d;
    bx = -bx;
    by = -by;
    bz = -bz;
    bw = -bw;
  }
  if (t >= 1) {
    out.x = bx;
    out.y = by;
    out.z = bz;
    out.w = bw;
    return out;
  }
  let wa: number;
  let wb: number;
  if (d > 0.9999995) {
    // nearly equal: the linear blend is exact to double precision and avoids dividing by sin ≈ 0
    wa = 1 - t;
    wb = t;
  } else {
    const theta = Math.acos(Math.min(1, d));
    const sinTheta = Math.sin(theta);
    wa = Math.sin((1 - t) * theta) / sinTheta;
    wb = Math.sin(t * theta) / sinTheta;
  }
  out.x = a.x * wa + bx * wb;
  out.y = a.y * wa + by * wb;
  out.z = a.z * wa + bz * wb;
  out.w = a.w * wa + bw * wb;
  return normalizeQuat(out, out);
}

/** Rotation of `angle` radians about the unit `axis`. */
export function fromAxisAngle(out: Quat, axis: ReadonlyVec3, angle: number): Quat {
  const h = angle * 0.5;
  const s = Math.sin(h);
  out.x = axis.x * s;
  out.y = axis.y * s;
  out.z = axis.z * s;
  out.w = Math.cos(h);
  return out;
}

const perp = new Vec3();

/**
 * Shortest-arc rotation taking the direction of `from` onto the direction of `to` (Unity's
 * `Quaternion.FromToRotation`). Fallbacks: either vector zero → identity; exactly opposite vectors →
 * a half turn about an axis perpendicular to `from` (chosen deterministically).
 */
export function fromToRotation(out: Quat, from: ReadonlyVec3, to: ReadonlyVec3): Quat {
  const fx = from.x;
  const fy = from.y;
  const fz = from.z;
  const tx = to.x;
  const ty = to.y;
  const tz = to.z;
  const nf = Math.sqrt(fx * fx + fy * fy + fz * fz);
  const nt = Math.sqrt(tx * tx + ty * ty + tz * tz);
  if (!(nf > 0) || !(nt > 0) || nf === Infinity || nt === Infinity) return identity(out);
  const d = fx * tx + fy * ty + fz * tz;
  if (d >= 0) {
    // at most a quarter turn: w = |f||t| + f·t ≥ |f||t|, so (f × t, w) is well conditioned
    out.x = fy * tz - fz * ty;
    out.y = fz * tx - fx * tz;
    out.z = fx * ty - fy * tx;
    out.w = nf * nt + d;
    return normalizeQuat(out, out);
  }
  // More than a quarter turn. Near a half turn |f||t| + f·t cancels and f × t stops being perpendicular to
  // f (errors of ~1e-16/sin(angle)), so work with unit vectors: the axis f̂ × (f̂ + t̂) is perpendicular to f̂
  // to rounding because f̂ + t̂ is formed before the cross product, and atan2 gives the angle to ~1e-16.
  const ux = fx / nf;
  const uy = fy / nf;
  const uz = fz / nf;
  const vx = tx / nt;
  const vy = ty / nt;
  const vz = tz / nt;
  const sx = ux + vx;
  const sy = uy + vy;
  const sz = uz + vz;
  const ax = uy * sz - uz * sy;
  const ay = uz * sx - ux * sz;
  const az = ux * sy - uy * sx;
  const al = Math.sqrt(ax * ax + ay * ay + az * az);
  if (!(al > 1e-12)) {
    // opposite to within 1e-12 rad: a half turn about a fixed perpendicular (error ≤ 1e-12)
    anyPerpendicular(perp, from);
    out.x = perp.x;
    out.y = perp.y;
    out.z = perp.z;
    out.w = 0;
    return out;
  }
  const half = 0.5 * Math.atan2(al, ux * vx + uy * vy + uz * vz);
  const k = Math.sin(half) / al;
  out.x = ax * k;
  out.y = ay * k;
  out.z = az * k;
  out.w = Math.cos(half);
  return out;
}

/**
 * Rotation whose columns are the orthonormal basis (x, y, z): local +X → x, +Y → y, +Z → z.
 * The basis must be right-handed in coordinates (x = y × z) for the result to be a rotation.
 */
export function fromBasis(out: Quat, x: ReadonlyVec3, y: ReadonlyVec3, z: ReadonlyVec3): Quat {
  const m00 = x.x;
  const m10 = x.y;
  const m20 = x.z;
  const m01 = y.x;
  const m11 = y.y;
  const m21 = y.z;
  const m02 = z.x;
  const m12 = z.y;
  const m22 = z.z;
  const tr = m00 + m11 + m22;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2;
    out.w = 0.25 * s;
    out.x = (m21 - m12) / s;
    out.y = (m02 - m20) / s;
    out.z = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = Math.sqrt(1 + m00 - m11 - m22) * 2;
    out.w = (m21 - m12) / s;
    out.x = 0.25 * s;
    out.y = (m01 + m10) / s;
    out.z = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = Math.sqrt(1 + m11 - m00 - m22) * 2;
    out.w = (m02 - m20) / s;
    out.x = (m01 + m10) / s;
    out.y = 0.25 * s;
    out.z = (m12 + m21) / s;
  } else {
    const s = Math.sqrt(1 + m22 - m00 - m11) * 2;
    out.w = (m10 - m01) / s;
    out.x = (m02 + m20) / s;
    out.y = (m12 + m21) / s;
    out.z = 0.25 * s;
  }
  return normalizeQuat(out, out);
}

const bx = new Vec3();
const by = new Vec3();
const bz = new Vec3();
const unitZ = new Vec3(0, 0, 1);

/**
 * Rotation whose local +Z points along `forward` and whose local +Y points along `up` made orthogonal
 * to `forward` (Unity's `Quaternion.LookRotation`, written as a basis so the result is the same in
 * left- and right-handed scenes). Fallbacks: a zero `forward` → identity; an `up` that is zero or
 * parallel to `forward` → the shortest-arc rotation from +Z to `forward` (no defined roll).
 */
export function lookRotation(out: Quat, forward: ReadonlyVec3, up: ReadonlyVec3): Quat {
  const fl = Math.sqrt(forward.x * forward.x + forward.y * forward.y + forward.z * forward.z);
  if (!(fl > 0) || fl === Infinity) return identity(out);
  bz.x = forward.x / fl;
  bz.y = forward.y / fl;
  bz.z = forward.z / fl;
  // x = up × z; its length is |up| sin(angle), so compare against |up| to detect parallel vectors
  const cx = up.y * bz.z - up.z * bz.y;
  const cy = up.z * bz.x - up.x * bz.z;
  const cz = up.x * bz.y - up.y * bz.x;
  const xl = Math.sqrt(cx * cx + cy * cy + cz * cz);
  const ul = Math.sqrt(up.x * up.x + up.y * up.y + up.z * up.z);
  if (!(xl > 1e-12 * ul) || !(ul > 0) || xl === Infinity) return fromToRotation(out, unitZ, bz);
  bx.x = cx / xl;
  bx.y = cy / xl;
  bx.z = cz / xl;
  // second Gram–Schmidt pass: with `up` nearly parallel to `forward` the cross product above cancels and
  // leaves bx off-perpendicular to bz by ~1e-16/sin(angle(up, forward)); project that error out
  const k = bx.x * bz.x + bx.y * bz.y + bx.z * bz.z;
  const rx = bx.x - bz.x * k;
  const ry = bx.y - bz.y * k;
  const rz = bx.z - bz.z * k;
  const rl = Math.sqrt(rx * rx + ry * ry + rz * rz);
  bx.x = rx / rl;
  bx.y = ry / rl;
  bx.z = rz / rl;
  // y = z × x is unit by construction
  by.x = bz.y * bx.z - bz.z * bx.y;
  by.y = bz.z * bx.x - bz.x * bx.z;
  by.z = bz.x * bx.y - bz.y * bx.x;
  return fromBasis(out, bx, by, bz);
}

/**
 * True when `q` is within Unity's tolerance of identity (|w| > 1 − 1e-6), the test FinalIK uses for
 * "rotation offset ≠ identity". q and −q are the same rotation, hence |w|.
 */
export function isIdentityApprox(q: ReadonlyQuat): boolean {
  return Math.abs(q.w) > 1 - 1e-6;
}

/** True when every component is finite. */
export function isFiniteQuat(q: ReadonlyQuat): boolean {
  return Number.isFinite(q.x) && Number.isFinite(q.y) && Number.isFinite(q.z) && Number.isFinite(q.w);
}

/** True when `q` can stand for a rotation once normalised: finite, its squared length in (1e-12, ∞). */
export function isUsableRotation(q: ReadonlyQuat): boolean {
  const n = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  return isFiniteQuat(q) && n > 1e-12 && n !== Infinity;
}

/**
 * Angle in radians, in [0, π], of the rotation taking unit `a` to unit `b`. Computed with atan2 on the
 * relative rotation, which stays accurate near 0 where acos of the dot product loses half the digits.
 */
export function angleBetween(a: ReadonlyQuat, b: ReadonlyQuat): number {
  // relative rotation r = conjugate(a) · b
  const x = a.w * b.x - a.x * b.w - a.y * b.z + a.z * b.y;
  const y = a.w * b.y + a.x * b.z - a.y * b.w - a.z * b.x;
  const z = a.w * b.z - a.x * b.y + a.y * b.x - a.z * b.w;
  const w = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
  return 2 * Math.atan2(Math.sqrt(x * x + y * y + z * z), Math.abs(w));
}
