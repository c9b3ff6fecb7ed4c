/**
 * `npm run bench`: runs every benchmark in order, prints a table per benchmark with PASS/FAIL against
 * its targets, and writes bench/results/<name>.json. Always exits 0: benchmarks report, they never
 * fail the build. `npm run bench -- solver` runs only the named benchmarks.
 */
import * as os from "node:os";
import { relative } from "node:path";
import { bipedBenchmark } from "./biped-accuracy.js";
import { bipedFrameBenchmark } from "./biped-frame.js";
import { type Benchmark, printChecks, printRows, writeResult } from "./common.js";
import { componentsBenchmark } from "./components.js";
import { familyBenchmark } from "./family.js";
import { frameBenchmark } from "./frame.js";
import { lodBenchmark } from "./lod.js";
import { machineProbe } from "./machine-probe.js";
import { mocapBenchmark } from "./mocap-rebuild.js";
import { solverBenchmark } from "./solver.js";

/** Every benchmark, in the order they run. Add new ones here. */
const BENCHMARKS: Benchmark[] = [
  solverBenchmark as Benchmark,
  frameBenchmark as Benchmark,
  componentsBenchmark as Benchmark,
  familyBenchmark as Benchmark,
  bipedBenchmark as Benchmark,
  bipedFrameBenchmark as Benchmark,
  mocapBenchmark as Benchmark,
  lodBenchmark as Benchmark,
];

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const selected = only.length > 0 ? BENCHMARKS.filter((b) => only.includes(b.name)) : BENCHMARKS;
  if (selected.length === 0) {
    console.log(`No benchmark named ${only.join(", ")}; known: ${BENCHMARKS.map((b) => b.name).join(", ")}.`);
    return;
  }
  const cpus = os.cpus();
  console.log(`Node ${process.version} on ${cpus[0]?.model.trim() ?? "unknown CPU"} (${cpus.length} logical CPUs)`);
  if (globalThis.gc === undefined) {
    console.log(
      "WARNING: global.gc is missing (run with --expose-gc, as `npm run bench` does); allocation figures are less" +
        " reliable.",
    );
  }
  let failed = 0;
  for (const b of selected) {
    console.log(`\n== ${b.name} ==`);
    let result: object;
    let probe: [number, number];
    try {
      const before = machineProbe();
      const measured = await b.run();
      // which speed the machine ran at (see machine-probe.ts): recorded with the figures it explains
      probe = [before, machineProbe()];
      result = { ...measured, machineProbeMicros: probe };
    } catch (err) {
      console.log(`  ERROR: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      failed++;
      continue;
    }
    printRows(b.rows(result));
    printRows([["machine probe before / after (see bench/README.md)", `${probe[0]} / ${probe[1]}`, "µs"]]);
    const checks = b.checks(result);
    console.log("");
    printChecks(checks);
    failed += checks.filter((c) => !c.pass).length;
    console.log(`  -> ${relative(process.cwd(), writeResult(b.file, result))}`);
  }
  console.log(failed === 0 ? "\nAll targets met." : `\n${failed} target(s) missed (benchmarks never fail the build).`);
}

try {
  await main();
} catch (err) {
  console.log(`ERROR: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
}
process.exitCode = 0;
