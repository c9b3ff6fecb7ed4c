import { Logger } from "@babylonjs/core/Misc/logger.js";
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
  /** Blending (an `animationPropertiesOverride`, or the animation's own `enableBlending`), set when created. */
  _enableBlending?: boolean;
  /** Where a blend starts: a copy of the property taken at the animation's first write, or null before it. */
  _originalBlendValue?: unknown;
  /** The object that first write went to. */
  _currentActiveTarget?: Record<string, unknown> | null;
}

/** FixTransforms on a copy of `target`'s `path` Babylon took: what the IK wrote there becomes the animated value. */
export type UndoOnCopy = (target: object, path: string, value: object) => void;

/** The part of a Babylon Animatable read here beyond its public typings. */
interface AnimatableState {
  /** Its runtime animations; `appendAnimations` pushes new ones onto it. */
  _runtimeAnimations: unknown[];
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
 * gives each one whose property FixTransforms changed the value it got back: the animated one.
 *
 * New animations are noticed where Babylon adds them: `push` on the scene's list of animatables (a new
 * animatable) and on each animatable's list of runtime animations (`appendAnimations`) is wrapped to note
 * the animatable, so neither a re-sorted list nor an animation appended to a playing animatable goes unseen,
 * and a frame where no clip started costs one comparison.
 *
 * A blending animation (a cross-fade) takes its start value (`_originalBlendValue`) at its first write, which
 * is a `goToFrame` between frames as often as the next animation step: each new one gets a one-time setter
 * that passes the copy through `undo` (FixTransforms on the copy) as Babylon stores it.
 */
export class AnimationSnapshots {
  /** The scene's list of animatables at the last look (Babylon may replace the array). */
  private knownList: Animatable[] | null = null;
  /** Animatables given new animations since the last look (filled by the wrapped `push`es). */
  private readonly touched: Animatable[] = [];
  /** Animatables whose runtime list is wrapped, and runtime animations already looked at. */
  private hooked = new WeakSet<Animatable>();
  private readonly seen = new WeakSet<object>();
  /** Runtime animations whose blend start is watched. */
  private readonly guarded = new WeakSet<object>();
  /** The wrappers installed, to take off at {@link dispose}. */
  private readonly listPush: (...items: Animatable[]) => number;
  private disposed = false;
  /** Snapshots equal to their property before FixTransforms: animation, target index, flattened. */
  private readonly pending: (RuntimeAnimationState | number)[] = [];

  constructor(
    private readonly scene: Scene,
    private readonly undo: UndoOnCopy,
  ) {
    const touched = this.touched;
    const self = this;
    this.listPush = function (this: Animatable[], ...items: Animatable[]): number {
      if (!self.disposed) {
        touched.push(...items);
        // before any goToFrame on them: a new animatable's runtimes exist, later appends go through its list
        for (const animatable of items) {
          if (!self.hooked.has(animatable)) self.hookRuntimes(animatable);
          self.guardAll((animatable as unknown as AnimatableState)._runtimeAnimations);
        }
      }
      return Array.prototype.push.apply(this, items);
    };
  }

  /** Before FixTransforms: notes the new animations' snapshots that hold their property's current value. */
  collect(): void {
    const list = this.scene.animatables;
    if (list !== this.knownList) {
      this.knownList = list;
      this.disposed = false;
      wrapPush(list, this.listPush);
      this.touched.push(...list);
    }
    const touched = this.touched;
    if (touched.length === 0) return;
    for (let i = 0; i < touched.length; i++) {
      const animatable = touched[i]!;
      if (!this.hooked.has(animatable)) this.hookRuntimes(animatable);
      for (const runtime of animatable.getAnimations()) {
        if (this.seen.has(runtime)) continue;
        this.seen.add(runtime);
        const state = runtime as unknown as RuntimeAnimationState;
        const targets = state._activeTargets;
        if (targets === undefined || state._originalValue === undefined) continue;
        for (let t = 0; t < targets.length; t++) {
          const original = state._originalValue[t];
          if (original != null && same(original, targets[t]?.[state._targetPath])) this.pending.push(state, t);
        }
      }
    }
    touched.length = 0;
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

  /** Takes the wrappers off the scene's list and its animatables' (the updater's last IK is gone). */
  dispose(): void {
    this.disposed = true;
    this.touched.length = 0;
    this.pending.length = 0;
    this.hooked = new WeakSet<Animatable>();
    const list = this.knownList;
    this.knownList = null;
    if (list === null) return;
    unwrapPush(list, this.listPush);
    for (const animatable of list) {
      const runtimes = (animatable as unknown as AnimatableState)._runtimeAnimations;
      if (runtimes !== undefined) unwrapPush(runtimes, ownPush(runtimes));
    }
  }

  /** Wraps the push of `animatable`'s runtime list so that an appended animation notes it. */
  private hookRuntimes(animatable: Animatable): void {
    this.hooked.add(animatable);
    const runtimes = (animatable as unknown as AnimatableState)._runtimeAnimations;
    if (!Array.isArray(runtimes)) return;
    const self = this;
    const push = function (this: unknown[], ...items: unknown[]): number {
      if (!self.disposed) {
        self.touched.push(animatable);
        self.guardAll(items);
      }
      return Array.prototype.push.apply(this, items);
    };
    wrapPush(runtimes, push);
  }

  private guardAll(runtimes: unknown[] | undefined): void {
    if (runtimes !== undefined) for (const runtime of runtimes) this.guardBlend(runtime as RuntimeAnimationState);
  }

  /**
   * Gives a blending animation whose start value is not taken yet a setter for it, used once: the copy Babylon
   * takes goes through `undo` (it may be taken between frames, from the IK's output), then is stored as a plain
   * value again. Nothing is thrown into Babylon's write.
   */
  private guardBlend(state: RuntimeAnimationState): void {
    if (state._enableBlending !== true || state._originalBlendValue !== null || this.guarded.has(state)) return;
    this.guarded.add(state);
    const self = this;
    Object.defineProperty(state, "_originalBlendValue", {
      configurable: true,
      enumerable: true,
      get: () => null,
      set(value: unknown) {
        Object.defineProperty(state, "_originalBlendValue", {
          value,
          writable: true,
          configurable: true,
          enumerable: true,
        });
        const target = state._currentActiveTarget;
        if (self.disposed || !isAnimatedValue(value) || target == null) return;
        try {
          self.undo(target, state._targetPath, value);
        } catch (e) {
          Logger.Error(`babylon-fbbik: checking a cross-fade's start value failed: ${String(e)}`);
        }
      },
    });
  }
}

/** The `push` wrappers this module installed (another instance's may be replaced, never someone else's). */
const mine = new WeakSet<object>();

/** Installs `push` as the array's own, non-enumerable push (an array this module wrapped before gets the new one). */
function wrapPush(array: unknown[], push: (...items: never[]) => number): void {
  mine.add(push);
  const current = ownPush(array);
  if (current !== undefined && !mine.has(current)) return;
  Object.defineProperty(array, "push", { value: push, configurable: true, writable: true, enumerable: false });
}

/** Removes the array's own push when it is `push`. */
function unwrapPush(array: unknown[], push: object | undefined): void {
  if (push !== undefined && mine.has(push) && ownPush(array) === push) delete (array as { push?: unknown }).push;
}

function ownPush(array: unknown[]): object | undefined {
  return Object.hasOwn(array, "push") ? (array as { push: object }).push : undefined;
}
