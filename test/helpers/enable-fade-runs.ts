/**
 * Runs for the `enableFadeSeconds` tests: clones of one model playing the same clip in one scene (the IK under
 * test, a twin without IK, others as a test needs), and the per-frame jump of the IK's displacement from the
 * twin, in character heights.
 */
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { type LoadedModel, type ModelName, loadModel } from "./babylon-scene.js";
import { worldPos } from "./scene-probes.js";

/** The models the runs loaded (dispose them after each test: {@link disposeModels}). */
export const openModels: LoadedModel[] = [];

/** Disposes every model the runs loaded. */
export function disposeModels(): void {
  while (openModels.length > 0) openModels.pop()!.dispose();
}

/** 0.3 s at the tests' constant 16 ms a frame: 18.75 frames. */
export const FADE = 0.3;
export const DT = 0.016;
export const FRAMES = FADE / DT;
/**
 * The largest per-frame jump of a fade, as a share of the instant jump. The output is written at a weight that
 * moves by dt / FADE a frame, each bone's local offset from the animated pose slerped by it: a bone's own offset
 * turns 1/18.75 of its angle a frame. Its world place adds its ancestors' turns, so it runs along a curve whose
 * chord is the instant jump (arc / chord = θ / (2 sin(θ/2)) for one joint: 1.05 at 60°, more where the body
 * bends as well), and the clip moves the levers meanwhile (the settled IK's offset changes 0.14 % h a frame
 * here). Allowed: 1.25 × 1/18.75 (1/15); measured 1/16.3 – 1/18.1 (FBBIK_REPORT=1 prints the figures).
 */
export const BOUND = 1.25 / FRAMES;
export const CLIPS: Partial<Record<ModelName, string>> = {
  UAL: "Idle_Loop",
  Xbot: "idle",
  Soldier: "Idle",
  RobotExpressive: "Dance",
};

export interface Clone {
  root: TransformNode;
  skeleton: Skeleton;
  group: AnimationGroup;
}

/** The model with `count` clones of its character, each playing the same clip from its start. */
export async function clones(name: ModelName, count: number): Promise<{ m: LoadedModel; c: Clone[]; h: number }> {
  const clip = CLIPS[name]!;
  const m = await loadModel(name, { clips: (c) => c === clip });
  openModels.push(m);
  const c = Array.from({ length: count }, (_, i) => {
    const e = m.container.instantiateModelsToScene((n) => `c${i}_${n}`, false, { doNotInstantiate: true });
    const group = e.animationGroups.find((g) => g.name.endsWith(clip))!;
    return { root: e.rootNodes[0] as TransformNode, skeleton: e.skeletons[0]!, group };
  });
  // the loaded character stays still and out of the way (disabled before cloning, its clones would be too)
  m.root.setEnabled(false);
  for (const k of c) k.group.start(true);
  m.scene.render();
  const ys = c[0]!.skeleton.bones.map((b) => worldPos(b).y);
  return { m, c, h: Math.max(...ys) - Math.min(...ys) };
}

/** Every bone's world place minus the twin's (the IK's own displacement). */
export function offsets(ik: Skeleton, twin: Skeleton): Vector3[] {
  return ik.bones.map((b, i) => worldPos(b).subtract(worldPos(twin.bones[i]!)));
}

/** The largest distance between matching vectors. */
export function largest(a: Vector3[], b: Vector3[]): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Vector3.Distance(a[i]!, b[i]!));
  return worst;
}

/** The largest length. */
export function longest(a: Vector3[]): number {
  return Math.max(...a.map((v) => v.length()));
}

/**
 * Renders `frames` frames, calling `before(f)` ahead of each; returns the largest per-frame jump (h) and the
 * offsets after each frame.
 */
export function run(
  m: LoadedModel,
  ik: Skeleton,
  twin: Skeleton,
  h: number,
  frames: number,
  before: (f: number) => void = () => {},
): { jump: number; jumps: number[]; after: Vector3[][] } {
  let last = offsets(ik, twin);
  const jumps: number[] = [];
  const after: Vector3[][] = [];
  for (let f = 0; f < frames; f++) {
    before(f);
    m.scene.render();
    const now = offsets(ik, twin);
    jumps.push(largest(now, last) / h);
    after.push(now);
    last = now;
  }
  return { jump: Math.max(...jumps), jumps, after };
}

/**
 * The largest jump (h) when `ik` is switched off at once (enableFadeSeconds 0), then on again; it is left on with
 * enableFadeSeconds {@link FADE}.
 */
export function instantJump(
  m: LoadedModel,
  ik: { enabled: boolean; enableFadeSeconds: number },
  skeleton: Skeleton,
  twin: Skeleton,
  h: number,
): number {
  ik.enableFadeSeconds = 0;
  const jump = run(m, skeleton, twin, h, 2, (f) => {
    if (f === 1) ik.enabled = false;
  }).jump;
  ik.enabled = true;
  run(m, skeleton, twin, h, 3);
  ik.enableFadeSeconds = FADE;
  return jump;
}

/** Every bone's local pose, as numbers (bit-exact comparisons). */
export function locals(s: Skeleton): number[] {
  return s.bones.flatMap((b) => {
    const t = b.getTransformNode()!;
    return [...t.position.asArray(), ...t.rotationQuaternion!.asArray()];
  });
}

export const report = (line: string): void => {
  if (process.env.FBBIK_REPORT) console.log(line);
};
