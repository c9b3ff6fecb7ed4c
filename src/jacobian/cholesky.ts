/**
 * A small dense Cholesky solve for the damped normal equations of {@link IKSolverJacobian}: symmetric
 * positive definite, row-major in a Float64Array with row stride `stride`, factored in place.
 * @module
 */

/**
 * Factors the leading `n`×`n` block of `a` (row stride `stride`, symmetric positive definite) in place:
 * its lower triangle becomes L with L·Lᵀ = a. False when a pivot is not positive (not positive definite to
 * rounding, or NaN).
 */
export function choleskyFactor(a: Float64Array, n: number, stride: number): boolean {
  for (let j = 0; j < n; j++) {
    const rj = j * stride;
    let d = a[rj + j]!;
    for (let k = 0; k < j; k++) d -= a[rj + k]! * a[rj + k]!;
    if (!(d > 0)) return false;
    const l = Math.sqrt(d);
    a[rj + j] = l;
    for (let i = j + 1; i < n; i++) {
      const ri = i * stride;
      let s = a[ri + j]!;
      for (let k = 0; k < j; k++) s -= a[ri + k]! * a[rj + k]!;
      a[ri + j] = s / l;
    }
  }
  return true;
}

/** Overwrites `b` with x solving L·Lᵀ·x = b, L the factor {@link choleskyFactor} left in `a`. */
export function choleskySubstitute(a: Float64Array, b: Float64Array, n: number, stride: number): void {
  for (let i = 0; i < n; i++) {
    const ri = i * stride;
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= a[ri + k]! * b[k]!;
    b[i] = s / a[ri + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i]!;
    for (let k = i + 1; k < n; k++) s -= a[k * stride + i]! * b[k]!;
    b[i] = s / a[i * stride + i]!;
  }
}

/**
 * Solves `a`·x = `b` for the leading `n`×`n` block of `a` (row stride `stride`, symmetric positive
 * definite), overwriting `a`'s lower triangle with its Cholesky factor and `b` with x. False (and `b`
 * unusable) when a pivot is not positive, i.e. the matrix is not positive definite to rounding.
 */
export function choleskySolve(a: Float64Array, b: Float64Array, n: number, stride: number): boolean {
  if (!choleskyFactor(a, n, stride)) return false;
  choleskySubstitute(a, b, n, stride);
  return true;
}
