/** Camera framing of a whole character, meshes included (a helmet or hair reaches well past the head bone). */
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { type Character, type Ctx, frameCamera } from "../kit";

/** The top of the character's meshes in world y (their bind-pose bounds), at least its bones' top. */
export function meshTop(c: Character): number {
  let top = c.root.position.y + c.h;
  for (const m of c.meshes) {
    m.computeWorldMatrix(true);
    m.refreshBoundingInfo({});
    top = Math.max(top, m.getBoundingInfo().boundingBox.maximumWorld.y);
  }
  return top;
}

/**
 * Frames the character from its feet to the top of its meshes, `room` times its visual height in view,
 * the camera toward its front and `side` × its right.
 */
export function frameWhole(ctx: Ctx, c: Character, room = 1.6, side = 0.5): void {
  const base = c.root.position.y;
  const height = meshTop(c) - base;
  const fov = ctx.camera.fov;
  const target = new Vector3(c.root.position.x, base + 0.5 * height, c.root.position.z);
  frameCamera(ctx, c, target, (room * height) / (2 * Math.tan(fov / 2)), side);
}
