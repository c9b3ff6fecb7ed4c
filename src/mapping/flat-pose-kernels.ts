import type { Quat } from "../math/quat.js";
import type { Vec3 } from "../math/vec3.js";

// The small numeric kernels of FlatPose's FK, over flat arrays (a 3×3 linear part is 9 numbers, as rows).

/**
 * True when a scale is uniform to 1e-5 of its size: exporters' float32 decompositions leave that much
 * (1–4e-6 seen on glTF legs); treating it as uniform moves a grandchild by less, and keeps such rigs on the
 * quaternion FK, bit for bit.
 */
export function isUniform(s: ArrayLike<number>, o: number): boolean {
  return isUniformWithin(s, o, 1e-5);
}

/**
 * The axis (1 x, 2 y, 3 z) of the half turn that makes the scale at `s[o]` a sign-uniform one when it is a mirror
 * (equal magnitudes to 1e-5, mixed signs: S = S' · half turn, S' with one sign), else 0. Axis: the one negative
 * factor's (−1, 1, 1 = −1 · half turn about x), or the one positive factor's (−1, −1, 1 = half turn about z).
 */
export function mirrorAxis(s: ArrayLike<number>, o: number): number {
  const x = s[o]!;
  const y = s[o + 1]!;
  const z = s[o + 2]!;
  const negatives = (x < 0 ? 1 : 0) + (y < 0 ? 1 : 0) + (z < 0 ? 1 : 0);
  if (negatives === 0 || negatives === 3) return 0;
  const ax = x < 0 ? -x : x;
  const ay = y < 0 ? -y : y;
  const az = z < 0 ? -z : z;
  const e = 1e-5 * (ax > ay ? (ax > az ? ax : az) : ay > az ? ay : az);
  const dxy = ax - ay;
  const dyz = ay - az;
  if (!((dxy < 0 ? -dxy : dxy) <= e && (dyz < 0 ? -dyz : dyz) <= e)) return 0;
  const odd = negatives === 1;
  return x < 0 === odd ? 1 : y < 0 === odd ? 2 : 3;
}

/**
 * True when the three scale factors at `s[o]` differ by at most `tolerance` times the largest (read from the
 * array: three doubles handed to a call V8 does not inline are boxed, see ARCHITECTURE.md).
 */
export function isUniformWithin(s: ArrayLike<number>, o: number, tolerance: number): boolean {
  const x = s[o]!;
  const y = s[o + 1]!;
  const z = s[o + 2]!;
  const ax = x < 0 ? -x : x;
  const ay = y < 0 ? -y : y;
  const az = z < 0 ? -z : z;
  const e = tolerance * (ax > ay ? (ax > az ? ax : az) : ay > az ? ay : az);
  const dxy = x - y;
  const dyz = y - z;
  return (dxy < 0 ? -dxy : dxy) <= e && (dyz < 0 ? -dyz : dyz) <= e;
}

/**
 * Rows of diag(sx, sy, sz) · R(q) (row vectors: row k is q applied to axis k, times s_k) into m at o; q read from
 * `r` at `ro`, the scale from `s` at `so` (arrays, not doubles: see ARCHITECTURE.md, "Doubles across calls").
 */
export function rotationRows(
  r: Float64Array,
  ro: number,
  s: Float64Array,
  so: number,
  m: Float64Array,
  o: number,
): void {
  const x = r[ro]!;
  const y = r[ro + 1]!;
  const z = r[ro + 2]!;
  const w = r[ro + 3]!;
  const sx = s[so]!;
  const sy = s[so + 1]!;
  const sz = s[so + 2]!;
  m[o] = sx * (1 - 2 * (y * y + z * z));
  m[o + 1] = sx * 2 * (x * y + w * z);
  m[o + 2] = sx * 2 * (x * z - w * y);
  m[o + 3] = sy * 2 * (x * y - w * z);
  m[o + 4] = sy * (1 - 2 * (x * x + z * z));
  m[o + 5] = sy * 2 * (y * z + w * x);
  m[o + 6] = sz * 2 * (x * z + w * y);
  m[o + 7] = sz * 2 * (y * z - w * x);
  m[o + 8] = sz * (1 - 2 * (x * x + y * y));
}

/**
 * Solves v = x · M for the row vector x (M: 3×3 rows at o in m; v: the first three numbers of `v`) into out at k,
 * by Cramer's rule. v comes in an array, not as three numbers: a computed double handed to a call V8 leaves out of
 * its caller is boxed (ARCHITECTURE.md, "Doubles across calls").
 */
export function solveRows(m: Float64Array, o: number, v: Float64Array, out: Float64Array, k: number): void {
  const vx = v[0]!;
  const vy = v[1]!;
  const vz = v[2]!;
  const a = m[o]!;
  const b = m[o + 1]!;
  const c = m[o + 2]!;
  const d = m[o + 3]!;
  const e = m[o + 4]!;
  const f = m[o + 5]!;
  const g = m[o + 6]!;
  const h = m[o + 7]!;
  const i = m[o + 8]!;
  // x_k = Σ_j C_kj v_j / det(M), C_kj the cofactors of M's row k
  const c00 = e * i - f * h;
  const c01 = f * g - d * i;
  const c02 = d * h - e * g;
  const inv = 1 / (a * c00 + b * c01 + c * c02);
  out[k] = (vx * c00 + vy * c01 + vz * c02) * inv;
  out[k + 1] = (vx * (c * h - b * i) + vy * (a * i - c * g) + vz * (b * g - a * h)) * inv;
  out[k + 2] = (vx * (b * f - c * e) + vy * (c * d - a * f) + vz * (a * e - b * d)) * inv;
}

/** Copies a flat pose into per-id vector and quaternion objects. */
export function copyViews(
  pos: Float64Array,
  rot: Float64Array,
  scl: Float64Array,
  pv: Vec3[],
  rv: Quat[],
  sv: Vec3[],
): void {
  for (let i = 0; i < pv.length; i++) {
    const p = pv[i]!;
    const r = rv[i]!;
    const s = sv[i]!;
    p.x = pos[i * 3]!;
    p.y = pos[i * 3 + 1]!;
    p.z = pos[i * 3 + 2]!;
    r.x = rot[i * 4]!;
    r.y = rot[i * 4 + 1]!;
    r.z = rot[i * 4 + 2]!;
    r.w = rot[i * 4 + 3]!;
    s.x = scl[i * 3]!;
    s.y = scl[i * 3 + 1]!;
    s.z = scl[i * 3 + 2]!;
  }
}
