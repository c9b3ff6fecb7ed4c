/**
 * Every ```ts example in docs/API.md type-checks against the library's sources (imported as
 * "babylon-fbbik"), with the repository's strict settings, so the documentation cannot drift from the API.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/repo-root.js";

const root = repoRoot(import.meta.url);

describe("docs/API.md", () => {
  it("every TypeScript example compiles", () => {
    const doc = readFileSync(join(root, "docs", "API.md"), "utf8");
    const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThan(20);
    // kept between runs (git-ignored) with tsc's incremental state: a run after no change to the docs or the
    // sources checks in about a second instead of ten
    const dir = join(root, ".docs-examples");
    mkdirSync(dir, { recursive: true });
    const files = new Set(blocks.map((_, i) => `example-${i}.ts`));
    for (const f of readdirSync(dir)) if (f.startsWith("example-") && !files.has(f)) rmSync(join(dir, f));
    blocks.forEach((b, i) =>
      writeIfChanged(join(dir, `example-${i}.ts`), b.replaceAll('from "babylon-fbbik"', 'from "../src/index.js"')),
    );
    writeIfChanged(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: "../tsconfig.json",
        compilerOptions: { noEmit: true, noUnusedLocals: false, incremental: true, tsBuildInfoFile: "./.tsbuildinfo" },
        include: ["./*.ts"],
      }),
    );
    let output = "";
    try {
      execFileSync(
        process.execPath,
        [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")],
        { encoding: "utf8" },
      );
    } catch (err) {
      output = String((err as { stdout?: string }).stdout ?? err);
    }
    // name each failing example by its first line, so the report points at the section
    const failing = [...new Set([...output.matchAll(/example-(\d+)\.ts/g)].map((m) => Number(m[1])))];
    expect(failing.map((i) => `example ${i}: ${blocks[i]!.split("\n")[0]}\n${output}`)).toEqual([]);
    expect(output).toBe("");
  }, 120_000);
});

/** Writes `text` unless the file already holds it (tsc's incremental state then has nothing to redo). */
function writeIfChanged(path: string, text: string): void {
  if (!existsSync(path) || readFileSync(path, "utf8") !== text) writeFileSync(path, text);
}
