/**
 * `npm run bench -- biped`: issue 19's full-body accuracy table on our version of the problem
 * (test/helpers/biped-problem.ts: the synthetic 1.75 m biped as plain Babylon bones, 1,000 seeded target sets for
 * pelvis, hands and feet), side by side in one process:
 *
 * - ours: FullBodyBipedIK (defaults, iterations 4, pelvis on the body effector), the whole Babylon frame
 *   (frame id, targets, FixTransforms, read, solve, write), and the same followed by
 *   `skeleton.computeAbsoluteMatrices()` (what the render does next, and what BoneIKController pays inside);
 * - the reference: JacobianIK over the whole body, the pelvis placed (test/helpers/biped-solvers.ts);
 * - Babylon's BoneIKController ×4 (limbs only, pelvis placed);
 * - FinalIK's behaviour (fixed count, FixToNode) and each of issue 19's parts alone (adaptive iterations,
 *   preserveBoneLengths), to tell what each gives;
 * - ours at 1, 2, 4, 8 and 16 fixed iterations (the solver clamps to 10): far-set error against time.
 *
 * Timing: every op in alternating rounds (`timeInRounds`, bench/family-harness.ts), one op = one frame on the next
 * set (cycling through the table). Accuracy: one untimed pass over the 1,000 sets, each solved from the rest pose.
 * Allocation: `measureAllocation` on the op alone.
 */
import * as os from "node:os";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { type BipedAccuracy, NEAR_EXTENSION, SetProbe, measureAccuracy } from "../test/helpers/biped-measure.js";
import { BIPED_HEIGHT_M, BIPED_SEED, BIPED_SET_COUNT, ISSUE19_TARGETS } from "../test/helpers/biped-problem.js";
import { type BipedTargetSets, bipedTargetSets } from "../test/helpers/biped-target-sets.js";
import {
  BoneIKBipedSolver,
  type BipedSolver,
  FbbikBipedSolver,
  JacobianBipedSolver,
} from "../test/helpers/biped-solvers.js";
import { type Benchmark, type TargetCheck, atMost, measureAllocation, round, solverActiveCheck } from "./common.js";
import { timeInRounds } from "./family-harness.js";

/** Iteration counts of the per-iteration rows. */
export const BIPED_ITERATIONS = [1, 2, 4, 8, 16] as const;

/** One solver's row. */
export interface BipedBenchRow {
  label: string;
  name: string;
  /** Median µs per frame (alternating rounds). */
  microsPerFrame: number;
  /** Bytes allocated per frame (smallest of 3 loops; below 1: none), or null when not measured. */
  bytesPerFrame: number | null;
  /** Issue 19's accuracy figures over the whole table. */
  accuracy: OursAccuracy;
}

/** One iteration count of ours. */
export interface BipedIterationRow {
  /** Iterations asked for. */
  requested: number;
  /** Iterations the solver runs (it clamps to 0–10). */
  effective: number;
  microsPerFrame: number;
  accuracy: BipedAccuracy;
}

/** What `npm run bench -- biped` writes to bench/results/biped.json. */
export interface BipedBenchResult {
  problem: {
    description: string;
    heightM: number;
    seed: number;
    sets: number;
    reachableSets: number;
    farSets: number;
    bodyMovedSets: number;
    nearExtension: number;
  };
  rows: BipedBenchRow[];
  byIterations: BipedIterationRow[];
  issue19Targets: typeof ISSUE19_TARGETS;
  loadAverage: [number, number];
  node: string;
  date: string;
  cpu: string;
}

const ALLOCATION_FRAMES = 20_000;
/** The Jacobian takes hundreds of µs a frame: fewer frames per allocation loop. */
const JACOBIAN_ALLOCATION_FRAMES = 500;

function roundAccuracy(a: BipedAccuracy): BipedAccuracy {
  const r = (v: number) => round(v, 6);
  return {
    ...a,
    reachableWithin1mmShare: r(a.reachableWithin1mmShare),
    innerWithin1mmShare: r(a.innerWithin1mmShare),
    reachableWorstMeanMm: r(a.reachableWorstMeanMm),
    reachableWorstMaxMm: r(a.reachableWorstMaxMm),
    farWorstMeanMm: r(a.farWorstMeanMm),
    farWithin1cmShare: r(a.farWithin1cmShare),
    farEffectorMeanMm: a.farEffectorMeanMm.map(r),
    boneLengthChangeMaxMm: r(a.boneLengthChangeMaxMm),
    boneLengthChangePercentOfHeight: round(a.boneLengthChangePercentOfHeight, 9),
    boneLengthChangeByLinkMm: Object.fromEntries(
      Object.entries(a.boneLengthChangeByLinkMm).map(([k, v]) => [k, round(v, 3)]),
    ),
  };
}

/** The accuracy figures; for ours also the mean iterations the solves used, reachable and far sets. */
export type OursAccuracy = BipedAccuracy & { iterationsUsed?: [number, number] };

/** FinalIK's behaviour: a fixed iteration count, FixToNode mapping. */
const FINALIK = { iterationTolerance: 0, preserveBoneLengths: false };

/** The accuracy figures, and for ours the mean iterations used on reachable and far sets. */
function accuracyOf(solver: BipedSolver, sets: BipedTargetSets): OursAccuracy {
  const ik = solver instanceof FbbikBipedSolver ? solver.ik : null;
  const used = [0, 0];
  const a = measureAccuracy(sets, new SetProbe(solver.biped), (s) => {
    solver.solve(sets, s);
    if (ik !== null) used[sets.far[s]!]! += ik.solver.iterationsUsed;
  });
  const r = roundAccuracy(a);
  if (ik === null) return r;
  return { ...r, iterationsUsed: [round(used[0]! / sets.reachableCount, 2), round(used[1]! / sets.farCount, 2)] };
}

function runBiped(): BipedBenchResult {
  // the solvers warn once per cause: keep the table readable
  Logger.LogLevels = Logger.ErrorLogLevel;
  const load0 = os.loadavg()[0]!;
  const sets = bipedTargetSets();
  const ours = new FbbikBipedSolver();
  const oursMatrices = new FbbikBipedSolver({ worldMatrices: true });
  const jacobian = new JacobianBipedSolver();
  const boneIk = new BoneIKBipedSolver();
  // FinalIK's behaviour, then each of issue 19's parts alone (what each gives)
  const finalIK = new FbbikBipedSolver({ settings: FINALIK, tag: "FinalIK's fixed count and FixToNode" });
  const adaptiveOnly = new FbbikBipedSolver({
    settings: { preserveBoneLengths: false, maxIterations: 10 },
    tag: "adaptive iterations (maxIterations 10) only",
  });
  const preserveOnly = new FbbikBipedSolver({ settings: { iterationTolerance: 0 }, tag: "preserveBoneLengths only" });
  const thorough = new FbbikBipedSolver({ settings: { maxIterations: 10 }, tag: "maxIterations 10" });
  const main: BipedSolver[] = [ours, oursMatrices, thorough, finalIK, adaptiveOnly, preserveOnly, jacobian, boneIk];
  const byIt = BIPED_ITERATIONS.map(
    (n) => new FbbikBipedSolver({ iterations: n, settings: { iterationTolerance: 0 } }),
  );
  const extra = byIt;
  const all = [...main, ...extra];
  const ops = all.map((solver) => (f: number) => solver.solve(sets, f % sets.count));
  const medians = timeInRounds(ops);
  const accuracy = new Map<BipedSolver, OursAccuracy>();
  for (const s of all) if (s !== oursMatrices) accuracy.set(s, accuracyOf(s, sets));
  accuracy.set(oursMatrices, accuracy.get(ours)!);
  const rows: BipedBenchRow[] = main.map((s, i) => {
    const frames = s === jacobian ? JACOBIAN_ALLOCATION_FRAMES : ALLOCATION_FRAMES;
    const alloc = measureAllocation(ops[i]!, frames, 0, 3);
    return {
      label: s.label,
      name: s.name,
      microsPerFrame: round(medians[i]!),
      bytesPerFrame: round(alloc.bytesPerOp, 2),
      accuracy: accuracy.get(s)!,
    };
  });
  const byIterations = byIt.map((s, k) => ({
    requested: BIPED_ITERATIONS[k]!,
    effective: (s as FbbikBipedSolver).ik.solver.iterations,
    microsPerFrame: round(medians[all.indexOf(s)]!),
    accuracy: accuracy.get(s)!,
  }));
  for (const s of all) s.dispose();
  return {
    problem: {
      description:
        "the synthetic biped (test/helpers/synthetic-biped.ts, T-pose, 1.75 m, 25 plain Babylon bones: 19 joints + " +
        "root, toes, fingers, head top) in a right-handed NullEngine scene; each set the pelvis, hand and foot " +
        "positions of a random pose (pelvis ±5 cm; in 45 % of sets pelvis, spine, chest, clavicles turned up to " +
        "1.25/1.0/1.0/0.5 rad; limbs turned up to 1.5/1.0 rad arms, 0.9/0.8 rad legs), so a perfect solver reaches " +
        "every set exactly; far = the limbs alone (pelvis placed, body at rest) cannot reach it within 1 mm. " +
        "Errors from the bones' float64 local transforms composed in float64.",
      heightM: BIPED_HEIGHT_M,
      seed: BIPED_SEED,
      sets: BIPED_SET_COUNT,
      reachableSets: sets.reachableCount,
      farSets: sets.farCount,
      bodyMovedSets: sets.bodyMovedCount,
      nearExtension: NEAR_EXTENSION,
    },
    rows,
    byIterations,
    issue19Targets: ISSUE19_TARGETS,
    loadAverage: [round(load0, 2), round(os.loadavg()[0]!, 2)],
    node: process.version,
    date: new Date().toISOString(),
    cpu: os.cpus()[0]?.model.trim() ?? "unknown",
  };
}

const pct = (v: number) => round(100 * v, 1);

/** The biped benchmark (`npm run bench -- biped`). */
export const bipedBenchmark: Benchmark<BipedBenchResult> = {
  name: "biped",
  file: "biped.json",
  run: runBiped,
  rows(r) {
    const p = r.problem;
    const out: Array<[string, number | string, string]> = [
      [
        "sets: reachable by the limbs alone / far",
        `${p.reachableSets} / ${p.farSets} (${p.bodyMovedSets} with the body turned)`,
        "",
      ],
    ];
    for (const row of r.rows) {
      const a = row.accuracy;
      out.push(
        [`${row.label}: µs per frame`, row.microsPerFrame, "µs"],
        [`  bytes per frame`, row.bytesPerFrame ?? "-", "B"],
        [
          `  reachable within 1 mm (all / limbs ≤ ${NEAR_EXTENSION} of reach)`,
          `${pct(a.reachableWithin1mmShare)} / ${pct(a.innerWithin1mmShare)} (${a.innerSets} sets)`,
          "%",
        ],
        [
          `  reachable: worst effector, mean / max`,
          `${round(a.reachableWorstMeanMm, 4)} / ${round(a.reachableWorstMaxMm, 3)}`,
          "mm",
        ],
        [`  far: worst effector, mean`, round(a.farWorstMeanMm, 3), "mm"],
        [`  far within 1 cm`, pct(a.farWithin1cmShare), "%"],
        ...(a.iterationsUsed !== undefined
          ? [
              [`  iterations used, reachable / far`, `${a.iterationsUsed[0]} / ${a.iterationsUsed[1]}`, ""] as [
                string,
                string,
                string,
              ],
            ]
          : []),
        [`  largest change of a bone's length (${a.boneLengthChangeLink})`, round(a.boneLengthChangeMaxMm, 5), "mm"],
      );
    }
    for (const it of r.byIterations) {
      const a = it.accuracy;
      const runs = it.effective !== it.requested ? ` (runs ${it.effective})` : "";
      out.push([
        `ours, iterations ${it.requested}${runs}: µs / far mean / far ≤ 1 cm / reach ≤ 1 mm`,
        `${it.microsPerFrame} / ${round(a.farWorstMeanMm, 3)} mm / ${pct(a.farWithin1cmShare)} % / ` +
          `${pct(a.reachableWithin1mmShare)} %`,
        "",
      ]);
    }
    out.push(["load average start / end", `${r.loadAverage[0]} / ${r.loadAverage[1]}`, ""]);
    return out;
  },
  checks(r): TargetCheck[] {
    const ours = r.rows[0]!;
    const a = ours.accuracy;
    // the defaults run at most `iterations`; maxIterations 10 lets hard frames go on (row 2)
    const thorough = r.rows[2]!.accuracy;
    const t = ISSUE19_TARGETS;
    return [
      solverActiveCheck(r.rows.every((row) => row.accuracy.nonFiniteSets === 0)),
      atMost("ours: bytes per frame (< 1: none)", ours.bytesPerFrame ?? Number.NaN, 0.99, "B"),
      {
        label: "ours, maxIterations 10: reachable sets within 1 mm",
        value: pct(thorough.reachableWithin1mmShare),
        unit: "%",
        target: ">= 100 %",
        pass: thorough.reachableWithin1mmShare >= 1,
      },
      atMost("issue 19: far sets, worst effector's mean", round(a.farWorstMeanMm, 3), t.farWorstMeanMm, "mm"),
      {
        label: "issue 19: far sets within 1 cm",
        value: pct(a.farWithin1cmShare),
        unit: "%",
        target: `>= ${100 * t.farWithin1cmShare} %`,
        pass: a.farWithin1cmShare >= t.farWithin1cmShare,
      },
      atMost(
        "issue 19: largest change of a bone's length, % of height",
        a.boneLengthChangePercentOfHeight,
        t.boneLengthChangePercentOfHeight,
        "%",
      ),
    ];
  },
};
