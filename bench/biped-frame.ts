/**
 * `npm run bench -- biped-frame`: issue 19's speed question on its own problem (test/helpers/biped-problem.ts, the
 * synthetic biped as plain Babylon bones): one full-body frame of ours against Babylon's four BoneIKControllers
 * (limbs only), in one process, in alternating rounds (`timeInRounds`), each with and without the skeleton's world
 * matrices (`skeleton.computeAbsoluteMatrices()`, what the render computes next), ours with the defaults and with
 * `iterationTolerance` 0 (FinalIK's fixed 4 iterations). Then where ours spends its frame: the same loop cut short
 * at each stage (cumulative), timed in the same rounds. The solvers are those of `npm run bench -- biped`
 * (test/helpers/biped-solvers.ts); this benchmark leaves accuracy to that one.
 */
import * as os from "node:os";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { SET_STRIDE } from "../test/helpers/biped-problem.js";
import { BoneIKBipedSolver, type BipedSolver, FbbikBipedSolver, advanceFrame } from "../test/helpers/biped-solvers.js";
import { type BipedTargetSets, bipedTargetSets } from "../test/helpers/biped-target-sets.js";
import { type Benchmark, type TargetCheck, atMost, measureAllocation, round } from "./common.js";
import { timeInRounds } from "./family-harness.js";

/** One timed row. */
export interface BipedFrameRow {
  label: string;
  /** Median µs per frame (alternating rounds, batches of about 100 µs). */
  microsPerFrame: number;
  /** Bytes per frame (smallest of 3 loops of 20,000 frames; below 1: none). */
  bytesPerFrame: number;
}

/** Cumulative stages of ours (defaults), µs per frame; each includes the ones before it. */
export interface BipedFrameStages {
  /** Frame id + the five targets written into the effectors. */
  targets: number;
  /** + FixTransforms (`_beforeAnimations()`: what the IK wrote last frame taken off). */
  fixTransforms: number;
  /** + `rig.read()` (Babylon's bones read, FK into component space). */
  read: number;
  /** + `solver.inner.update()` with the mapping detached: the solver's pose read, iterations, bend pass. */
  solverOnly: number;
  /** + `solver.inner.update()` with the mapping (its pose read and write into the rig's arrays). */
  solve: number;
  /** FixTransforms + `ik.update()` (adds `rig.write()` and the update's checks). */
  write: number;
  /** + `skeleton.computeAbsoluteMatrices()`. */
  matrices: number;
}

/** What the benchmark writes to bench/results/biped-frame.json. */
export interface BipedFrameResult {
  rows: BipedFrameRow[];
  stages: BipedFrameStages;
  /** Each stage's own share (differences of the cumulative medians), µs. */
  stageMicros: Record<keyof BipedFrameStages, number>;
  loadAverage: [number, number];
  node: string;
  date: string;
  cpu: string;
}

const ALLOCATION_FRAMES = 20_000;

/** A solver's frame followed by the skeleton's absolute matrices. */
function withMatrices(solver: BipedSolver, sets: BipedTargetSets): (f: number) => void {
  return (f) => {
    solver.solve(sets, f % sets.count);
    solver.biped.skeleton.computeAbsoluteMatrices();
  };
}

/** The cumulative stage ops on `ours` (and on `bare`, the same setup with its mapping detached). */
function stageOps(ours: FbbikBipedSolver, bare: FbbikBipedSolver, sets: BipedTargetSets) {
  const targets = (solver: FbbikBipedSolver, f: number): void => {
    const s = solver.ik.solver;
    advanceFrame(solver.biped.scene);
    const t = sets.targets;
    const o = (f % sets.count) * SET_STRIDE;
    s.bodyEffector.position.set(t[o]!, t[o + 1]!, t[o + 2]!);
    s.leftHandEffector.position.set(t[o + 3]!, t[o + 4]!, t[o + 5]!);
    s.rightHandEffector.position.set(t[o + 6]!, t[o + 7]!, t[o + 8]!);
    s.leftFootEffector.position.set(t[o + 9]!, t[o + 10]!, t[o + 11]!);
    s.rightFootEffector.position.set(t[o + 12]!, t[o + 13]!, t[o + 14]!);
  };
  const upToSolve = (solver: FbbikBipedSolver, f: number): void => {
    targets(solver, f);
    solver.ik._beforeAnimations();
    solver.ik.rig.read();
    solver.ik.solver.inner.update();
  };
  const ik = ours.ik;
  return {
    targets: (f: number) => targets(ours, f),
    fixTransforms: (f: number) => {
      targets(ours, f);
      ik._beforeAnimations();
    },
    read: (f: number) => {
      targets(ours, f);
      ik._beforeAnimations();
      ik.rig.read();
    },
    solverOnly: (f: number) => upToSolve(bare, f),
    solve: (f: number) => upToSolve(ours, f),
    write: (f: number) => {
      targets(ours, f);
      ik._beforeAnimations();
      ik.update();
    },
    matrices: (f: number) => {
      targets(ours, f);
      ik._beforeAnimations();
      ik.update();
      ours.biped.skeleton.computeAbsoluteMatrices();
    },
  };
}

function runBipedFrame(): BipedFrameResult {
  Logger.LogLevels = Logger.ErrorLogLevel;
  const load0 = os.loadavg()[0]!;
  const sets = bipedTargetSets();
  const ours = new FbbikBipedSolver();
  const oursFixed = new FbbikBipedSolver({ iterationTolerance: 0 });
  const boneIk = new BoneIKBipedSolver();
  const staged = new FbbikBipedSolver();
  const bare = new FbbikBipedSolver();
  bare.ik.solver.inner.mapping = null;
  const frame = (s: BipedSolver) => (f: number) => s.solve(sets, f % sets.count);
  const rowOps: Array<[string, (f: number) => void]> = [
    [ours.label, frame(ours)],
    [`${ours.label} + matrices`, withMatrices(ours, sets)],
    [oursFixed.label, frame(oursFixed)],
    [`${oursFixed.label} + matrices`, withMatrices(oursFixed, sets)],
    [boneIk.label, frame(boneIk)],
    [`${boneIk.label} + matrices`, withMatrices(boneIk, sets)],
  ];
  const stages = stageOps(staged, bare, sets);
  const stageNames = Object.keys(stages) as (keyof BipedFrameStages)[];
  const medians = timeInRounds([...rowOps.map((r) => r[1]), ...stageNames.map((n) => stages[n])]);
  const rows = rowOps.map(([label, op], i) => ({
    label,
    microsPerFrame: round(medians[i]!),
    bytesPerFrame: round(measureAllocation(op, ALLOCATION_FRAMES, 0, 3).bytesPerOp, 2),
  }));
  const cumulative = {} as BipedFrameStages;
  const own = {} as Record<keyof BipedFrameStages, number>;
  stageNames.forEach((n, k) => {
    cumulative[n] = round(medians[rowOps.length + k]!);
    own[n] = round(medians[rowOps.length + k]! - (k > 0 ? medians[rowOps.length + k - 1]! : 0));
  });
  for (const s of [ours, oursFixed, boneIk, staged, bare]) s.dispose();
  return {
    rows,
    stages: cumulative,
    stageMicros: own,
    loadAverage: [round(load0, 2), round(os.loadavg()[0]!, 2)],
    node: process.version,
    date: new Date().toISOString(),
    cpu: os.cpus()[0]?.model.trim() ?? "unknown",
  };
}

const STAGE_LABELS: Record<keyof BipedFrameStages, string> = {
  targets: "frame id + targets",
  fixTransforms: "FixTransforms",
  read: "rig.read() (bones, FK)",
  solverOnly: "solver without mapping (read, iterations, bend)",
  solve: "mapping (readPose + writePose)",
  write: "rig.write() + update()'s checks",
  matrices: "skeleton.computeAbsoluteMatrices()",
};

/** The benchmark (`npm run bench -- biped-frame`). */
export const bipedFrameBenchmark: Benchmark<BipedFrameResult> = {
  name: "biped-frame",
  file: "biped-frame.json",
  run: runBipedFrame,
  rows(r) {
    const out: Array<[string, number | string, string]> = [];
    for (const row of r.rows)
      out.push([`${row.label}: µs per frame / bytes`, `${row.microsPerFrame} / ${row.bytesPerFrame}`, ""]);
    out.push(["ours (defaults), stages (differences of medians, ± noise):", "", ""]);
    for (const n of Object.keys(STAGE_LABELS) as (keyof BipedFrameStages)[])
      out.push([`  ${STAGE_LABELS[n]}`, r.stageMicros[n], "µs"]);
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
