// The script-tag build's declarations (npm run build:umd, after Vite's bundle): dist/umd/babylon-fbbik.d.ts
// declares the global BABYLONFBBIK, and every `@babylonjs/core/...` type it mentions is the global BABYLON's
// (babylonjs's babylon.d.ts, or the Playground's), so a script-tag project needs no @babylonjs/core.
// Then it type-checks a script-tag consumer against babylonjs's declarations: a name BABYLON lacks fails here.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const UMD = join(ROOT, "dist", "umd");
const TYPES = join(UMD, "types");
const SHIM = join(TYPES, "_babylon.d.ts");
const BABYLON_SPEC = /(["'])@babylonjs\/core(?:\/[^"']*)?\1/g;

/** Every name a declaration file takes from @babylonjs/core (named imports and `import("…").Name` types). */
function babylonNames(text, names) {
  for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+["']@babylonjs\/core[^"']*["']/g)) {
    for (const part of m[1].split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0];
      if (name) names.add(name);
    }
  }
  for (const m of text.matchAll(/import\(["']@babylonjs\/core[^"']*["']\)\.([A-Za-z_$][\w$]*)/g)) names.add(m[1]);
}

export function buildUmdDeclarations() {
  rmSync(TYPES, { recursive: true, force: true });
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.build.json"),
    { outDir: TYPES, emitDeclarationOnly: true, declarationMap: false, sourceMap: false, noEmit: false },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) },
  );
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const names = new Set();
  const result = program.emit(
    undefined,
    (file, text) => {
      babylonNames(text, names);
      let shim = relative(dirname(file), SHIM)
        .replace(/\\/g, "/")
        .replace(/\.d\.ts$/, ".js");
      if (!shim.startsWith(".")) shim = `./${shim}`;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text.replace(BABYLON_SPEC, `"${shim}"`));
    },
    undefined,
    true,
  );
  if (result.diagnostics.length > 0) fail(result.diagnostics);
  const sorted = [...names].sort();
  writeFileSync(
    SHIM,
    [
      "// The global BABYLON's classes and types under the names the ES build imports from @babylonjs/core.",
      ...sorted.map((n) => `export import ${n} = BABYLON.${n};`),
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(UMD, "babylon-fbbik.d.ts"),
    [
      "// babylon-fbbik as the script tag's global BABYLONFBBIK (dist/umd/babylon-fbbik.min.js); needs the global",
      "// BABYLON's declarations (the babylonjs package's babylon.d.ts, or the Babylon Playground's).",
      'export * from "./types/index.js";',
      "export as namespace BABYLONFBBIK;",
      "",
    ].join("\n"),
  );
  return sorted;
}

/**
 * Type-checks the shim as a source file (an alias to a name BABYLON lacks would quietly become an error type in a
 * .d.ts), then a script-tag consumer (a script: globals only), against babylonjs's declarations, and the
 * package's own declarations as a consumer with skipLibCheck off would (a member stripped as `@internal` that a
 * class still implements fails there). babylon.d.ts is not checked: it needs @webgpu/types then.
 */
export function checkUmdDeclarations() {
  const dir = mkdtempSync(join(tmpdir(), "fbbik-umd-dts-"));
  const shim = join(dir, "babylon-shim.ts");
  const consumer = join(dir, "consumer.ts");
  writeFileSync(shim, readFileSync(SHIM, "utf8"));
  writeFileSync(
    consumer,
    [
      `/// <reference path="${join(UMD, "babylon-fbbik.d.ts")}" />`,
      "declare const scene: BABYLON.Scene;",
      "declare const skeleton: BABYLON.Skeleton;",
      "const ik: BABYLONFBBIK.FullBodyBipedIK = BABYLONFBBIK.FullBodyBipedIK.create(scene, skeleton);",
      "const target: BABYLON.Vector3 = ik.solver.leftHandEffector.position;",
      "ik.solver.leftHandEffector.positionWeight = 1;",
      "console.log(target);",
      "",
    ].join("\n"),
  );
  const program = ts.createProgram([join(ROOT, "node_modules", "babylonjs", "babylon.d.ts"), shim, consumer], {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
  });
  const ours = program
    .getSourceFiles()
    .filter((f) => [shim, consumer].includes(f.fileName) || f.fileName.startsWith(UMD));
  const diagnostics = [
    ...program.getGlobalDiagnostics(),
    ...ours.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
  rmSync(dir, { recursive: true, force: true });
  if (diagnostics.length > 0) fail(diagnostics);
}

function fail(diagnostics) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => "\n" };
  console.error(ts.formatDiagnostics(diagnostics, host));
  process.exit(1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t0 = performance.now();
  const names = buildUmdDeclarations();
  const t1 = performance.now();
  checkUmdDeclarations();
  const s = (a, b) => ((b - a) / 1000).toFixed(1);
  console.log(
    `dist/umd/babylon-fbbik.d.ts: global BABYLONFBBIK over ${names.length} BABYLON names: ${names.join(", ")}`,
  );
  console.log(`declarations ${s(t0, t1)} s, checked against babylonjs's babylon.d.ts in ${s(t1, performance.now())} s`);
}
