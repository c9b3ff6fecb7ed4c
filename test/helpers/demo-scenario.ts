/**
 * A demo scenario built in Node as the page builds it (demo/src/main.ts): the stage's orbit camera, the panel
 * over the view's left part and the per-frame screen shift that keeps the picture clear of it, the scenario's
 * script run after the animations and its measurements after the solve. For what a user first sees: framing,
 * what hides what, props against the skin.
 */
import { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera.js";
import type { NullEngineOptions } from "@babylonjs/core/Engines/nullEngine.js";
import { DirectionalLight } from "@babylonjs/core/Lights/directionalLight.js";
import type { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import { onTestFinished, vi } from "vitest";
import { spawnCharacter } from "../../demo/src/character.js";
import { disposeCharacter } from "../../demo/src/dispose-character.js";
import { SUN_DIRECTION, SUN_POSITION } from "../../demo/src/key-light.js";
import type { Character, Ctx, Scenario, ScenarioRun } from "../../demo/src/kit.js";
import { NARROW, keepClearOfPanel } from "../../demo/src/view-shift.js";
import type { LoadedModel } from "./babylon-scene.js";

/** The panel's right edge in CSS pixels (8 px from the left, 280 px wide), as the page lays it out. */
export const PANEL = 288;

/**
 * The canvas's height on a `width`×`height` window: the whole window, but on a narrow one (below NARROW px) the
 * panel lies under the canvas, 40 % of the height (index.html sets it, whatever its content).
 */
export function canvasHeight(width: number, height: number): number {
  return width < NARROW ? Math.round(0.6 * height) : height;
}

/** The free part of the view (CSS px, the canvas's): right of the panel over it (at most 40 %), the whole height. */
export function freeView(width: number, height: number): { left: number; bottom: number } {
  return { left: width < NARROW ? 0 : Math.min(PANEL, 0.4 * width), bottom: canvasHeight(width, height) };
}

/** No shadows drawn, but the stage's sun as the page sets it (the first character turns it to its front). */
function sunOnly(sun: DirectionalLight): ShadowGenerator {
  return {
    addShadowCaster: () => undefined,
    removeShadowCaster: () => undefined,
    getLight: () => sun,
  } as unknown as ShadowGenerator;
}

/** A scenario running in a model's scene; everything it added goes when the test finishes. */
export interface OpenScenario {
  ctx: Ctx;
  run: ScenarioRun;
  camera: ArcRotateCamera;
  /** The first character it spawned. */
  c: Character;
}

/**
 * Builds `scenario` in the model's scene at a `width`×`height` window (the page's `document` and `window`
 * stubbed for the panel's place and the canvas's size while the test runs) and renders one frame. `idle: false` stops the
 * characters' procedural idle (it swings bones about their own local axes, which differ between files).
 */
export async function openScenario(
  m: LoadedModel,
  scenario: Scenario,
  width = 1280,
  height = 800,
  { idle = true }: { idle?: boolean } = {},
): Promise<OpenScenario> {
  const options = (m.engine as unknown as { _options: NullEngineOptions })._options;
  const canvas = { clientWidth: width, clientHeight: canvasHeight(width, height), offsetTop: 0 };
  options.renderWidth = width;
  options.renderHeight = canvas.clientHeight;
  // over the canvas at its left, or under it on a narrow window
  const panel =
    width < NARROW
      ? { offsetLeft: 0, offsetWidth: width, offsetTop: canvas.clientHeight }
      : { offsetLeft: 8, offsetWidth: PANEL - 8, offsetTop: 8 };
  const byId = (id: string) => (id === "panel" ? panel : id === "canvas" ? canvas : null);
  const listeners = { addEventListener: () => undefined, removeEventListener: () => undefined };
  vi.stubGlobal("document", { getElementById: byId, ...listeners });
  vi.stubGlobal("window", listeners);
  // the crowd reads its count from the URL: a small one (the page opens with a hundred)
  vi.stubGlobal("location", { search: "?count=4" });
  const camera = new ArcRotateCamera("camera", -Math.PI / 2, 1.25, 4, new Vector3(0, 0.9, 0), m.scene);
  camera.minZ = 0.05;
  const previous = m.scene.activeCamera;
  m.scene.activeCamera = camera;
  // the stage's floor (the ground scenario walks and probes it)
  const ground = CreateGround("ground", { width: 40, height: 40 }, m.scene);
  const sun = new DirectionalLight("sun", SUN_DIRECTION.clone(), m.scene);
  sun.position = SUN_POSITION.clone();
  const shadows = sunOnly(sun);
  const fields = { scene: m.scene, engine: m.engine, camera, container: m.container, shadows, ground };
  const ctx = {
    ...fields,
    iks: [],
    characters: [],
    components: [],
    paused: () => false,
  } as unknown as Ctx;
  ctx.spawn = (p: Vector3) => {
    const c = spawnCharacter(ctx, p);
    if (!idle) {
      // back to the pose it was spawned in, and still
      c.idle?.reset();
      c.idle?.stop();
    }
    return c;
  };
  const before = new Set(m.scene.meshes);
  const observers = new Set(m.scene.onBeforeRenderObservable.observers);
  keepClearOfPanel(m.scene, camera);
  const shift = m.scene.onBeforeRenderObservable.observers.filter((o) => !observers.has(o));
  const run = await scenario.build(ctx);
  const update = m.scene.onAfterAnimationsObservable.add(() => run.update?.(1 / 60));
  const after = m.scene.onAfterRenderTargetsRenderObservable.add(() => run.after?.());
  onTestFinished(() => {
    m.scene.onAfterAnimationsObservable.remove(update);
    m.scene.onAfterRenderTargetsRenderObservable.remove(after);
    run.dispose?.();
    for (const c of [...ctx.characters]) disposeCharacter(ctx, c);
    for (const mesh of m.scene.meshes.filter((x) => !before.has(x))) mesh.dispose();
    for (const o of shift) m.scene.onBeforeRenderObservable.remove(o);
    m.scene.activeCamera = previous;
    camera.dispose();
    ground.dispose();
    sun.dispose();
    vi.unstubAllGlobals();
  });
  m.scene.render();
  return { ctx, run, camera, c: ctx.characters[0]! };
}

/** A world point on the page (CSS pixels), the camera's screen shift included. */
export function project(camera: ArcRotateCamera, p: Vector3, width: number, height: number): Vector3 {
  const vp = camera.getViewMatrix(true).multiply(camera.getProjectionMatrix(true));
  return Vector3.Project(p, Matrix.IdentityReadOnly, vp, camera.viewport.toGlobal(width, height));
}
