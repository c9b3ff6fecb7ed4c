/**
 * babylon-fbbik demo shell: the engine, the model (`?model=<file>`, the menu, a user's files), the scenario
 * (`?scenario=<name>`, one file each under scenarios/), the panel, the overlay, IK on/off and the ghost, the
 * camera's limits and reset, and the test hooks on `window.__fbbik`.
 */
import "@babylonjs/core/Animations/animatable";
import "@babylonjs/core/Culling/ray";
import "@babylonjs/core/Lights/Shadows/shadowGeneratorSceneComponent";
import "@babylonjs/loaders/glTF/2.0/glTFLoader";
import { Engine } from "@babylonjs/core/Engines/engine";
import { Effect } from "@babylonjs/core/Materials/effect";
import { registerBuiltInGLTFExtensions } from "@babylonjs/loaders/glTF/2.0/Extensions/dynamic";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup";
import type { AssetContainer } from "@babylonjs/core/assetContainer";
import type { Scene } from "@babylonjs/core/scene";
import { type Character, type Ctx, type ScenarioRun, captureAnimated } from "./kit";
import { capture } from "./capture";
import { spawnCharacter } from "./character";
import { refreshControls } from "./controls";
import { Ghost } from "./ghost";
import { COMMITTED, type ModelEntry, type ModelSource, loadModel, sharedModels, sourceName } from "./models";
import { borrowClips } from "./borrowed-clips";
import { statsOverlay } from "./overlay";
import { timeEverySolve } from "./ik-time";
import { buildPanel, snapshotParameters } from "./panel";
import { SCENARIOS, type ScenarioName, scenarioNamed } from "./scenarios/index";
import { SKY, type View, createStage, limitCamera, restoreView, saveView } from "./stage";
import { urlOptions } from "./url-options";
import { DebugViews } from "./views";
import { FixedClock } from "./fixed-clock";
import { keepFramedWidth, markFramed } from "./keep-width";
import { keepClearOfPanel } from "./view-shift";

declare global {
  interface Window {
    __fbbik: Record<string, unknown>;
  }
}

// the glTF extensions load on demand (the whole set would add ~200 KB gzipped to the first download)
registerBuiltInGLTFExtensions();
// every scenario and model switch builds a new scene with the same materials: their compiled shaders stay
// (a software GPU compiles each for a tenth of a second or more)
Effect.PersistentMode = true;
const canvas = document.getElementById("canvas") as HTMLCanvasElement;
const engine = new Engine(canvas, true, { preserveDrawingBuffer: true, stencil: true });
const speed = urlOptions(location.search);
engine.setHardwareScalingLevel(speed.renderScale);
const clock =
  speed.step > 0 ? new FixedClock({ step: speed.step, timeScale: speed.timeScale, drawEvery: speed.drawEvery }) : null;
/** A frame of the render loop: one drawn `scene.render()`, or the fixed clock's steps. */
const renderFrame = (scene: Scene) => (clock === null ? scene.render() : clock.frame(scene, hooks.ready === true));
// the canvas changes size with the window, and on a narrow one with the panel under it (folded, opened)
new ResizeObserver(() => engine.resize()).observe(canvas);

interface Current {
  scene: Scene;
  run: ScenarioRun;
  ctx: Ctx;
  views: DebugViews;
  ghost: Ghost | null;
  view: View;
}
let current: Current | null = null;
/** Scripted motion and measurements stop while the test hook captures its two images. */
let frozen = false;
const views = { skeleton: false, nodes: false };
let models: ModelEntry[] = COMMITTED;
let source: ModelSource = { entry: COMMITTED[0]! };
let paused = false;
let ikOn = true;
let ghostOn = false;
/**
 * The clip the user chose for the characters (−1: procedural idle; null: each scenario's own); kept across
 * scenarios, reset with the model.
 */
let clipIndex: number | null = null;
/** How the scenario builds ended: the tests read them to tell an overtaken build from a stuck one. */
const builds = { started: 0, overtaken: 0, failed: 0, shown: 0 };
const hooks: Record<string, unknown> = { ready: false, scenario: null, errors: [] as string[], builds };
window.__fbbik = hooks;

function scenarioFromUrl(): ScenarioName {
  const s = new URLSearchParams(location.search).get("scenario") as ScenarioName | null;
  return s !== null && (SCENARIOS as readonly string[]).includes(s) ? s : "free";
}

function setUrl(key: string, value: string | null): void {
  const url = new URL(location.href);
  if (value === null) url.searchParams.delete(key);
  else url.searchParams.set(key, value);
  history.replaceState(null, "", url);
}

function teardown(): void {
  if (current === null) return;
  engine.stopRenderLoop();
  current.views.dispose();
  current.ghost?.dispose();
  current.run.dispose?.();
  current.scene.dispose();
  current = null;
}

/**
 * The latest build's number: a build overtaken while it loads (the scenario menu stepped through with the arrow
 * keys, a model picked meanwhile) drops its scene instead of rendering it beside the newer one's.
 */
let latestBuild = 0;

async function build(name: ScenarioName): Promise<void> {
  const id = ++latestBuild;
  builds.started++;
  hooks.ready = false;
  teardown();
  const { scene, camera, sun, shadows, ground } = createStage(engine);
  keepClearOfPanel(scene, camera);
  keepFramedWidth(scene, camera);
  // on the fixed clock, timeScale is its pace: each step is one step of scene time
  scene.animationTimeScale = clock === null ? speed.timeScale : 1;
  let container: AssetContainer;
  let run: ScenarioRun;
  // every IK component's solve, FullBodyBipedIK or of the family: the overlay's "IK ms/frame"
  const ikTimes = { acc: 0, last: 0 };
  timeEverySolve(scene, ikTimes);
  const ctx: Ctx = {
    scene,
    engine,
    camera,
    shadows,
    ground,
    container: null as unknown as AssetContainer,
    iks: [],
    characters: [],
    paused: () => paused,
    spawn: (position) => spawnCharacter(ctx, position),
    components: [],
  };
  try {
    container = await loadModel(scene, source);
    await borrowClips(scene, container);
    ctx.container = container;
    run = await scenarioNamed(name)!.build(ctx);
  } catch (e) {
    builds.failed++;
    scene.dispose();
    throw e;
  }
  if (id !== latestBuild) {
    builds.overtaken++;
    scene.dispose();
    return;
  }
  builds.shown++;
  const debugViews = new DebugViews(ctx);
  debugViews.setSkeleton(views.skeleton);
  debugViews.setNodes(views.nodes);
  limitCamera(camera, ctx.characters[0]?.h ?? 1.7);
  markFramed(camera);
  current = { scene, run, ctx, views: debugViews, ghost: null, view: saveView(camera) };
  if (clipIndex !== null) setClip(clipIndex);
  setPaused(paused);
  setIK(ikOn);
  setGhost(ghostOn);
  // the parameters as the scenario set them: the panel's reset goes back to these
  const defaults = snapshotParameters(ctx.iks);
  const modelName = sourceName(source);

  Object.assign(hooks, {
    scene,
    engine,
    camera,
    iks: ctx.iks,
    scenario: name,
    model: modelName,
    characters: ctx.characters.length,
    height: ctx.characters[0]?.h ?? 0,
    clips: () => clipNames(container),
    clip: () => clipIndex ?? ctx.characters[0]?.clip ?? -1,
    clearColor: [SKY.r, SKY.g, SKY.b],
    frames: 0,
    checks: () => run.checks,
    done: () => run.done,
    world: () => run.world?.() ?? null,
    handles: () => run.effectorHandles ?? null,
    control: (cmd: string, arg?: unknown) => run.control?.(cmd, arg as never) ?? null,
    views,
    solverNodes: (i = 0) => debugViews.nodeRecords(ctx.iks[i]!),
    // in the page's CSS pixels (where a test clicks), whatever the render scale
    project: (p: [number, number, number]) => {
      const v = Vector3.Project(
        Vector3.FromArray(p),
        Matrix.IdentityReadOnly,
        scene.getTransformMatrix(),
        camera.viewport.toGlobal(canvas.clientWidth, canvas.clientHeight),
      );
      return [v.x, v.y];
    },
    capture: () => capture(ctx, sun.direction, (on) => (frozen = on), renderFrame),
    // `?step` only: hold scene time while `when()` is true (null: never)
    hold: (when: (() => boolean) | null) => clock?.hold(when),
  });

  const panelOptions = {
    scenario: name,
    ctx,
    run,
    paused: () => paused,
    setPaused,
    modelName,
    models,
    model: "entry" in source ? source.entry : null,
    chooseModel: (m: ModelEntry) => void switchModel({ entry: m }),
    clipNames: clipNames(container),
    clip: () => clipIndex ?? current?.ctx.characters[0]?.clip ?? -1,
    setClip,
    loadFiles: (files: File[]) => void switchModel({ files }),
    ik: () => ikOn,
    setIK,
    ghost: () => ghostOn,
    setGhost,
    resetView,
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
      setUrl("scenario", s);
      void build(s).catch(report);
    },
  };
  buildPanel(panelOptions);
  statsOverlay(scene, ikTimes, () => ctx.characters);

  let frames = 0;
  scene.onAfterRenderObservable.add(() => {
    hooks.frames = ++frames;
    // ready once the characters' shaders are compiled too: until then Babylon skips them (their shadows,
    // from a simpler shader, already show), and a slow GPU (SwiftShader) takes several frames for that
    if (frames >= 2 && hooks.ready !== true && ctx.characters.every((c) => c.meshes.every((m) => m.isReady(true))))
      hooks.ready = true;
  });
  // scripted motion after the animations and before the IK solves (the IK then reaches for where the
  // objects are this frame); the animation-only pose of the first characters is kept for the checks
  scene.onAfterAnimationsObservable.add(() => {
    if (frozen) return;
    if (ghostOn) current?.ghost?.copy();
    if (ctx.characters.length <= 4) for (const c of ctx.characters) captureAnimated(c);
    // the animations' clock (×timeScale), as the IK's components read it; paused: the script holds still too
    const dt = Number.isFinite(scene.deltaTime) ? scene.deltaTime : engine.getDeltaTime();
    run.update?.(paused ? 0 : Math.min(dt / 1000, 0.1 * scene.animationTimeScale));
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
  engine.runRenderLoop(() => renderFrame(scene));
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
      // paused, a clip plays at speed 0 rather than pausing: a paused group stops writing its frame, and
      // with the IK turned off the IK's last pose then stayed on the bones instead of the clip's
      g.speedRatio = p ? 0 : 1;
      g.play(true);
    }
  }
}

/** Seconds the IK switch fades over: the characters ease into their animation rather than pop. */
const IK_FADE_SECONDS = 0.3;

/** Every IK component of the scenario on or off (off: the characters show their animation only), faded. */
function setIK(on: boolean): void {
  ikOn = on;
  for (const c of current?.ctx.components ?? []) {
    c.enableFadeSeconds = IK_FADE_SECONDS;
    c.enabled = on;
  }
}

/** The first character's animation-only pose as a translucent ghost (made on first use). */
function setGhost(on: boolean): void {
  ghostOn = on;
  if (current === null) return;
  const first = current.ctx.characters[0];
  if (on && current.ghost === null && first !== undefined)
    current.ghost = new Ghost(current.scene, current.ctx.container, first);
  current.ghost?.copy();
  current.ghost?.setEnabled(on);
}

/** The camera back where the scenario framed it. */
function resetView(): void {
  if (current === null) return;
  restoreView(current.ctx.camera, current.view);
  current.run.resetView?.();
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
    g.start(true, paused ? 0 : 1);
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

// drag and drop a user's model (all its files at once): rebuild the current scenario with it
const drop = document.getElementById("drop")!;
window.addEventListener("dragover", (e) => {
  e.preventDefault();
  drop.style.display = "flex";
});
window.addEventListener("dragleave", () => (drop.style.display = "none"));
window.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.style.display = "none";
  const files = Array.from(e.dataTransfer?.files ?? []);
  if (files.length > 0) void switchModel({ files });
});

/** The model's clip names (the container's animation groups), for the panel and the test hook. */
function clipNames(container: AssetContainer): string[] {
  return container.animationGroups.map((g) => g.name);
}

/** Rebuilds the current scenario with another model; if it fails, says why and goes back to the previous one. */
async function switchModel(next: ModelSource): Promise<void> {
  const previous = { source, clipIndex };
  source = next;
  clipIndex = null;
  try {
    await build(scenarioFromUrl());
    setUrl("model", "entry" in next ? next.entry.file : null);
  } catch (err) {
    report(err);
    source = previous.source;
    clipIndex = previous.clipIndex;
    await build(scenarioFromUrl()).catch(report);
  }
}

Object.assign(hooks, {
  setPaused,
  setClip,
  setIK,
  ik: () => ikOn,
  // true while any IK component eases in or out after the IK switch
  fading: () => current?.ctx.components.some((c) => c.isFading) ?? false,
  setGhost,
  ghost: () => (ghostOn && current?.ghost !== null ? current?.ghost : null),
  resetView,
  models: () => models.map((m) => m.file),
  setModel: (file: string) => {
    const m = models.find((x) => x.file === file);
    return m === undefined ? Promise.reject(new Error(`no model ${file}`)) : switchModel({ entry: m });
  },
  loadModel: (bytes: Uint8Array, name: string) => switchModel({ files: [new File([bytes as BlobPart], name)] }),
  /**
   * Opens a scenario as a fresh page would (not paused, IK on, no ghost or views, its own clip), same model;
   * `params` are set in the URL first (e.g. the crowd's `count`).
   */
  open: (s: string, params: Record<string, string> = {}) => {
    if (!(SCENARIOS as readonly string[]).includes(s)) return Promise.reject(new Error(`no scenario ${s}`));
    paused = false;
    ikOn = true;
    ghostOn = false;
    views.skeleton = false;
    views.nodes = false;
    clipIndex = null;
    setUrl("scenario", s);
    for (const [k, v] of Object.entries(params)) setUrl(k, v);
    return build(s as ScenarioName);
  },
});

setInterval(refreshControls, 250);

async function start(): Promise<void> {
  models = [...COMMITTED, ...(await sharedModels())];
  const wanted = new URLSearchParams(location.search).get("model");
  const entry = models.find((m) => m.file === wanted);
  if (entry !== undefined) source = { entry };
  else if (wanted !== null) report(new Error(`No model ${wanted} here: ${models.map((m) => m.file).join(", ")}.`));
  await build(scenarioFromUrl());
}
void start().catch(report);
