/**
 * Targets far beyond a chain's reach, brought in along their ray so that squares of their distance never
 * overflow. Allocation-free.
 * @module
 */
import type { NumberRef } from "../math/number-ref.js";
import type { ReadonlyVec3, Vec3 } from "../math/vec3.js";

/**
 * Writes into `out` the offset `to − from`, shortened to length `limit.value` when longer (same
 * direction), computed without overflow (the largest component is divided out before squaring).
 * False when the offset is zero or not finite; `out` is then not usable.
 */
export function offsetWithin(out: Vec3, from: ReadonlyVec3, to: ReadonlyVec3, limit: Readonly<NumberRef>): boolean {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const dz = to.z - from.z;
  const ax = Math.abs(dx);
  const ay = Math.abs(dy);
  const az = Math.abs(dz);
  const m = ax > ay ? (ax > az ? ax : az) : ay > az ? ay : az;
  if (!(m > 0) || !(m < Infinity)) return false;
  const sx = dx / m;
  const sy = dy / m;
  const sz = dz / m;
  const ds = Math.sqrt(sx * sx + sy * sy + sz * sz);
  const far = limit.value;
  if (m * ds > far) {
    const k = far / ds;
    out.x = sx * k;
    out.y = sy * k;
    out.z = sz * k;
  } else {
    out.x = dx;
    out.y = dy;
    out.z = dz;
  }
  return true;
}
