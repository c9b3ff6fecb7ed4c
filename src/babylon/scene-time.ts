import type { Scene } from "@babylonjs/core/scene.js";
import type { NumberRef } from "../math/number-ref.js";

/**
 * The seconds the scene's animations advanced in this frame, into `out.value`: `scene.deltaTime`
 * (16 ms with `useConstantAnimationDeltaTime`, else the measured frame time × `animationTimeScale`), or
 * the engine's delta time while the scene's animations are disabled. The one clock of every component
 * around the IK (interactions, grounding, offset modifiers), so they keep pace with the animations they
 * sit on, as FinalIK's all follow Unity's scaled `Time.deltaTime`. Written into a {@link NumberRef}
 * (see ARCHITECTURE.md, "Doubles across calls").
 */
export function sceneDeltaSecondsToRef(scene: Scene, out: NumberRef): NumberRef {
  const ms =
    scene.animationsEnabled && Number.isFinite(scene.deltaTime) ? scene.deltaTime : scene.getEngine().getDeltaTime();
  out.value = ms / 1000;
  return out;
}
