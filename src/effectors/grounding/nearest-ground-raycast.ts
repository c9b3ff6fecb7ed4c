import { GroundingHit, type GroundingRaycast } from "./grounding-common.js";

/**
 * One {@link GroundingRaycast} out of several: each ray is cast through every one of them and the nearest
 * contact wins, so a level can be probed as static ground (`StaticGroundRaycast`) and moving platforms
 * (`MovingGroundRaycast`) at once, or with a custom source beside them. Each is asked for the whole length,
 * and a later contact wins only when nearer. Allocates nothing itself (what the given raycasts allocate
 * is theirs). When every one of them carries a sphere cast, so does the result: the nearest first contact.
 */
export function nearestGroundRaycast(...raycasts: GroundingRaycast[]): GroundingRaycast {
  const list = raycasts.slice();
  const candidate = new GroundingHit();
  // each is asked for the whole length: a nearer maximum would be a computed double handed to a call V8 does
  // not inline (the raycasts differ), boxed per ray; the nearest contact wins all the same
  const raycast: GroundingRaycast = (origin, direction, maxDistance, out) => {
    let found = false;
    for (let i = 0; i < list.length; i++) {
      if (!list[i]!(origin, direction, maxDistance, candidate)) continue;
      if (found && !(candidate.distance < out.distance)) continue;
      found = true;
      copyHit(out, candidate);
    }
    return found;
  };
  const sweeps = list.map((r) => r.sphereCast);
  if (sweeps.length === 0 || sweeps.some((s) => s === undefined)) return raycast;
  // a nearer contact of a later cast only, as for the rays
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
  out.ground = from.ground;
}
