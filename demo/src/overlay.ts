/** The overlay (top right): frames per second, IK milliseconds per frame, the character count. */
import type { Scene } from "@babylonjs/core/scene";

/**
 * Updates `#stats` twice a second from the scene's frames; `ik.last` is the IK time of the frame just
 * rendered (summed by the solvers' pre/post update observers into `ik.acc`).
 */
export function statsOverlay(scene: Scene, ik: { acc: number; last: number }, count: () => number): void {
  const stats = document.getElementById("stats")!;
  let time = performance.now();
  let frames = 0;
  let ikSum = 0;
  scene.onAfterRenderObservable.add(() => {
    ik.last = ik.acc;
    ik.acc = 0;
    ikSum += ik.last;
    frames++;
    const now = performance.now();
    if (now - time < 500) return;
    const n = count();
    stats.textContent =
      `${((frames * 1000) / (now - time)).toFixed(0)} FPS\n` +
      `IK ${(ikSum / frames).toFixed(2)} ms/frame\n` +
      `${n} character${n === 1 ? "" : "s"}`;
    time = now;
    frames = 0;
    ikSum = 0;
  });
}
