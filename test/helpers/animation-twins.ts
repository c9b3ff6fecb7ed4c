/**
 * Copies of one character, each in its own NullEngine scene, driven by the same animation script: one without
 * IK (Babylon's own pose) and, for each IK set-up, one with the IK on every frame and one with the IK at master
 * weight 0 but at a few check frames. `runTwins` renders them in lockstep and measures how far the IK's copies
 * stray from Babylon's pose (see {@link TwinFigures}).
 */
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Node } from "@babylonjs/core/node.js";
import type { Scene } from "@babylonjs/core/scene.js";
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
  /** Renders a copy's frame (default `scene.render()`; e.g. an app's own `scene.animate()` first). */
  render?(scene: Scene): void;
}

/**
 * The worst figures over the run. A "gap" between two copies is the largest difference of any bone's local
 * transform: its position's in fractions of the character's height, its rotation's quaternion components
 * (q and −q alike); 0 means the poses are the same bit for bit.
 */
export interface TwinFigures {
  /** IK at weight 0 vs. no IK after the frame, every bone, every frame but the check frames (not the next ones). */
  weightZero: number;
  /** What the IK reads (the bones after the animations, before the solve) vs. no IK, every bone, every frame. */
  read: number;
  /** The effector's bone from its target after the solve, world, ÷ height. */
  reach: number;
  /** Bones the IK does not write vs. no IK, after the frame. */
  others: number;
  /** Frame N with the IK on since frame 0 vs. frame N with the IK on only at N (check frames). */
  drift: number;
  /** Frame where `read` was worst (or -1). */
  readFrame: number;
}

/** The frames where the IK-only-now copy solves and the drift is measured. */
const CHECKS = [1, 60, 150, 250, 350, 450, 599];

/** The largest local difference between the bones `ids` of two copies (see {@link TwinFigures}). */
function gap(a: LoadedModel, b: LoadedModel, h: number, ids: readonly number[]): number {
  let w = 0;
  for (const i of ids) {
    const p = a.skeleton.bones[i]!.getTransformNode()!;
    const q = b.skeleton.bones[i]!.getTransformNode()!;
    w = Math.max(
      w,
      Vector3.Distance(p.position, q.position) / h,
      rotationGap(p.rotationQuaternion!, q.rotationQuaternion!),
    );
  }
  return w;
}

/** Largest difference of two rotations' components, q and -q alike. */
function rotationGap(a: Quaternion, b: Quaternion): number {
  const s = Quaternion.Dot(a, b) < 0 ? -1 : 1;
  return Math.max(Math.abs(a.x - s * b.x), Math.abs(a.y - s * b.y), Math.abs(a.z - s * b.z), Math.abs(a.w - s * b.w));
}

/** A bone's world position, its ancestors' world matrices forced root first (a probe never sees a stale one). */
function worldOf(bone: Bone, out: Vector3): Vector3 {
  const chain: TransformNode[] = [];
  for (let n: Node | null = bone.getTransformNode(); n !== null; n = n.parent) chain.push(n as TransformNode);
  for (let i = chain.length - 1; i >= 0; i--) chain[i]!.computeWorldMatrix(true);
  return out.copyFrom(chain[0]!.getAbsolutePosition());
}

/**
 * Runs the scenario on one copy without IK and, for each of `makers`, two more (the IK on every frame; the IK
 * at weight 0 but at the check frames), all in lockstep, and returns each IK's figures in `makers`' order. The
 * IKs share the copy without IK: each copy is its own scene, so the others cannot change what one reads.
 * `makeIK` puts the IK on a copy (weight 1 unless set otherwise); its target is the end bone of the copy
 * without IK, pulled a quarter of the way toward the limb's root and raised by `lift` × height (always within
 * reach).
 */
export async function runTwins(
  scenario: TwinScenario,
  makers: readonly ((t: Twin) => TwinIK)[],
  lift = 0.03,
): Promise<TwinFigures[]> {
  const load = async (): Promise<Twin> => {
    const m = await loadModel(scenario.model ?? "UAL", { clips: (c) => scenario.clips.includes(c) });
    if (scenario.clock === true) m.scene.useConstantAnimationDeltaTime = false;
    const groups = new Map<string, AnimationGroup>();
    for (const g of m.container.animationGroups) groups.set(g.name, g);
    return { m, groups };
  };
  const twins: Twin[] = [];
  for (let i = 0; i < 1 + 2 * makers.length; i++) twins.push(await load());
  const ref = twins[0]!;
  let now = 1000;
  const clock = scenario.clock === true ? vi.spyOn(PrecisionDate, "Now", "get").mockImplementation(() => now) : null;
  const probes: (() => void)[] = [];
  const iks: TwinIK[] = [];
  try {
    for (const t of twins) scenario.prepare?.(t);
    const h = height(ref.m);
    let frame = 0;
    const runs = makers.map((makeIK, k) => {
      const on = twins[1 + 2 * k]!;
      const late = twins[2 + 2 * k]!;
      const ikOn = makeIK(on);
      const ikLate = makeIK(late);
      iks.push(ikOn, ikLate);
      const figures: TwinFigures = { weightZero: 0, read: 0, reach: 0, others: 0, drift: 0, readFrame: -1 };
      const bones = on.m.skeleton.bones;
      const all = bones.map((_, i) => i);
      // what the IK will read: the bones after the animations and every observer, before the solve
      const probe = on.m.scene.onBeforeRenderObservable.add(() => {
        const e = gap(on.m, ref.m, h, all);
        if (e > figures.read) {
          figures.read = e;
          figures.readFrame = frame;
        }
      });
      probes.push(() => on.m.scene.onBeforeRenderObservable.remove(probe));
      return {
        on,
        late,
        ikOn,
        ikLate,
        figures,
        all,
        others: all.filter((i) => !ikOn.writes.has(bones[i]!)),
        end: bones.indexOf(ikOn.end),
        anchor: bones.indexOf(ikOn.anchor),
      };
    });
    const target = new Vector3();
    const anchor = new Vector3();
    const hand = new Vector3();
    const frames = scenario.frames ?? 600;
    const render = scenario.render ?? ((scene: Scene) => scene.render());
    for (frame = 0; frame < frames; frame++) {
      for (const t of twins) scenario.between?.(t, frame);
      now += 16;
      render(ref.m.scene);
      const check = CHECKS.includes(frame);
      for (const r of runs) {
        worldOf(ref.m.skeleton.bones[r.end]!, target);
        worldOf(ref.m.skeleton.bones[r.anchor]!, anchor);
        Vector3.LerpToRef(target, anchor, 0.25, target);
        target.y += lift * h;
        r.ikOn.setTarget(target);
        r.ikLate.setTarget(target);
        r.ikLate.setWeight(check ? 1 : 0);
        render(r.on.m.scene);
        render(r.late.m.scene);
        const f = r.figures;
        if (!check) f.weightZero = Math.max(f.weightZero, gap(r.late.m, ref.m, h, r.all));
        f.reach = Math.max(f.reach, Vector3.Distance(worldOf(r.on.m.skeleton.bones[r.end]!, hand), target) / h);
        f.others = Math.max(f.others, gap(r.on.m, ref.m, h, r.others));
        if (check) f.drift = Math.max(f.drift, gap(r.on.m, r.late.m, h, r.all));
      }
    }
    return runs.map((r) => r.figures);
  } finally {
    for (const remove of probes) remove();
    for (const ik of iks) ik.dispose();
    clock?.mockRestore();
    for (const t of twins) t.m.dispose();
  }
}
