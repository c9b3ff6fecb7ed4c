/**
 * A clip's speed played in place: the mean velocity of its feet while planted (within 0.005 h of each track's
 * lowest point on two frames in a row), read at 60 frames a second. The character walks the other way.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";

/** The mean horizontal velocity of the planted frames of `tracks` (one foot's world positions each), h the height. */
export function plantedVelocity(tracks: readonly (readonly Vector3[])[], h: number): Vector3 {
  const velocity = new Vector3();
  let n = 0;
  for (const track of tracks) {
    const lowest = Math.min(...track.map((p) => p.y));
    const planted = (y: number) => y < lowest + 0.005 * h;
    for (let f = 1; f < track.length; f++) {
      if (!planted(track[f]!.y) || !planted(track[f - 1]!.y)) continue;
      velocity.addInPlace(track[f]!.subtract(track[f - 1]!).scale(60));
      n++;
    }
  }
  velocity.scaleInPlace(1 / n);
  velocity.y = 0;
  return velocity;
}
