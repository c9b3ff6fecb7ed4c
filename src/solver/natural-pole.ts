/**
 * The side an elbow or a knee bends to by nature, from the character's forward and up: shared by the full body's
 * bend constraints and LimbIK's `arm` bend modifier.
 * @module
 */
import type { ReadonlyVec3, Vec3 } from "../math/vec3.js";

/**
 * Writes into `out` the natural pole of a limb along the unit axis `z` (shoulder to hand, hip to foot), not
 * normalised: perpendicular to z, vanishing where the natural side is undefined. `forward` and `up` are the
 * character's (unit, perpendicular); `side` +1 for a knee, −1 for an elbow.
 * - Knees: z turned 90° in the sagittal plane the way the knee flexes, −(z·U)·F + (z·F)·U: a hanging leg's knee
 *   forward, a leg raised forward's knee up; it vanishes for a leg pointing sideways.
 * - Elbows: c = −F − 2·max(0, z·F)·U made perpendicular to z: behind the shoulder–wrist line, never forward; down
 *   for an arm reaching forward; it vanishes for an arm reaching straight back, or forward and about 50° up.
 */
export function naturalPole(out: Vec3, z: ReadonlyVec3, forward: ReadonlyVec3, up: ReadonlyVec3, side: number): void {
  // written out: it runs per limb per frame (see ARCHITECTURE.md, "Doubles across calls")
  const f = forward;
  const u = up;
  const zx = z.x;
  const zy = z.y;
  const zz = z.z;
  const df = zx * f.x + zy * f.y + zz * f.z;
  const du = zx * u.x + zy * u.y + zz * u.z;
  if (side > 0) {
    out.x = df * u.x - du * f.x;
    out.y = df * u.y - du * f.y;
    out.z = df * u.z - du * f.z;
    return;
  }
  const b = df > 0 ? 2 * df : 0;
  const cx = -f.x - u.x * b;
  const cy = -f.y - u.y * b;
  const cz = -f.z - u.z * b;
  const d = cx * zx + cy * zy + cz * zz;
  out.x = cx - zx * d;
  out.y = cy - zy * d;
  out.z = cz - zz * d;
}
