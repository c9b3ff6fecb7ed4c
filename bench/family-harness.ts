/**
 * The family benchmark's harness (bench/family.ts): result types, the alternating-rounds timer, the
 * per-group measurement (time, accuracy pass, allocation) and helpers shared by its groups.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { BabylonRig } from "../src/babylon/babylon-rig.js";
import { Vec3 } from "../src/math/vec3.js";
import type { TailRig } from "../test/helpers/tail-rig.js";
import { measureAllocation, quantile, round } from "./common.js";

/** One implementation's figures. */
export interface FamilyImplResult {
  /** Short name, as printed. */
  label: string;
  /** What runs (ours or the peer, and how much of the frame). */
  name: string;
  /** Median µs of the timed op (a whole frame, or the solver with its pose reset and target set). */
  microsPerFrame: number;
  /** Median µs of the op without its solve (pose reset, target), or null when the op has none. */
  baseMicros: number | null;
  /** µs per solve: op − base (or op when there is no base). */
  microsPerSolve: number;
  /** µs per iteration: microsPerSolve / iterations, or null for analytic solvers. */
  microsPerIteration: number | null;
  /** Mean error over the target table (unit in `errorUnit`). */
  meanError: number;
  /** Worst error over the target table. */
  worstError: number;
  /** "% of chain" (distance from target) or "°" (angle error). */
  errorUnit: string;
  /** Bytes allocated per op (smallest of the loops; below 1: none). */
  bytesPerFrame: number;
  /** GCs during the kept allocation loop. */
  gcs: number;
}

/** One comparison: our implementations and the peer's on the same problem. */
export interface FamilyGroupResult {
  /** Which solver family, e.g. "CCD, 20-bone chain". */
  group: string;
  /** Iterations per solve (null for analytic solvers). */
  iterations: number | null;
  /** What was measured, in a sentence. */
  setup: string;
  /** Our implementations. */
  ours: FamilyImplResult[];
  /** The peer's. */
  peer: FamilyImplResult[];
  /** Accuracy of every implementation at other iteration counts (CCD): mean and worst error each. */
  accuracyByIterations?: Array<{ iterations: number; errors: Array<{ name: string; mean: number; worst: number }> }>;
}

/** Timing rounds (each times every op and base in turn). */
export const ROUNDS = 20;
/** µs of each op per round (split into batches). */
export const ROUND_MICROS = 30_000;
/** Most frames per batch (one timer pair each). */
export const BATCH = 100;
/** A batch's target length, µs. */
export const BATCH_MICROS = 100;
/** Untimed frames of each op before the rounds. */
export const WARMUP = 5_000;
/** Frames per allocation loop (3 loops, the smallest kept). */
export const ALLOCATION_FRAMES = 20_000;
/** Targets in every group's table. */
export const TARGET_COUNT = 600;

/** A timed implementation. */
export interface Impl {
  /** Short name for the printed table. */
  label: string;
  /** What runs, in full (result file). */
  name: string;
  /** One frame (what is timed). */
  op: (frame: number) => void;
  /** The same frame without the solve, or null. */
  base: ((frame: number) => void) | null;
  /** After `op(frame)`: the error against frame's target. */
  error: (frame: number) => number;
  /** Frames per allocation loop when not {@link ALLOCATION_FRAMES} (a slow peer that allocates plainly). */
  allocationFrames?: number;
}

export function advanceFrame(scene: Scene): void {
  (scene as unknown as { _frameId: number })._frameId++;
}

/**
 * Times every function of `fns` in `ROUNDS` rounds, in turn within each round (the order reversed every
 * other round), about `ROUND_MICROS` of each per round, and returns each one's median µs per frame over
 * all its batches. Alternating keeps a switch of the machine's speed (bench/README.md) from favouring
 * whichever implementation ran first. A batch lasts about `BATCH_MICROS` (at most `BATCH` frames, at least
 * one): on a shared machine a batch of long solves would almost always hold a preemption by another
 * process, and the median of such batches measures the load, not the solver; short batches leave most
 * batches clean. The timer's own ≈0.06 µs is then at most 0.1 % of a batch.
 */
export function timeInRounds(fns: Array<(frame: number) => void>): number[] {
  const frames = fns.map(() => 0);
  const sizes = fns.map(() => BATCH);
  const counts = fns.map(() => 0);
  for (let i = 0; i < fns.length; i++) {
    const f = fns[i]!;
    for (let k = 0; k < WARMUP; k++) f(frames[i]!++);
    const t0 = performance.now();
    for (let k = 0; k < 200; k++) f(frames[i]!++);
    const micros = Math.max(((performance.now() - t0) * 1000) / 200, 1e-3);
    sizes[i] = Math.max(1, Math.min(BATCH, Math.floor(BATCH_MICROS / micros)));
    counts[i] = Math.max(10, Math.round(ROUND_MICROS / (micros * sizes[i]!)));
  }
  const samples = fns.map((_, i) => new Float64Array(ROUNDS * counts[i]!));
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < fns.length; j++) {
      const i = r % 2 === 0 ? j : fns.length - 1 - j;
      const f = fns[i]!;
      const s = samples[i]!;
      const size = sizes[i]!;
      const count = counts[i]!;
      let frame = frames[i]!;
      for (let b = 0; b < count; b++) {
        const t0 = performance.now();
        for (let k = 0; k < size; k++) f(frame++);
        s[r * count + b] = ((performance.now() - t0) * 1000) / size;
      }
      frames[i] = frame;
    }
  }
  return samples.map((s) => quantile(s.sort(), 0.5));
}

/** Times, checks and measures a group's implementations; `iterations` null for analytic solvers. */
export function measureGroup(impls: Impl[], iterations: number | null, errorUnit: string): FamilyImplResult[] {
  const fns: Array<(frame: number) => void> = [];
  for (const impl of impls) {
    fns.push(impl.op);
    if (impl.base !== null) fns.push(impl.base);
  }
  const medians = timeInRounds(fns);
  let k = 0;
  return impls.map((impl) => {
    const op = medians[k++]!;
    const base = impl.base !== null ? medians[k++]! : null;
    let sum = 0;
    let worst = 0;
    for (let f = 0; f < TARGET_COUNT; f++) {
      impl.op(f);
      const e = impl.error(f);
      sum += e;
      if (!(e <= worst)) worst = e;
    }
    const alloc = measureAllocation(impl.op, impl.allocationFrames ?? ALLOCATION_FRAMES, 0, 3);
    const solve = base === null ? op : op - base;
    return {
      label: impl.label,
      name: impl.name,
      microsPerFrame: round(op),
      baseMicros: base === null ? null : round(base),
      microsPerSolve: round(solve),
      microsPerIteration: iterations === null ? null : round(solve / iterations),
      meanError: round(sum / TARGET_COUNT, 10),
      worstError: round(worst, 10),
      errorUnit,
      bytesPerFrame: round(alloc.bytesPerOp, 2),
      gcs: alloc.gcsDuringLoop,
    };
  });
}

/** Mean and worst error of `impl` over the target table. */
export function accuracyPass(impl: Impl): [number, number] {
  let sum = 0;
  let worst = 0;
  for (let f = 0; f < TARGET_COUNT; f++) {
    impl.op(f);
    const e = impl.error(f);
    sum += e;
    if (!(e <= worst)) worst = e;
  }
  return [round(sum / TARGET_COUNT, 10), round(worst, 10)];
}

/** The tail's last bone's world position (matrices recomputed). */
export function tailTipWorld(rig: TailRig, out: Vector3): Vector3 {
  rig.mesh.computeWorldMatrix(true);
  rig.skeleton.computeAbsoluteMatrices(true);
  rig.bones[rig.bones.length - 1]!.getAbsolutePositionToRef(rig.mesh, out);
  return out;
}

/**
 * A BabylonRig over `tail`'s bones as the components build it: FixTransforms stored for `bones`. `frame` is
 * what a component's frame does (FixTransforms, read, solve, write), `read` the solver-alone base.
 */
export function rigOver(tail: TailRig): { rig: BabylonRig; ids: number[] } {
  tail.scene.render();
  const rig = new BabylonRig(tail.skeleton, tail.bones, { mesh: tail.mesh });
  const ids = tail.bones.map((b: Bone) => rig.idOf(b));
  rig.storeDefaultLocalState(ids.map((bone) => ({ bone, position: false })));
  rig.read();
  return { rig, ids };
}

/** World targets into component space. */
export function toComponent(rig: BabylonRig, targets: Float64Array): Float64Array {
  const out = new Float64Array(targets.length);
  const w = new Vec3();
  const c = new Vec3();
  for (let i = 0; i < targets.length; i += 3) {
    w.x = targets[i]!;
    w.y = targets[i + 1]!;
    w.z = targets[i + 2]!;
    rig.worldToComponentPoint(w, c);
    out[i] = c.x;
    out[i + 1] = c.y;
    out[i + 2] = c.z;
  }
  return out;
}
