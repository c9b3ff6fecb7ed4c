import { GroundingHit, type GroundingRaycast } from "./grounding-common.js";

/**
 * One {@link GroundingRaycast} out of several: each ray is cast through every one of them and the nearest
 * contact wins, so a level can be probed as static ground (`StaticGroundRaycast`) and moving platforms
 * (`MovingGroundRaycast`) at once, or with a custom source beside them. Each later raycast is asked only
 * for contacts nearer than the best so far. Allocates nothing itself (what the given raycasts allocate
 * is theirs). When every one of them carries a sphere cast, so does the result: the nearest first contact.
 */
export function nearestGroundRaycast(...raycasts: GroundingRaycast[]): GroundingRaycast {
  const list = raycasts.slice();
  const candidate = new GroundingHit();
  const raycast: GroundingRaycast = (origin, direction, maxDistance, out) => {
    let found = false;
    let best = maxDistance;
    for (let i = 0; i < list.length; i++) {
      if (!list[i]!(origin, direction, best, candidate)) continue;
      if (found && !(candidate.distance < best)) continue;
      found = true;
      best = candidate.distance;
      copyHit(out, candidate);
    }
    return found;
  };
  const sweeps = list.map((r) => r.sphereCast);
  if (sweeps.length === 0 || sweeps.some((s) => s === undefined)) return raycast;
  // a nearer contact of a later cast only: each is asked for the whole length (its maximum is a double handed on)
  raycast.sphereCast = (origin, direction, radius, maxDistance, out) => {
    let found = false;
    for (let i = 0; i < sweeps.length; i++) {
      if (!sweeps[i]!(origin, direction, radius, maxDistance, candidate)) continue;
      if (found && !(candidate.distance < out.distance)) continue;
      found = true;
      copyHit(out, candidate);
    }
    return found;
  };
  return raycast;
}

function copyHit(out: GroundingHit, from: GroundingHit): void {
  out.distance = from.distance;
  out.point.x = from.point.x;
  out.point.y = from.point.y;
  out.point.z = from.point.z;
  out.normal.x = from.normal.x;
  out.normal.y = from.normal.y;
  out.normal.z = from.normal.z;
}
