/**
 * The two-bone triangle (seed 003's law of cosines), allocation-free: where the middle joint goes so
 * that the end lands on the target, for every distance from the root.
 * @module
 */
import type { ReadonlyVec3, Vec3 } from "../math/vec3.js";

/** The limb's bone lengths for one solve (an object, so no double crosses a call: see NumberRef). */
export class LimbLengths {
  /** Root → middle. */
  upper = 0;
  /** Middle → end. */
  lower = 0;
}

/**
 * Writes into `out` the middle joint's position for a limb rooted at `root` with bone lengths
 * l1 = `lengths.upper` and l2 = `lengths.lower` whose end is to reach `target`, bending toward the unit
 * direction `side` (perpendicular to the root → target line).
 *
 * With d = |target − root|: along the line at x = (d² + l1² − l2²) / 2d, off it by √(l1² − x²) toward
 * `side`. x is clamped to [−l1, l1], which covers both unreachable cases: beyond reach (d > l1 + l2)
 * the limb lies straight toward the target; inside the blind zone (d < |l1 − l2|) it folds flat on the
 * line so the end stops at |l1 − l2| from the root, on the target's side. `d` must be positive.
 */
export function limbMiddle(
  out: Vec3,
  root: ReadonlyVec3,
  target: ReadonlyVec3,
  side: ReadonlyVec3,
  lengths: Readonly<LimbLengths>,
): Vec3 {
  const l1 = lengths.upper;
  const l2 = lengths.lower;
  const dx = target.x - root.x;
  const dy = target.y - root.y;
  const dz = target.z - root.z;
  const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
  let x = (d * d + l1 * l1 - l2 * l2) / (2 * d);
  x = x > l1 ? l1 : x < -l1 ? -l1 : x;
  // (l1 − x)(l1 + x) keeps the height's digits when x is close to ±l1 (a nearly straight or folded limb)
  const y = Math.sqrt((l1 - x) * (l1 + x));
  const k = x / d;
  out.x = root.x + dx * k + side.x * y;
  out.y = root.y + dy * k + side.y * y;
  out.z = root.z + dz * k + side.z * y;
  return out;
}
