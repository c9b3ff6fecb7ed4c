/**
 * The fingers of a palm laid on a ball curled over it, after the IK placed the hand: opened straight, a finger
 * reaches a palm's length past the point the palm touches, off a ball whose radius is about that (the UAL
 * character's right fingers stuck out past the biped scenario's ball). Each finger joint, base first, turns about
 * the knuckles' line toward the ball until the finger beyond it touches the surface, as the grips wrap a rung.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import { boneRotation } from "../kit";
import { fingerPoints, turnWorld } from "./grip";
import type { Palm } from "./palm";

/** The turn's step and the most a joint turns (degrees): a knuckle folds less far than the joints past it. */
const STEP = 3;
const LIMIT_BASE = 75;
const LIMIT = 95;

/** The distance beyond the ball's skin of the nearest of `points` turned `angle` about `axis` through `pivot`. */
function gapAfterTurn(points: Vector3[], pivot: Vector3, axis: Vector3, angle: number, ball: Vector3, r: number) {
  const q = Quaternion.RotationAxis(axis, angle);
  let gap = Infinity;
  for (const p of points) {
    const turned = p.subtract(pivot).applyRotationQuaternion(q).addInPlace(pivot);
    gap = Math.min(gap, Vector3.Distance(turned, ball) - r);
  }
  return gap;
}

/**
 * Curls `palm`'s fingers (not the thumb) over the ball at `centre` of `radius`, `skin` off its surface, by
 * `weight` (0: as they are). Call after the hand's solve, before the frame renders.
 */
export function wrapFingersOnBall(palm: Palm, centre: Vector3, radius: number, skin: number, weight: number): void {
  if (weight <= 0) return;
  // across the knuckles as the hand is turned now: the axis a finger curls about
  const turn = boneRotation(palm.bone).multiplyInPlace(Quaternion.Inverse(palm.rotation));
  const axis = Vector3.Cross(palm.normal, palm.fingers).applyRotationQuaternion(turn).normalize();
  const contact = radius + skin;
  for (const chain of palm.fingerChains) {
    for (let j = 0; j < chain.length; j++) {
      const points = fingerPoints(chain);
      const pivot = points[j]!;
      const beyond = points.slice(j + 1);
      // the way that brings the finger toward the ball; turned out of it first when it starts inside
      const toward = (a: number) => gapAfterTurn(beyond, pivot, axis, a, centre, contact);
      const dir = toward(0.05) < toward(-0.05) ? 1 : -1;
      const limit = j === 0 ? LIMIT_BASE : LIMIT;
      let deg = 0;
      const rad = (d: number) => (dir * d * Math.PI) / 180;
      while (deg > -limit && toward(rad(deg)) < 0) deg -= STEP;
      while (deg < limit && toward(rad(deg + STEP)) > 0) deg += STEP;
      if (deg !== 0) turnWorld(chain[j]!, Quaternion.RotationAxis(axis, weight * rad(deg)));
    }
  }
}
