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

interface SampledNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampledNode[];
}

/**
 * Where `frame` allocates, for a heap test's failure message: V8's sampling heap profiler over `frames` more
 * frames, the heaviest call stacks (innermost first) with their bytes a frame. A stack names optimised functions
 * only as far out as V8 inlined them: the allocation may be in any function inlined into the first name.
 */
export async function whereFramesAllocate(frame: (f: number) => void, frames = 20_000, top = 6): Promise<string> {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  try {
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 64,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as never);
    for (let f = 0; f < frames; f++) frame(f);
    const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: { head: SampledNode } };
    const bytes = new Map<string, number>();
    const walk = (node: SampledNode, stack: string[]): void => {
      const c = node.callFrame;
      const here = [
        ...stack,
        `${c.functionName || "(anonymous)"} ${c.url.split("/").slice(-2).join("/")}:${c.lineNumber + 1}`,
      ];
      if (node.selfSize > 0) {
        const key = here.slice(-6).reverse().join(" <- ");
        bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
      }
      for (const child of node.children) walk(child, here);
    };
    walk(profile.head, []);
    return [...bytes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([stack, b]) => `${(b / frames).toFixed(1)} B a frame: ${stack}`)
      .join("\n");
  } finally {
    session.disconnect();
  }
}
