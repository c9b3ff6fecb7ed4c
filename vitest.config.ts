import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup/quiet-babylon.ts"],
    testTimeout: 120_000,
    pool: "forks",
    // the JSON report lets .ci/run print a plain "N passed, N failed" closing line
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
  },
});
