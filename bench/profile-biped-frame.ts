/**
 * A profiling harness, not a benchmark: one FullBodyBipedIK frame on issue 19's biped problem (the frame
 * `npm run bench -- biped` times, test/helpers/biped-solvers.ts) in a loop. Compiled like the benchmarks
 * (`tsc -p tsconfig.bench.json`), then:
 *
 * - `node --cpu-prof --cpu-prof-interval 50 .bench-build/bench/profile-biped-frame.js [seconds] [tolerance]`: the
 *   frame + the skeleton's matrices in a loop, for the profiler;
 * - `node .bench-build/bench/profile-biped-frame.js [seconds] [tolerance|-] stages`: each stage's median µs
 *   (bench/biped-frame-stages.ts).
 */
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { FbbikBipedSolver } from "../test/helpers/biped-solvers.js";
import { bipedTargetSets } from "../test/helpers/biped-target-sets.js";
import { BIPED_FRAME_STAGES, timeBipedStages } from "./biped-frame-stages.js";

Logger.LogLevels = Logger.ErrorLogLevel;
const seconds = Number(process.argv[2] ?? 10);
const tolerance = process.argv[3];
const sets = bipedTargetSets();
const ours = new FbbikBipedSolver({ worldMatrices: true });
if (tolerance !== undefined && tolerance !== "-") ours.ik.solver.iterationTolerance = Number(tolerance);

function timeStages(): void {
  const medians = timeBipedStages([ours], sets, Math.max(1000, Math.round(seconds * 40_000)))[0]!;
  BIPED_FRAME_STAGES.forEach((name, i) => console.log(`${name.padEnd(48)} ${medians[i]!.toFixed(3)} µs`));
  const sum = medians.reduce((x, y) => x + y, 0);
  console.log(`${"sum of medians (stamps included)".padEnd(48)} ${sum.toFixed(3)} µs`);
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
