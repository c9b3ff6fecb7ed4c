/** Framing a box of the world in a part of the view (the crowd in the right three quarters, clear of the panel). */
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { applyShift, panelFraction, pinShift } from "./view-shift";

/**
 * Sets the camera's radius and screen offset (its alpha, beta and target kept) so that the box `lo`–`hi`
 * fills the view right of `left` (a fraction of the width; at least the panel's) with a `margin` (fraction of
 * the half-view) around it; the box centred there, and kept there as the camera zooms (`pinShift`).
 */
export function frameBox(
  camera: ArcRotateCamera,
  lo: Vector3,
  hi: Vector3,
  left = Math.max(0.25, panelFraction()),
  margin = 0.08,
): void {
  const corners: Vector3[] = [];
  for (let c = 0; c < 8; c++) corners.push(new Vector3(c & 1 ? hi.x : lo.x, c & 2 ? hi.y : lo.y, c & 4 ? hi.z : lo.z));
  camera.radius = Vector3.Distance(lo, hi);
  framePoints(camera, corners, left, margin);
}

/**
 * As `frameBox`, for the smallest box on screen around `points` (a character and the props it reaches for),
 * from the camera's radius as the scenario set it.
 */
export function framePoints(
  camera: ArcRotateCamera,
  points: readonly Vector3[],
  left = panelFraction(),
  margin = 0.12,
): void {
  // the free part of the view in normalised device coordinates (x in −1…1 from left to right)
  const x0 = -1 + 2 * left;
  const width = (1 - x0) * (1 - margin);
  const height = 2 * (1 - margin);
  // the shift is a view-space one, at the target's depth: nearer points move more, so it is found with the radius
  let [sx, sy] = [(x0 + 1) / 2, 0];
  for (let k = 0; k < 10; k++) {
    applyShift(camera, sx, sy);
    camera.getViewMatrix(true);
    const vp = camera.getViewMatrix().multiply(camera.getProjectionMatrix(true));
    let [ax, ay, bx, by] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const p of points) {
      const s = Vector3.TransformCoordinates(p, vp);
      ax = Math.min(ax, s.x);
      ay = Math.min(ay, s.y);
      bx = Math.max(bx, s.x);
      by = Math.max(by, s.y);
    }
    sx += (x0 + 1) / 2 - (ax + bx) / 2;
    sy -= (ay + by) / 2;
    // the projection shrinks about as 1 / radius: scale the radius by how much too big or small it is
    camera.radius *= Math.max((bx - ax) / width, (by - ay) / height);
  }
  pinShift(camera, sx, sy);
  applyShift(camera, sx, sy);
}
