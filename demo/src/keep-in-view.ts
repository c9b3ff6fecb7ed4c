/**
 * A following camera that keeps more than what it follows in view: each frame its radius and screen shift are fitted
 * to a set of points (a watcher as well as the creature it watches), its target and turn left to the follow. The
 * user's wheel zoom is kept, as a factor on the fitted radius.
 */
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { framePoints } from "./frame-box";

export class KeepInView {
  /** The radius this set last frame (NaN before the first): another one now is the user's zoom. */
  private last = Number.NaN;
  /** The user's zoom since, as a factor on the fitted radius. */
  private zoom = 1;

  constructor(private readonly camera: ArcRotateCamera) {}

  /** The user's zoom forgotten: the camera was put back where the scenario framed it. */
  reset(): void {
    this.last = Number.NaN;
    this.zoom = 1;
  }

  /** Fits the camera's radius and shift to `points` (its alpha, beta and target as they are), times the user's zoom. */
  update(points: readonly Vector3[]): void {
    const camera = this.camera;
    if (camera.radius !== this.last && Number.isFinite(this.last)) this.zoom *= camera.radius / this.last;
    framePoints(camera, points);
    // within the camera's own limits: its clamp would otherwise read as the user's zoom, frame after frame
    const lower = camera.lowerRadiusLimit ?? 0;
    camera.radius = Math.max(lower, Math.min(camera.upperRadiusLimit ?? Infinity, camera.radius * this.zoom));
    this.last = camera.radius;
  }
}
