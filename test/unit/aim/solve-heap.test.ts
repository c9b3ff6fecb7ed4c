/**
 * The limb, aim and look-at solves allocate nothing: measured in a child process with gc()
 * (solve-heap-child.ts), heap growth over 5,000 solves after warm-up, with no gc in between.
 * Timings are printed, never asserted.
 */
import { execFileSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
// one boxed double per solve shows as 16 B at any count; 5,000 keeps the heap statistics' fixed noise (about 300 B
// a round) at 0.06 B per solve, under the 1 B allowance
const SOLVES = 5000;

it(`IKSolverLimb, IKSolverAim and IKSolverLookAt allocate nothing per solve (${SOLVES} solves each)`, () => {
  const out = execFileSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", resolve(here, "solve-heap-child.ts"), String(SOLVES)],
    {
      cwd: resolve(here, "../../.."),
      encoding: "utf8",
    },
  );
  const result = JSON.parse(out.trim().split("\n").pop()!) as Record<
    string,
    { bytesPerSolve: number; microsPerSolve: number }
  >;
  console.log(
    Object.entries(result)
      .map(([k, r]) => `${k}: ${r.microsPerSolve.toFixed(2)} µs, ${r.bytesPerSolve.toFixed(2)} B per solve`)
      .join("; "),
  );
  expect(Object.keys(result)).toHaveLength(3);
  // a single boxed double per solve would be 16 B; the allowance is heap-statistics noise
  for (const r of Object.values(result)) expect(r.bytesPerSolve).toBeLessThan(1);
});
