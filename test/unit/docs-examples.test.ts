/**
 * Every ```ts example in docs/API.md type-checks against the library's sources (imported as
 * "babylon-fbbik"), with the repository's strict settings, so the documentation cannot drift from the API.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/repo-root.js";

const root = repoRoot(import.meta.url);

describe("docs/API.md", () => {
  it("every TypeScript example compiles", () => {
    const doc = readFileSync(join(root, "docs", "API.md"), "utf8");
    const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThan(20);
    const dir = join(root, ".docs-examples");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    try {
      blocks.forEach((b, i) =>
        writeFileSync(join(dir, `example-${i}.ts`), b.replaceAll('from "babylon-fbbik"', 'from "../src/index.js"')),
      );
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          extends: "../tsconfig.json",
          compilerOptions: { noEmit: true, noUnusedLocals: false },
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
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
