import type { Scene } from "@babylonjs/core/scene.js";

/** A Babylon Animatable (its module moved between Babylon 8 and 9). */
type Animatable = Scene["animatables"][number];

/** The parts of a Babylon RuntimeAnimation read here beyond its public typings (internal in @babylonjs/core 9). */
interface RuntimeAnimationState {
  /** The objects whose `_targetPath` property the animation writes (one per target). */
  _activeTargets: Record<string, unknown>[];
  /** The property it writes on each active target. */
  _targetPath: string;
  /**
   * What each target's property held when the animation started: mixed in under a weight below 1, under
   * additive animations, and added to by ANIMATIONLOOPMODE_RELATIVE_FROM_CURRENT.
   */
  _originalValue: unknown[];
}

/** A value Babylon animates: Vector3, Quaternion, Matrix, Color… (all have these two). */
interface AnimatedValue {
  equals(other: unknown): boolean;
  copyFrom(source: unknown): unknown;
}

function isAnimatedValue(v: unknown): v is AnimatedValue {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as AnimatedValue).equals === "function" &&
    typeof (v as AnimatedValue).copyFrom === "function"
  );
}

function same(a: unknown, b: unknown): boolean {
  return isAnimatedValue(a) ? a.equals(b) : a === b;
}

/**
 * The start snapshots of the animations begun since the last frame (Babylon's RuntimeAnimation
 * `_originalValue`), corrected when they caught the IK's output. A clip started between frames (from a key
 * handler, `onAfterRenderObservable`, an IK hook) snapshots the bones as shown, with the IK's pose on them;
 * Babylon then mixes that pose into the animation for as long as the clip plays (under a weight below 1,
 * additive clips, relative loops), so the IK would solve on top of its own old output. Before FixTransforms
 * {@link collect} keeps the new snapshots that equal their property's current value; after it {@link settle}
 * gives each one whose property FixTransforms changed the value it got back: the animated one. A frame
 * where the scene's list of animatables kept its array, length and last item costs three comparisons
 * (Babylon appends a new animatable, and removes a stopped one); the work is only for those begun since.
 */
export class AnimationSnapshots {
  /** The scene's list of animatables at the last look, its length and last item, to notice new ones. */
  private knownList: readonly Animatable[] | null = null;
  private knownLength = 0;
  private knownLast: Animatable | undefined = undefined;
  /** Animatables already looked at. */
  private readonly seen = new WeakSet<Animatable>();
  /** Snapshots equal to their property before FixTransforms: animation, target index, flattened. */
  private readonly pending: (RuntimeAnimationState | number)[] = [];

  constructor(private readonly scene: Scene) {}

  /** Before FixTransforms: notes the new animations' snapshots that hold their property's current value. */
  collect(): void {
    const list = this.scene.animatables;
    const n = list.length;
    const last = n > 0 ? list[n - 1] : undefined;
    if (list === this.knownList && n === this.knownLength && last === this.knownLast) return;
    this.knownList = list;
    this.knownLength = n;
    this.knownLast = last;
    for (let i = 0; i < n; i++) {
      const animatable = list[i]!;
      if (this.seen.has(animatable)) continue;
      this.seen.add(animatable);
      for (const runtime of animatable.getAnimations()) {
        const state = runtime as unknown as RuntimeAnimationState;
        const targets = state._activeTargets;
        if (targets === undefined || state._originalValue === undefined) continue;
        for (let t = 0; t < targets.length; t++) {
          const original = state._originalValue[t];
          if (original != null && same(original, targets[t]?.[state._targetPath])) this.pending.push(state, t);
        }
      }
    }
  }

  /** After FixTransforms: a noted snapshot whose property it changed takes the property's value now. */
  settle(): void {
    const pending = this.pending;
    for (let i = 0; i < pending.length; i += 2) {
      const state = pending[i] as RuntimeAnimationState;
      const t = pending[i + 1] as number;
      const now = state._activeTargets[t]?.[state._targetPath];
      const original = state._originalValue[t];
      if (now == null || same(original, now)) continue;
      if (isAnimatedValue(original)) original.copyFrom(now);
      else state._originalValue[t] = now;
    }
    pending.length = 0;
  }
}
