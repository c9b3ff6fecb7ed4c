// npm run check:package: packs the package as npm publish would (prepack builds), then checks the tarball:
// every main/types/exports/unpkg/jsdelivr target and README link is inside it, publint (warnings are errors),
// Are the Types Wrong (ESM only: CommonJS resolution is not offered), no `@internal` declaration left in the
// .d.ts files (tsconfig.build.json strips them) nor an underscore member not allowed in UNDERSCORE_ALLOWED, a
// consumer type-checked against them with skipLibCheck off, and a TSDoc comment on every export of the entry
// point and on each of their public and protected members (what an editor shows on hover).
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("../", import.meta.url));
const bin = (name) => join(root, "node_modules", ".bin", name);
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { cwd: root, encoding: "utf8", ...opts });

const out = mkdtempSync(join(tmpdir(), "fbbik-pack-"));
// npm's own output goes to stderr; --json prints the tarball's summary on stdout, after what prepack's
// build scripts print there
const packed = sh("npm", ["pack", "--json", "--loglevel=warn", "--pack-destination", out], {
  stdio: ["ignore", "pipe", "inherit"],
});
const [info] = JSON.parse(packed.slice(packed.search(/^\[/m)));
const tarball = join(out, info.filename);
sh("tar", ["-xzf", tarball, "-C", out]);
const pkgDir = join(out, "package");
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));

const problems = [];
const targets = new Set([pkg.main, pkg.types, pkg.unpkg, pkg.jsdelivr].filter(Boolean));
const collect = (v) => {
  if (typeof v === "string") targets.add(v);
  else if (v && typeof v === "object") for (const x of Object.values(v)) collect(x);
};
collect(pkg.exports);
for (const t of targets) {
  if (t.includes("*")) continue;
  if (!existsSync(join(pkgDir, t))) problems.push(`package.json points at ${t}, which the tarball lacks`);
}
// relative links of the README (rendered on the registry's page and read in node_modules)
const readme = readFileSync(join(pkgDir, "README.md"), "utf8");
for (const [, link] of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
  if (/^[a-z]+:/i.test(link) || link.startsWith("#")) continue;
  const file = link.split("#")[0];
  if (!existsSync(join(pkgDir, file))) problems.push(`README links ${link}, which the tarball lacks`);
}

console.log(
  `${info.filename}: ${(info.size / 1024).toFixed(1)} KB packed, ${(info.unpackedSize / 1024).toFixed(1)} KB ` +
    `unpacked, ${info.entryCount} files; ${targets.size} entry targets checked`,
);
for (const [name, args] of [
  ["publint", ["run", tarball, "--strict"]],
  ["attw", [tarball, "--profile", "esm-only", "--no-color"]],
]) {
  try {
    console.log(sh(bin(name), args, { stdio: ["ignore", "pipe", "pipe"] }).trim());
  } catch (e) {
    problems.push(`${name} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

/** Every .d.ts file under `dir`. */
function declarationFiles(dir) {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".d.ts"))
    .map((f) => join(dir, f));
}

// an editor lists whatever the .d.ts declare: a member tagged @internal that survived stripInternal (a tag
// not in the declaration's leading comment) would show in autocomplete, its comment with it
const dts = declarationFiles(join(pkgDir, "dist"));
for (const file of dts) {
  const text = readFileSync(file, "utf8");
  const at = text.indexOf("@internal");
  if (at >= 0) {
    const line = text.slice(0, at).split("\n").length;
    problems.push(`${relative(pkgDir, file)}:${line} declares an @internal member (stripInternal left it)`);
  }
}

/**
 * Underscore members that may stay in the published .d.ts, each with the reason (an underscore means "not
 * yours": one that is not `@internal` shows in editors' autocomplete as if it were API).
 */
const UNDERSCORE_ALLOWED = new Map([
  // ["Owner._member", "why a user needs to see it"],
]);

/** `Owner._name` of every non-private underscore member or exported declaration in a .d.ts text. */
function underscoreNames(file, text) {
  const names = [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const owner = (node) => {
    const p = node.parent;
    return p && (ts.isClassDeclaration(p) || ts.isInterfaceDeclaration(p)) && p.name ? p.name.text : "(type)";
  };
  const visit = (node) => {
    const name = node.name && ts.isIdentifier(node.name) ? node.name.text : null;
    if (name?.startsWith("_")) {
      const isPrivate = ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Private;
      const member = ts.isClassElement(node) || ts.isTypeElement(node);
      const top = ts.isFunctionDeclaration(node) || ts.isVariableDeclaration(node) || ts.isClassDeclaration(node);
      if (!isPrivate && (member || top)) names.push(member ? `${owner(node)}.${name}` : name);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

let underscores = 0;
for (const file of dts) {
  for (const name of underscoreNames(file, readFileSync(file, "utf8"))) {
    if (UNDERSCORE_ALLOWED.has(name)) underscores++;
    else problems.push(`${relative(pkgDir, file)} declares ${name}: tag it @internal, or allow it with a reason`);
  }
}

/** A path with forward slashes, as the compiler names files. */
const slashed = (f) => f.replace(/\\/g, "/");

/**
 * Type-checks a consumer of the tarball's types, strict and with skipLibCheck off: a stripped member that a
 * published class still implements (an interface's, an abstract one) or a type it still names fails here.
 * Only the package's declarations and the consumer are checked: Babylon's own need @webgpu/types then.
 */
function checkConsumer() {
  const modules = join(out, "node_modules");
  mkdirSync(join(modules, "@babylonjs"), { recursive: true });
  symlinkSync(pkgDir, join(modules, pkg.name), "dir");
  symlinkSync(join(root, "node_modules", "@babylonjs", "core"), join(modules, "@babylonjs", "core"), "dir");
  const consumer = join(out, "consumer.ts");
  writeFileSync(
    consumer,
    [
      'import type { Bone } from "@babylonjs/core/Bones/bone.js";',
      'import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";',
      'import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";',
      'import type { Scene } from "@babylonjs/core/scene.js";',
      "import {",
      "  CCDIK, FullBodyBipedIK, IKUpdateOrder, RigComponent, RotationLimitEuler, Vec3,",
      `} from "${pkg.name}";`,
      "declare const scene: Scene;",
      "declare const skeleton: Skeleton;",
      "declare const leg: Bone[];",
      "declare const foot: TransformNode;",
      "const ik = FullBodyBipedIK.create(scene, skeleton);",
      "ik.solver.leftHandEffector.positionWeight = 1;",
      "const ccd = CCDIK.create(scene, leg, { target: foot, maxIterations: 30 });",
      "ccd.solver.setLimit(1, new RotationLimitEuler(new Vec3(0.01, 0, 0), new Vec3(2.6, 0, 0)));",
      "// a component of one's own: RigComponent's protected contract",
      "class Sway extends RigComponent {",
      "  constructor(bones: Bone[]) {",
      "    super(skeleton, bones, {}, IKUpdateOrder.Chain);",
      "    this.attach();",
      "  }",
      "  protected solve(): void {}",
      "  getClassName(): string {",
      '    return "Sway";',
      "  }",
      "}",
      "console.log(ik.enabled, ccd.enabled, new Sway(leg));",
      "",
    ].join("\n"),
  );
  const program = ts.createProgram([consumer], {
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
  });
  const real = slashed(realpathSync(pkgDir));
  const ours = program.getSourceFiles().filter((f) => f.fileName === slashed(consumer) || f.fileName.startsWith(real));
  const diagnostics = [
    ...program.getGlobalDiagnostics(),
    ...ours.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => out, getNewLine: () => "\n" };
  if (diagnostics.length > 0)
    problems.push(`a consumer of the types fails:\n${ts.formatDiagnostics(diagnostics, host)}`);
  return { checked: ours.length - 1, program };
}
const { checked, program } = checkConsumer();

/** Whether `symbol` has a TSDoc comment on one of its declarations (a getter's covers its setter). */
function hasDoc(symbol, checker) {
  if (symbol.getDocumentationComment(checker).length > 0 || symbol.getJsDocTags(checker).length > 0) return true;
  // `export * as vec3 from …`: the comment sits on the export declaration around the name
  return (symbol.declarations ?? []).some(
    (d) => ts.isNamespaceExport(d) && ts.getJSDocCommentsAndTags(d.parent).length,
  );
}

/**
 * `Export` and `Export.member` of every export of the entry point's declarations, and of each of its public or
 * protected members, that has no TSDoc comment: TypeDoc's own check also demands one on each setter beside a
 * documented getter, hence this one. An override counts as documented when the member it overrides is.
 */
function undocumented(program) {
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(slashed(realpathSync(join(pkgDir, pkg.types))));
  const missing = [];
  const inherited = (type, name) =>
    (type.getBaseTypes?.() ?? []).some((base) => {
      const m = base.getProperty(name);
      return (m && hasDoc(m, checker)) || inherited(base, name);
    });
  for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(entry))) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    // a namespace export (`export * as vec3`) carries its comment itself, the module it names has none
    const chain = [exported];
    while (chain.at(-1).flags & ts.SymbolFlags.Alias) chain.push(checker.getImmediateAliasedSymbol(chain.at(-1)));
    if (!chain.some((s) => s && hasDoc(s, checker))) missing.push(exported.name);
    if (!(symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface))) continue;
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    const statics = symbol.flags & ts.SymbolFlags.Class ? checker.getTypeOfSymbol(symbol).getProperties() : [];
    for (const member of [...type.getProperties(), ...statics]) {
      const decl = member.declarations?.[0];
      if (!decl || !slashed(decl.getSourceFile().fileName).startsWith(slashed(realpathSync(pkgDir)))) continue;
      if (ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Private || member.name === "prototype") continue;
      if (!hasDoc(member, checker) && !inherited(type, member.name)) missing.push(`${exported.name}.${member.name}`);
    }
  }
  return missing;
}
const missingDocs = undocumented(program);
if (missingDocs.length > 0)
  problems.push(`${missingDocs.length} public declarations lack a TSDoc comment:\n  ${missingDocs.join("\n  ")}`);
console.log(
  `${dts.length} .d.ts files without @internal; ${underscores} allowed underscore members; a strict ` +
    `consumer checked ${checked} of them (skipLibCheck off); every export and member documented`,
);

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log("check:package: the tarball is complete; publint and attw pass.");
