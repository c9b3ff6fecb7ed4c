/** Framing helpers: how big a character looks, for cameras sized to it. */
import type { Character } from "./kit";

/**
 * The height of the character's meshes (their bounding boxes in the bind pose, world space), at least its
 * joints' extent `c.h`: a chibi's helmet reaches far above its head joint, so a camera framed from `c.h`
 * alone would cut it off.
 */
export function visualHeight(c: Character): number {
  let lo = Infinity;
  let hi = -Infinity;
  for (const m of c.meshes) {
    // computing the world matrix brings the world bounds up to date
    m.computeWorldMatrix(true);
    const box = m.getBoundingInfo().boundingBox;
    lo = Math.min(lo, box.minimumWorld.y);
    hi = Math.max(hi, box.maximumWorld.y);
  }
  return Number.isFinite(hi - lo) ? Math.max(c.h, hi - lo) : c.h;
}
