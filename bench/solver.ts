/**
 * The solver alone: IKSolverFullBodyBiped on the synthetic T-pose biped (no mapping, so `update()` is
 * read the pose + solve), 4 iterations, both hands and feet pulled to moving targets.
 *
 * One "solve" = move the four targets along their Lissajous paths (read from a table, written into the
 * effectors' existing Vec3 fields) + `solver.update()`.
 */
import * as os from "node:os";
import type { Vec3 } from "../src/math/vec3.js";
import { IKSolverFullBodyBiped } from "../src/solver/full-body-biped.js";
import { syntheticBiped } from "../test/helpers/synthetic-biped.js";
import { PATH_FRAMES, PATH_STRIDE, unitTargetPath } from "./target-path.js";
import {
  type Benchmark,
  atMost,
  solverActiveCheck,
  measureAllocation,
  round,
  summarize,
  timeBatches,
} from "./common.js";

/** What the solver benchmark writes to bench/results/solver.json. */
export interface SolverBenchResult {
  /** Median time of one solve (targets + update), µs, over batches of `batchSize` solves. */
  solveMedianMicros: number;
  /** 95th percentile of the per-solve time of the batches, µs. */
  solveP95Micros: number;
  /** Bytes allocated on the JS heap per solve (smallest of the repeats; below 1 means none per solve). */
  bytesPerSolve: number;
  /** Node version. */
  node: string;
  /** When the benchmark ran (ISO 8601). */
  date: string;
  /** Fastest batch, µs per solve. */
  solveMinMicros: number;
  /** Mean over all timed solves, µs. */
  solveMeanMicros: number;
  /** Median time of moving the targets alone (part of every solve above), µs. */
  targetsOnlyMedianMicros: number;
  /** Bytes allocated per target move alone: the harness's share of bytesPerSolve (should be 0). */
  targetsOnlyBytesPerSolve: number;
  /** Solver iterations. */
  iterations: number;
  /** Untimed warm-up solves. */
  warmupSolves: number;
  /** Timed solves. */
  timedSolves: number;
  /** Solves per timed batch. */
  batchSize: number;
  /** Solves per allocation loop. */
  allocationSolves: number;
  /** Allocation loops measured (the smallest is kept). */
  allocationRepeats: number;
  /** heapUsed after − before the kept allocation loop, bytes. */
  allocationRawHeapDelta: number;
  /** GCs during the kept allocation loop (their freed bytes are added back). */
  allocationGcs: number;
  /**
   * Bytes per solve with every weight and parameter fractional (see {@link setFractionalParameters}):
   * V8 boxes a double passed to or returned from a call it does not inline, so weights of exactly 1
   * (small integers) could hide an allocation that a user's 0.7 shows.
   */
  fractionalBytesPerSolve: number;
  /** Median per solve in the fractional configuration, µs (more stages do work: push, plane rotations…). */
  fractionalMedianMicros: number;
  /** True when every solve ran the solver (solvedLastUpdate) and the nodes stayed finite. */
  solverActive: boolean;
  /** CPU model. */
  cpu: string;
  /** Logical CPUs. */
  cpus: number;
}

/** Targets of the solver benchmark (2-core reference machine). */
export const SOLVER_TARGETS = {
  /** Median µs per solve. */
  medianMicros: 5,
  /**
   * Bytes per solve: the target is 0. The smallest V8 heap object is 16 B, so a solve that allocates
   * anything shows as ≥ 16 B/solve; a figure below 1 B is fixed heap growth spread over the loop.
   */
  bytesPerSolveBelow: 1,
} as const;

const WARMUP_SOLVES = 20_000;
const BATCH_SIZE = 100;
const TIMED_BATCHES = 2_000; // 200,000 timed solves
const TARGETS_ONLY_BATCHES = 1_000;
const ALLOCATION_SOLVES = 100_000;
const ALLOCATION_REPEATS = 3;
const ITERATIONS = 4;
/**
 * Every weight and chain parameter at a fractional value, and every optional stage on: push with
 * pushParent, maintainRelativePositionWeight, rotation weights, bend weights, body, shoulder and thigh
 * effectors, a master weight below 1, pull-body both ways.
 */
export function setFractionalParameters(solver: IKSolverFullBodyBiped): void {
  const limbs = [solver.leftHandEffector, solver.rightHandEffector, solver.leftFootEffector, solver.rightFootEffector];
  limbs.forEach((e, i) => {
    e.positionWeight = 0.71 + 0.05 * i;
    e.rotationWeight = 0.33;
    e.maintainRelativePositionWeight = 0.4;
  });
  solver.bodyEffector.positionWeight = 0.37;
  solver.leftShoulderEffector.positionWeight = 0.21;
  solver.rightThighEffector.positionWeight = 0.17;
  for (const c of solver.chains) {
    c.pull = 0.83;
    c.reach = 0.13;
    c.push = 0.41;
    c.pushParent = 0.27;
    c.bendConstraint.weight = 0.61;
  }
  solver.ikPositionWeight = 0.93;
  solver.spineStiffness = 0.47;
  solver.pullBodyVertical = 0.61;
  solver.pullBodyHorizontal = 0.12;
}

/** The solver on the synthetic biped, with `moveTargets(frame)` and `solve(frame)` closures. */
export function createSolverScene(): {
  solver: IKSolverFullBodyBiped;
  moveTargets: (frame: number) => void;
  solve: (frame: number) => void;
} {
  const b = syntheticBiped({ pose: "T" });
  const solver = new IKSolverFullBodyBiped(b.pose);
  solver.setToReferences(b.bones);
  solver.iterations = ITERATIONS;
  const effectors = [
    solver.leftHandEffector,
    solver.rightHandEffector,
    solver.leftFootEffector,
    solver.rightFootEffector,
  ];
  for (const e of effectors) e.positionWeight = 1;
  solver.bodyEffector.positionWeight = 0;

  // Each target circles its bone's animated position (the effector position set at initiate): hands
  // within 0.2 m, feet within 0.1 m. Hands moving outward go beyond the arm's reach, which exercises the
  // body pull too. The paths come from a table (bench/target-path.ts), so the timing is the solver's.
  const targets: Vec3[] = effectors.map((e) => e.position);
  const centres = new Float64Array(12);
  targets.forEach((t, i) => {
    centres[i * 3] = t.x;
    centres[i * 3 + 1] = t.y;
    centres[i * 3 + 2] = t.z;
  });
  const radius = [0.2 * b.scale, 0.2 * b.scale, 0.1 * b.scale, 0.1 * b.scale];
  const path = unitTargetPath();
  const moveTargets = (frame: number): void => {
    const o = (frame % PATH_FRAMES) * PATH_STRIDE;
    for (let i = 0; i < 4; i++) {
      const p = targets[i]!;
      const r = radius[i]!;
      p.x = centres[i * 3]! + r * path[o + i * 3]!;
      p.y = centres[i * 3 + 1]! + r * path[o + i * 3 + 1]!;
      p.z = centres[i * 3 + 2]! + r * path[o + i * 3 + 2]!;
    }
  };
  const solve = (frame: number): void => {
    moveTargets(frame);
    solver.update();
  };
  return { solver, moveTargets, solve };
}

/** True when the last update ran the solver and every node is finite. */
function solverHealthy(solver: IKSolverFullBodyBiped): boolean {
  if (!solver.solvedLastUpdate) return false;
  for (const c of solver.chains) {
    for (const n of c.nodes) {
      const p = n.solverPosition;
      if (!Number.isFinite(p.x) || !Number.isFinite(p.y) || !Number.isFinite(p.z)) return false;
    }
  }
  return true;
}

/** Runs the solver benchmark: warm-up, batch timing, targets-only timing, allocation loops. */
export function benchSolver(): SolverBenchResult {
  const { solver, moveTargets, solve } = createSolverScene();
  const gc = globalThis.gc;

  let frame = 0;
  for (let i = 0; i < WARMUP_SOLVES; i++) solve(frame++);
  let healthy = solverHealthy(solver);

  // timing: warm the timing loop itself on a few batches, then a clean heap, then the timed batches
  frame = timeBatches(solve, 20, BATCH_SIZE, frame).nextFrame;
  gc?.();
  const timed = timeBatches(solve, TIMED_BATCHES, BATCH_SIZE, frame);
  frame = timed.nextFrame;
  healthy &&= solverHealthy(solver);
  const timing = summarize(timed.samples, BATCH_SIZE);

  // the share of every solve that is the harness: moving the targets without solving
  timeBatches(moveTargets, 20, BATCH_SIZE, 0);
  const targetsOnly = summarize(timeBatches(moveTargets, TARGETS_ONLY_BATCHES, BATCH_SIZE, 0).samples, BATCH_SIZE);

  // allocation: a separate plain loop with nothing but solves in it
  const alloc = measureAllocation(solve, ALLOCATION_SOLVES, frame, ALLOCATION_REPEATS);
  healthy &&= solverHealthy(solver);
  // control: the same measurement on the harness alone (the solver does not run, so the frames do not matter)
  const targetsAlloc = measureAllocation(moveTargets, ALLOCATION_SOLVES, 0, 1);

  // the fractional configuration, in a solver of its own
  const fractional = createSolverScene();
  setFractionalParameters(fractional.solver);
  let fFrame = 0;
  for (let i = 0; i < WARMUP_SOLVES; i++) fractional.solve(fFrame++);
  const fTimed = timeBatches(fractional.solve, TIMED_BATCHES / 4, BATCH_SIZE, fFrame);
  const fTiming = summarize(fTimed.samples, BATCH_SIZE);
  const fAlloc = measureAllocation(fractional.solve, ALLOCATION_SOLVES, fTimed.nextFrame, ALLOCATION_REPEATS);
  healthy &&= solverHealthy(fractional.solver);

  const cpus = os.cpus();
  return {
    solveMedianMicros: round(timing.median),
    solveP95Micros: round(timing.p95),
    bytesPerSolve: round(alloc.bytesPerOp, 2),
    node: process.version,
    date: new Date().toISOString(),
    solveMinMicros: round(timing.min),
    solveMeanMicros: round(timing.mean),
    targetsOnlyMedianMicros: round(targetsOnly.median),
    targetsOnlyBytesPerSolve: round(targetsAlloc.bytesPerOp, 2),
    iterations: solver.iterations,
    warmupSolves: WARMUP_SOLVES,
    timedSolves: timing.operations,
    batchSize: BATCH_SIZE,
    allocationSolves: ALLOCATION_SOLVES,
    allocationRepeats: ALLOCATION_REPEATS,
    allocationRawHeapDelta: alloc.rawHeapDelta,
    allocationGcs: alloc.gcsDuringLoop,
    fractionalBytesPerSolve: round(fAlloc.bytesPerOp, 2),
    fractionalMedianMicros: round(fTiming.median),
    solverActive: healthy,
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cpus: cpus.length,
  };
}

/** The solver benchmark as run by bench/run.ts. */
export const solverBenchmark: Benchmark<SolverBenchResult> = {
  name: "solver",
  file: "solver.json",
  run: benchSolver,
  rows: (r) => [
    ["median per solve", r.solveMedianMicros, "µs"],
    ["p95 per solve (of 100-solve batches)", r.solveP95Micros, "µs"],
    ["fastest batch", r.solveMinMicros, "µs"],
    ["mean", r.solveMeanMicros, "µs"],
    ["  of which moving the 4 targets", r.targetsOnlyMedianMicros, "µs"],
    ["allocated per solve", r.bytesPerSolve, "B"],
    ["  of which moving the 4 targets", r.targetsOnlyBytesPerSolve, "B"],
    ["  raw heapUsed delta (kept loop)", r.allocationRawHeapDelta, "B"],
    ["  GCs during the kept loop", r.allocationGcs, ""],
    ["timed solves", r.timedSolves, `(batches of ${r.batchSize}, after ${r.warmupSolves} warm-up)`],
    ["allocation loop", r.allocationSolves, `solves × ${r.allocationRepeats} (smallest kept)`],
    ["fractional weights: allocated per solve", r.fractionalBytesPerSolve, "B"],
    ["fractional weights: median per solve", r.fractionalMedianMicros, "µs"],
    ["iterations", r.iterations, ""],
    ["solver active", r.solverActive ? "yes" : "NO", ""],
  ],
  checks: (r) => [
    solverActiveCheck(r.solverActive),
    atMost("median per solve", r.solveMedianMicros, SOLVER_TARGETS.medianMicros, "µs"),
    {
      label: "bytes per solve",
      value: r.bytesPerSolve,
      unit: "B",
      target: `0 (< ${SOLVER_TARGETS.bytesPerSolveBelow} B: no per-solve allocation)`,
      pass: r.bytesPerSolve < SOLVER_TARGETS.bytesPerSolveBelow,
    },
    {
      label: "bytes per solve, fractional weights",
      value: r.fractionalBytesPerSolve,
      unit: "B",
      target: `0 (< ${SOLVER_TARGETS.bytesPerSolveBelow} B)`,
      pass: r.fractionalBytesPerSolve < SOLVER_TARGETS.bytesPerSolveBelow,
    },
  ],
};
