/** Framing help for the scenarios' cameras: how tall a character looks, meshes included. */
import type { Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Character } from "./kit";

/**
 * The top of the character's meshes above its feet' floor (y = 0), at least its joint extent `h`: a helmet or
 * a big head reaches well above the head bone (the Mannequin's), and a camera framed from `h` alone cuts it.
 */
export function visibleHeight(c: Character): number {
  let top = c.h;
  for (const m of c.meshes) {
    m.computeWorldMatrix(true);
    const y = m.getBoundingInfo().boundingBox.maximumWorld.y;
    if (Number.isFinite(y) && y > top && y < 3 * c.h) top = y;
  }
  return top;
}

/** How far the character's meshes reach from its root along the horizontal unit `dir` (at least 0.25 h). */
export function visibleReach(c: Character, dir: Vector3): number {
  let reach = 0.25 * c.h;
  const origin = c.root.getAbsolutePosition();
  for (const m of c.meshes) {
    m.computeWorldMatrix(true);
    for (const v of m.getBoundingInfo().boundingBox.vectorsWorld) {
      const d = (v.x - origin.x) * dir.x + (v.z - origin.z) * dir.z;
      if (Number.isFinite(d) && d > reach && d < 3 * c.h) reach = d;
    }
  }
  return reach;
}
