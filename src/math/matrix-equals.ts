/** Exact equality of two 4×4 matrices' elements (any layout, 16 numbers each). */
export function matrixEquals(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  for (let i = 0; i < 16; i++) if (a[i] !== b[i]) return false;
  return true;
}
