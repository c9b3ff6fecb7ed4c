import { Logger } from "@babylonjs/core/Misc/logger.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { AnimationSnapshots } from "./animation-snapshots.js";
import { CloneSnapshots } from "./clone-snapshots.js";
import { type SceneClock, sceneClock } from "./scene-time.js";
import { matchMatrixPrecision } from "./module-matrix.js";

/**
 * What the scene updater drives: a FullBodyBipedIK, a RigComponent, a level-of-detail marker.
 * @internal The components register themselves; a user's own component extends RigComponent.
 */
export interface SceneUpdatable {
  /** @internal Called before the animations (FinalIK's FixTransforms in Update). */
  _beforeAnimations(): void;
  /**
   * @internal Called once per frame after the animations and every `scene.onBeforeRenderObservable` observer, before
   * any render target or camera prepares a skeleton (FinalIK's LateUpdate).
   */
  _beforeRender(): void;
  /**
   * Where the component solves among those of its scene: lower first, equal ones in the order they were
   * added ({@link IKUpdateOrder}; FullBodyBipedIK when absent). Their FixTransforms run in reverse, so each
   * takes its output off before the component it solved on top of does.
   */
  readonly updateOrder?: number;
  /** The skeleton the component writes, for {@link SceneUpdater.takeOff}. */
  readonly skeleton?: Skeleton;
  /** False while the component is switched off (its last output stays on the bones, as FinalIK leaves it). */
  readonly enabled?: boolean;
  /** True while `enabled` fades: switched off, its output still shows until the fade ends. */
  readonly isFading?: boolean;
  /** @internal Takes the component's own output off its bones now (what its FixTransforms does). */
  _takeOff?(): void;
  /** @internal Writes back what the last `_takeOff` took off (between frames, after a read of the animated pose). */
  _putBack?(): void;
  /**
   * @internal What its FixTransforms would do, on `value`, a copy of `target`'s `path` Babylon took: the
   * component's own output there becomes the animated value it replaced.
   */
  _undoOnCopy?(target: object, path: string, value: object): void;
  /** Disposes the component (called when its scene is disposed). */
  dispose?(): void;
}

/**
 * The order in which the IK components of a scene solve each frame: the full body first, then what aims
 * a part of it, then what bends limbs and chains on top of that pose.
 */
export const IKUpdateOrder = {
  /** FullBodyBipedIK. */
  FullBody: 0,
  /** BipedIK: its parts, in its own order (pelvis, feet, spine, aim, look-at, hands), after a full body. */
  Biped: 50,
  /** AimIK. */
  Aim: 100,
  /** LookAtIK. */
  LookAt: 200,
  /** LimbIK. */
  Limb: 300,
  /** CCDIK, FABRIK, JacobianIK: chains (tails, hair, tentacles, fingers). */
  Chain: 400,
  /** TwistRelaxer: after every solver, on the pose they leave. */
  Twist: 500,
} as const;

const updaters = new WeakMap<Scene, SceneUpdater>();

/**
 * One pair of scene observers for every IK component of a scene: many characters update from a single
 * observer, by {@link SceneUpdatable.updateOrder}, then in the order they were created.
 * @internal The components add and remove themselves; the order is theirs to set ({@link IKUpdateOrder}).
 *
 * Where in Babylon's frame (`Scene.render`): `onBeforeAnimationsObservable` → each item's
 * `_beforeAnimations` (FixTransforms; or earlier, at an app's own `scene.animate()`: `wrapAnimate`); the
 * animations; `onBeforeRenderObservable` (user code: targets
 * moved there count this frame); then the first `onBeforeRenderTargetsRenderObservable` of the frame →
 * each item's `_beforeRender` (the solve). That observable fires right after `onBeforeRenderObservable`,
 * before the custom render targets and the cameras evaluate meshes and prepare skeletons, and again for
 * each camera: the frame id keeps the solve to the first call. A scene rendering through a frame graph
 * (`scene.frameGraph`) solves at the end of `onBeforeRenderObservable` instead: Babylon 8's frame graph path
 * never notifies `onBeforeRenderTargetsRenderObservable`, and 9's notifies it right after.
 */
export class SceneUpdater {
  /** The components, in update order. */
  readonly items: SceneUpdatable[] = [];
  /** Bumped by every add and remove (a watcher of the list rebuilds only then). */
  version = 0;
  private readonly scene: Scene;
  private beforeAnimations: Observer<Scene> | null = null;
  private beforeRender: Observer<Scene> | null = null;
  private sceneDisposal: Observer<Scene> | null = null;
  private skeletonRemoval: Observer<Skeleton> | null = null;
  /** The solve on `onBeforeRenderObservable`, kept its last observer while the scene has a frame graph. */
  private graphRender: Observer<Scene> | null = null;
  /**
   * graphRender's callback, made once: an arrow in followFrameGraph made V8 allocate that function's context
   * (40 B) in every frame, frame graph or not.
   */
  private readonly solveAfterGraph = (): void => this.solve();
  /** Index of the item being called, -1 outside a pass (a removal during the pass adjusts it). */
  private current = -1;
  /** True while a pass walks the items backwards (FixTransforms). */
  private backwards = false;
  /** The components {@link takeOffBetweenFrames} took off, in update order, for {@link putBackBetweenFrames}. */
  private readonly takenOff: SceneUpdatable[] = [];
  /** Open take-offs between frames (a component created inside another's constructor nests them). */
  private takeOffDepth = 0;
  /** The frame id of the last solve pass. */
  private solvedFrame = -1;
  /** Clips started between frames must not keep the IK's output as their start value. */
  private readonly snapshots: AnimationSnapshots;
  /** Clones of the IKs' skeletons taken between frames must not keep the IK's output as their pose. */
  private readonly clones: CloneSnapshots;
  /** The scene's summed time, ticked every frame so that what skips frames can tell the time since it ran. */
  private readonly clock: SceneClock;
  /** FixTransforms ran ahead of an app's own `scene.animate()`: the render that follows runs none. */
  private fixedAhead = false;
  /** The render's FixTransforms just ran: its own `animate()` call, right after, runs none. */
  private renderFixed = false;
  /** The `animate` installed on the scene (an own property), and the one it calls. */
  private animateWrapper: (() => void) | null = null;
  private previousAnimate: (() => void) | null = null;
  /** The render's FixTransforms, made once (an arrow per frame would allocate). */
  private readonly beforeAnimationsObserved = (): void => {
    if (this.fixedAhead) {
      this.fixedAhead = false;
      return;
    }
    this.animationsPass();
    this.renderFixed = true;
  };

  private constructor(scene: Scene) {
    this.scene = scene;
    this.snapshots = new AnimationSnapshots(scene, (target, path, value) => this.undoOnCopy(target, path, value));
    this.clones = new CloneSnapshots((target, path, value) => this.undoOnCopy(target, path, value));
    this.clock = sceneClock(scene);
  }

  /** The updater of `scene` (created on first use). */
  static for(scene: Scene): SceneUpdater {
    matchMatrixPrecision();
    let u = updaters.get(scene);
    if (u === undefined) {
      u = new SceneUpdater(scene);
      updaters.set(scene, u);
    }
    return u;
  }

  /**
   * Between frames (not during a pass), takes the output of the enabled components on `skeleton` off its bones, as
   * the next frame's FixTransforms would: a component created or reading its rest pose then reads the pose the
   * animation left, as it does inside the frame, not the other IKs' last output. Each call is closed by
   * {@link putBackBetweenFrames}; nested calls take off and put back once.
   */
  static takeOffBetweenFrames(scene: Scene, skeleton: Skeleton): void {
    const u = updaters.get(scene);
    if (u === undefined || u.current >= 0) return;
    if (u.takeOffDepth++ > 0) return;
    u.takenOff.length = 0;
    u.takeOff(skeleton, true, u.takenOff);
    u.takenOff.reverse();
  }

  /**
   * Closes {@link takeOffBetweenFrames}: writes the output it took off back, in update order, so the bones show
   * the last frame's pose again until the next FixTransforms (what a user reads between frames is unchanged).
   */
  static putBackBetweenFrames(scene: Scene): void {
    const u = updaters.get(scene);
    if (u === undefined || u.takeOffDepth === 0 || --u.takeOffDepth > 0) return;
    for (const item of u.takenOff) {
      try {
        item._putBack?.();
      } catch (e) {
        Logger.Error(`babylon-fbbik: putting an IK component's output back failed: ${String(e)}`);
      }
    }
    u.takenOff.length = 0;
  }

  /** True when `scene` currently has an updater with observers. */
  static isActive(scene: Scene): boolean {
    const u = updaters.get(scene);
    return u !== undefined && u.beforeRender !== null;
  }

  /** Adds a component; registers the observers with the first one. */
  add(item: SceneUpdatable): void {
    if (this.items.includes(item)) return;
    this.insert(item);
    if (item.skeleton !== undefined) this.clones.watch(item.skeleton);
    if (this.beforeRender === null) {
      this.beforeAnimations = this.scene.onBeforeAnimationsObservable.add(this.beforeAnimationsObserved);
      this.wrapAnimate();
      this.beforeRender = this.scene.onBeforeRenderTargetsRenderObservable.add(() => this.solve());
      // without it, a scene disposed under live IKs stayed reachable through them (solve-order's claimants)
      this.sceneDisposal = this.scene.onDisposeObservable.add(() => this.disposeAll());
      // a container's nodes left out of the scene (or cloned by instantiateModelsToScene) keep the animated pose
      this.skeletonRemoval = this.scene.onSkeletonRemovedObservable.add((skeleton) => this.takeOff(skeleton, true));
    }
  }

  /**
   * Moves `item` to where its {@link SceneUpdatable.updateOrder} now puts it (after the others of that order): its
   * order is resolved against the scene's other IKs (a grounded leg before its skeleton's FullBodyBipedIK).
   */
  reorder(item: SceneUpdatable): void {
    const i = this.items.indexOf(item);
    if (i < 0) return;
    this.items.splice(i, 1);
    if (this.current >= 0 && (this.backwards ? i < this.current : i <= this.current)) this.current--;
    this.insert(item);
  }

  /** Inserts `item` after the items of its order or lower. */
  private insert(item: SceneUpdatable): void {
    const order = item.updateOrder ?? 0;
    let at = this.items.length;
    while (at > 0 && (this.items[at - 1]!.updateOrder ?? 0) > order) at--;
    this.items.splice(at, 0, item);
    this.version++;
    // an insertion at or before the item being called shifts it: keep pointing at it
    if (this.current >= 0 && at <= this.current) this.current++;
  }

  /** FixTransforms before the animations: the snapshots and every item's `_beforeAnimations`, last first. */
  private animationsPass(): void {
    // a take-off between frames left open (a constructor threw before attach): the frame takes off anew
    this.takeOffDepth = 0;
    this.takenOff.length = 0;
    this.followFrameGraph();
    this.snapshotStep(false);
    this.pass(false);
    this.snapshotStep(true);
  }

  /**
   * An app that steps the animations itself (`scene.animate(); scene.render(false, true)`) runs them before the
   * render's `onBeforeAnimationsObservable`: the scene gets an own `animate` that runs FixTransforms first, as
   * `render()` does, so a clip started between frames snapshots the animated pose, not the IK's output.
   */
  private wrapAnimate(): void {
    const scene = this.scene;
    const previous = scene.animate;
    const wrapper = (): void => {
      if (this.animateWrapper === wrapper) this.beforeAppAnimate();
      previous.call(scene);
    };
    this.previousAnimate = Object.hasOwn(scene, "animate") ? previous : null;
    this.animateWrapper = wrapper;
    Object.defineProperty(scene, "animate", { value: wrapper, configurable: true, writable: true, enumerable: false });
  }

  /** Takes the own `animate` off the scene, or leaves it inert when another was installed over it. */
  private unwrapAnimate(): void {
    const scene = this.scene;
    const wrapper = this.animateWrapper;
    this.animateWrapper = null;
    if (wrapper === null || !Object.hasOwn(scene, "animate") || scene.animate !== wrapper) return;
    const previous = this.previousAnimate;
    this.previousAnimate = null;
    if (previous === null) delete (scene as { animate?: unknown }).animate;
    else Object.defineProperty(scene, "animate", { value: previous, configurable: true, writable: true });
  }

  /** Before `scene.animate()`: FixTransforms, unless the render calling it has just run it. */
  private beforeAppAnimate(): void {
    if (this.renderFixed) {
      this.renderFixed = false;
      return;
    }
    // a second step before the render (several logic steps a frame): nothing was solved since the first
    if (this.fixedAhead) return;
    this.animationsPass();
    this.fixedAhead = true;
  }

  /** The solve pass, once a frame. */
  private solve(): void {
    // a render that skipped the animations left its FixTransforms' mark: the next animate() is an app's; and
    // an app's animate() before a render that animates again was not the render's own (its mark goes too)
    this.renderFixed = false;
    this.fixedAhead = false;
    const frame = this.scene.getFrameId();
    if (frame === this.solvedFrame) return;
    this.solvedFrame = frame;
    this.clock.tick();
    this.pass(true);
  }

  /**
   * With a frame graph, the solve also observes `onBeforeRenderObservable`, as its last observer (moved back
   * there when one was added since: every observer of the frame still runs before the solve); without one,
   * that observer goes.
   */
  private followFrameGraph(): void {
    const observable = this.scene.onBeforeRenderObservable;
    if (this.scene.frameGraph === null) {
      if (this.graphRender !== null) observable.remove(this.graphRender);
      this.graphRender = null;
      return;
    }
    if (this.graphRender === null) this.graphRender = observable.add(this.solveAfterGraph);
    const observers = observable.observers;
    if (observers[observers.length - 1] !== this.graphRender) observable.makeObserverBottomPriority(this.graphRender!);
  }

  /** Disposes every component, last to solve first (the scene is being disposed). */
  private disposeAll(): void {
    const items = this.items.slice();
    for (let i = items.length - 1; i >= 0; i--) {
      try {
        items[i]!.dispose?.();
      } catch (e) {
        Logger.Error(`babylon-fbbik: disposing an IK component with its scene failed: ${String(e)}`);
      }
    }
    // what has no dispose of its own goes too: the scene keeps no observer of ours
    for (const item of this.items.slice()) this.remove(item);
  }

  /**
   * Calls every item, the solve in update order and FixTransforms in reverse; an item added or removed
   * during the pass (by itself or another) never makes one skip or run twice.
   */
  private pass(render: boolean): void {
    const items = this.items;
    this.backwards = !render;
    const step = render ? 1 : -1;
    for (this.current = render ? 0 : items.length - 1; this.current >= 0 && this.current < items.length; ) {
      const item = items[this.current]!;
      try {
        if (render) item._beforeRender();
        else item._beforeAnimations();
      } catch (e) {
        // the items catch their own failures; this is the last guard of Babylon's render loop
        Logger.Error(`babylon-fbbik: an IK component failed in the scene's frame: ${String(e)}`);
      }
      this.current += step;
    }
    this.current = -1;
  }

  /** The snapshots' collect (before FixTransforms) or settle, a failure logged and kept out of Babylon's frame. */
  private snapshotStep(settle: boolean): void {
    try {
      if (settle) this.snapshots.settle();
      else {
        this.clones.settle();
        this.snapshots.collect();
      }
    } catch (e) {
      Logger.Error(`babylon-fbbik: checking the clips and clones made since the last frame failed: ${String(e)}`);
    }
  }

  /**
   * Takes the output of every component on `skeleton` off its bones, in reverse update order (each before
   * the one it solved on top of), so a component disposed in any order leaves the animated pose: the others
   * solve again in the next frame. `enabledOnly`: the components switched off (and faded out) keep their last
   * output. `taken` gets the components taken off, in that order.
   */
  takeOff(skeleton: Skeleton, enabledOnly = false, taken: SceneUpdatable[] | null = null): void {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i]!;
      if (item.skeleton !== skeleton || item._takeOff === undefined) continue;
      if (enabledOnly && item.enabled === false && item.isFading !== true) continue;
      taken?.push(item);
      try {
        item._takeOff();
      } catch (e) {
        Logger.Error(`babylon-fbbik: taking an IK component's output off failed: ${String(e)}`);
      }
    }
  }

  /** FixTransforms' pass on a copy of a property: every component's `_undoOnCopy`, in reverse update order. */
  private undoOnCopy(target: object, path: string, value: object): void {
    const items = this.items;
    for (let i = items.length - 1; i >= 0; i--) items[i]!._undoOnCopy?.(target, path, value);
  }

  /** Removes a component; removes the observers with the last one. */
  remove(item: SceneUpdatable): void {
    const i = this.items.indexOf(item);
    if (i >= 0) {
      this.items.splice(i, 1);
      this.version++;
      const skeleton = item.skeleton;
      if (skeleton !== undefined && !this.items.some((other) => other.skeleton === skeleton)) {
        this.clones.unwatch(skeleton);
      }
      if (this.current >= 0) {
        // forwards: an item at or before the current one shifts the rest down; backwards: one before it
        if (this.backwards ? i < this.current : i <= this.current) this.current--;
      }
    }
    if (this.items.length === 0) {
      this.scene.onBeforeAnimationsObservable.remove(this.beforeAnimations);
      this.scene.onBeforeRenderTargetsRenderObservable.remove(this.beforeRender);
      this.scene.onDisposeObservable.remove(this.sceneDisposal);
      this.scene.onSkeletonRemovedObservable.remove(this.skeletonRemoval);
      this.skeletonRemoval = null;
      this.scene.onBeforeRenderObservable.remove(this.graphRender);
      this.graphRender = null;
      this.beforeAnimations = null;
      this.beforeRender = null;
      this.sceneDisposal = null;
      this.unwrapAnimate();
      this.fixedAhead = false;
      this.renderFixed = false;
      this.snapshots.dispose();
      this.clones.dispose();
      updaters.delete(this.scene);
    }
  }
}
