// npm pack / npm publish run this first: a fresh build of dist/ (stale files would ship otherwise), and the
// UMD bundle when the package has a build:umd script.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";

const root = new URL("../", import.meta.url);
const { scripts } = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));

function run(script) {
  const r = spawnSync("npm", ["run", script], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

rmSync(new URL("dist/", root), { recursive: true, force: true });
run("build");
if (scripts["build:umd"]) run("build:umd");
