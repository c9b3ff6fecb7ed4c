/**
 * The IK family against what a Babylon user would otherwise pick, side by side in one process: each
 * solver of ours and its peer on the same chain, the same targets and the same iterations.
 *
 * - CCD (bench/family-ccd.ts): our `CCDIK` (the whole Babylon frame) and `IKSolverCCD` on a `BabylonRig`
 *   (the solver alone, plain and optimized) against three.js's `CCDIKSolver` on a `SkinnedMesh`, on a
 *   20-bone tail (`test/helpers/tail-rig.ts`, rebuilt bone for bone in three.js), 600 reachable targets.
 * - FABRIK (bench/family-fabrik.ts): our `FABRIK` (the whole Babylon frame), `IKSolverFABRIK` and
 *   `IKSolverFABRIKRoot` alone, and `IKSolverJacobian` as the accuracy yardstick, on the same tail and
 *   targets; no peer (neither Babylon nor three.js has FABRIK).
 * - FABRIK with hinges behind limited joints (bench/family-fabrik-hinges.ts): `IKSolverFABRIK` alone on two
 *   RobotExpressive chains of the mixed-limits test, its hinge help (ARCHITECTURE.md, deviation 20) on, rolling
 *   only and off: what the help costs and buys.
 * - Two-bone limb and look-at (bench/family-controllers.ts): `IKSolverLimb` and `IKSolverLookAt` on a
 *   `BabylonRig` (a component's frame, and the solver alone) against Babylon's `BoneIKController` and
 *   `BoneLookController` on the same bones built in code.
 *
 * Each implementation has a timed per-frame `op` and, where it has one, a `base`: the same frame without
 * the solve (the pose reset and the target set). Solver-alone time = op − base. Every op and base is timed
 * in alternating rounds (`timeInRounds` in bench/family-harness.ts), so a change of the machine's speed
 * hits all alike.
 * Accuracy: one untimed pass over the whole target table, each frame from the same start pose.
 * Allocation: `measureAllocation` on the op alone (smallest of 3 loops).
 */
import { readFileSync } from "node:fs";
import * as os from "node:os";
import { join } from "node:path";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { repoRoot } from "../test/helpers/repo-root.js";
import { type Benchmark, type TargetCheck, round } from "./common.js";
import { ccdGroup } from "./family-ccd.js";
import { fabrikGroup } from "./family-fabrik.js";
import { fabrikHingeGroup } from "./family-fabrik-hinges.js";
import { limbGroup, lookAtGroup, xbotLimbGroup } from "./family-controllers.js";
import {
  BATCH,
  BATCH_MICROS,
  type FamilyGroupResult,
  type FamilyImplResult,
  ROUNDS,
  ROUND_MICROS,
  WARMUP,
} from "./family-harness.js";

export type { FamilyGroupResult, FamilyImplResult } from "./family-harness.js";

/** What the family benchmark writes to bench/results/family.json. */
export interface FamilyBenchResult {
  groups: FamilyGroupResult[];
  /** 1-minute load average at start and end. */
  loadAverage: [number, number];
  /** The timing: rounds, µs of each op per round, most frames and target µs per batch, warm-up frames. */
  timing: { rounds: number; roundMicros: number; maxBatch: number; batchMicros: number; warmup: number };
  node: string;
  three: string;
  babylon: string;
  date: string;
  cpu: string;
}

/** The targets (2-core reference machine). */
export const FAMILY_TARGETS = {
  /** CCD on a 20-bone chain: µs per iteration. */
  ccdMicrosPerIteration: 2,
  /**
   * Errors closer than this (% of the chain, or degrees) are a tie: Babylon keeps bone matrices in float32,
   * so a pose written to Babylon carries errors of about 1e-5 % either way.
   */
  accuracyFloor: 1e-4,
  /** Bytes per frame: 0 (below 1 B, as in the other benchmarks). */
  bytesBelow: 1,
} as const;

/** Runs every group. */
export async function benchFamily(): Promise<FamilyBenchResult> {
  const load0 = os.loadavg()[0]!;
  // the solvers warn once on bad input; none is expected here
  const level = Logger.LogLevels;
  Logger.LogLevels = Logger.ErrorLogLevel;
  const groups: FamilyGroupResult[] = [];
  try {
    groups.push(ccdGroup());
    groups.push(fabrikGroup());
    groups.push(fabrikHingeGroup());
    groups.push(limbGroup());
    const xbot = await xbotLimbGroup();
    if (xbot !== null) groups.push(xbot);
    groups.push(lookAtGroup());
  } finally {
    Logger.LogLevels = level;
  }
  const cpus = os.cpus();
  return {
    groups,
    loadAverage: [round(load0, 2), round(os.loadavg()[0]!, 2)],
    timing: { rounds: ROUNDS, roundMicros: ROUND_MICROS, maxBatch: BATCH, batchMicros: BATCH_MICROS, warmup: WARMUP },
    node: process.version,
    three: await packageVersion("three"),
    babylon: await packageVersion("@babylonjs/core"),
    date: new Date().toISOString(),
    cpu: cpus[0]?.model.trim() ?? "unknown",
  };
}

async function packageVersion(name: string): Promise<string> {
  try {
    const path = join(repoRoot(import.meta.url), "node_modules", name, "package.json");
    return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/** An error for printing: 3 significant digits, small ones in exponent form. */
function formatError(v: number): string {
  return v === 0 ? "0" : v < 0.01 ? v.toExponential(2) : v.toPrecision(4);
}

/** One printed row per implementation: µs per solve (frame − base), per iteration, error, bytes. */
function implRow(r: FamilyImplResult): [string, string, string] {
  const frame = r.baseMicros === null ? "" : ` = ${r.microsPerFrame} − ${r.baseMicros}`;
  const perIt = r.microsPerIteration === null ? "" : `, ${r.microsPerIteration} µs/it`;
  const error = `${formatError(r.meanError)} / ${formatError(r.worstError)} ${r.errorUnit}`;
  return [`  ${r.label}`, `${r.microsPerSolve} µs${frame}${perIt}; error ${error}; ${r.bytesPerFrame} B/frame`, ""];
}

/** A group's comparisons with its peer: speed (solver alone and whole frame) and accuracy. */
function peerChecks(
  g: FamilyGroupResult,
  peer: FamilyImplResult,
  oursFrame: FamilyImplResult,
  oursSolver: FamilyImplResult,
): TargetCheck[] {
  const checks: TargetCheck[] = [];
  if (g.ours.length > 1) {
    checks.push({
      label: `${g.group}: ours (solver alone) faster than the peer's solve`,
      value: round(peer.microsPerSolve / oursSolver.microsPerSolve, 2),
      unit: "× faster",
      target: "> 1",
      pass: oursSolver.microsPerSolve < peer.microsPerSolve,
    });
  }
  checks.push({
    label: `${g.group}: ours (whole frame) faster than the peer's frame`,
    value: round(peer.microsPerFrame / oursFrame.microsPerFrame, 2),
    unit: "× faster",
    target: "> 1",
    pass: oursFrame.microsPerFrame < peer.microsPerFrame,
  });
  // the best of our rows at the same iterations; a difference within 0.1 % of the peer's figure, or below
  // ACCURACY_FLOOR (Babylon's float32 matrices), is a tie, not "more accurate"
  const best = g.ours.reduce((a, b) => (b.meanError < a.meanError ? b : a));
  const margin = Math.max(0.001 * peer.meanError, FAMILY_TARGETS.accuracyFloor);
  checks.push({
    label: `${g.group}: ours more accurate (best mean error: ${best.name.split("(")[0]!.trim()})`,
    value: best.meanError,
    unit: `${best.errorUnit} (peer ${formatError(peer.meanError)})`,
    target: `< peer − ${formatError(margin)}`,
    pass: best.meanError < peer.meanError - margin,
  });
  return checks;
}

/** The family benchmark as run by bench/run.ts. */
export const familyBenchmark: Benchmark<FamilyBenchResult> = {
  name: "family",
  file: "family.json",
  run: benchFamily,
  rows: (r) => {
    const rows: Array<[string, number | string, string]> = [];
    for (const g of r.groups) {
      const it = g.iterations === null ? "" : `, ${g.iterations} iterations`;
      rows.push([`${g.group}${it}: µs per solve (= frame − base)`, "error mean / worst; allocation", ""]);
      for (const o of g.ours) rows.push(implRow(o));
      for (const p of g.peer) rows.push(implRow(p));
      const byIterations = g.accuracyByIterations ?? [];
      if (byIterations.length > 0) {
        const names = byIterations[0]!.errors.map((e) => e.name).join(" | ");
        rows.push(["  mean (worst) error, % of chain, at", names, ""]);
        for (const a of byIterations) {
          const errors = a.errors.map((e) => `${formatError(e.mean)} (${formatError(e.worst)})`);
          rows.push([`    ${a.iterations} iterations`, errors.join(" | "), ""]);
        }
      }
    }
    rows.push(["load average (1 min) start / end", `${r.loadAverage[0]} / ${r.loadAverage[1]}`, ""]);
    rows.push(["versions", `three ${r.three}, @babylonjs/core ${r.babylon}, node ${r.node}`, ""]);
    return rows;
  },
  checks: (r) => {
    const checks: TargetCheck[] = [];
    for (const g of r.groups) {
      const peer = g.peer[0];
      // ours[0] is the whole Babylon frame, ours[1] the solver alone (see each group)
      const oursFrame = g.ours[0]!;
      const oursSolver = g.ours[1] ?? oursFrame;
      if (peer !== undefined) checks.push(...peerChecks(g, peer, oursFrame, oursSolver));
      for (const o of g.ours) {
        checks.push({
          label: `${g.group}: ${o.name.split("(")[0]!.trim()}: bytes per frame`,
          value: o.bytesPerFrame,
          unit: "B",
          target: `0 (< ${FAMILY_TARGETS.bytesBelow} B)`,
          pass: o.bytesPerFrame < FAMILY_TARGETS.bytesBelow,
        });
      }
      // every solver-alone row of the CCD group: plain and optimized
      for (const o of g.group.startsWith("CCD") ? g.ours.slice(1) : []) {
        if (o.microsPerIteration === null) continue;
        checks.push({
          label: `${g.group}: ${o.label} µs per iteration`,
          value: o.microsPerIteration,
          unit: "µs",
          target: `<= ${FAMILY_TARGETS.ccdMicrosPerIteration} µs`,
          pass: o.microsPerIteration <= FAMILY_TARGETS.ccdMicrosPerIteration,
        });
      }
    }
    return checks;
  },
};
