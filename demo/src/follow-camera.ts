/** The course's camera: it follows a walker from the side, turning with its heading and easing to its position. */
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector";

export class FollowCamera {
  private heading: number;
  private turn = 0;

  /** Follows with `camera`, the walker first heading along `dir`. */
  constructor(
    private readonly camera: ArcRotateCamera,
    dir: Vector3,
  ) {
    this.heading = Math.atan2(dir.z, dir.x);
  }

  /** One frame of `dt` seconds: the walker heads along `dir`, the camera's target eases to `at`. */
  update(dt: number, dir: Vector3, at: Vector3): void {
    const now = Math.atan2(dir.z, dir.x);
    this.turn += Math.atan2(Math.sin(now - this.heading), Math.cos(now - this.heading));
    this.heading = now;
    const turn = this.turn * Math.min(1, 2 * dt);
    this.camera.alpha += turn;
    this.turn -= turn;
    const t = this.camera.target;
    const k = Math.min(1, 4 * dt);
    t.set(t.x + (at.x - t.x) * k, t.y + (at.y - t.y) * k, t.z + (at.z - t.z) * k);
  }
}
