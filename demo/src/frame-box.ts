/**
 * Framing a box of the world in a part of the view (the crowd in the right three quarters, clear of the panel;
 * the whole view on a narrow window, where the panel lies under it).
 */
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { applyShift, overlayCorner, panelFraction, pinShift } from "./view-shift";

/**
 * Sets the camera's radius and screen offset (its alpha, beta and target kept) so that the box `lo`–`hi`
 * fills the view right of `left` (a fraction of the width; the panel's, at least a quarter, where it covers the
 * view) with a `margin` (fraction of
 * the half-view) around it; the box centred there, and kept there as the camera zooms (`pinShift`).
 */
export function frameBox(
  camera: ArcRotateCamera,
  lo: Vector3,
  hi: Vector3,
  left = panelFraction() > 0 ? Math.max(0.25, panelFraction()) : 0,
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
  // a point under the stats overlay's columns counts as that much higher: it stays below the overlay
  const overlay = overlayCorner();
  const width = (1 - x0) * (1 - margin);
  const height = 2 * (1 - margin);
  // the shift is a view-space one, at the target's depth: a point at depth w moves radius / w times as much on
  // screen (a prop near the camera a lot more), so each step solves for the extreme points' depths
  let [sx, sy] = [(x0 + 1) / 2, 0];
  for (let k = 0; k < 16; k++) {
    applyShift(camera, sx, sy);
    camera.getViewMatrix(true);
    const vp = camera.getViewMatrix().multiply(camera.getProjectionMatrix(true));
    const m = vp.m;
    // [min x, its depth, max x, its depth, min y, its depth, max y, its depth]
    const e = [Infinity, 1, -Infinity, 1, Infinity, 1, -Infinity, 1];
    for (const p of points) {
      const s = Vector3.TransformCoordinates(p, vp);
      const w = p.x * m[3]! + p.y * m[7]! + p.z * m[11]! + m[15]!;
      if (s.x > overlay.x) s.y += overlay.band;
      if (s.x < e[0]!) [e[0], e[1]] = [s.x, w];
      if (s.x > e[2]!) [e[2], e[3]] = [s.x, w];
      if (s.y < e[4]!) [e[4], e[5]] = [s.y, w];
      if (s.y > e[6]!) [e[6], e[7]] = [s.y, w];
    }
    const r = camera.radius;
    sx += (((x0 + 1) / 2 - (e[0]! + e[2]!) / 2) * 2) / (r * (1 / e[1]! + 1 / e[3]!));
    sy -= (((e[4]! + e[6]!) / 2) * 2) / (r * (1 / e[5]! + 1 / e[7]!));
    // the projection shrinks about as 1 / radius (less for points nearer than the target): damped
    camera.radius *= Math.max((e[2]! - e[0]!) / width, (e[6]! - e[4]!) / height) ** 0.7;
  }
  pinShift(camera, sx, sy);
  applyShift(camera, sx, sy);
}
