/**
 * How big a character looks, meshes included, for cameras and props sized to it: a helmet, hair or a big head
 * reaches well past the head bone (the Mannequin's), so a camera framed from the joints' extent `c.h` cuts it.
 */
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { type Character, type Ctx, bonePos, frameCamera } from "./kit";
import { isUnder, skinVertices } from "./props/skin";

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

/** A ball around the head's skin: what hides a chibi's hands and props behind it. */
export interface HeadBall {
  centre: Vector3;
  radius: number;
}

/**
 * The ball around the skin that follows the head bone (a helmet or a chibi's head, far bigger than the joints
 * say), as posed now; a ball of 0.08 h at the head bone on a model without skin weights there.
 */
export function headBall(c: Character): HeadBall {
  const head = c.ik.references.head ?? c.ik.references.spine[c.ik.references.spine.length - 1]!;
  const skin = skinVertices(c.skeleton, (b) => isUnder(b, head));
  if (skin.length === 0) return { centre: bonePos(head), radius: 0.08 * c.h };
  const lo = skin.reduce((a, p) => Vector3.Minimize(a, p), new Vector3(Infinity, Infinity, Infinity));
  const hi = skin.reduce((a, p) => Vector3.Maximize(a, p), new Vector3(-Infinity, -Infinity, -Infinity));
  const centre = lo.add(hi).scale(0.5);
  // the box's inscribed ball: a rounded head fills it, and a ball over the box's corners hid what lay beside it
  const size = hi.subtract(lo);
  return { centre, radius: Math.min(size.x, size.y, size.z) / 2 };
}

/**
 * Whether the head ball `ball`, moved by `by`, lies between the camera's eye and `p` (view space, shift included),
 * or passes within `margin` of the line of sight (the size of what is at `p`: a fist around its wrist).
 */
export function hiddenByHead(
  camera: ArcRotateCamera,
  ball: HeadBall,
  p: Vector3,
  by: Vector3 = Vector3.ZeroReadOnly,
  margin = 0,
): boolean {
  const view = camera.getViewMatrix(true);
  const a = Vector3.TransformCoordinates(p, view);
  const s = Vector3.TransformCoordinates(ball.centre.add(by), view);
  const t = Vector3.Dot(s, a) / a.lengthSquared();
  if (t <= 0 || t >= 1) return false;
  return s.subtract(a.scale(t)).length() < ball.radius + margin && a.length() - s.length() > ball.radius;
}
