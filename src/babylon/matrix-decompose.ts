/**
 * The rotation `Matrix.decompose` gives, bit for bit, without its calls: it hands twelve computed doubles to
 * `Matrix.FromValuesToRef` and returns one from `determinant()`, each boxed whenever V8 does not inline the
 * callee (ARCHITECTURE.md, "Doubles across calls").
 * @module
 */
import { Matrix, type Quaternion } from "@babylonjs/core/Maths/math.vector.js";

/**
 * Holds the unscaled 3×3 block as decompose's temporary matrix does: made at module load like Babylon's
 * `MathTmp` matrices, so it has their element type (Float32Array, or plain doubles once an engine asks for
 * high precision) and rounds the block as they do.
 */
const block = new Matrix();

/** The parts of a Babylon matrix read here beyond its public typings. */
interface MatrixIdentityState {
  _isIdentity: boolean;
}

/** `out` = the rotation `matrix.decompose(undefined, out)` would write (identity for a zero scale); returns `out`. */
export function decomposeRotationToRef(matrix: Matrix, out: Quaternion): Quaternion {
  if ((matrix as unknown as MatrixIdentityState)._isIdentity) return identityInto(out);
  const m = matrix.m;
  const sx = Math.sqrt(m[0]! * m[0]! + m[1]! * m[1]! + m[2]! * m[2]!);
  let sy = Math.sqrt(m[4]! * m[4]! + m[5]! * m[5]! + m[6]! * m[6]!);
  const sz = Math.sqrt(m[8]! * m[8]! + m[9]! * m[9]! + m[10]! * m[10]!);
  if (notPositive(m)) sy *= -1;
  if (sx === 0 || sy === 0 || sz === 0) return identityInto(out);
  const ix = 1 / sx;
  const iy = 1 / sy;
  const iz = 1 / sz;
  const b = block.asArray();
  b[0] = m[0]! * ix;
  b[1] = m[1]! * ix;
  b[2] = m[2]! * ix;
  b[4] = m[4]! * iy;
  b[5] = m[5]! * iy;
  b[6] = m[6]! * iy;
  b[8] = m[8]! * iz;
  b[9] = m[9]! * iz;
  b[10] = m[10]! * iz;
  // Quaternion.FromRotationMatrixToRef on the block
  const m11 = b[0]!;
  const m12 = b[4]!;
  const m13 = b[8]!;
  const m21 = b[1]!;
  const m22 = b[5]!;
  const m23 = b[9]!;
  const m31 = b[2]!;
  const m32 = b[6]!;
  const m33 = b[10]!;
  const trace = m11 + m22 + m33;
  if (trace > 0) {
    const s = 0.5 / Math.sqrt(trace + 1.0);
    out._w = 0.25 / s;
    out._x = (m32 - m23) * s;
    out._y = (m13 - m31) * s;
    out._z = (m21 - m12) * s;
  } else if (m11 > m22 && m11 > m33) {
    const s = 2.0 * Math.sqrt(1.0 + m11 - m22 - m33);
    out._w = (m32 - m23) / s;
    out._x = 0.25 * s;
    out._y = (m12 + m21) / s;
    out._z = (m13 + m31) / s;
  } else if (m22 > m33) {
    const s = 2.0 * Math.sqrt(1.0 + m22 - m11 - m33);
    out._w = (m13 - m31) / s;
    out._x = (m12 + m21) / s;
    out._y = 0.25 * s;
    out._z = (m23 + m32) / s;
  } else {
    const s = 2.0 * Math.sqrt(1.0 + m33 - m11 - m22);
    out._w = (m21 - m12) / s;
    out._x = (m13 + m31) / s;
    out._y = (m23 + m32) / s;
    out._z = 0.25 * s;
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
 * `Matrix.determinant() <= 0`, its Laplace expansion along the first row as Babylon writes it (a boolean
 * out: the determinant itself would be a double returned).
 */
function notPositive(m: ArrayLike<number>): boolean {
  const m00 = m[0]!;
  const m01 = m[1]!;
  const m02 = m[2]!;
  const m03 = m[3]!;
  const m10 = m[4]!;
  const m11 = m[5]!;
  const m12 = m[6]!;
  const m13 = m[7]!;
  const m20 = m[8]!;
  const m21 = m[9]!;
  const m22 = m[10]!;
  const m23 = m[11]!;
  const m30 = m[12]!;
  const m31 = m[13]!;
  const m32 = m[14]!;
  const m33 = m[15]!;
  const det_22_33 = m22 * m33 - m32 * m23;
  const det_21_33 = m21 * m33 - m31 * m23;
  const det_21_32 = m21 * m32 - m31 * m22;
  const det_20_33 = m20 * m33 - m30 * m23;
  const det_20_32 = m20 * m32 - m22 * m30;
  const det_20_31 = m20 * m31 - m30 * m21;
  const cofact_00 = +(m11 * det_22_33 - m12 * det_21_33 + m13 * det_21_32);
  const cofact_01 = -(m10 * det_22_33 - m12 * det_20_33 + m13 * det_20_32);
  const cofact_02 = +(m10 * det_21_33 - m11 * det_20_33 + m13 * det_20_31);
  const cofact_03 = -(m10 * det_21_32 - m11 * det_20_32 + m12 * det_20_31);
  return m00 * cofact_00 + m01 * cofact_01 + m02 * cofact_02 + m03 * cofact_03 <= 0;
}
