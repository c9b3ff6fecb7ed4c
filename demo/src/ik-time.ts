/**
 * The overlay's IK milliseconds for components without FullBodyBipedIK's solve observers (BipedIK's parts): two
 * markers in the scene's solve order, just before and just after the components of one `updateOrder`.
 */
import type { Scene } from "@babylonjs/core/scene";
import { type SceneUpdatable, SceneUpdater } from "../../src/babylon/scene-updater";

/**
 * Adds the time the components solving at `updateOrder` take each frame to `times.acc`; returns the remover.
 * Orders between two integers: the components' own order stays theirs.
 */
export function timeSolves(scene: Scene, updateOrder: number, times: { acc: number }): () => void {
  let t0 = 0;
  const start: SceneUpdatable = {
    updateOrder: updateOrder - 0.5,
    _beforeAnimations: () => {},
    _beforeRender: () => {
      t0 = performance.now();
    },
  };
  const end: SceneUpdatable = {
    updateOrder: updateOrder + 0.5,
    _beforeAnimations: () => {},
    _beforeRender: () => {
      times.acc += performance.now() - t0;
    },
  };
  const updater = SceneUpdater.for(scene);
  updater.add(start);
  updater.add(end);
  return () => {
    updater.remove(start);
    updater.remove(end);
  };
}
