/**
 * Four copies of one character, each in its own NullEngine scene, driven by the same animation script: one
 * without IK (Babylon's own pose), one with an IK at master weight 0, one with the IK on every frame and one
 * with the IK on only at a few check frames. `runTwins` renders them in lockstep and measures, in fractions of
 * the character's height, how far the IK's copies stray from Babylon's pose (see {@link TwinFigures}).
 */
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { PrecisionDate } from "@babylonjs/core/Misc/precisionDate.js";
import { vi } from "vitest";
import { type LoadedModel, type ModelName, loadModel } from "./babylon-scene.js";
import { height } from "./scene-probes.js";

/** One copy of the character: its model, its clips by name, and what the IK side set up. */
export interface Twin {
  m: LoadedModel;
  /** The clips the scenario loaded, and any group its `prepare` added, by name. */
  groups: Map<string, AnimationGroup>;
}

/** The IK the scenario puts on a copy: its master weight, and where its hand goes (world, set every frame). */
export interface TwinIK {
  /** Sets the master weight (0 or 1). */
  setWeight(w: number): void;
  /** Sets the effector target, a world position, for this frame. */
  setTarget(p: Vector3): void;
  /** The bone that should reach the target. */
  readonly end: Bone;
  /** The root of its limb: the target is pulled a quarter of the way toward it from the animated end. */
  readonly anchor: Bone;
  /** Every bone the IK writes (the others must keep Babylon's local pose). */
  readonly writes: ReadonlySet<Bone>;
  dispose(): void;
}

/** An animation set-up: clips, extra groups, what happens between frames. */
export interface TwinScenario {
  model?: ModelName;
  /** glTF clips to load. */
  clips: readonly string[];
  /** Called once per copy after loading (build masked, additive or partial groups; start clips). */
  prepare?(t: Twin): void;
  /** Called on every copy before frame `f` is rendered (key handlers, timelines, cross-fades). */
  between?(t: Twin, f: number): void;
  /** Frames to render (default 600). */
  frames?: number;
  /**
   * Drive time by a clock that advances 16 ms a frame instead of Babylon's constant delta (which ignores
   * `scene.animationTimeScale`).
   */
  clock?: boolean;
}

/** The worst figures over the run, in fractions of the character's height (rotations in radians). */
export interface TwinFigures {
  /** IK at weight 0 vs. no IK, every bone's world position, every frame. */
  weightZero: number;
  /** What the IK reads (the bones after the animations, before the solve) vs. no IK, every bone. */
  read: number;
  /** The effector's bone from its target after the solve. */
  reach: number;
  /** Bones the IK does not write: local position (÷ height) vs. no IK. */
  othersPosition: number;
  /** Bones the IK does not write: local rotation (largest quaternion component difference) vs. no IK. */
  othersRotation: number;
  /** Frame N with the IK on since frame 0 vs. frame N with the IK on only at N (check frames). */
  drift: number;
  /** Frame where `read` was worst (or -1). */
  readFrame: number;
}

/** The frames where the IK-only-now copy solves and the drift is measured. */
const CHECKS = [1, 60, 150, 250, 350, 450, 599];

/** Every bone's world position, forced from the linked nodes. */
function worldPositions(m: LoadedModel, out: Vector3[]): void {
  m.skeleton.bones.forEach((b, i) => {
    const n = b.getTransformNode();
    out[i] ??= new Vector3();
    out[i]!.copyFrom(n!.computeWorldMatrix(true).getTranslation());
  });
}

function worst(a: Vector3[], b: Vector3[]): number {
  let w = 0;
  for (let i = 0; i < a.length; i++) w = Math.max(w, Vector3.Distance(a[i]!, b[i]!));
  return w;
}

/** Largest difference of two rotations' components, q and -q alike. */
function rotationGap(a: Quaternion, b: Quaternion): number {
  const s = Quaternion.Dot(a, b) < 0 ? -1 : 1;
  return Math.max(Math.abs(a.x - s * b.x), Math.abs(a.y - s * b.y), Math.abs(a.z - s * b.z), Math.abs(a.w - s * b.w));
}

/**
 * Loads four copies, runs the scenario on all of them in lockstep and returns the figures. `makeIK` puts the
 * IK on a copy (weight 1 unless set otherwise); its target is the end bone of the copy without IK, pulled a
 * quarter of the way toward the limb's root and raised by `lift` × height (always within reach).
 */
export async function runTwins(scenario: TwinScenario, makeIK: (t: Twin) => TwinIK, lift = 0.03): Promise<TwinFigures> {
  const load = async (): Promise<Twin> => {
    const m = await loadModel(scenario.model ?? "UAL", { clips: (c) => scenario.clips.includes(c) });
    if (scenario.clock === true) m.scene.useConstantAnimationDeltaTime = false;
    const groups = new Map<string, AnimationGroup>();
    for (const g of m.container.animationGroups) groups.set(g.name, g);
    return { m, groups };
  };
  const twins = [await load(), await load(), await load(), await load()];
  const [ref, zero, on, late] = twins as [Twin, Twin, Twin, Twin];
  let now = 1000;
  const clock = scenario.clock === true ? vi.spyOn(PrecisionDate, "Now", "get").mockImplementation(() => now) : null;
  try {
    for (const t of twins) scenario.prepare?.(t);
    const iks = [zero, on, late].map((t) => makeIK(t));
    const [ikZero, ikOn, ikLate] = iks as [TwinIK, TwinIK, TwinIK];
    ikZero.setWeight(0);
    const h = height(ref.m);
    const figures: TwinFigures = {
      weightZero: 0,
      read: 0,
      reach: 0,
      othersPosition: 0,
      othersRotation: 0,
      drift: 0,
      readFrame: -1,
    };
    const refPose: Vector3[] = [];
    const pose: Vector3[] = [];
    const latePose: Vector3[] = [];
    const bones = on.m.skeleton.bones;
    const endIndex = bones.indexOf(ikOn.end);
    const anchorIndex = bones.indexOf(ikOn.anchor);
    const target = new Vector3();
    const others = bones.map((b, i) => (ikOn.writes.has(b) ? -1 : i)).filter((i) => i >= 0);
    let frame = 0;
    // what the IK will read: the bones after the animations and every observer, before the solve
    const probe = on.m.scene.onBeforeRenderObservable.add(() => {
      worldPositions(on.m, pose);
      const e = worst(pose, refPose) / h;
      if (e > figures.read) {
        figures.read = e;
        figures.readFrame = frame;
      }
    });
    const frames = scenario.frames ?? 600;
    for (frame = 0; frame < frames; frame++) {
      for (const t of twins) scenario.between?.(t, frame);
      now += 16;
      ref.m.scene.render();
      worldPositions(ref.m, refPose);
      Vector3.LerpToRef(refPose[endIndex]!, refPose[anchorIndex]!, 0.25, target);
      target.y += lift * h;
      for (const ik of iks) ik.setTarget(target);
      const check = CHECKS.includes(frame);
      ikLate.setWeight(check ? 1 : 0);
      zero.m.scene.render();
      on.m.scene.render();
      late.m.scene.render();
      worldPositions(zero.m, pose);
      figures.weightZero = Math.max(figures.weightZero, worst(pose, refPose) / h);
      worldPositions(on.m, pose);
      figures.reach = Math.max(figures.reach, Vector3.Distance(pose[endIndex]!, target) / h);
      for (const i of others) {
        const a = bones[i]!.getTransformNode()!;
        const b = ref.m.skeleton.bones[i]!.getTransformNode()!;
        figures.othersPosition = Math.max(figures.othersPosition, Vector3.Distance(a.position, b.position) / h);
        figures.othersRotation = Math.max(
          figures.othersRotation,
          rotationGap(a.rotationQuaternion!, b.rotationQuaternion!),
        );
      }
      if (check) {
        worldPositions(late.m, latePose);
        figures.drift = Math.max(figures.drift, worst(pose, latePose) / h);
      }
    }
    on.m.scene.onBeforeRenderObservable.remove(probe);
    for (const ik of iks) ik.dispose();
    return figures;
  } finally {
    clock?.mockRestore();
    for (const t of twins) t.m.dispose();
  }
}
