/** The overlay (top right): frames per second, IK milliseconds per frame, the characters and the IK driving them. */
import type { Scene } from "@babylonjs/core/scene";
import type { Character } from "./kit";

/** The count, then each IK in use once on a line of its own ("40 characters", "FullBodyBipedIK"). */
export function characterLine(characters: readonly Character[]): string {
  const n = characters.length;
  const iks = [...new Set(characters.map((c) => c.ikName))];
  return [`${n} character${n === 1 ? "" : "s"}`, ...iks].join("\n");
}

/**
 * Updates `#stats` twice a second from the scene's frames; `ik.last` is the IK time of the frame just
 * rendered (summed by the solvers' pre/post update observers into `ik.acc`).
 */
export function statsOverlay(
  scene: Scene,
  ik: { acc: number; last: number },
  characters: () => readonly Character[],
): void {
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
    stats.textContent =
      `${((frames * 1000) / (now - time)).toFixed(0)} FPS\n` +
      `IK ${(ikSum / frames).toFixed(2)} ms/frame\n` +
      characterLine(characters());
    time = now;
    frames = 0;
    ikSum = 0;
  });
}
