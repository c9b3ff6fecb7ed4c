/**
 * One step of FABRIK's reaches: a joint moved along the line from its neighbour to its bone's length from it.
 * @module
 */

/**
 * Moves the joint at `P[j]` (3 numbers) along the line from the joint at `P[from]` to `L[i]` from it (the length is
 * read here: a double handed to a call V8 may not inline is boxed). False, the joint left where it is, when it lies
 * on that joint (no direction to keep: the rotation pass restores the length). Allocation-free.
 */
export function placeFrom(P: Float64Array, j: number, from: number, L: Float64Array, i: number): boolean {
  const ax = P[from]!;
  const ay = P[from + 1]!;
  const az = P[from + 2]!;
  const dx = P[j]! - ax;
  const dy = P[j + 1]! - ay;
  const dz = P[j + 2]! - az;
  const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(d > 0)) return false;
  const s = L[i]! / d;
  P[j] = ax + dx * s;
  P[j + 1] = ay + dy * s;
  P[j + 2] = az + dz * s;
  return true;
}
