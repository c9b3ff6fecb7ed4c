/**
 * A component that needs one of Babylon's opt-in side effects imports it itself, so an ES-module app that
 * imports only the component works. Each case runs in a fresh Node process (this project's workers share one
 * module graph, where another file has long registered everything): it imports the component's module and
 * nothing else of Babylon but an engine and a scene, then uses the feature.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../helpers/repo-root.js";

const root = repoRoot(import.meta.url);

/** Runs `body` (an async function's body, `scene` in scope) after importing `module`; prints what it returns. */
function inFreshProcess(module: string, body: string): string {
  const script = `
    const { NullEngine } = await import("@babylonjs/core/Engines/nullEngine.js");
    const { Scene } = await import("@babylonjs/core/scene.js");
    const { FreeCamera } = await import("@babylonjs/core/Cameras/freeCamera.js");
    const { Vector3 } = await import("@babylonjs/core/Maths/math.vector.js");
    const { Logger } = await import("@babylonjs/core/Misc/logger.js");
    await import(${JSON.stringify(module)});
    const warnings = [];
    Logger.Warn = (m) => warnings.push(String(m));
    const scene = new Scene(new NullEngine());
    new FreeCamera("camera", new Vector3(0, 1, -3), scene);
    let result;
    try { result = await (async () => { ${body} })(); } catch (e) { result = "threw: " + e.message; }
    console.log(JSON.stringify({ result, warnings }));
  `;
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
  });
  return out.trim().split("\n").pop()!;
}

describe("Babylon side effects a component needs", () => {
  it("EffectorHandles: clicking a handle picks (Babylon's Ray registered), with no import warning", () => {
    const out = JSON.parse(
      inFreshProcess(
        "./src/babylon/effector-handles.ts",
        "const info = scene.pick(640, 400); return info === null ? 'null' : typeof info.hit;",
      ),
    ) as { result: string; warnings: string[] };
    // without the import, scene.pick warns "Ray needs to be imported before…" and a click selects nothing
    expect(out.warnings).toEqual([]);
    expect(out.result).toBe("boolean");
  });
});
