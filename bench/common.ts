/**
 * Shared helpers of the benchmarks: batch timing, allocation measurement, percentiles, targets and
 * result files. Nothing here runs inside a timed or measured loop except the function under test.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GCProfiler } from "node:v8";
import { repoRoot } from "../test/helpers/repo-root.js";

/** Where the benchmarks write their JSON results. */
export const RESULTS_DIR = join(repoRoot(import.meta.url), "bench", "results");

/** One measured figure compared with its target. */
export interface TargetCheck {
  /** What is checked, e.g. "median per solve". */
  label: string;
  /** Measured value. */
  value: number;
  /** Unit for printing, e.g. "µs". */
  unit: string;
  /** The target as printed, e.g. "<= 5 µs". */
  target: string;
  /** True when the value meets the target. */
  pass: boolean;
}

/** A benchmark `run.ts` can run: a name, a result file, a function producing the result, and its targets. */
export interface Benchmark<R extends object = object> {
  /** Short name (also the CLI filter: `npm run bench -- solver`). */
  name: string;
  /** File name under bench/results/. */
  file: string;
  /** Runs the benchmark and returns the object written to the result file (a promise when it loads assets). */
  run(): R | Promise<R>;
  /** Rows of the printed table: [label, value, unit]. */
  rows(result: R): Array<[string, number | string, string]>;
  /** The result against its targets. */
  checks(result: R): TargetCheck[];
}

/**
 * The check that the benchmark measured a working solver: a run whose solver stopped solving (or went
 * non-finite) would otherwise report flattering times.
 */
export function solverActiveCheck(active: boolean): TargetCheck {
  return {
    label: "solver active (every update solved, nodes finite)",
    value: active ? 1 : 0,
    unit: "",
    target: "yes",
    pass: active,
  };
}

/** A check that passes when `value <= limit`. */
export function atMost(label: string, value: number, limit: number, unit: string): TargetCheck {
  return { label, value, unit, target: `<= ${formatNumber(limit)} ${unit}`, pass: value <= limit };
}

/** Rounds to `digits` decimals (for results meant to be read). */
export function round(value: number, digits = 3): number {
  const k = 10 ** digits;
  return Math.round(value * k) / k;
}

/** The `p` quantile (0..1) of ascending `sorted`, linear between the closest ranks. */
export function quantile(sorted: Float64Array, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const pos = (n - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Summary of per-operation times, in microseconds. */
export interface TimingSummary {
  /** Median of the per-operation times (per batch). */
  median: number;
  /** 95th percentile of the per-operation times (per batch). */
  p95: number;
  /** Fastest batch. */
  min: number;
  /** Slowest batch (a GC or an OS preemption usually). */
  max: number;
  /** Mean over all timed operations. */
  mean: number;
  /** Operations timed. */
  operations: number;
  /** Operations per batch. */
  batchSize: number;
}

/**
 * Times `op(frame)` for `batches` × `batchSize` consecutive frames starting at `firstFrame`, one timer
 * read per batch, and returns the per-operation time of every batch (µs) and the next frame.
 *
 * Why batches rather than a timer around every call: one operation takes a few microseconds, and a
 * clock read is not free. Measured on Node 20 here, `performance.now()` costs ≈55 ns and allocates
 * ≈32 B per call, `process.hrtime.bigint()` ≈60 ns and ≈40 B (its BigInt). Around every call that
 * would add ~2 % of timer cost with its own jitter to each sample, and one young-generation allocation
 * per operation, so the timer's scavenges would land inside the samples. One `performance.now()` pair
 * per batch of 100 amortises both to ≈1 ns and <1 B per operation. The price: each sample is the mean
 * of 100 consecutive operations, so the p95 is the p95 of 100-operation means — it shows jitter (GC
 * pauses, preemption, deopts) but is narrower than a true per-call p95 would be.
 */
export function timeBatches(
  op: (frame: number) => void,
  batches: number,
  batchSize: number,
  firstFrame: number,
): { samples: Float64Array; nextFrame: number } {
  const samples = new Float64Array(batches);
  let frame = firstFrame;
  for (let b = 0; b < batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < batchSize; i++) op(frame++);
    const t1 = performance.now();
    samples[b] = ((t1 - t0) * 1000) / batchSize;
  }
  return { samples, nextFrame: frame };
}

/** Median, p95, min, max and mean of per-operation batch samples. */
export function summarize(samples: Float64Array, batchSize: number): TimingSummary {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]!;
  const sorted = Float64Array.from(samples).sort();
  return {
    median: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    mean: sum / samples.length,
    operations: samples.length * batchSize,
    batchSize,
  };
}

/** Runs `op(frame)` for `count` consecutive frames from `firstFrame`; nothing else happens in the loop. */
function runPlain(op: (frame: number) => void, count: number, firstFrame: number): number {
  let frame = firstFrame;
  for (let i = 0; i < count; i++) op(frame++);
  return frame;
}

/** What {@link measureAllocation} found. */
export interface AllocationResult {
  /** Bytes allocated per operation: max(0, allocated) / operations. */
  bytesPerOp: number;
  /** heapUsed after − heapUsed before the loop, bytes (can be negative when a GC ran). */
  rawHeapDelta: number;
  /** Bytes allocated during the loop: rawHeapDelta + what the GCs in the loop freed. */
  allocatedBytes: number;
  /** Garbage collections that ran during the loop (0 when the young generation held everything). */
  gcsDuringLoop: number;
  /** Operations in the loop. */
  operations: number;
  /** False when global.gc was unavailable (run with --expose-gc). */
  forcedGc: boolean;
}

/**
 * Bytes allocated per `op(frame)`: a full GC, then `process.memoryUsage().heapUsed` around a plain loop
 * of `count` operations (no timer or anything else allocating inside it), in a loop function warmed up
 * first so its own optimisation is not counted.
 *
 * A scavenge during the loop would free garbage and hide it from the heapUsed delta, so a
 * `v8.GCProfiler` records every GC in the loop (natively: it puts nothing on the JS heap until `stop`)
 * and each GC's freed bytes (usedHeapSize before − after) are added back:
 * allocated = heapUsed(after) − heapUsed(before) + Σ freed. This is why the `bench` script needs no
 * --min/--max-semi-space-size flag: checked with loops allocating `new Array(4)` (80 B) and a 3-field
 * object (48 B), the figure is the same to 0.1 B whether 0 or 77 scavenges ran in the loop. (A bigger
 * semi-space alone does not stop scavenges anyway: new space starts small and only grows when objects
 * survive.) The GC count is reported so a surprising figure can be traced.
 *
 * The figure also carries a few kB of one-off heap growth (feedback, code of a late optimisation)
 * divided over the loop; `repeats` loops are measured and the smallest kept, so a one-off does not
 * count while anything that allocates regularly shows in every repeat.
 */
export function measureAllocation(
  op: (frame: number) => void,
  count: number,
  firstFrame: number,
  repeats = 3,
): AllocationResult & { nextFrame: number } {
  const gc = globalThis.gc;
  // collected before the warm-up too: code optimised around an earlier case's objects (its closure, its scene)
  // is thrown away by the first collection that finds them dead, and re-optimised while the loops ran, in
  // every repeat (4 compiles; the code counted as 1–3 B a frame in about 1 process in 10)
  if (gc !== undefined) {
    gc();
    gc();
  }
  // warm the loop function itself (OSR and optimisation allocate code on the heap)
  let frame = runPlain(op, Math.min(count, 20_000), firstFrame);
  let best: AllocationResult | null = null;
  for (let r = 0; r < repeats; r++) {
    if (gc !== undefined) {
      gc();
      gc();
    }
    const profiler = new GCProfiler();
    profiler.start();
    const before = process.memoryUsage().heapUsed;
    frame = runPlain(op, count, frame);
    const after = process.memoryUsage().heapUsed;
    const gcs = profiler.stop().statistics;
    let freed = 0;
    for (const s of gcs) freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
    const rawHeapDelta = after - before;
    const allocatedBytes = rawHeapDelta + freed;
    const result: AllocationResult = {
      bytesPerOp: Math.max(0, allocatedBytes) / count,
      rawHeapDelta,
      allocatedBytes,
      gcsDuringLoop: gcs.length,
      operations: count,
      forcedGc: gc !== undefined,
    };
    if (best === null || result.allocatedBytes < best.allocatedBytes) best = result;
  }
  return { ...best!, nextFrame: frame };
}

/** Writes `result` as pretty JSON to bench/results/`file`, creating the folder; returns the path. */
export function writeResult(file: string, result: object): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, file);
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
  return path;
}

/** Prints aligned rows: label, value, unit. */
export function printRows(rows: Array<[string, number | string, string]>): void {
  const width = Math.max(...rows.map((r) => r[0].length));
  const values = rows.map((r) => (typeof r[1] === "number" ? formatNumber(r[1]) : r[1]));
  const vwidth = Math.max(...values.map((v) => v.length));
  rows.forEach((r, i) => console.log(`  ${r[0].padEnd(width)}  ${values[i]!.padStart(vwidth)} ${r[2]}`));
}

/** Prints PASS/FAIL lines for the checks. */
export function printChecks(checks: TargetCheck[]): void {
  const width = Math.max(...checks.map((c) => c.label.length));
  for (const c of checks) {
    console.log(
      `  ${c.pass ? "PASS" : "FAIL"}  ${c.label.padEnd(width)}  ${formatNumber(c.value)} ${c.unit}  (target ` +
        `${c.target})`,
    );
  }
}

/** A number for printing: integers as they are, otherwise 1–4 decimals by magnitude. */
export function formatNumber(v: number): string {
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  return v.toFixed(a >= 100 ? 1 : a >= 1 ? 3 : 4);
}
