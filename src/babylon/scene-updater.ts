import { Logger } from "@babylonjs/core/Misc/logger.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";

/** What the scene updater drives. */
export interface SceneUpdatable {
  /** Called before the animations (FinalIK's FixTransforms in Update). */
  _beforeAnimations(): void;
  /**
   * Called once per frame after the animations and every `scene.onBeforeRenderObservable` observer, before
   * any render target or camera prepares a skeleton (FinalIK's LateUpdate).
   */
  _beforeRender(): void;
}

const updaters = new WeakMap<Scene, SceneUpdater>();

/**
 * One pair of scene observers for every IK component of a scene: many characters update from a single
 * observer, in the order they were created.
 *
 * Where in Babylon's frame (`Scene.render`): `onBeforeAnimationsObservable` → each item's
 * `_beforeAnimations` (FixTransforms); the animations; `onBeforeRenderObservable` (user code: targets
 * moved there count this frame); then the first `onBeforeRenderTargetsRenderObservable` of the frame →
 * each item's `_beforeRender` (the solve). That observable fires right after `onBeforeRenderObservable`,
 * before the custom render targets and the cameras evaluate meshes and prepare skeletons, and again for
 * each camera: the frame id keeps the solve to the first call.
 */
export class SceneUpdater {
  /** The components, in update order. */
  readonly items: SceneUpdatable[] = [];
  private readonly scene: Scene;
  private beforeAnimations: Observer<Scene> | null = null;
  private beforeRender: Observer<Scene> | null = null;
  /** Index of the item being called, -1 outside a pass (a removal during the pass adjusts it). */
  private current = -1;
  /** The frame id of the last solve pass. */
  private solvedFrame = -1;

  private constructor(scene: Scene) {
    this.scene = scene;
  }

  /** The updater of `scene` (created on first use). */
  static for(scene: Scene): SceneUpdater {
    let u = updaters.get(scene);
    if (u === undefined) {
      u = new SceneUpdater(scene);
      updaters.set(scene, u);
    }
    return u;
  }

  /** True when `scene` currently has an updater with observers. */
  static isActive(scene: Scene): boolean {
    const u = updaters.get(scene);
    return u !== undefined && u.beforeRender !== null;
  }

  /** Adds a component; registers the observers with the first one. */
  add(item: SceneUpdatable): void {
    if (this.items.includes(item)) return;
    this.items.push(item);
    if (this.beforeRender === null) {
      this.beforeAnimations = this.scene.onBeforeAnimationsObservable.add(() => this.pass(false));
      this.beforeRender = this.scene.onBeforeRenderTargetsRenderObservable.add(() => {
        const frame = this.scene.getFrameId();
        if (frame === this.solvedFrame) return;
        this.solvedFrame = frame;
        this.pass(true);
      });
    }
  }

  /** Calls every item; an item removed during the pass (by itself or another) never makes one skip. */
  private pass(render: boolean): void {
    const items = this.items;
    for (this.current = 0; this.current < items.length; this.current++) {
      const item = items[this.current]!;
      try {
        if (render) item._beforeRender();
        else item._beforeAnimations();
      } catch (e) {
        // the items catch their own failures; this is the last guard of Babylon's render loop
        Logger.Error(`babylon-fbbik: an IK component failed in the scene's frame: ${String(e)}`);
      }
    }
    this.current = -1;
  }

  /** Removes a component; removes the observers with the last one. */
  remove(item: SceneUpdatable): void {
    const i = this.items.indexOf(item);
    if (i >= 0) {
      this.items.splice(i, 1);
      if (i <= this.current) this.current--;
    }
    if (this.items.length === 0) {
      this.scene.onBeforeAnimationsObservable.remove(this.beforeAnimations);
      this.scene.onBeforeRenderTargetsRenderObservable.remove(this.beforeRender);
      this.beforeAnimations = null;
      this.beforeRender = null;
      updaters.delete(this.scene);
    }
  }
}
