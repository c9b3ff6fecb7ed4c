/** A thrown ball, sized from the character: it flies in on an arc with a trail, flashes at the impact, bounces off. */
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import type { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { TrailMesh } from "@babylonjs/core/Meshes/trailMesh";
import type { Scene } from "@babylonjs/core/scene";
import { mat } from "../kit";

/** Seconds from the throw to the impact. */
export const FLIGHT = 0.7;

/** A ball thrown at a point: {@link update} moves it and returns true on the frame of the impact. */
export class ThrownBall {
  /** Where the last throw started and where it lands (world). */
  readonly from = new Vector3();
  readonly to = new Vector3();
  /** Unit direction of the ball at the impact (its arc's tangent). */
  readonly direction = new Vector3();
  /** "flight" until the impact, then "bounce" for a second, then "none". */
  phase: "none" | "flight" | "bounce" = "none";
  private readonly ball: Mesh;
  private readonly trail: TrailMesh;
  private readonly flash: Mesh;
  private readonly flashMat: StandardMaterial;
  private readonly velocity = new Vector3();
  private readonly arc: number;
  private t = 0;
  private flashT = 1;

  /** Builds the ball (diameter 0.09 h), its trail and its flash, hidden until a throw. */
  constructor(
    scene: Scene,
    shadows: ShadowGenerator,
    private readonly h: number,
  ) {
    this.arc = 0.35 * h;
    this.ball = CreateSphere("ball", { diameter: 0.09 * h, segments: 16 }, scene);
    this.ball.material = mat(scene, "ball", new Color3(0.95, 0.8, 0.1));
    shadows.addShadowCaster(this.ball, false);
    this.trail = new TrailMesh("ball trail", this.ball, scene, { diameter: 0.035 * h, length: 12, autoStart: true });
    const trailMat = mat(scene, "trail", new Color3(1, 0.9, 0.4), 0.45);
    trailMat.emissiveColor = new Color3(1, 0.7, 0.2);
    this.trail.material = trailMat;
    this.flash = CreateSphere("flash", { diameter: 1, segments: 12 }, scene);
    this.flashMat = mat(scene, "flash", new Color3(1, 1, 0.8));
    this.flashMat.emissiveColor = new Color3(1, 0.9, 0.5);
    this.flashMat.disableLighting = true;
    this.flash.material = this.flashMat;
    for (const m of [this.ball, this.trail, this.flash]) {
      m.isPickable = false;
      m.setEnabled(false);
    }
  }

  /** Throws the ball at `point`, coming along `dir` (horizontal part), from 2.4 h back and 0.8 h aside. */
  throwAt(point: Vector3, dir: Vector3): void {
    const d = new Vector3(dir.x, 0, dir.z).normalize();
    const side = Vector3.Cross(Vector3.Up(), d);
    this.from
      .copyFrom(point)
      .subtractInPlace(d.scale(2.4 * this.h))
      .addInPlace(side.scale(0.8 * this.h));
    this.to.copyFrom(point);
    this.to
      .subtractToRef(this.from, this.direction)
      .addInPlaceFromFloats(0, -4 * this.arc, 0)
      .normalize();
    this.t = 0;
    this.phase = "flight";
    this.ball.position.copyFrom(this.from);
    this.ball.setEnabled(true);
    this.trail.setEnabled(true);
    this.trail.reset();
  }

  /** Moves the ball by `dt` seconds; true on the frame it reaches the point (the flash starts there). */
  update(dt: number): boolean {
    const h = this.h;
    const pos = this.ball.position;
    let impact = false;
    if (this.phase === "flight") {
      const t = (this.t = Math.min(1, this.t + dt / FLIGHT));
      Vector3.LerpToRef(this.from, this.to, t, pos);
      pos.y += this.arc * 4 * t * (1 - t);
      if (t >= 1) {
        // it bounces back off the body and falls
        this.velocity
          .copyFrom(this.direction)
          .scaleInPlace(-0.8 * h)
          .addInPlaceFromFloats(0, 1.2 * h, 0);
        this.flash.position.copyFrom(this.to);
        this.flash.setEnabled(true);
        this.flashT = 0;
        this.phase = "bounce";
        this.t = 0;
        impact = true;
      }
    } else if (this.phase === "bounce") {
      this.t += dt;
      this.velocity.y -= 9.8 * (h / 1.75) * dt;
      pos.addInPlaceFromFloats(this.velocity.x * dt, this.velocity.y * dt, this.velocity.z * dt);
      if (pos.y < 0.045 * h) {
        // a bounce on the floor (y = 0), losing most of its speed
        pos.y = 0.045 * h;
        this.velocity.scaleInPlace(0.5);
        this.velocity.y = Math.abs(this.velocity.y);
      }
      if (this.t > 1) {
        this.phase = "none";
        this.ball.setEnabled(false);
        this.trail.setEnabled(false);
      }
    }
    this.flashT = Math.min(1, this.flashT + dt / 0.3);
    this.flash.scaling.setAll(0.05 * h + 0.35 * h * this.flashT);
    this.flashMat.alpha = 0.8 * (1 - this.flashT);
    if (this.flashT >= 1) this.flash.setEnabled(false);
    return impact;
  }
}
