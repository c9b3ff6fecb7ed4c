/**
 * `npm run bench -- mocap`: issue 19's mocap rebuild (test/helpers/mocap-rebuild.ts) on Xbot's clips (from
 * ../shared/assets/models, left out when absent) and the UAL character's (committed): per sampled frame, the
 * pelvis position and the hands' and feet's positions and rotations from the clip as targets, the skeleton reset
 * to the clip's first frame, FullBodyBipedIK against four LimbIKs with the pelvis placed; mean joint error, % of
 * height. An accuracy figure, not a timing: the run takes about 10 s (plus loading).
 */
import * as os from "node:os";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { modelAvailable } from "../test/helpers/babylon-scene.js";
import { ISSUE19_TARGETS } from "../test/helpers/biped-problem.js";
import { type MocapRebuildResult, mocapRebuild } from "../test/helpers/mocap-rebuild.js";
import { type Benchmark, type TargetCheck, atMost, round } from "./common.js";

/** Frames sampled per clip. */
export const MOCAP_FRAMES_PER_CLIP = 32;

/** What `npm run bench -- mocap` writes to bench/results/mocap.json. */
export interface MocapBenchResult {
  /** One entry per model measured (root node = pelvis). */
  models: MocapRebuildResult[];
  /** The same with FullBodyBipedIK's detected root node (a spine bone) driven to that bone's clip position. */
  detectedRootNode: MocapRebuildResult[];
  /** The same with the body effector taking the pelvis's rotation too (issue 19's body rotation). */
  withBodyRotation: MocapRebuildResult[];
  /** Models left out (not on this machine). */
  missing: string[];
  framesPerClip: number;
  /** Seconds the whole run took. */
  seconds: number;
  issue19TargetPercent: number;
  node: string;
  date: string;
  cpu: string;
}

function roundResult(r: MocapRebuildResult): MocapRebuildResult {
  const r4 = (v: number) => round(v, 4);
  return {
    ...r,
    height: r4(r.height),
    fbbikPercent: r4(r.fbbikPercent),
    limbPercent: r4(r.limbPercent),
    fbbikEffectorPercent: r4(r.fbbikEffectorPercent),
    limbEffectorPercent: r4(r.limbEffectorPercent),
    fbbikWorstFramePercent: r4(r.fbbikWorstFramePercent),
    clips: r.clips.map((c) => ({
      ...c,
      fbbikPercent: r4(c.fbbikPercent),
      limbPercent: r4(c.limbPercent),
      fbbikEffectorPercent: r4(c.fbbikEffectorPercent),
      limbEffectorPercent: r4(c.limbEffectorPercent),
    })),
  };
}

async function runMocap(): Promise<MocapBenchResult> {
  Logger.LogLevels = Logger.ErrorLogLevel;
  const t0 = performance.now();
  const models: MocapRebuildResult[] = [];
  const detectedRootNode: MocapRebuildResult[] = [];
  const withBodyRotation: MocapRebuildResult[] = [];
  const missing: string[] = [];
  for (const name of ["Xbot", "UAL"] as const) {
    if (!modelAvailable(name)) {
      missing.push(name);
      continue;
    }
    models.push(roundResult(await mocapRebuild(name, { framesPerClip: MOCAP_FRAMES_PER_CLIP })));
    const detected = await mocapRebuild(name, { framesPerClip: MOCAP_FRAMES_PER_CLIP, rootNode: "detected" });
    detectedRootNode.push(roundResult(detected));
    const rotated = await mocapRebuild(name, { framesPerClip: MOCAP_FRAMES_PER_CLIP, bodyRotation: true });
    withBodyRotation.push(roundResult(rotated));
  }
  return {
    models,
    detectedRootNode,
    withBodyRotation,
    missing,
    framesPerClip: MOCAP_FRAMES_PER_CLIP,
    seconds: round((performance.now() - t0) / 1000, 1),
    issue19TargetPercent: ISSUE19_TARGETS.mocapRebuildPercentOfHeight,
    node: process.version,
    date: new Date().toISOString(),
    cpu: os.cpus()[0]?.model.trim() ?? "unknown",
  };
}

/** The mocap rebuild benchmark (`npm run bench -- mocap`). */
export const mocapBenchmark: Benchmark<MocapBenchResult> = {
  name: "mocap",
  file: "mocap.json",
  run: runMocap,
  rows(r) {
    const out: Array<[string, number | string, string]> = [];
    for (const m of r.models) {
      out.push(
        [`${m.model}: clips / frames`, `${m.clips.length} / ${m.frames}`, ""],
        [`${m.model}: FullBodyBipedIK, mean joint error`, m.fbbikPercent, "% of height"],
        [`${m.model}: 4 × LimbIK + pelvis placed, mean joint error`, m.limbPercent, "% of height"],
        [
          `${m.model}: hands and feet from their targets, FBBIK / LimbIK`,
          `${m.fbbikEffectorPercent} / ${m.limbEffectorPercent}`,
          "% of height",
        ],
        [`${m.model}: FullBodyBipedIK, worst frame`, m.fbbikWorstFramePercent, "% of height"],
      );
    }
    for (const m of r.detectedRootNode) {
      out.push([
        `${m.model}: FullBodyBipedIK, detected root node (${m.rootNode}), mean joint error`,
        m.fbbikPercent,
        "% of height",
      ]);
    }
    for (const m of r.withBodyRotation) {
      out.push(
        [`${m.model}: FullBodyBipedIK + body rotation, mean joint error`, m.fbbikPercent, "% of height"],
        [`${m.model}: FullBodyBipedIK + body rotation, worst frame`, m.fbbikWorstFramePercent, "% of height"],
      );
    }
    for (const name of r.missing) out.push([`${name}`, "not on this machine", ""]);
    out.push(["run time", r.seconds, "s"]);
    return out;
  },
  checks(r): TargetCheck[] {
    return r.withBodyRotation.map((m) =>
      atMost(
        `issue 19: ${m.model} 5-effector rebuild with body rotation, mean joint error`,
        m.fbbikPercent,
        r.issue19TargetPercent,
        "%",
      ),
    );
  },
};
