/**
 * The elbow's natural side fitted to motion: a table of poles over the hand's direction from the shoulder, in the
 * arm's frame (forward, up, outward), read by bilinear interpolation over azimuth and elevation.
 * @module
 */
import type { ReadonlyVec3, Vec3 } from "../math/vec3.js";
import { ELBOW_POLES } from "./elbow-table.js";

/** The table's columns: azimuths 30° apart from forward toward outward, all the way round. */
export const ELBOW_AZIMUTHS = 12;
/** The table's rows: elevations 30° apart from straight down to straight up. */
export const ELBOW_ELEVATIONS = 7;

/**
 * Writes into `out` the elbow's pole for the unit shoulder → hand direction `z`, not normalised: perpendicular to
 * z, about unit long where the fitted motion agrees, shorter where it is thin or split (as natural-pole.ts's
 * elbow, which the table falls back to there). `forward`, `up` and `outward` are the arm's frame (unit,
 * perpendicular; outward points away from the body on the arm's side), in z's space; `table` another fit of the
 * same layout (for the fitting script).
 */
export function elbowPole(
  out: Vec3,
  z: ReadonlyVec3,
  forward: ReadonlyVec3,
  up: ReadonlyVec3,
  outward: ReadonlyVec3,
  table: ArrayLike<number> = ELBOW_POLES,
): void {
  // written out: it runs per arm per frame (see ARCHITECTURE.md, "Doubles across calls")
  const zx = z.x;
  const zy = z.y;
  const zz = z.z;
  const zf = zx * forward.x + zy * forward.y + zz * forward.z;
  const zu = zx * up.x + zy * up.y + zz * up.z;
  const zo = zx * outward.x + zy * outward.y + zz * outward.z;
  const el = Math.atan2(zu, Math.sqrt(zf * zf + zo * zo));
  const az = Math.atan2(zo, zf);
  const a = ((az < 0 ? az + 2 * Math.PI : az) * ELBOW_AZIMUTHS) / (2 * Math.PI);
  const e = ((el + Math.PI / 2) * (ELBOW_ELEVATIONS - 1)) / Math.PI;
  let a0 = Math.floor(a);
  const ta = a - a0;
  if (a0 >= ELBOW_AZIMUTHS) a0 -= ELBOW_AZIMUTHS;
  const a1 = a0 + 1 < ELBOW_AZIMUTHS ? a0 + 1 : 0;
  let e0 = Math.floor(e);
  if (e0 > ELBOW_ELEVATIONS - 2) e0 = ELBOW_ELEVATIONS - 2;
  if (e0 < 0) e0 = 0;
  const te = e - e0;
  const w00 = (1 - ta) * (1 - te);
  const w10 = ta * (1 - te);
  const w01 = (1 - ta) * te;
  const w11 = ta * te;
  const i00 = 3 * (e0 * ELBOW_AZIMUTHS + a0);
  const i10 = 3 * (e0 * ELBOW_AZIMUTHS + a1);
  const i01 = i00 + 3 * ELBOW_AZIMUTHS;
  const i11 = i10 + 3 * ELBOW_AZIMUTHS;
  const pf = w00 * table[i00]! + w10 * table[i10]! + w01 * table[i01]! + w11 * table[i11]!;
  const pu = w00 * table[i00 + 1]! + w10 * table[i10 + 1]! + w01 * table[i01 + 1]! + w11 * table[i11 + 1]!;
  const po = w00 * table[i00 + 2]! + w10 * table[i10 + 2]! + w01 * table[i01 + 2]! + w11 * table[i11 + 2]!;
  const cx = pf * forward.x + pu * up.x + po * outward.x;
  const cy = pf * forward.y + pu * up.y + po * outward.y;
  const cz = pf * forward.z + pu * up.z + po * outward.z;
  const d = cx * zx + cy * zy + cz * zz;
  out.x = cx - zx * d;
  out.y = cy - zy * d;
  out.z = cz - zz * d;
}
