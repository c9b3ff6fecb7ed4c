// The Babylon 8 compatibility run (npm run test:compat): the scenario tests with `@babylonjs/core` and
// `@babylonjs/loaders` taken from compat/babylon8 (installed by `npm ci --prefix compat/babylon8`), so the
// lowest Babylon the peer range admits is tested without running the whole suite twice.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import base, { HEAP } from "./vitest.config.js";

const compat = fileURLToPath(new URL("./compat/babylon8/", import.meta.url));
const modules = `${compat}node_modules/`;
if (!existsSync(`${modules}@babylonjs/core/package.json`)) {
  throw new Error("compat/babylon8 is not installed: run `npm ci --prefix compat/babylon8` first");
}
const SCENARIOS = ["test/scenario/**/*.test.ts"];
const pinned: Record<string, string> = JSON.parse(readFileSync(`${compat}package.json`, "utf8")).dependencies;

// spread, not mergeConfig: mergeConfig would append to the base's `include` instead of replacing it
export default defineConfig({
  ...base,
  resolve: {
    // a string alias also rewrites deep imports (`@babylonjs/core/Maths/math.vector.js`)
    alias: [
      { find: "@babylonjs/core", replacement: `${modules}@babylonjs/core` },
      { find: "@babylonjs/loaders", replacement: `${modules}@babylonjs/loaders` },
    ],
  },
  test: {
    ...base.test,
    // the scenario tests, in the same two rooms as npm test's (vitest.config.ts says why)
    projects: [
      { extends: true, test: { name: "compat", include: SCENARIOS, exclude: HEAP, isolate: false } },
      { extends: true, test: { name: "compat-heap", include: HEAP.filter((f) => f.startsWith("test/scenario/")) } },
    ],
    // model loads in beforeAll hooks took over vitest's 10 s default on a busy two-core machine
    hookTimeout: 120_000,
    setupFiles: [...(base.test?.setupFiles ?? []), "test/setup/compat-babylon8.ts"],
    // test/scenario/babylon-version.test.ts checks that the alias took effect
    env: { FBBIK_EXPECT_BABYLON: pinned["@babylonjs/core"] },
    outputFile: { json: "test-results/vitest-compat.json" },
  },
});
