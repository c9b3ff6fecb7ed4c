import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/** Soaks: long runs behind `npm run test:soak` (vitest.soak.config.ts), kept out of `npm test`. */
export const SOAKS = [
  "test/robustness/fuzz.test.ts",
  "test/robustness/longrun.test.ts",
  "test/robustness/memory.test.ts",
  "test/robustness/natural-fold-all-clips.test.ts",
  "test/scenario/grounding-bumps.test.ts",
];
/**
 * Files that read the process's heap around a loop: they run in a fresh module graph, since garbage left by
 * earlier files in a shared worker is collected during their loops and counted as theirs.
 */
export const HEAP = [
  "test/scenario/adopted-mesh-frame-heap.test.ts",
  "test/scenario/all-components-frame-heap.test.ts",
  "test/scenario/climb-frame-heap.test.ts",
  "test/scenario/fabrik-root.test.ts",
  "test/scenario/enable-fade-frame-heap.test.ts",
  "test/scenario/family-frame-heap.test.ts",
  "test/scenario/grounder-ik-frame-heap.test.ts",
  "test/scenario/grounder-quadruped-frame-heap.test.ts",
  "test/scenario/handles-frame-heap.test.ts",
  "test/scenario/limit-bend-clamp-frame-heap.test.ts",
  "test/scenario/lod-crowd-frame-heap.test.ts",
  "test/scenario/lod-parent-frame-heap.test.ts",
  "test/scenario/head-effector.test.ts",
  "test/scenario/hook-fade-frame-heap.test.ts",
  "test/scenario/hooked-frame-heap.test.ts",
  "test/scenario/modifier-frame-heap.test.ts",
  "test/scenario/qa23-biped-ik-frame-heap.test.ts",
  "test/scenario/qa30-instances-frame-heap.test.ts",
  "test/scenario/qa37-mesh-lod-frame-heap.test.ts",
  "test/scenario/spine-target-frame-heap.test.ts",
  "test/scenario/twist-relaxer-frame-heap.test.ts",
  "test/unit/babylon/scene-clock-heap.test.ts",
  "test/unit/ccd/ccd.test.ts",
  "test/unit/colliders/collider-set.test.ts",
  "test/unit/fabrik/fabrik.test.ts",
  "test/unit/jacobian/ik-solver-jacobian.test.ts",
  "test/unit/limb/twist-relaxer-heap.test.ts",
  "test/unit/solver/fold-memory-heap.test.ts",
  "test/unit/joints/sync-unoptimized.test.ts",
];
const E2E = ["test/e2e/**/*.test.ts"];

export default defineConfig({
  test: {
    setupFiles: ["test/setup/quiet-babylon.ts"],
    testTimeout: 120_000,
    pool: "forks",
    // vitest's default leaves a core idle (cores − 1): on two cores the browser test would hold the only worker
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // measurements print only for failing tests (FBBIK_REPORT=1 prints them all; see README)
    silent: process.env.FBBIK_REPORT ? false : "passed-only",
    // the JSON report lets .ci/run print a plain "N passed, N failed" closing line
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
    projects: [
      // one module graph per worker: Babylon is imported twice, not once per file
      {
        extends: true,
        test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [...SOAKS, ...HEAP, ...E2E], isolate: false },
      },
      { extends: true, test: { name: "heap", include: HEAP } },
      { extends: true, test: { name: "e2e", include: E2E } },
    ],
  },
});
