/**
 * Every ```ts example in docs/API.md and README.md type-checks against the library's sources (imported as
 * "babylon-fbbik"), with the repository's strict settings plus the two stricter ones many apps turn on
 * (`noUncheckedIndexedAccess`, `exactOptionalPropertyTypes`), so the documentation cannot drift from the API
 * and an example pasted into such an app compiles.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/repo-root.js";

const root = repoRoot(import.meta.url);

describe("docs/API.md", () => {
  it("every TypeScript example compiles", () => {
    const tsBlocks = (file: string) =>
      [...readFileSync(join(root, file), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const api = tsBlocks(join("docs", "API.md"));
    const readme = tsBlocks("README.md");
    expect(api.length).toBeGreaterThan(20);
    expect(readme.length).toBeGreaterThan(1);
    // file name → example; API.md's keep the names docs-examples-run.test.ts gives them
    const examples = new Map<string, string>([
      ...api.map((b, i) => [`example-${i}.ts`, b] as const),
      ...readme.map((b, i) => [`readme-${i}.ts`, b] as const),
    ]);
    // kept between runs (git-ignored) with tsc's incremental state: a run after no change to the docs or the
    // sources checks in about a second instead of ten
    const dir = join(root, ".docs-examples");
    mkdirSync(dir, { recursive: true });
    for (const f of readdirSync(dir)) if (/^(example|readme)-/.test(f) && !examples.has(f)) rmSync(join(dir, f));
    for (const [f, b] of examples) {
      writeIfChanged(join(dir, f), b.replaceAll('from "babylon-fbbik"', 'from "../src/index.js"'));
    }
    writeIfChanged(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: "../tsconfig.json",
        compilerOptions: {
          noEmit: true,
          noUnusedLocals: false,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          incremental: true,
          tsBuildInfoFile: "./.tsbuildinfo",
        },
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
    // the sources are checked under the repository's settings (npm run typecheck); here only the examples count.
    // An app sees the library through its declarations, which hold under the stricter settings.
    const examplesOutput = withoutSourceErrors(output);
    // name each failing example by its first line, so the report points at the section
    const failing = [...new Set([...examplesOutput.matchAll(/(?:example|readme)-\d+\.ts/g)].map((m) => m[0]))];
    expect(failing.map((f) => `${f}: ${examples.get(f)!.split("\n")[0]}\n${examplesOutput}`)).toEqual([]);
    expect(examplesOutput).toBe("");
  }, 120_000);
});

describe("docs/API.md and README.md imports", () => {
  it("name each @babylonjs file as Node resolves it (the file's .js, a folder's index.js)", () => {
    // @babylonjs/* have no exports map: Node and "nodenext" resolve a deep import only by its exact file, so an
    // example pasted into a Node script (NullEngine) fails there without the extension, where "bundler" passes
    const unresolved: string[] = [];
    for (const file of [join("docs", "API.md"), "README.md"]) {
      for (const block of readFileSync(join(root, file), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)) {
        for (const m of block[1]!.matchAll(/(?:from|import) "(@babylonjs\/[^"]+)"/g)) {
          const path = join(root, "node_modules", m[1]!);
          if (!existsSync(path) || !statSync(path).isFile()) unresolved.push(`${file}: ${m[1]}`);
        }
      }
    }
    expect(unresolved).toEqual([]);
  });

  it("install the Babylon version the tests run on", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    let named = 0;
    const other: string[] = [];
    for (const file of [join("docs", "API.md"), "README.md"]) {
      for (const m of readFileSync(join(root, file), "utf8").matchAll(/(@babylonjs\/[a-z]+)@(\d[\w.-]*)/g)) {
        named++;
        const tested = pkg.devDependencies[m[1]!];
        if (m[2] !== tested) other.push(`${file}: ${m[1]}@${m[2]}, tests run on ${tested}`);
      }
    }
    expect(named).toBeGreaterThanOrEqual(4);
    expect(other).toEqual([]);
  });
});

/** tsc's output without the errors it reports in `src/` (each an unindented line and its indented continuation). */
function withoutSourceErrors(output: string): string {
  let inSource = false;
  const kept: string[] = [];
  for (const line of output.split("\n")) {
    if (!line.startsWith(" ")) inSource = line.startsWith("src/");
    if (!inSource) kept.push(line);
  }
  return kept.join("\n").trim();
}

/** Writes `text` unless the file already holds it (tsc's incremental state then has nothing to redo). */
function writeIfChanged(path: string, text: string): void {
  if (!existsSync(path) || readFileSync(path, "utf8") !== text) writeFileSync(path, text);
}
