/**
 * The side an elbow or a knee bends to by nature, from the character's forward and up: shared by the full body's
 * bend constraints and LimbIK's `arm` bend modifier.
 * @module
 */
import type { NumberRef } from "../math/number-ref.js";
import type { ReadonlyVec3, Vec3 } from "../math/vec3.js";

/**
 * How far an elbow's pole tilts back from straight down for an arm raised sideways, as the cotangent (1: 45° below
 * back; motion capture's, elbow-table.ts, 17°). Against UAL's, Xbot's and Soldier's clips the rule's mean elbow side
 * is off 30.8°/26.3°/29.1° at 1, 28.6°/24.6°/27.2° at 1.5, 27.4°/23.1°/25.6° at 2 (test/scenario/limb-arm-modifier),
 * but above 1 the table fitted with it as prior made FullBodyBipedIK's fitted elbows on smooth-paths pop more (Xbot
 * 10 times where 4, at 2 a 63° flip) or, at 1.5, left a Superhero elbow behind (natural-bends). Above 2.6 the pole
 * would vanish again for an arm forward and up.
 */
export const ELBOW_BACK = 1;

/**
 * ELBOW_BACK for the swivel carry of an arm the animation leaves nearly straight (`BendConstraint`, deviation 9):
 * its bend is then the default side, which a T-posed rig puts straight back, and the carry keeps its swivel off the
 * pole. At 1 that back lay 45° off the pole, and Xbot's arms from its T-posed rest reaching the clips' hands bent
 * their elbows 29.5° off the clips' on average (test/scenario/fbbik-elbow-swivel); at 2 (27° below back) 15.1° (at
 * 2.6, 12.2°, but Mannequin's elbows on smooth-paths popped 12 times where 8).
 */
export const STRAIGHT_ELBOW_BACK = 2;

/**
 * Writes into `out` the natural pole of a limb along the unit axis `z` (shoulder to hand, hip to foot), not
 * normalised: perpendicular to z, vanishing where the natural side is undefined. `forward` and `up` are the
 * character's (unit, perpendicular); `side` +1 for a knee, −1 for an elbow; `back`, when given, the elbow's
 * ELBOW_BACK instead (by reference: see ARCHITECTURE.md, "Doubles across calls").
 * - Knees: z turned 90° in the sagittal plane the way the knee flexes, −(z·U)·F + (z·F)·U: a hanging leg's knee
 *   forward, a leg raised forward's knee up; it vanishes for a leg pointing sideways.
 * - Elbows: c = (z·U − k·(1 − (z·U)²))·F − (1 + z·F)·U made perpendicular to z (k = ELBOW_BACK): back for a
 *   hanging arm, down for an arm reaching forward, below the arm all the way as it rises forward to overhead
 *   (forward for an arm straight up), back and down for an arm raised sideways. It vanishes only for an arm
 *   reaching straight back and one raised about 42° behind straight up, both out of a person's ordinary reach: a
 *   field continuous over every arm direction is impossible (hairy ball), and the old rule's vanishing point, an
 *   arm forward and 51° up, lay on the path of every overhead reach, where the pole reversed.
 */
export function naturalPole(
  out: Vec3,
  z: ReadonlyVec3,
  forward: ReadonlyVec3,
  up: ReadonlyVec3,
  side: number,
  back: Readonly<NumberRef> | null = null,
): void {
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
  const a = du - (back === null ? ELBOW_BACK : back.value) * (1 - du * du);
  const b = 1 + df;
  const cx = f.x * a - u.x * b;
  const cy = f.y * a - u.y * b;
  const cz = f.z * a - u.z * b;
  const d = cx * zx + cy * zy + cz * zz;
  out.x = cx - zx * d;
  out.y = cy - zy * d;
  out.z = cz - zz * d;
}
