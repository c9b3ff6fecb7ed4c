/**
 * `npm run bench -- biped-frame`: issue 19's speed question on its own problem (test/helpers/biped-problem.ts, the
 * synthetic biped as plain Babylon bones): one full-body frame of ours against Babylon's four BoneIKControllers
 * (limbs only), in one process, in alternating rounds (`timeInRounds`), each with and without the skeleton's world
 * matrices (`skeleton.computeAbsoluteMatrices()`, what the render computes next), ours with the defaults and with
 * `iterationTolerance` 0 (FinalIK's fixed 4 iterations). Then where ours spends its frame: per-frame timestamps
 * at each stage boundary (bench/biped-frame-stages.ts), medians per stage. The solvers are those of
 * `npm run bench -- biped` (test/helpers/biped-solvers.ts); this benchmark leaves accuracy to that one.
 */
import * as os from "node:os";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { BoneIKBipedSolver, type BipedSolver, FbbikBipedSolver } from "../test/helpers/biped-solvers.js";
import { type BipedTargetSets, bipedTargetSets } from "../test/helpers/biped-target-sets.js";
import { type Benchmark, type TargetCheck, atMost, measureAllocation, round } from "./common.js";
import { BIPED_FRAME_STAGES, timeBipedStages } from "./biped-frame-stages.js";
import { timeInRounds } from "./family-harness.js";

/** One timed row. */
export interface BipedFrameRow {
  label: string;
  /** Median µs per frame (alternating rounds, batches of about 100 µs). */
  microsPerFrame: number;
  /** Bytes per frame (smallest of 3 loops of 20,000 frames; below 1: none). */
  bytesPerFrame: number;
}

/** What the benchmark writes to bench/results/biped-frame.json. */
export interface BipedFrameResult {
  rows: BipedFrameRow[];
  /**
   * Ours + matrices, each stage's median µs from per-frame timestamps (bench/biped-frame-stages.ts; ~50 ns per stamp
   * included), with the defaults and with iterationTolerance 0.
   */
  stages: { name: string; defaultsMicros: number; tolerance0Micros: number }[];
  loadAverage: [number, number];
  node: string;
  date: string;
  cpu: string;
}

const ALLOCATION_FRAMES = 20_000;
/** Stamped frames per stage table. */
const STAGE_FRAMES = 100_000;

/** A solver's frame followed by the skeleton's absolute matrices. */
function withMatrices(solver: BipedSolver, sets: BipedTargetSets): (f: number) => void {
  return (f) => {
    solver.solve(sets, f % sets.count);
    solver.biped.skeleton.computeAbsoluteMatrices();
  };
}

/** Stage medians of ours + matrices, defaults and iterationTolerance 0 (each its own solver, alternating). */
function stageTable(sets: BipedTargetSets): BipedFrameResult["stages"] {
  const solvers = [undefined, 0].map((t) => new FbbikBipedSolver({ worldMatrices: true, iterationTolerance: t }));
  const medians = timeBipedStages(solvers, sets, STAGE_FRAMES);
  for (const s of solvers) s.dispose();
  return BIPED_FRAME_STAGES.map((name, i) => ({
    name,
    defaultsMicros: round(medians[0]![i]!),
    tolerance0Micros: round(medians[1]![i]!),
  }));
}

function runBipedFrame(): BipedFrameResult {
  Logger.LogLevels = Logger.ErrorLogLevel;
  const load0 = os.loadavg()[0]!;
  const sets = bipedTargetSets();
  const ours = new FbbikBipedSolver();
  const oursFixed = new FbbikBipedSolver({ iterationTolerance: 0 });
  const boneIk = new BoneIKBipedSolver();
  const frame = (s: BipedSolver) => (f: number) => s.solve(sets, f % sets.count);
  const rowOps: Array<[string, (f: number) => void]> = [
    [ours.label, frame(ours)],
    [`${ours.label} + matrices`, withMatrices(ours, sets)],
    [oursFixed.label, frame(oursFixed)],
    [`${oursFixed.label} + matrices`, withMatrices(oursFixed, sets)],
    [boneIk.label, frame(boneIk)],
    [`${boneIk.label} + matrices`, withMatrices(boneIk, sets)],
  ];
  const medians = timeInRounds(rowOps.map((r) => r[1]));
  const rows = rowOps.map(([label, op], i) => ({
    label,
    microsPerFrame: round(medians[i]!),
    bytesPerFrame: round(measureAllocation(op, ALLOCATION_FRAMES, 0, 3).bytesPerOp, 2),
  }));
  const stages = stageTable(sets);
  for (const s of [ours, oursFixed, boneIk]) s.dispose();
  return {
    rows,
    stages,
    loadAverage: [round(load0, 2), round(os.loadavg()[0]!, 2)],
    node: process.version,
    date: new Date().toISOString(),
    cpu: os.cpus()[0]?.model.trim() ?? "unknown",
  };
}

/** The benchmark (`npm run bench -- biped-frame`). */
export const bipedFrameBenchmark: Benchmark<BipedFrameResult> = {
  name: "biped-frame",
  file: "biped-frame.json",
  run: runBipedFrame,
  rows(r) {
    const out: Array<[string, number | string, string]> = [];
    for (const row of r.rows)
      out.push([`${row.label}: µs per frame / bytes`, `${row.microsPerFrame} / ${row.bytesPerFrame}`, ""]);
    out.push(["ours + matrices, stages (medians of stamped frames), defaults / tolerance 0:", "", ""]);
    for (const st of r.stages) out.push([`  ${st.name}`, `${st.defaultsMicros} / ${st.tolerance0Micros}`, "µs"]);
    out.push(["load average start / end", `${r.loadAverage[0]} / ${r.loadAverage[1]}`, ""]);
    return out;
  },
  checks(r): TargetCheck[] {
    const [ours, oursM, fixed, fixedM, bone] = r.rows;
    return [
      atMost("ours: bytes per frame (< 1: none)", ours!.bytesPerFrame, 0.99, "B"),
      atMost("ours + matrices ≤ BoneIKController ×4 (defaults)", oursM!.microsPerFrame, bone!.microsPerFrame, "µs"),
      atMost("ours + matrices ≤ BoneIKController ×4 (tolerance 0)", fixedM!.microsPerFrame, bone!.microsPerFrame, "µs"),
      atMost("ours, tolerance 0: bytes per frame", fixed!.bytesPerFrame, 0.99, "B"),
      atMost("ours + matrices: bytes per frame", oursM!.bytesPerFrame, 0.99, "B"),
    ];
  },
};
