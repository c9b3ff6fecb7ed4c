import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup";
import type { Bone } from "@babylonjs/core/Bones/bone";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton";
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import { Ray } from "@babylonjs/core/Culling/ray";
import type { AbstractEngine } from "@babylonjs/core/Engines/abstractEngine";
import type { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { Scene } from "@babylonjs/core/scene";
import type { AssetContainer } from "@babylonjs/core/assetContainer";
import type { EffectorHandles } from "../../src/babylon/effector-handles";
import type { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik";
import { bonePos, freshWorldMatrix } from "./bone-world";

export { bonePos, boneRotation } from "./bone-world";

/** Named values a scenario records for the e2e test: numbers, world points `[x, y, z]`, strings, nested. */
export type Json = number | string | boolean | null | Json[] | { [k: string]: Json };

export type Pos = [number, number, number];

export interface Character {
  root: TransformNode;
  skeleton: Skeleton;
  /**
   * The FullBodyBipedIK `spawn` attached; disposed (its `references` still the character's bones) where a scenario
   * drives the character with another IK instead (`detachFullBodyIK`: the biped scenario's BipedIK).
   */
  ik: FullBodyBipedIK;
  /** The IK driving the character, as the overlay names it ("FullBodyBipedIK", "BipedIK"). */
  ikName: string;
  idle: AnimationGroup | null;
  /** The model's own clips (stopped at spawn), in the container's order. */
  clips: AnimationGroup[];
  /** Index in `clips` of the clip playing instead of the idle, or −1 for the procedural idle. */
  clip: number;
  /** Extra animation groups (the ground scenario's walk-in-place), paused with the idle. */
  extra: AnimationGroup[];
  /** Joint extent in y. */
  h: number;
  /** Horizontal forward (feet to toes). */
  forward: Vector3;
  /** Horizontal left-to-right... the direction from the left shoulder to the right one, horizontal. */
  right: Vector3;
  meshes: AbstractMesh[];
  /** Animation-only world positions of a few bones this frame (read after the animations, before the IK). */
  animated: Partial<Record<KeyBone, Vector3>>;
}

/** Bones whose animation-only pose is kept for the checks. */
export type KeyBone =
  | "pelvis"
  | "chest"
  | "head"
  | "leftShoulder"
  | "rightShoulder"
  | "leftHand"
  | "rightHand"
  | "leftFoot"
  | "rightFoot";

export function keyBone(c: Character, k: KeyBone): Bone {
  const r = c.ik.references;
  switch (k) {
    case "pelvis":
      return r.pelvis;
    case "chest":
      return r.spine[r.spine.length - 1]!;
    case "head":
      return r.head ?? r.spine[r.spine.length - 1]!;
    case "leftShoulder":
      return r.leftUpperArm;
    case "rightShoulder":
      return r.rightUpperArm;
    case "leftHand":
      return r.leftHand;
    case "rightHand":
      return r.rightHand;
    case "leftFoot":
      return r.leftFoot;
    case "rightFoot":
      return r.rightFoot;
  }
}

const KEY_BONES: KeyBone[] = [
  "pelvis",
  "chest",
  "head",
  "leftShoulder",
  "rightShoulder",
  "leftHand",
  "rightHand",
  "leftFoot",
  "rightFoot",
];

/** Stores the animation-only pose of the key bones (call after the animations, before the IK solves). */
export function captureAnimated(c: Character): void {
  for (const k of KEY_BONES) c.animated[k] = bonePos(keyBone(c, k));
}

export interface Ctx {
  scene: Scene;
  engine: AbstractEngine;
  camera: ArcRotateCamera;
  shadows: ShadowGenerator;
  ground: Mesh;
  container: AssetContainer;
  iks: FullBodyBipedIK[];
  characters: Character[];
  paused(): boolean;
  spawn(position: Vector3): Character;
  /**
   * Everything the panel's "IK on/off" switches: each character's FullBodyBipedIK (added by `spawn`) and any
   * other IK component a scenario creates (AimIK, LookAtIK, CCDIK, the head effector, the grounder, Recoil, …):
   * `enabled = false` eases back to the animation over `enableFadeSeconds`.
   */
  components: IKSwitch[];
}

/** What the panel's IK switch sets: every IK component and hook of the library has these. */
export interface IKSwitch {
  enabled: boolean;
  enableFadeSeconds: number;
  readonly isFading: boolean;
}

/** A scenario: its name in the URL (`?scenario=`), the panel's title and help, and how to build it. */
export interface Scenario {
  name: string;
  title: string;
  /** One or two short sentences shown under the title: what the IK does here, and the controls. */
  help: string;
  build(ctx: Ctx): Promise<ScenarioRun>;
}

/** A running scenario. */
export interface ScenarioRun {
  /**
   * What the scenario recorded at its scripted key moments, from scene objects (bones' world positions,
   * the objects they reach for, raycast ground heights), for the e2e test.
   */
  checks: { [k: string]: Json };
  /** True once every key moment the test needs has been recorded. */
  done: boolean;
  /** The scenario's world targets now (scene objects, not the solver's targets), for the test hook. */
  world?(): Json;
  /** Before the IK solves (after the animations): scripted motion. */
  update?(dt: number): void;
  /** After the IK solved this frame: measurements. */
  after?(): void;
  /** Extra panel content. */
  panel?(el: HTMLElement): void;
  /** Back to the scenario's starting handles/targets (the panel's reset). */
  reset?(): void;
  /** The camera was put back where the scenario framed it (the panel's "reset view"): forget the user's zoom. */
  resetView?(): void;
  /**
   * Selection sync with the panel (free scenario): the effector and chain a selected handle stands for (a bend
   * goal's: no effector, its limb's chain).
   */
  onSelect?: ((sel: { effector: number | null; chain: number | null }) => void) | null;
  select?(sel: { effector: number | null; chain: number | null }): void;
  /** The scenario's effector handles (free), for the test hook. */
  effectorHandles?: EffectorHandles;
  /** Scenario commands for the test hook (hit: `auto` on/off). */
  control?(cmd: string, arg?: Json): Json;
  dispose?(): void;
}

/** World position of a node, its ancestors recomputed first (the parents' cached matrices may be stale). */
export function worldPos(n: TransformNode): Vector3 {
  return freshWorldMatrix(n).getTranslation();
}

export const arr = (v: Vector3): Pos => [v.x, v.y, v.z];

export function mat(scene: Scene, name: string, color: Color3, alpha = 1): StandardMaterial {
  const m = new StandardMaterial(name, scene);
  m.diffuseColor = color;
  m.specularColor = new Color3(0.1, 0.1, 0.1);
  m.alpha = alpha;
  return m;
}

/** Length of a three-bone limb in the current pose: root to middle plus middle to end. */
const limbLength = (a: Bone, b: Bone, d: Bone): number =>
  Vector3.Distance(bonePos(a), bonePos(b)) + Vector3.Distance(bonePos(b), bonePos(d));

export function armLength(c: Character, left: boolean): number {
  const r = c.ik.references;
  return left
    ? limbLength(r.leftUpperArm, r.leftForearm, r.leftHand)
    : limbLength(r.rightUpperArm, r.rightForearm, r.rightHand);
}

/** The longer leg's length, thigh to calf to foot. */
export function legLength(c: Character): number {
  const r = c.ik.references;
  return Math.max(limbLength(r.leftThigh, r.leftCalf, r.leftFoot), limbLength(r.rightThigh, r.rightCalf, r.rightFoot));
}

export function frameCamera(ctx: Ctx, c: Character, target: Vector3, radius: number, side = 0.5, front = 1): void {
  ctx.camera.target = target;
  ctx.camera.radius = radius;
  // the camera sits toward `front` × forward + `side` × right from the target
  const d = c.forward.scale(front).add(c.right.scale(side));
  ctx.camera.alpha = Math.atan2(d.z, d.x);
  ctx.camera.beta = 1.2;
}

/**
 * A cylinder from `a` to `b` (its axis, Y, turned onto the segment), `extra` longer than the segment
 * (half at each end); a segment too short to give a direction keeps the cylinder upright.
 */
export function cylinderBetween(scene: Scene, name: string, a: Vector3, b: Vector3, diameter: number, extra = 0): Mesh {
  const d = b.subtract(a);
  const length = d.length();
  const cyl = CreateCylinder(name, { height: length + extra, diameter, tessellation: 12 }, scene);
  cyl.position.copyFrom(a.add(b).scale(0.5));
  cyl.rotationQuaternion =
    length > 1e-9
      ? Quaternion.FromUnitVectorsToRef(Vector3.Up(), d.scale(1 / length), new Quaternion())
      : Quaternion.Identity();
  return cyl;
}
export function feetOnSurfaces(scene: Scene, surfaces: AbstractMesh[], feet: Bone[]): Json {
  return feet.map((f) => {
    const p = bonePos(f);
    const g = surfaceAt(scene, surfaces, p);
    return { bone: arr(p), ground: g?.y ?? null, surface: g?.mesh ?? null };
  });
}

/**
 * True where the ground under `p` (at height `g`) is a plane `dx` ahead and behind along `along` and `dy` to
 * either side: each pair's heights average to `g` within `tolerance` (an edge or a step's side breaks it, a ramp
 * does not).
 */
export function flatAround(
  scene: Scene,
  surfaces: AbstractMesh[],
  p: Vector3,
  g: number,
  along: Vector3,
  dx: number,
  dy: number,
  tolerance: number,
): boolean {
  const y = (d: Vector3) => surfaceAt(scene, surfaces, p.add(d))?.y ?? Number.NaN;
  const f = along.scale(dx);
  const s = Vector3.Cross(along, Vector3.Up()).normalize().scale(dy);
  const ok = (d: Vector3) => Math.abs(y(d) + y(d.negate()) - 2 * g) < tolerance;
  return ok(f) && ok(s);
}

export function surfaceAt(scene: Scene, meshes: AbstractMesh[], p: Vector3): { y: number; mesh: string } | null {
  const ray = new Ray(new Vector3(p.x, p.y + 5, p.z), new Vector3(0, -1, 0), 20);
  const hit = scene.pickWithRay(ray, (m) => meshes.includes(m));
  return hit?.hit === true && hit.pickedPoint !== null && hit.pickedMesh !== null
    ? { y: hit.pickedPoint.y, mesh: hit.pickedMesh.name }
    : null;
}

/**
 * Plays the character's own clip whose name starts with `name` (instances carry a `#k` suffix), looping, in
 * place of what it played; returns it, or null (and leaves the animation alone) when the model has no such clip.
 */
export function playClip(c: Character, name: string): AnimationGroup | null {
  const i = c.clips.findIndex((g) => g.name === name || g.name.startsWith(`${name}#`));
  if (i < 0) return null;
  if (i === c.clip) return c.clips[i]!;
  (c.clip >= 0 ? c.clips[c.clip] : c.idle)?.stop();
  c.clip = i;
  const g = c.clips[i]!;
  g.start(true, 1);
  return g;
}
