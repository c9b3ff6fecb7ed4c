/**
 * The overlay's IK milliseconds: every IK component of the scene, whatever its kind (a FullBodyBipedIK, BipedIK's
 * parts, the chains, grounders, look-ats and twist relaxers of the family), timed by two markers that bracket the
 * scene's whole solve pass: one before the first component of any order, one after the last.
 */
import type { Scene } from "@babylonjs/core/scene";
import { type SceneUpdatable, SceneUpdater } from "../../src/babylon/scene-updater";

/**
 * Adds the time the scene's IK components take to solve each frame to `times.acc`; returns the remover. The
 * markers' orders are ±Infinity: a component added later, of any order, still solves between them.
 */
export function timeEverySolve(scene: Scene, times: { acc: number }): () => void {
  let t0 = 0;
  const start: SceneUpdatable = {
    updateOrder: -Infinity,
    _beforeAnimations: () => {},
    _beforeRender: () => {
      t0 = performance.now();
    },
  };
  const end: SceneUpdatable = {
    updateOrder: Infinity,
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
