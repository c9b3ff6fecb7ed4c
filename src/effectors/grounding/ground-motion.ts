/**
 * Carrying a point by the motion of the ground under it: the engine-neutral arithmetic of
 * `GroundingLeg`'s velocity over moving ground.
 * @module
 */
import type { Vec3 } from "../../math/vec3.js";

/**
 * Moves `p` as a point fixed on ground whose world transform went from `last` to `now` (affine, 16 numbers each,
 * Babylon's row-vector layout): p · last⁻¹ · now. Leaves `p` when `last` cannot be inverted. Allocates nothing.
 */
export function carryByMotion(p: Vec3, last: Float64Array, now: Float64Array): void {
  // p in the ground's own space: (p − t) · A⁻¹, A⁻¹ by cofactors (rows of A: last[0…2], last[4…6], last[8…10])
  const a0 = last[0]!;
  const a1 = last[1]!;
  const a2 = last[2]!;
  const a3 = last[4]!;
  const a4 = last[5]!;
  const a5 = last[6]!;
  const a6 = last[8]!;
  const a7 = last[9]!;
  const a8 = last[10]!;
  const c0 = a4 * a8 - a5 * a7;
  const c1 = a5 * a6 - a3 * a8;
  const c2 = a3 * a7 - a4 * a6;
  const det = a0 * c0 + a1 * c1 + a2 * c2;
  if (!(det !== 0 && Number.isFinite(det))) return;
  const k = 1 / det;
  const x = p.x - last[12]!;
  const y = p.y - last[13]!;
  const z = p.z - last[14]!;
  const lx = (x * c0 + y * c1 + z * c2) * k;
  const ly = (x * (a2 * a7 - a1 * a8) + y * (a0 * a8 - a2 * a6) + z * (a1 * a6 - a0 * a7)) * k;
  const lz = (x * (a1 * a5 - a2 * a4) + y * (a2 * a3 - a0 * a5) + z * (a0 * a4 - a1 * a3)) * k;
  // and back into the world where the ground is now
  p.x = lx * now[0]! + ly * now[4]! + lz * now[8]! + now[12]!;
  p.y = lx * now[1]! + ly * now[5]! + lz * now[9]! + now[13]!;
  p.z = lx * now[2]! + ly * now[6]! + lz * now[10]! + now[14]!;
}
