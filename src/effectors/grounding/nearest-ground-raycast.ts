import { GroundingHit, type GroundingRaycast } from "./grounding-common.js";

/**
 * One {@link GroundingRaycast} out of several: each ray is cast through every one of them and the nearest
 * contact wins, so a level can be probed as static ground (`StaticGroundRaycast`) and moving platforms
 * (`MovingGroundRaycast`) at once, or with a custom source beside them. Each later raycast is asked only
 * for contacts nearer than the best so far. Allocates nothing itself (what the given raycasts allocate
 * is theirs).
 */
export function nearestGroundRaycast(...raycasts: GroundingRaycast[]): GroundingRaycast {
  const list = raycasts.slice();
  const candidate = new GroundingHit();
  return (origin, direction, maxDistance, out) => {
    let found = false;
    let best = maxDistance;
    for (let i = 0; i < list.length; i++) {
      if (!list[i]!(origin, direction, best, candidate)) continue;
      if (found && !(candidate.distance < best)) continue;
      found = true;
      best = candidate.distance;
      out.distance = best;
      out.point.x = candidate.point.x;
      out.point.y = candidate.point.y;
      out.point.z = candidate.point.z;
      out.normal.x = candidate.normal.x;
      out.normal.y = candidate.normal.y;
      out.normal.z = candidate.normal.z;
    }
    return found;
  };
}
