/**
 * Every ```ts example of docs/API.md runs in NullEngine and does what its text says (the compile test,
 * test/unit/docs-examples.test.ts, only type-checks them). Each block is written to .docs-examples/run/ with
 * `babylon-fbbik` pointing at the sources and its top-level `const`s exported, then imported; `declare const`
 * names are supplied as globals before the import. RUNS says, per example (keyed by its exported function,
 * else its heading), what to pass and what to check; a block without an entry fails with its heading.
 *
 * The examples' character is UAL (test/helpers/docs-character.ts: CC0, in the repository), so every run runs on
 * a fresh clone; the Mannequin and rigs built in code serve the examples that name their bones. What UAL lacks
 * is made for the run that needs it: eyes for LookAtIK, a straight arm for the setup warnings.
 *
 * Run in part, as NullEngine allows: `followTracking` (a WebXRCamera needs an XR session: its tracking-state
 * observable is given alone); the two quick-start loaders (the "/models/character.glb" URL becomes the
 * Mannequin's data URL). `groundOnPhysics` runs on Havok's wasm from node_modules.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { UAL } from "../helpers/docs-character.js";
import { AROUND_RUNS } from "../helpers/docs-runs-around.js";
import { BIPED_RUNS } from "../helpers/docs-runs-biped.js";
import { FAMILY_RUNS } from "../helpers/docs-runs-family.js";
import { DocsWorld, type Example, type ExampleRun } from "../helpers/docs-world.js";
import { repoRoot } from "../helpers/repo-root.js";

/** The option keys the examples gave that their component does not know (`Component.key`): none is expected. */
const seen = vi.hoisted(() => ({ unknownOptions: [] as string[] }));
vi.mock("../../src/babylon/option-check.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/babylon/option-check.js")>();
  const record = (component: string, unknown: readonly string[]) => {
    for (const key of unknown) seen.unknownOptions.push(`${component}.${key}`);
  };
  return {
    ...real,
    checkOptions: ((component, options, kinds) => {
      const unknown = real.checkOptions(component, options, kinds);
      record(component, unknown);
      return unknown;
    }) as typeof real.checkOptions,
    checkLoggedOptions: ((component, options, kinds) => {
      record(component, real.checkOptions(component, options, kinds));
      real.checkLoggedOptions(component, options, kinds);
    }) as typeof real.checkLoggedOptions,
  };
});

/** Per example, its run. */
const RUNS: Record<string, ExampleRun> = { ...BIPED_RUNS, ...AROUND_RUNS, ...FAMILY_RUNS };

const root = repoRoot(import.meta.url);
const dir = join(root, ".docs-examples", "run");

/** One ```ts block: its key (exported function, else heading), its heading and its code. */
interface Block {
  key: string;
  heading: string;
  code: string;
}

function readBlocks(): Block[] {
  const doc = readFileSync(join(root, "docs", "API.md"), "utf8");
  const blocks: Block[] = [];
  let heading = "";
  for (const m of doc.matchAll(/^(#{2,4} .*)$|^```ts\n([\s\S]*?)^```$/gm)) {
    if (m[1] !== undefined) heading = m[1].replace(/^#+ /, "");
    else {
      const code = m[2]!;
      const fn = /^export (?:async )?function (\w+)/m.exec(code)?.[1];
      blocks.push({ key: fn ?? heading, heading, code });
    }
  }
  return blocks;
}

/** The block as a module of the repository: sources for the package, top-level names exported. */
function runnable(code: string): string {
  return (
    code
      .replaceAll('from "babylon-fbbik"', 'from "../../src/index.js"')
      // the user's model: the test gives a data URL
      .replaceAll('"/models/character.glb"', "globalThis.docsModelUrl")
      .replace(/^(const|let|function) /gm, "export $1 ")
  );
}

const blocks = readBlocks();
mkdirSync(dir, { recursive: true });
const files = new Set(blocks.map((_, i) => `example-${i}.ts`));
for (const f of readdirSync(dir)) if (!files.has(f)) rmSync(join(dir, f));
blocks.forEach((b, i) => {
  const path = join(dir, `example-${i}.ts`);
  const text = runnable(b.code);
  if (!existsSync(path) || readFileSync(path, "utf8") !== text) writeFileSync(path, text);
});

const world = new DocsWorld(UAL);
afterAll(() => world.dispose());

/** Babylon errors logged during an example (an observer that threw, a failed load). */
let errors: string[] = [];
let logs: unknown[][] = [];
beforeEach(() => {
  errors = [];
  logs = [];
  seen.unknownOptions.length = 0;
  vi.spyOn(Logger, "Error").mockImplementation((m: unknown) => void errors.push(String(m)));
  // the examples log what they found: kept for the checks, not printed
  vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void logs.push(a));
  vi.spyOn(console, "warn").mockImplementation((...a: unknown[]) => void logs.push(["warn", ...a]));
  vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void logs.push(["error", ...a]));
});
afterEach(() => {
  vi.restoreAllMocks();
  world.cleanUp();
});

describe("docs/API.md examples run", () => {
  it("every example has a run", () => {
    const missing = blocks.filter((b) => RUNS[b.key] === undefined).map((b) => `${b.key} (under "${b.heading}")`);
    expect(missing).toEqual([]);
    const keys = new Set(blocks.map((b) => b.key));
    expect(Object.keys(RUNS).filter((k) => !keys.has(k))).toEqual([]);
    // two blocks with one key would share a run: give one an exported function
    expect(blocks.filter((b, i) => blocks.findIndex((o) => o.key === b.key) !== i).map((b) => b.key)).toEqual([]);
  });

  blocks.forEach((b, i) => {
    const run: ExampleRun | undefined = RUNS[b.key];
    if (run === undefined) return;
    it(`${b.key}`, async () => {
      const load = (): Promise<Example> => import(join(dir, `example-${i}.ts`));
      await run({ world, load, logs: () => logs });
      expect(errors).toEqual([]);
      // the examples' options are what a user copies: every key one the component knows
      expect(seen.unknownOptions).toEqual([]);
    });
  });
});
