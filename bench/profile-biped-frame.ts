/**
 * A profiling harness, not a benchmark: one FullBodyBipedIK frame on issue 19's biped problem (the frame
 * `npm run bench -- biped` times, test/helpers/biped-solvers.ts) in a loop. Compiled like the benchmarks
 * (`tsc -p tsconfig.bench.json`), then:
 *
 * - `node --cpu-prof --cpu-prof-interval 50 .bench-build/bench/profile-biped-frame.js [seconds] [tolerance]`: the
 *   frame + the skeleton's matrices in a loop, for the profiler;
 * - `node .bench-build/bench/profile-biped-frame.js [seconds] [tolerance] stages`: the frame with a timestamp at each
 *   stage boundary (the solver's hooks), printing each stage's median µs. Each stamp costs ~50 ns, so the stages
 *   sum to more than a frame; use them to attribute, `npm run bench -- biped-frame` for totals.
 */
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { SET_STRIDE } from "../test/helpers/biped-problem.js";
import { FbbikBipedSolver, advanceFrame } from "../test/helpers/biped-solvers.js";
import { bipedTargetSets } from "../test/helpers/biped-target-sets.js";
import { quantile } from "./common.js";

Logger.LogLevels = Logger.ErrorLogLevel;
const seconds = Number(process.argv[2] ?? 10);
const tolerance = process.argv[3];
const sets = bipedTargetSets();
const ours = new FbbikBipedSolver({ worldMatrices: true });
if (tolerance !== undefined && tolerance !== "-") ours.ik.solver.iterationTolerance = Number(tolerance);

const STAGES = [
  "FixTransforms",
  "rig.read (restore check, bones, FK)",
  "solver read (LimitBend, effectors, chains)",
  "mapping readPose",
  "iterations",
  "bend constraints",
  "mapping writePose",
  "rig.write + update's checks",
  "computeAbsoluteMatrices",
] as const;

function timeStages(): void {
  const ik = ours.ik;
  const inner = ik.solver.inner;
  const stamps = new Float64Array(12);
  const stamp = (k: number) => () => {
    stamps[k] = performance.now();
  };
  ik.solver.onPreUpdate.add(stamp(1));
  inner.onPreUpdate.add(stamp(2));
  inner.onPreSolve.add(stamp(3));
  inner.onPreBend.add(stamp(5));
  inner.onPostSolve.add(stamp(6));
  inner.onPostUpdate.add(stamp(7));
  const mapping = inner.mapping!;
  const frames = Math.max(1000, Math.round(seconds * 40_000));
  const samples = STAGES.map(() => new Float64Array(frames));
  for (let f = 0; f < frames + 20_000; f++) {
    advanceFrame(ours.biped.scene);
    const t = sets.targets;
    const o = (f % sets.count) * SET_STRIDE;
    const s = ik.solver;
    s.bodyEffector.position.set(t[o]!, t[o + 1]!, t[o + 2]!);
    s.leftHandEffector.position.set(t[o + 3]!, t[o + 4]!, t[o + 5]!);
    s.rightHandEffector.position.set(t[o + 6]!, t[o + 7]!, t[o + 8]!);
    s.leftFootEffector.position.set(t[o + 9]!, t[o + 10]!, t[o + 11]!);
    s.rightFootEffector.position.set(t[o + 12]!, t[o + 13]!, t[o + 14]!);
    stamps[0] = performance.now();
    ik._beforeAnimations();
    ik.update();
    stamps[8] = performance.now();
    ours.biped.skeleton.computeAbsoluteMatrices();
    stamps[9] = performance.now();
    // the mapping's read once more (it reads the pose only): its share of the solver's read
    const m0 = performance.now();
    mapping.readPose(inner, true);
    const m1 = performance.now();
    if (f < 20_000) continue;
    const k = f - 20_000;
    const us = (a: number, b: number) => (stamps[b]! - stamps[a]!) * 1000;
    const mapRead = (m1 - m0) * 1000;
    samples[0]![k] = us(0, 1);
    samples[1]![k] = us(1, 2);
    samples[2]![k] = us(2, 3) - mapRead;
    samples[3]![k] = mapRead;
    samples[4]![k] = us(3, 5);
    samples[5]![k] = us(5, 6);
    samples[6]![k] = us(6, 7);
    samples[7]![k] = us(7, 8);
    samples[8]![k] = us(8, 9);
  }
  let sum = 0;
  STAGES.forEach((name, i) => {
    const m = quantile(samples[i]!.sort(), 0.5);
    sum += m;
    console.log(`${name.padEnd(45)} ${m.toFixed(3)} µs`);
  });
  console.log(`${"sum of medians (stamps included)".padEnd(45)} ${sum.toFixed(3)} µs`);
}

if (process.argv[4] === "stages") {
  timeStages();
} else {
  const end = performance.now() + seconds * 1000;
  let frames = 0;
  while (performance.now() < end) {
    for (let k = 0; k < 1000; k++) ours.solve(sets, frames++ % sets.count);
  }
  console.log(`${frames} frames, ${((seconds * 1e6) / frames).toFixed(2)} µs per frame`);
}
ours.dispose();
