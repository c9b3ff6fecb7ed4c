/**
 * The full body's arm turned about its shoulder–hand line toward the elbow side fitted to motion capture
 * (elbow-pole.ts, LimbIK's `arm` table): the swivel target of an arm whose hand the solve moves away from the
 * animation's (not in FinalIK).
 * @module
 */
import type { NumberRef } from "../math/number-ref.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";
import { elbowPole } from "./elbow-pole.js";

/**
 * Pole lengths between which the fitted side fades in: it is about unit where the fitted motion agrees, short where
 * it is split, and there its direction turns fast (narrower, the elbows pop on test/scenario/smooth-paths's paths).
 */
const POLE_LOW = 0.2;
const POLE_HIGH = 0.7;

const pole = new Vec3();
const unitAxis = new Vec3();

/**
 * Turns the bend direction `out` (component space, any length) about the limb axis `axis` toward the fitted elbow
 * side for that axis, by the fraction `amount` of the angle between them (its part along the axis is kept).
 * `forward`, `up`, `outward` are the arm's frame (unit, perpendicular; outward away from the body on the arm's side).
 */
export function swivelToFittedElbow(
  out: Vec3,
  axis: ReadonlyVec3,
  forward: ReadonlyVec3,
  up: ReadonlyVec3,
  outward: ReadonlyVec3,
  amount: Readonly<NumberRef>,
): void {
  // written out: it runs per arm per frame (see ARCHITECTURE.md, "Doubles across calls")
  const al = Math.sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
  if (!(al > 0)) return;
  const zx = axis.x / al;
  const zy = axis.y / al;
  const zz = axis.z / al;
  unitAxis.x = zx;
  unitAxis.y = zy;
  unitAxis.z = zz;
  elbowPole(pole, unitAxis, forward, up, outward);
  const pl = Math.sqrt(pole.x * pole.x + pole.y * pole.y + pole.z * pole.z);
  const gate = (pl - POLE_LOW) / (POLE_HIGH - POLE_LOW);
  if (!(gate > 0)) return;
  const k = amount.value * (gate < 1 ? gate : 1);
  if (!(k > 0)) return;
  const px = pole.x / pl;
  const py = pole.y / pl;
  const pz = pole.z / pl;
  // the bend's part perpendicular to the axis, and its angle from the pole about the axis
  const d = out.x * zx + out.y * zy + out.z * zz;
  const bx = out.x - zx * d;
  const by = out.y - zy * d;
  const bz = out.z - zz * d;
  const bl = Math.sqrt(bx * bx + by * by + bz * bz);
  if (!(bl > 0)) {
    // no bend side of its own: the fitted one
    out.x = zx * d + px;
    out.y = zy * d + py;
    out.z = zz * d + pz;
    return;
  }
  // a blend of the two sides, not of their angles: a blend in angle flips where the bend passes opposite the pole
  const t = k < 1 ? k : 1;
  const vx = (bx / bl) * (1 - t) + px * t;
  const vy = (by / bl) * (1 - t) + py * t;
  const vz = (bz / bl) * (1 - t) + pz * t;
  const vl = Math.sqrt(vx * vx + vy * vy + vz * vz);
  if (!(vl > 1e-9)) return;
  const c = bl / vl;
  out.x = zx * d + vx * c;
  out.y = zy * d + vy * c;
  out.z = zz * d + vz * c;
}
