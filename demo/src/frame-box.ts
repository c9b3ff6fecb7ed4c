/** Framing a box of the world in a part of the view (the crowd in the right three quarters, clear of the panel). */
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import type { AbstractEngine } from "@babylonjs/core/Engines/abstractEngine";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";

/**
 * Sets the camera's radius and screen offset (its alpha, beta and target kept) so that the box `lo`–`hi`
 * fills the view right of `left` (a fraction of the width) with a `margin` (fraction of the half-view)
 * around it; the box centred there.
 */
export function frameBox(
  camera: ArcRotateCamera,
  engine: AbstractEngine,
  lo: Vector3,
  hi: Vector3,
  left = 0.25,
  margin = 0.08,
): void {
  const aspect = engine.getAspectRatio(camera);
  const tan = Math.tan(camera.fov / 2);
  // the free part of the view in normalised device coordinates (x in −1…1 from left to right)
  const x0 = -1 + 2 * left;
  const width = (1 - x0) * (1 - margin);
  const height = 2 * (1 - margin);
  camera.targetScreenOffset.set(0, 0);
  camera.radius = Vector3.Distance(lo, hi);
  let cx = 0;
  let cy = 0;
  for (let k = 0; k < 6; k++) {
    camera.getViewMatrix(true);
    const vp = camera.getViewMatrix().multiply(camera.getProjectionMatrix(true));
    let [ax, ay, bx, by] = [Infinity, Infinity, -Infinity, -Infinity];
    for (let c = 0; c < 8; c++) {
      const p = new Vector3(c & 1 ? hi.x : lo.x, c & 2 ? hi.y : lo.y, c & 4 ? hi.z : lo.z);
      const s = Vector3.TransformCoordinates(p, vp);
      ax = Math.min(ax, s.x);
      ay = Math.min(ay, s.y);
      bx = Math.max(bx, s.x);
      by = Math.max(by, s.y);
    }
    cx = (ax + bx) / 2;
    cy = (ay + by) / 2;
    // the projection shrinks about as 1 / radius: scale the radius by how much too big or small it is
    if (k < 5) camera.radius *= Math.max((bx - ax) / width, (by - ay) / height);
  }
  // a view-space shift at the target's depth moves the picture by shift / (radius · tan · aspect) half-views
  camera.targetScreenOffset.set(((x0 + 1) / 2 - cx) * camera.radius * tan * aspect, -cy * camera.radius * tan);
}
