/**
 * babylon-fbbik demo: the Mannequin (CC0) with FullBodyBipedIK in a few scenarios, chosen by
 * `?scenario=free|grab|climb|ground|deck|hit|crowd` or in the panel. Test hooks on `window.__fbbik`.
 */
import "@babylonjs/core/Animations/animatable";
import "@babylonjs/core/Culling/ray";
import "@babylonjs/core/Lights/Shadows/shadowGeneratorSceneComponent";
import "@babylonjs/loaders/glTF/2.0";
import { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import { Engine } from "@babylonjs/core/Engines/engine";
import { DirectionalLight } from "@babylonjs/core/Lights/directionalLight";
import { HemisphericLight } from "@babylonjs/core/Lights/hemisphericLight";
import { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator";
import { LoadAssetContainerAsync } from "@babylonjs/core/Loading/sceneLoader";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3, Color4 } from "@babylonjs/core/Maths/math.color";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder";
import { Scene } from "@babylonjs/core/scene";
import type { AssetContainer } from "@babylonjs/core/assetContainer";
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup";
import { type Character, type Ctx, type ScenarioRun, bonePos, captureAnimated } from "./kit";
import { spawnCharacter } from "./character";
import { SCENARIOS, type ScenarioName, scenarioNamed } from "./scenarios/index";
import { buildPanel, snapshotParameters } from "./panel";
import { DebugViews } from "./views";
import { Matrix } from "@babylonjs/core/Maths/math.vector";

/** Background colour (the e2e test checks the screenshot is not all this colour). */
const CLEAR = new Color4(0.55, 0.62, 0.7, 1);

declare global {
  interface Window {
    __fbbik: Record<string, unknown>;
  }
}

const canvas = document.getElementById("canvas") as HTMLCanvasElement;
const engine = new Engine(canvas, true, { preserveDrawingBuffer: true, stencil: true });
window.addEventListener("resize", () => engine.resize());

let current: { scene: Scene; run: ScenarioRun; ctx: Ctx; views: DebugViews } | null = null;
/** Scripted motion and measurements stop while the test hook captures its two images. */
let frozen = false;
const views = { skeleton: false, nodes: false };
let modelSource: string | Uint8Array = "models/AnimationLibrary_Godot_Standard.gltf";
let modelName = "AnimationLibrary_Godot_Standard.gltf";
let paused = false;
/**
 * The clip the user chose for the characters (−1: procedural idle; null: each scenario's own); kept across
 * scenarios, reset with the model.
 */
let clipIndex: number | null = null;
const hooks: Record<string, unknown> = { ready: false, scenario: null, errors: [] as string[] };
window.__fbbik = hooks;

function scenarioFromUrl(): ScenarioName {
  const s = new URLSearchParams(location.search).get("scenario") as ScenarioName | null;
  return s !== null && (SCENARIOS as readonly string[]).includes(s) ? s : "free";
}

async function build(name: ScenarioName): Promise<void> {
  hooks.ready = false;
  if (current !== null) {
    engine.stopRenderLoop();
    current.views.dispose();
    current.run.dispose?.();
    current.scene.dispose();
    current = null;
  }
  const scene = new Scene(engine);
  scene.clearColor = CLEAR.clone();
  scene.ambientColor = new Color3(0.3, 0.3, 0.3);
  const camera = new ArcRotateCamera("camera", -Math.PI / 2, 1.25, 4, new Vector3(0, 0.9, 0), scene);
  camera.wheelDeltaPercentage = 0.02;
  camera.minZ = 0.05;
  camera.attachControl(true);
  const hemi = new HemisphericLight("hemi", new Vector3(0.2, 1, 0.1), scene);
  hemi.intensity = 0.55;
  hemi.groundColor = new Color3(0.35, 0.33, 0.3);
  const sun = new DirectionalLight("sun", new Vector3(-0.5, -1, 0.6), scene);
  sun.position = new Vector3(5, 10, -6);
  sun.intensity = 0.9;
  const shadows = new ShadowGenerator(1024, sun);
  // cheap filtering: the demo also runs on software GL (the e2e test's SwiftShader)
  shadows.usePercentageCloserFiltering = true;
  shadows.filteringQuality = ShadowGenerator.QUALITY_LOW;
  shadows.darkness = 0.35;
  const ground = CreateGround("floor", { width: 60, height: 60 }, scene);
  const gm = new StandardMaterial("floor", scene);
  gm.diffuseColor = new Color3(0.42, 0.45, 0.4);
  gm.specularColor = Color3.Black();
  ground.material = gm;
  ground.receiveShadows = true;

  let container: AssetContainer;
  try {
    if (typeof modelSource === "string")
      container = await LoadAssetContainerAsync(modelSource, scene, {
        pluginExtension: modelSource.endsWith(".gltf") ? ".gltf" : ".glb",
      });
    else container = await LoadAssetContainerAsync(modelSource, scene, { pluginExtension: ".glb", name: modelName });
  } catch (e) {
    scene.dispose();
    throw e;
  }
  const ikTimes = { acc: 0, last: 0 };
  const ctx: Ctx = {
    scene,
    engine,
    camera,
    shadows,
    ground,
    container,
    iks: [],
    characters: [],
    paused: () => paused,
    spawn: (position) => spawnCharacter(ctx, position, ikTimes),
    components: [],
  };
  let run: ScenarioRun;
  try {
    run = await scenarioNamed(name)!.build(ctx);
  } catch (e) {
    scene.dispose();
    throw e;
  }
  const debugViews = new DebugViews(ctx);
  debugViews.setSkeleton(views.skeleton);
  debugViews.setNodes(views.nodes);
  current = { scene, run, ctx, views: debugViews };
  if (clipIndex !== null) setClip(clipIndex);
  setPaused(paused);
  // the parameters as the scenario set them: the panel's reset goes back to these
  const defaults = snapshotParameters(ctx.iks);

  hooks.scene = scene;
  hooks.engine = engine;
  hooks.iks = ctx.iks;
  hooks.scenario = name;
  hooks.model = modelName;
  hooks.characters = ctx.characters.length;
  hooks.setPaused = (p: boolean) => setPaused(p);
  hooks.clips = () => clipNames(container);
  hooks.clip = () => clipIndex ?? ctx.characters[0]?.clip ?? -1;
  hooks.setClip = (i: number) => setClip(i);
  hooks.clearColor = [CLEAR.r, CLEAR.g, CLEAR.b];
  hooks.frames = 0;
  hooks.checks = () => run.checks;
  hooks.done = () => run.done;
  hooks.world = () => run.world?.() ?? null;
  hooks.control = (cmd: string, arg?: unknown) => run.control?.(cmd, arg as never) ?? null;
  hooks.views = views;
  hooks.solverNodes = (i = 0) => debugViews.nodeRecords(ctx.iks[i]!);
  hooks.project = (p: [number, number, number]) => {
    const v = Vector3.Project(
      Vector3.FromArray(p),
      Matrix.IdentityReadOnly,
      scene.getTransformMatrix(),
      camera.viewport.toGlobal(engine.getRenderWidth(), engine.getRenderHeight()),
    );
    return [v.x, v.y];
  };
  hooks.capture = () => capture(scene, ctx, sun.direction);

  const panelOptions = {
    scenario: name,
    ctx,
    run,
    paused: () => paused,
    setPaused,
    modelName,
    clipNames: clipNames(container),
    clip: () => clipIndex ?? current?.ctx.characters[0]?.clip ?? -1,
    setClip,
    loadFile: (file: File) => loadFile(file),
    views,
    setView: (v: "skeleton" | "nodes", on: boolean) => {
      views[v] = on;
      if (v === "skeleton") debugViews.setSkeleton(on);
      else debugViews.setNodes(on);
    },
    reset: () => {
      defaults.restore();
      run.reset?.();
      buildPanel(panelOptions);
    },
    switchTo: (s: ScenarioName) => {
      const url = new URL(location.href);
      url.searchParams.set("scenario", s);
      history.replaceState(null, "", url);
      void build(s).catch(report);
    },
  };
  buildPanel(panelOptions);

  const stats = document.getElementById("stats")!;
  let frames = 0;
  let statTime = performance.now();
  let statFrames = 0;
  let ikSum = 0;
  scene.onAfterRenderObservable.add(() => {
    ikTimes.last = ikTimes.acc;
    ikTimes.acc = 0;
    ikSum += ikTimes.last;
    frames++;
    statFrames++;
    hooks.frames = frames;
    const now = performance.now();
    if (now - statTime > 500) {
      const fps = (statFrames * 1000) / (now - statTime);
      const characters = `${ctx.iks.length} character${ctx.iks.length === 1 ? "" : "s"}`;
      stats.textContent = `FPS ${fps.toFixed(1)}\nIK  ${(ikSum / statFrames).toFixed(2)} ms/frame\n${characters}`;
      statTime = now;
      statFrames = 0;
      ikSum = 0;
    }
    if (frames === 5) hooks.ready = true;
  });
  // scripted motion after the animations and before the IK solves (the IK then reaches for where the
  // objects are this frame); the animation-only pose of the first characters is kept for the checks
  scene.onAfterAnimationsObservable.add(() => {
    if (frozen) return;
    if (ctx.characters.length <= 4) for (const c of ctx.characters) captureAnimated(c);
    const dt = Math.min(engine.getDeltaTime() / 1000, 0.1);
    run.update?.(dt);
  });
  // after this frame's solve (the IKs solve at the frame's first onBeforeRenderTargetsRenderObservable,
  // after every onBeforeRenderObservable observer); this one fires after it, once per camera too
  let afterFrame = -1;
  scene.onAfterRenderTargetsRenderObservable.add(() => {
    if (frozen || scene.getFrameId() === afterFrame) return;
    afterFrame = scene.getFrameId();
    run.after?.();
    debugViews.update();
  });
  engine.runRenderLoop(() => scene.render());
}

/** The animation a character plays under the IK: one of its model's clips, or the procedural idle. */
function playing(c: Character): AnimationGroup | null {
  return c.clip >= 0 ? (c.clips[c.clip] ?? null) : c.idle;
}

function setPaused(p: boolean): void {
  paused = p;
  if (current === null) return;
  for (const c of current.ctx.characters) {
    for (const g of [playing(c), ...c.extra]) {
      if (g === null) continue;
      if (p) g.pause();
      else g.play(true);
    }
  }
}

/** Plays the model's clip `index` (−1: the procedural idle) on every character, looping. */
function setClip(index: number): void {
  clipIndex = index;
  if (current === null) return;
  for (const c of current.ctx.characters) {
    const i = index < c.clips.length ? index : -1;
    if (i === c.clip) continue;
    playing(c)?.stop();
    c.clip = i;
    const g = playing(c);
    if (g === null) continue;
    g.start(true, 1);
    if (paused) g.pause();
  }
}

/**
 * The test hook's images: the canvas with the characters, then without them (same frame, scripted motion
 * frozen), and the characters' screen rectangle (bones' box, padded for the mesh, with its shadow on the
 * floor). Render-size pixels; PNG data URLs.
 */
function capture(
  scene: Scene,
  ctx: Ctx,
  light: Vector3,
): { shown: string; hidden: string; rect: number[]; width: number; height: number } {
  frozen = true;
  engine.stopRenderLoop();
  try {
    scene.render();
    const shown = canvas.toDataURL("image/png");
    const meshes = ctx.characters.flatMap((c) => c.meshes);
    const was = meshes.map((m) => m.isEnabled(false));
    for (const m of meshes) m.setEnabled(false);
    scene.render();
    const hidden = canvas.toDataURL("image/png");
    meshes.forEach((m, i) => m.setEnabled(was[i]!));
    scene.render();
    const w = engine.getRenderWidth();
    const hgt = engine.getRenderHeight();
    const viewport = scene.activeCamera!.viewport.toGlobal(w, hgt);
    const vp = scene.getTransformMatrix();
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    const dir = light.normalizeToNew();
    const floor = ctx.ground.position.y;
    for (const c of ctx.characters) {
      const pts = c.skeleton.bones.filter((b) => b.getTransformNode() !== null).map(bonePos);
      const lo = pts.reduce((a, p) => Vector3.Minimize(a, p), pts[0]!.clone());
      const hi = pts.reduce((a, p) => Vector3.Maximize(a, p), pts[0]!.clone());
      // the Mannequin's head (over half its height) and hands reach well past their bones
      const pad = 0.3 * c.h;
      lo.subtractInPlace(new Vector3(pad, 0.06 * c.h, pad));
      hi.addInPlace(new Vector3(pad, 0.8 * c.h, pad));
      lo.y = Math.max(lo.y, floor);
      for (let k = 0; k < 8; k++) {
        const p = new Vector3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
        const shadow = dir.y < 0 ? p.add(dir.scale((floor - p.y) / dir.y)) : p;
        for (const q of [p, shadow]) {
          const s = Vector3.Project(q, Matrix.IdentityReadOnly, vp, viewport);
          x0 = Math.min(x0, s.x);
          y0 = Math.min(y0, s.y);
          x1 = Math.max(x1, s.x);
          y1 = Math.max(y1, s.y);
        }
      }
    }
    return { shown, hidden, rect: [x0, y0, x1, y1], width: w, height: hgt };
  } finally {
    frozen = false;
    engine.runRenderLoop(() => scene.render());
  }
}

function report(e: unknown): void {
  const msg = e instanceof Error ? `${e.message}` : String(e);
  (hooks.errors as string[]).push(msg);
  console.error(e);
  const box = document.getElementById("error");
  if (box !== null) {
    box.textContent = `Error: ${msg}`;
    box.style.display = "block";
    setTimeout(() => (box.style.display = "none"), 8000);
  }
}

// drag and drop a user's GLB: rebuild the current scenario with it
const drop = document.getElementById("drop")!;
window.addEventListener("dragover", (e) => {
  e.preventDefault();
  drop.style.display = "flex";
});
window.addEventListener("dragleave", () => (drop.style.display = "none"));
window.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.style.display = "none";
  const file = e.dataTransfer?.files[0];
  if (file !== undefined) loadFile(file);
});

/** Loads a user's GLB from a drop or the panel's file picker. */
function loadFile(file: File): void {
  void file
    .arrayBuffer()
    .then((buf) => loadUserModel(new Uint8Array(buf), file.name))
    .catch(report);
}

/** The model's clip names (the container's animation groups), for the panel and the test hook. */
function clipNames(container: AssetContainer): string[] {
  return container.animationGroups.map((g) => g.name);
}

/** Rebuilds the current scenario with a user's GLB (falls back to the previous model if it fails). */
async function loadUserModel(bytes: Uint8Array, name: string): Promise<void> {
  const previous = { modelSource, modelName, clipIndex };
  modelSource = bytes;
  modelName = name;
  clipIndex = null;
  try {
    await build(scenarioFromUrl());
  } catch (err) {
    report(err);
    modelSource = previous.modelSource;
    modelName = previous.modelName;
    clipIndex = previous.clipIndex;
    await build(scenarioFromUrl());
  }
}
hooks.loadModel = loadUserModel;

void build(scenarioFromUrl()).catch(report);
