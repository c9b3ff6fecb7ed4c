/** Heap measurements of a scene's frame, for the files of vitest.config.ts's HEAP list. */
import { GCProfiler } from "node:v8";
import type { Scene } from "@babylonjs/core/scene.js";

/** What scene.render() runs of the IKs' frame (the observables they hang on), without drawing. */
export function renderWithoutDrawing(scene: Scene): void {
  (scene as unknown as { _frameId: number })._frameId++;
  scene.onBeforeAnimationsObservable.notifyObservers(scene);
  scene.onBeforeRenderObservable.notifyObservers(scene);
  scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
}

/**
 * Bytes `frame` allocates per call: heap growth plus what the collections in the loop freed; the least of
 * three rounds of `frames` after 5,000 to warm up (the frame's code is optimised late: 2,000-frame rounds
 * after 5,000 still count 8–40 B of unoptimised doubles).
 */
export function bytesPerFrame(frame: (f: number) => void, frames: number): number {
  for (let f = 0; f < 5_000; f++) frame(f);
  let least = Infinity;
  for (let round = 0; round < 3; round++) {
    const profiler = new GCProfiler();
    profiler.start();
    const before = process.memoryUsage().heapUsed;
    for (let f = 0; f < frames; f++) frame(f);
    const grown = process.memoryUsage().heapUsed - before;
    let freed = 0;
    for (const s of profiler.stop().statistics)
      freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
    least = Math.min(least, (grown + freed) / frames);
  }
  return least;
}
