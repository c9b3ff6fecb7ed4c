// npm run check:package: packs the package as npm publish would (prepack builds), then checks the tarball:
// every main/types/exports/unpkg/jsdelivr target and README link is inside it, publint (warnings are errors),
// and Are the Types Wrong (ESM only: CommonJS resolution is not offered).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

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
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log("check:package: the tarball is complete; publint and attw pass.");
