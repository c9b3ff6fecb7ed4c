/**
 * The full body's arm turned about its shoulder–hand line toward the elbow side fitted to motion capture
 * (elbow-pole.ts, LimbIK's `arm` table): the swivel target of an arm whose hand the solve moves away from the
 * animation's (not in FinalIK).
 * @module
 */
import type { NumberRef } from "../math/number-ref.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";
import { elbowPole } from "./elbow-pole.js";
import type { TurnLimitMemory } from "./turn-limit-memory.js";

/**
 * Pole lengths between which the fitted side fades in: it is about unit where the fitted motion agrees, short where
 * it is split, and there its direction turns fast (narrower, the elbows pop on test/scenario/smooth-paths's paths).
 */
const POLE_LOW = 0.2;
const POLE_HIGH = 0.7;

const pole = new Vec3();
const unitAxis = new Vec3();

/**
 * How far (radians) a bend may lie from the fitted side and still be turned all the way onto it at full amount;
 * further off it turns less, and not at all from opposite the side. Wider, the elbows pop where the carried bend
 * sweeps past (75°: the Mannequin's 18 times where 14 in smooth-paths); narrower, they stay further from the clips'
 * (50°: UAL's from rest 14.4° where 13.7° in fbbik-elbow-swivel).
 */
const FOLD = Math.PI / 3;

/**
 * Turns the bend direction `out` (component space, any length) about the limb axis `axis` toward the fitted elbow
 * side for that axis (its part along the axis and its length across it are kept), by the fraction `amount` of a
 * full turn: at 1 onto the side from within 60° of it, from further off by less and less, not at all from
 * opposite it, so the elbow turns steadily wherever the bend and the amount go.
 * `forward`, `up`, `outward` are the arm's frame (unit, perpendicular; outward away from the body on the arm's side).
 * With `memory` (its `update` set), the angle from the side turns from the last update's by no more than the
 * carried bend's does, or 10° (turn-limit-memory.ts): where the bend sweeps past the side's 60°, turning by the
 * angle alone turned the elbow 1.5 times as fast as the bend.
 */
export function swivelToFittedElbow(
  out: Vec3,
  axis: ReadonlyVec3,
  forward: ReadonlyVec3,
  up: ReadonlyVec3,
  outward: ReadonlyVec3,
  amount: Readonly<NumberRef>,
  memory: TurnLimitMemory | null = null,
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
  // the bend's part perpendicular to the axis
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
  // the bend's angle from the pole about the axis, toward q (the pole a quarter turn on)
  const qx = zy * pz - zz * py;
  const qy = zz * px - zx * pz;
  const qz = zx * py - zy * px;
  const th = Math.atan2(bx * qx + by * qy + bz * qz, bx * px + by * py + bz * pz);
  // the full turn: all of it within FOLD, falling to none opposite the pole. Turning every bend onto the pole must
  // jump somewhere: blending the sides, where amount ½ met a bend opposite the pole (elbows swung up to 55° in a frame)
  const a = th < 0 ? -th : th;
  const full = a <= FOLD ? th : th - ((th < 0 ? -Math.PI : Math.PI) * (a - FOLD)) / (Math.PI - FOLD);
  let psi = th - (k < 1 ? k : 1) * full;
  if (memory !== null) {
    memory.reference = th;
    memory.otherReference = th;
    memory.turned = psi;
    memory.x = zx;
    memory.y = zy;
    memory.z = zz;
    memory.limit();
    psi = memory.turned;
  }
  const cs = Math.cos(psi);
  const sn = Math.sin(psi);
  out.x = zx * d + bl * (px * cs + qx * sn);
  out.y = zy * d + bl * (py * cs + qy * sn);
  out.z = zz * d + bl * (pz * cs + qz * sn);
}
