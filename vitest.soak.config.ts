import { defineConfig } from "vitest/config";
import { SOAKS } from "./vitest.config";

/** The long runs (fuzz, 100,000-frame runs, memory): `npm run test:soak`; CI runs them after `npm test`. */
export default defineConfig({
  test: {
    include: SOAKS,
    setupFiles: ["test/setup/quiet-babylon.ts"],
    testTimeout: 600_000,
    pool: "forks",
    silent: process.env.FBBIK_REPORT ? false : "passed-only",
  },
});
