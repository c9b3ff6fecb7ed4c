/**
 * The demo's scenarios as a user first sees them, built in Node with the page's camera and view shift: the
 * climb's whole ladder and the character at the top of the climb inside the view's free part at wide, tall and
 * portrait windows (a camera following the climber lost the ladder's top); and in the free scenario no bend
 * goal's box in front of a handle the user drags (a knee goal hid a third of RiggedFigure's raised left foot).
 */
import { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera.js";
import { Ray } from "@babylonjs/core/Culling/ray.js";
import type { NullEngineOptions } from "@babylonjs/core/Engines/nullEngine.js";
import type { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { spawnCharacter } from "../../demo/src/character.js";
import { disposeCharacter } from "../../demo/src/dispose-character.js";
import { outline } from "../../demo/src/framing.js";
import type { Ctx, ScenarioRun } from "../../demo/src/kit.js";
import { eyeOf } from "../../demo/src/props/clear-sight.js";
import { climb } from "../../demo/src/scenarios/climb.js";
import { keepClearOfPanel } from "../../demo/src/view-shift.js";
import { type LoadedModel, type ModelName, loadModel } from "../helpers/babylon-scene.js";

const noShadows = { addShadowCaster: () => undefined } as unknown as ShadowGenerator;
const report = (s: string) => process.env.FBBIK_REPORT && console.log(s);
/** The panel's right edge in CSS pixels (8 px from the left, 280 px wide), as the page lays it out. */
const PANEL = 288;

afterEach(() => vi.unstubAllGlobals());

/**
 * Builds `scenario` in the model's scene at a `width`×`height` window: the stage's camera, the page's panel
 * (the view's free part right of it) and its per-frame screen shift; the scenario's script wired as the page's.
 */
async function open(m: LoadedModel, scenario: typeof climb, width: number, height: number) {
  const options = (m.engine as unknown as { _options: NullEngineOptions })._options;
  options.renderWidth = width;
  options.renderHeight = height;
  const byId = (id: string) =>
    id === "panel" ? { offsetLeft: 8, offsetWidth: PANEL - 8 } : id === "canvas" ? { clientWidth: width } : null;
  vi.stubGlobal("document", { getElementById: byId });
  vi.stubGlobal("window", { addEventListener: () => undefined, removeEventListener: () => undefined });
  const camera = new ArcRotateCamera("camera", -Math.PI / 2, 1.25, 4, new Vector3(0, 0.9, 0), m.scene);
  camera.minZ = 0.05;
  m.scene.activeCamera = camera;
  const fields = { scene: m.scene, engine: m.engine, camera, container: m.container, shadows: noShadows };
  const ctx = { ...fields, iks: [], characters: [], components: [], paused: () => false } as unknown as Ctx;
  ctx.spawn = (p: Vector3) => spawnCharacter(ctx, p, { acc: 0 });
  const before = new Set(m.scene.meshes);
  const observers = new Set(m.scene.onBeforeRenderObservable.observers);
  keepClearOfPanel(m.scene, camera);
  const shift = m.scene.onBeforeRenderObservable.observers.filter((o) => !observers.has(o));
  const run: ScenarioRun = await scenario.build(ctx);
  const update = m.scene.onAfterAnimationsObservable.add(() => run.update?.(1 / 60));
  const after = m.scene.onAfterRenderTargetsRenderObservable.add(() => run.after?.());
  onTestFinished(() => {
    m.scene.onAfterAnimationsObservable.remove(update);
    m.scene.onAfterRenderTargetsRenderObservable.remove(after);
    run.dispose?.();
    for (const c of [...ctx.characters]) disposeCharacter(ctx, c);
    for (const mesh of m.scene.meshes.filter((x) => !before.has(x))) mesh.dispose();
    for (const o of shift) m.scene.onBeforeRenderObservable.remove(o);
    camera.dispose();
  });
  m.scene.render();
  return { ctx, run, camera, c: ctx.characters[0]! };
}

/** A world point on the page (CSS pixels), with the camera's shift as rendered. */
function project(camera: ArcRotateCamera, p: Vector3, width: number, height: number): Vector3 {
  const vp = camera.getViewMatrix(true).multiply(camera.getProjectionMatrix(true));
  return Vector3.Project(p, Matrix.IdentityReadOnly, vp, camera.viewport.toGlobal(width, height));
}

describe("the climb framed on the UAL character (the demo's default)", () => {
  let m: LoadedModel;
  beforeAll(async () => {
    m = await loadModel("UAL");
  });
  afterAll(() => m.dispose());

  it.each([
    [1280, 800],
    [960, 1200],
    [600, 1000],
  ])("climb at %i×%i: the whole ladder and the character in view (at the top too)", async (w, h) => {
    const { run, camera, c, ctx } = await open(m, climb, w, h);
    const ladder = ctx.scene.meshes.filter((x) => x.name === "rail" || x.name === "rung");
    const points = () => [
      ...ladder.flatMap((x) => x.getBoundingInfo().boundingBox.vectorsWorld.map((v) => v.clone())),
      ...outline(c),
    ];
    // the view's free part: right of the panel (at most 40 % of a narrow window), the whole height
    const left = Math.min(PANEL, 0.4 * w);
    const worst = { left: Infinity, right: -Infinity, top: Infinity, bottom: -Infinity };
    const look = () => {
      for (const p of points()) {
        const s = project(camera, p, w, h);
        worst.left = Math.min(worst.left, s.x);
        worst.right = Math.max(worst.right, s.x);
        worst.top = Math.min(worst.top, s.y);
        worst.bottom = Math.max(worst.bottom, s.y);
      }
    };
    look();
    // the camera holds still: up to the top once (the tall window), every 30 frames
    for (let f = 0; f < 900 && !run.done && h === 1200; f++) {
      m.scene.render();
      if (f % 30 === 0) look();
    }
    look();
    report(
      `climb at ${w}×${h}: ladder and character from x ${worst.left.toFixed(0)} to ${worst.right.toFixed(0)}, ` +
        `y ${worst.top.toFixed(0)} to ${worst.bottom.toFixed(0)} px (free part x ${left}–${w}, y 0–${h})`,
    );
    if (h === 1200) expect(run.done, "the climb reached the top").toBe(true);
    expect(worst.top, "the ladder's top in view").toBeGreaterThanOrEqual(0);
    expect(worst.bottom, "the feet in view").toBeLessThanOrEqual(h);
    expect(worst.left, "clear of the panel").toBeGreaterThanOrEqual(left);
    expect(worst.right, "inside the window's right edge").toBeLessThanOrEqual(w);
  });
});

describe.each<ModelName>(["UAL", "RiggedFigure"])("the free scenario's handles on %s", (model) => {
  it("no bend goal in front of a handle the user drags (rays from the camera to each hand and foot)", async () => {
    const m = await loadModel(model);
    onTestFinished(() => m.dispose());
    const [w, h] = [1280, 800];
    // the free scenario's panel controls listen on the page when their module loads
    vi.stubGlobal("addEventListener", () => undefined);
    const { free } = await import("../../demo/src/scenarios/free.js");
    const { camera } = await open(m, free, w, h);
    const handles = m.scene.meshes.filter((x) => x.name.startsWith("handle "));
    const eye = eyeOf(camera);
    const worst: string[] = [];
    let hiddenMost = 0;
    for (const handle of handles.filter((x) => / (hand|foot)$/.test(x.name))) {
      const { hidden, by } = hiddenShare(handle, handles, eye);
      hiddenMost = Math.max(hiddenMost, hidden);
      if (hidden > 0) worst.push(`${handle.name}: ${(hidden * 100).toFixed(0)} % behind ${[...by].join(", ")}`);
    }
    report(`${model} free: ${worst.length === 0 ? "every hand and foot handle in full view" : worst.join("; ")}`);
    expect(worst, "hand and foot handles hidden by another handle").toEqual([]);
  });
});

/** The share of `handle`'s visible half hidden from `eye` by other handles (rays to 69 points over its disc). */
function hiddenShare(handle: AbstractMesh, all: AbstractMesh[], eye: Vector3): { hidden: number; by: Set<string> } {
  const s = handle.getBoundingInfo().boundingSphere;
  const toEye = eye.subtract(s.centerWorld).normalize();
  const a = Vector3.Cross(toEye, Vector3.Up()).normalize();
  const b = Vector3.Cross(toEye, a).normalize();
  const by = new Set<string>();
  let [hidden, n] = [0, 0];
  for (let i = -4; i <= 4; i++)
    for (let j = -4; j <= 4; j++) {
      const [x, y] = [i / 4.5, j / 4.5];
      if (x * x + y * y > 0.9) continue;
      const p = s.centerWorld
        .add(a.scale(x * s.radiusWorld))
        .add(b.scale(y * s.radiusWorld))
        .add(toEye.scale(Math.sqrt(1 - x * x - y * y) * s.radiusWorld * 0.99));
      const ray = new Ray(eye, p.subtract(eye).normalize(), Vector3.Distance(p, eye) * 1.01);
      const hit = handle.getScene().pickWithRay(ray, (q) => all.includes(q));
      n++;
      if (hit?.hit === true && hit.pickedMesh !== handle) {
        hidden++;
        by.add(hit.pickedMesh!.name);
      }
    }
  return { hidden: hidden / n, by };
}
