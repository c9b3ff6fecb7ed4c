/**
 * The crowd's markers, each one mesh drawn as thin instances (one draw call for a thousand): a ring at each
 * character's feet coloured by its IK level, and a wand per character (a stick from the grip the right hand
 * reaches for, up to a glowing ball, so the target shows above the fist instead of inside it).
 */
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { CreateTorus } from "@babylonjs/core/Meshes/Builders/torusBuilder";
import type { Scene } from "@babylonjs/core/scene";
import "@babylonjs/core/Meshes/thinInstanceMesh";
import { flatSignalMaterial, signalMaterial } from "./signal";

/** Ring colours by IK level (IKLevel: Off 0, Cheap 1, Full 2), RGB. */
export const LEVEL_COLOURS: readonly (readonly [number, number, number])[] = [
  [0.55, 0.57, 0.62],
  [1, 0.62, 0.12],
  [0.2, 0.85, 0.35],
];

/** Per-character rings and wands for up to `capacity` characters of height `h`. */
export class CrowdMarkers {
  /** Grip height under the ball: the wrist goes to the wand's foot, the ball sits this far above it. */
  readonly ballAbove: number;
  /** The ball's radius. */
  readonly ballRadius: number;
  /** The wand's direction from the grip to the ball (world, unit): up, or leaning ahead of a chibi's face. */
  readonly wandUp: Vector3;
  private readonly rings: Mesh;
  private readonly balls: Mesh;
  private readonly sticks: Mesh;
  private readonly ringMatrices: Float32Array;
  private readonly ringColours: Float32Array;
  /** Shared by the balls and the sticks: both are modelled about the grip. */
  private readonly wandMatrices: Float32Array;
  private readonly level: Int8Array;

  /**
   * `fist`: how many times a realistic fist the hand's is (the wand grows with it: a chibi's hid the ball);
   * `wandUp`: the wand's direction, up unless given.
   */
  constructor(scene: Scene, h: number, capacity: number, fist = 1, wandUp = Vector3.Up()) {
    ({ above: this.ballAbove, radius: this.ballRadius } = CrowdMarkers.wandSize(h, fist));
    this.wandUp = wandUp.normalizeToNew();
    // both modelled upright about the grip, then turned onto the wand's direction
    const turn = Matrix.FromQuaternionToRef(
      Quaternion.FromUnitVectorsToRef(Vector3.Up(), this.wandUp, new Quaternion()),
      new Matrix(),
    );
    this.level = new Int8Array(capacity).fill(-1);
    this.ringMatrices = identities(capacity);
    this.wandMatrices = identities(capacity);
    this.ringColours = new Float32Array(capacity * 4).fill(1);
    // the instance colour alone (lighting and tone mapping off), so each level reads as the legend's colour
    const flat = flatSignalMaterial(scene, "crowd ring", Color3.White());
    this.rings = CreateTorus("crowd rings", { diameter: 0.42 * h, thickness: 0.03 * h, tessellation: 32 }, scene);
    this.rings.material = flat;
    this.rings.thinInstanceSetBuffer("matrix", this.ringMatrices, 16, false);
    this.rings.thinInstanceSetBuffer("color", this.ringColours, 4, false);
    const ballMat = signalMaterial(scene, "crowd ball", new Color3(1, 0.85, 0.2));
    this.balls = CreateSphere("crowd balls", { diameter: 2 * this.ballRadius, segments: 8 }, scene);
    this.balls.bakeTransformIntoVertices(Matrix.Translation(0, this.ballAbove, 0).multiply(turn));
    this.balls.material = ballMat;
    const stickMat = new StandardMaterial("crowd stick", scene);
    stickMat.diffuseColor = new Color3(0.25, 0.2, 0.18);
    this.sticks = CreateCylinder(
      "crowd sticks",
      { height: this.ballAbove, diameter: 0.012 * h, tessellation: 6 },
      scene,
    );
    this.sticks.bakeTransformIntoVertices(Matrix.Translation(0, this.ballAbove / 2, 0).multiply(turn));
    this.sticks.material = stickMat;
    for (const m of [this.balls, this.sticks]) m.thinInstanceSetBuffer("matrix", this.wandMatrices, 16, false);
    for (const m of [this.rings, this.balls, this.sticks]) {
      m.isPickable = false;
      // the instances spread over the whole crowd: the base mesh's box would cull them all
      m.alwaysSelectAsActiveMesh = true;
    }
    this.setCount(0);
  }

  /** A wand's ball: how far `above` its grip and its `radius`, for characters of height `h` and a `fist`. */
  static wandSize(h: number, fist = 1): { above: number; radius: number } {
    return { above: 0.11 * h * fist, radius: 0.035 * h * fist };
  }

  /** Shows the first `n` rings and wands. */
  setCount(n: number): void {
    for (const m of [this.rings, this.balls, this.sticks]) m.thinInstanceCount = n;
  }

  /** Places ring `i` at a character's feet (call {@link ringsMoved} once after placing them). */
  placeRing(i: number, x: number, y: number, z: number): void {
    const o = i * 16;
    this.ringMatrices[o + 12] = x;
    this.ringMatrices[o + 13] = y;
    this.ringMatrices[o + 14] = z;
  }

  /** Uploads the rings' new places. */
  ringsMoved(): void {
    this.rings.thinInstanceBufferUpdated("matrix");
  }

  /** Places wand `i`'s grip (call {@link wandsMoved} once after placing them all). */
  placeGrip(i: number, x: number, y: number, z: number): void {
    const o = i * 16;
    this.wandMatrices[o + 12] = x;
    this.wandMatrices[o + 13] = y;
    this.wandMatrices[o + 14] = z;
  }

  /** Uploads the wands' new places. */
  wandsMoved(): void {
    this.balls.thinInstanceBufferUpdated("matrix");
    this.sticks.thinInstanceBufferUpdated("matrix");
  }

  /** Colours ring `i` by `level` (IKLevel); true when it changed (call {@link ringsRecoloured} then). */
  setLevel(i: number, level: number): boolean {
    if (this.level[i] === level) return false;
    this.level[i] = level;
    const c = LEVEL_COLOURS[level]!;
    this.ringColours[i * 4] = c[0];
    this.ringColours[i * 4 + 1] = c[1];
    this.ringColours[i * 4 + 2] = c[2];
    return true;
  }

  /** Uploads the rings' new colours. */
  ringsRecoloured(): void {
    this.rings.thinInstanceBufferUpdated("color");
  }

  /** The level ring `i` shows (−1 before its first colouring). */
  levelShown(i: number): number {
    return this.level[i]!;
  }

  /** Wand `i`'s grip and ball centre in world space (the test hook's scene objects). */
  wand(i: number): { grip: [number, number, number]; ball: [number, number, number] } {
    const m = this.wandMatrices;
    const o = i * 16;
    return {
      grip: [m[o + 12]!, m[o + 13]!, m[o + 14]!],
      ball: [
        m[o + 12]! + this.wandUp.x * this.ballAbove,
        m[o + 13]! + this.wandUp.y * this.ballAbove,
        m[o + 14]! + this.wandUp.z * this.ballAbove,
      ],
    };
  }

  dispose(): void {
    for (const m of [this.rings, this.balls, this.sticks]) m.dispose(false, true);
  }
}

function identities(n: number): Float32Array {
  const a = new Float32Array(n * 16);
  for (let i = 0; i < n; i++) {
    a[i * 16] = 1;
    a[i * 16 + 5] = 1;
    a[i * 16 + 10] = 1;
    a[i * 16 + 15] = 1;
  }
  return a;
}
