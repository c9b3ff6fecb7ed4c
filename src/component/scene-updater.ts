import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";

/** What the scene updater drives. */
export interface SceneUpdatable {
  /** Called before the animations (FinalIK's FixTransforms in Update). */
  _beforeAnimations(): void;
  /** Called after animations and physics, before render (FinalIK's LateUpdate). */
  _beforeRender(): void;
}

const updaters = new WeakMap<Scene, SceneUpdater>();

/**
 * One pair of scene observers for every IK component of a scene: many characters update from a single
 * observer, in the order they were created.
 */
export class SceneUpdater {
  /** The components, in update order. */
  readonly items: SceneUpdatable[] = [];
  private readonly scene: Scene;
  private beforeAnimations: Observer<Scene> | null = null;
  private beforeRender: Observer<Scene> | null = null;

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
      const items = this.items;
      this.beforeAnimations = this.scene.onBeforeAnimationsObservable.add(() => {
        for (let i = 0; i < items.length; i++) items[i]!._beforeAnimations();
      });
      this.beforeRender = this.scene.onBeforeRenderObservable.add(() => {
        for (let i = 0; i < items.length; i++) items[i]!._beforeRender();
      });
    }
  }

  /** Removes a component; removes the observers with the last one. */
  remove(item: SceneUpdatable): void {
    const i = this.items.indexOf(item);
    if (i >= 0) this.items.splice(i, 1);
    if (this.items.length === 0) {
      this.scene.onBeforeAnimationsObservable.remove(this.beforeAnimations);
      this.scene.onBeforeRenderObservable.remove(this.beforeRender);
      this.beforeAnimations = null;
      this.beforeRender = null;
      updaters.delete(this.scene);
    }
  }
}
