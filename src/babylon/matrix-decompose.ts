/**
 * The rotation `Matrix.decompose` gives, bit for bit, without its calls: it hands twelve computed doubles to
 * `Matrix.FromValuesToRef` and returns one from `determinant()`, each boxed whenever V8 does not inline the
 * callee (ARCHITECTURE.md, "Doubles across calls").
 * @module
 */
import { type Matrix, type Quaternion, TmpVectors } from "@babylonjs/core/Maths/math.vector.js";
import { Vec3 } from "../math/vec3.js";
import { axisLengths } from "./world-matrix.js";

/**
 * Holds the unscaled 3×3 block as decompose's temporary matrix does: in the element type of Babylon's own
 * temporaries (`TmpVectors`, made with `MathTmp` at Babylon's load: Float32Array, or plain doubles when an engine
 * asked for high precision first), so it rounds the block as they do. Not a `new Matrix()` here: this module may
 * load after an engine changed the type of new matrices, and the block then rounded otherwise (1e-8).
 */
const b: Float32Array | number[] =
  TmpVectors.Matrix[0]!.m instanceof Float32Array ? new Float32Array(16) : new Array<number>(16).fill(0);
/** The matrix's scale per axis, unsigned. */
const scale = new Vec3();

/** The parts of a Babylon matrix read here beyond its public typings. */
interface MatrixIdentityState {
  _isIdentity: boolean;
}

/** `out` = the rotation `matrix.decompose(undefined, out)` would write (identity for a zero scale); returns `out`. */
export function decomposeRotationToRef(matrix: Matrix, out: Quaternion): Quaternion {
  if ((matrix as unknown as MatrixIdentityState)._isIdentity) return identityInto(out);
  const m = matrix.m;
  axisLengths(m, scale);
  const sx = scale.x;
  let sy = scale.y;
  const sz = scale.z;
  if (notPositive(m)) sy *= -1;
  if (sx === 0 || sy === 0 || sz === 0) return identityInto(out);
  const ix = 1 / sx;
  const iy = 1 / sy;
  const iz = 1 / sz;
  b[0] = m[0]! * ix;
  b[1] = m[1]! * ix;
  b[2] = m[2]! * ix;
  b[4] = m[4]! * iy;
  b[5] = m[5]! * iy;
  b[6] = m[6]! * iy;
  b[8] = m[8]! * iz;
  b[9] = m[9]! * iz;
  b[10] = m[10]! * iz;
  // the quaternion of the unscaled block (Shepperd's method: the largest of w, x, y, z is taken from the
  // diagonal, the others from the off-diagonal sums and differences), as Quaternion.FromRotationMatrix
  const xx = b[0]!;
  const yy = b[5]!;
  const zz = b[10]!;
  const yx = b[1]!;
  const zx = b[2]!;
  const xy = b[4]!;
  const zy = b[6]!;
  const xz = b[8]!;
  const yz = b[9]!;
  const trace = xx + yy + zz;
  if (trace > 0) {
    const k = 0.5 / Math.sqrt(trace + 1.0);
    out._w = 0.25 / k;
    out._x = (zy - yz) * k;
    out._y = (xz - zx) * k;
    out._z = (yx - xy) * k;
  } else if (xx > yy && xx > zz) {
    const k = 2.0 * Math.sqrt(1.0 + xx - yy - zz);
    out._w = (zy - yz) / k;
    out._x = 0.25 * k;
    out._y = (xy + yx) / k;
    out._z = (xz + zx) / k;
  } else if (yy > zz) {
    const k = 2.0 * Math.sqrt(1.0 + yy - xx - zz);
    out._w = (xz - zx) / k;
    out._x = (xy + yx) / k;
    out._y = 0.25 * k;
    out._z = (yz + zy) / k;
  } else {
    const k = 2.0 * Math.sqrt(1.0 + zz - xx - yy);
    out._w = (yx - xy) / k;
    out._x = (xz + zx) / k;
    out._y = (yz + zy) / k;
    out._z = 0.25 * k;
  }
  out._isDirty = true;
  return out;
}

function identityInto(out: Quaternion): Quaternion {
  out._x = 0;
  out._y = 0;
  out._z = 0;
  out._w = 1;
  out._isDirty = true;
  return out;
}

/**
 * Whether the 4×4 matrix's determinant is ≤ 0 (a boolean out: the determinant itself would be a double
 * returned): the expansion along the first row over the 2×2 minors of the last two rows, summed in the order
 * Babylon's `determinant()` sums them, so the sign agrees with it bit for bit.
 */
function notPositive(m: ArrayLike<number>): boolean {
  // the last two rows, and their 2×2 minors by the two columns each keeps
  const a0 = m[8]!;
  const a1 = m[9]!;
  const a2 = m[10]!;
  const a3 = m[11]!;
  const b0 = m[12]!;
  const b1 = m[13]!;
  const b2 = m[14]!;
  const b3 = m[15]!;
  const k23 = a2 * b3 - b2 * a3;
  const k13 = a1 * b3 - b1 * a3;
  const k12 = a1 * b2 - b1 * a2;
  const k03 = a0 * b3 - b0 * a3;
  const k02 = a0 * b2 - a2 * b0;
  const k01 = a0 * b1 - b0 * a1;
  // the second row against those minors: the first row's cofactors
  const r0 = m[4]!;
  const r1 = m[5]!;
  const r2 = m[6]!;
  const r3 = m[7]!;
  const c0 = r1 * k23 - r2 * k13 + r3 * k12;
  const c1 = -(r0 * k23 - r2 * k03 + r3 * k02);
  const c2 = r0 * k13 - r1 * k03 + r3 * k01;
  const c3 = -(r0 * k12 - r1 * k02 + r2 * k01);
  return m[0]! * c0 + m[1]! * c1 + m[2]! * c2 + m[3]! * c3 <= 0;
}
