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

interface Sample {
  size: number;
  nodeId: number;
  ordinal: number;
}
interface SampledNodeWithId extends SampledNode {
  id: number;
  children: SampledNodeWithId[];
}

/**
 * The objects that mark where each frame begins in a heap profile, found by their function's name: eight
 * functions taken in turn, so that the call site is megamorphic (V8 does not inline them: an inlined mark would
 * be named by its caller) and a mark the profiler missed does not shift the frames after it (the name says
 * which of eight frames it begins).
 */
const FRAME_MARKS = [
  function frameMark0(): unknown {
    return {};
  },
  function frameMark1(): unknown {
    return {};
  },
  function frameMark2(): unknown {
    return {};
  },
  function frameMark3(): unknown {
    return {};
  },
  function frameMark4(): unknown {
    return {};
  },
  function frameMark5(): unknown {
    return {};
  },
  function frameMark6(): unknown {
    return {};
  },
  function frameMark7(): unknown {
    return {};
  },
];

/** What {@link allocationsByKind} found for one kind of frame. */
export interface KindAllocations {
  /** Frames of this kind. */
  frames: number;
  /** Bytes a frame of this kind allocates, on average. */
  bytes: number;
  /**
   * The same, without the 1 % of these frames that allocated most: an allocation in every frame, or in a few
   * percent of them, stays; a burst in one or two frames (V8's own objects when it finishes optimising a
   * function, counted under whatever code ran) goes.
   */
  typicalBytes: number;
  /** The heaviest call stacks of these frames (innermost first, 4 deep), with their bytes a frame. */
  where: string[];
}

/** What {@link allocationsByKind} found over one round of frames. */
export interface RoundAllocations {
  /** Per kind of frame (`kindOf`'s number). */
  kinds: Map<number, KindAllocations>;
  /** Frame marks the profiler did not see. */
  missedMarks: number;
}

/**
 * Every allocation of `frames` calls of `frame` (after `warm` to warm up), told apart by the kind of frame
 * `kindOf` gives after each call (a number: 0 for a steady frame, else flags of its events): V8's sampling heap
 * profiler at its finest interval records each allocation with its size and order, and an object allocated
 * before each call marks where the frame begins (`missedMarks`: marks the profiler did not see; the allocations
 * of a frame whose mark was missed count in the frame before). Exact, unlike the heap's size, which other threads (the
 * sweeper, the compilers) move by tens of bytes a frame; cheap when a frame allocates little. Each kind lists the
 * `top` stacks that allocated most (`FBBIK_HEAP_TOP` in the environment raises it, to look further down).
 */
export async function allocationsByKind(
  frame: (f: number) => void,
  kindOf: () => number,
  frames: number,
  warm = 5_000,
  settle = 2_400,
  top = Number(process.env.FBBIK_HEAP_TOP ?? 6),
): Promise<RoundAllocations> {
  let f = 0;
  for (; f < warm; f++) frame(f);
  const kinds = new Int32Array(frames);
  const marks: unknown[] = new Array(frames + 1);
  // a mark's first calls make V8's bookkeeping for its object literal, of the same size as the mark
  for (let i = 0; i < 8_000; i++) marks[i % frames] = FRAME_MARKS[i & 7]!();
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  let profile: { head: SampledNodeWithId; samples: Sample[] };
  try {
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 1,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as never);
    // allocations already under way when sampling began go unsampled: start on fresh ones; and sampling
    // costs V8 its optimised code, which takes frames to come back
    for (let i = 0; i < 10_000; i++) marks[i % frames] = [i];
    marks.fill(undefined);
    for (let i = 0; i < settle; i++, f++) frame(f);
    for (let i = 0; i < frames; i++, f++) {
      marks[i] = FRAME_MARKS[i & 7]!();
      frame(f);
      kinds[i] = kindOf();
    }
    marks[frames] = FRAME_MARKS[frames & 7]!();
    ({ profile } = (await session.post("HeapProfiler.stopSampling")) as never);
  } finally {
    session.disconnect();
  }
  // each node's stack, innermost first, and the nodes of the marks with which of eight frames each begins
  const stacks = new Map<number, string>();
  const markOf = new Map<number, number>();
  const walk = (node: SampledNodeWithId, stack: string[]): void => {
    const c = node.callFrame;
    const here = [`${c.functionName || "(anonymous)"} ${c.url.split("/").slice(-2).join("/")}`, ...stack];
    const mark = /^frameMark(\d)$/.exec(c.functionName);
    if (mark !== null) markOf.set(node.id, Number(mark[1]));
    stacks.set(node.id, here.slice(0, 4).join(" <- "));
    for (const child of node.children) walk(child, here);
  };
  walk(profile.head, []);
  const perFrame = new Float64Array(frames);
  const byKind = new Map<number, { frames: number; bytes: number; where: Map<string, number> }>();
  for (let i = 0; i < frames; i++) {
    const k = byKind.get(kinds[i]!) ?? { frames: 0, bytes: 0, where: new Map<string, number>() };
    k.frames++;
    byKind.set(kinds[i]!, k);
  }
  // a mark's own size is the commonest in its functions (which also hold V8's work on them: feedback, code)
  const markSizes = new Map<number, number>();
  for (const s of profile.samples) if (markOf.has(s.nodeId)) markSizes.set(s.size, (markSizes.get(s.size) ?? 0) + 1);
  const markSize = [...markSizes].sort((a, b) => b[1] - a[1])[0]?.[0];
  // samples in allocation order; before the first mark is the loop's own start, from the last its end
  let i = -1;
  let missed = 0;
  for (const s of [...profile.samples].sort((a, b) => a.ordinal - b.ordinal)) {
    const mark = markOf.get(s.nodeId);
    if (mark !== undefined) {
      if (s.size !== markSize) continue;
      const skipped = (mark - i - 1) & 7;
      missed += skipped;
      i += 1 + skipped;
      continue;
    }
    if (i < 0 || i >= frames) continue;
    const k = byKind.get(kinds[i]!)!;
    k.bytes += s.size;
    perFrame[i] += s.size;
    const at = stacks.get(s.nodeId)!;
    k.where.set(at, (k.where.get(at) ?? 0) + s.size);
  }
  const out = new Map<number, KindAllocations>();
  for (const [kind, k] of byKind) {
    const where = [...k.where]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([at, b]) => `${(b / k.frames).toFixed(1)} B a frame: ${at}`);
    const sizes: number[] = [];
    for (let j = 0; j < frames; j++) if (kinds[j] === kind) sizes.push(perFrame[j]!);
    sizes.sort((a, b) => a - b);
    const kept = sizes.slice(0, sizes.length - Math.ceil(0.01 * sizes.length));
    const typicalBytes = kept.reduce((a, b) => a + b, 0) / Math.max(1, kept.length);
    out.set(kind, { frames: k.frames, bytes: k.bytes / k.frames, typicalBytes, where });
  }
  return { kinds: out, missedMarks: missed };
}
