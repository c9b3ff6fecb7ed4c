/**
 * How big a character looks, meshes included, for cameras and props sized to it: a helmet, hair or a big head
 * reaches well past the head bone (the Mannequin's), so a camera framed from the joints' extent `c.h` cuts it.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { type Character, type Ctx, frameCamera } from "./kit";

/** The farthest any of the character's meshes reaches along the unit `dir` (world, from the origin). */
export function meshExtent(c: Character, dir: Vector3): number {
  let best = -Infinity;
  for (const m of c.meshes) {
    // the world box is refreshed with the world matrix; a mesh not yet rendered has a stale one
    m.computeWorldMatrix(true);
    for (const v of m.getBoundingInfo().boundingBox.vectorsWorld) {
      const d = Vector3.Dot(v, dir);
      if (Number.isFinite(d)) best = Math.max(best, d);
    }
  }
  return best;
}

/** The top of the character's meshes above its root (its feet' floor), at least its joints' extent `c.h`. */
export function visibleHeight(c: Character): number {
  const top = meshExtent(c, Vector3.Up()) - c.root.position.y;
  return Number.isFinite(top) && top < 3 * c.h ? Math.max(c.h, top) : c.h;
}

/** The top of the character's meshes in world y. */
export function meshTop(c: Character): number {
  return c.root.position.y + visibleHeight(c);
}

/** How far the character's meshes reach from its root along the horizontal unit `dir` (at least 0.25 h). */
export function visibleReach(c: Character, dir: Vector3): number {
  const origin = c.root.getAbsolutePosition();
  const reach = meshExtent(c, dir) - Vector3.Dot(origin, dir);
  return Number.isFinite(reach) && reach < 3 * c.h ? Math.max(0.25 * c.h, reach) : 0.25 * c.h;
}

/**
 * Frames the character from its feet to the top of its meshes, `room` times its visible height in view,
 * the camera toward its front and `side` × its right.
 */
export function frameWhole(ctx: Ctx, c: Character, room = 1.6, side = 0.5): void {
  const base = c.root.position.y;
  const height = visibleHeight(c);
  const target = new Vector3(c.root.position.x, base + 0.5 * height, c.root.position.z);
  frameCamera(ctx, c, target, (room * height) / (2 * Math.tan(ctx.camera.fov / 2)), side);
}

/** The corners of the box around the character's meshes, feet to top, side to side and heel to toe: to frame it. */
export function outline(c: Character): Vector3[] {
  const reach = (d: Vector3) => d.scale(visibleReach(c, d));
  const [r, l, f, b] = [c.right, c.right.negate(), c.forward, c.forward.negate()].map(reach) as [
    Vector3,
    Vector3,
    Vector3,
    Vector3,
  ];
  const base = c.root.position;
  const top = base.add(new Vector3(0, visibleHeight(c), 0));
  return [base, top].flatMap((y) => [r, l].flatMap((x) => [f, b].map((z) => y.add(x).add(z))));
}
