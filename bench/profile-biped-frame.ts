/**
 * A profiling harness, not a benchmark: one FullBodyBipedIK frame on issue 19's biped problem (the frame
 * `npm run bench -- biped` times, test/helpers/biped-solvers.ts) in a loop, for `node --cpu-prof`. Compiled like the
 * benchmarks (`tsc -p tsconfig.bench.json`), then
 * `node --cpu-prof --cpu-prof-interval 50 .bench-build/bench/profile-biped-frame.js [seconds] [tolerance]`.
 */
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { bipedTargetSets } from "../test/helpers/biped-target-sets.js";
import { FbbikBipedSolver } from "../test/helpers/biped-solvers.js";

Logger.LogLevels = Logger.ErrorLogLevel;
const seconds = Number(process.argv[2] ?? 10);
const tolerance = process.argv[3];
const sets = bipedTargetSets();
const ours = new FbbikBipedSolver({ worldMatrices: true });
if (tolerance !== undefined) ours.ik.solver.iterationTolerance = Number(tolerance);
const end = performance.now() + seconds * 1000;
let frames = 0;
while (performance.now() < end) {
  for (let k = 0; k < 1000; k++) ours.solve(sets, frames++ % sets.count);
}
console.log(`${frames} frames, ${((seconds * 1e6) / frames).toFixed(2)} µs per frame`);
ours.dispose();
