import type { Camera } from "@babylonjs/core/Cameras/camera.js";
import { Frustum } from "@babylonjs/core/Maths/math.frustum.js";
import { Plane } from "@babylonjs/core/Maths/math.plane.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FullBodyBipedIK } from "../full-body-biped-ik.js";
import { NumberRef } from "../../math/number-ref.js";
import { type SceneUpdatable, SceneUpdater } from "../scene-updater.js";
import { viewDeltaSecondsToRef } from "../scene-time.js";
import { IKLevel, LodCharacter } from "./lod-character.js";
import { RigDetachment } from "../rig-attachment.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import { notifyDisposed } from "../dispose-notice.js";
import type { IKLodView } from "./lod-view.js";
import type { IKLevelChangedEvent } from "./level-changed-event.js";
import { instancePlacement } from "./lod-instances.js";
import { lodDrawsNothing } from "../mesh-lod.js";

const controllers = new WeakMap<Scene, IKLevelOfDetail>();

/**
 * A resting character (Off, faded out) is looked at (rig, visibility, place) one frame in this many: a camera's
 * motion is seen at once, a character's own motion into view within this many frames (its fade in lasts 1.2 s).
 */
const REST_LOOK_EVERY = 4;
/** Smoothing of the measured cost (an exponential average over about 1 / this samples). */
const COST_SMOOTHING = 0.5;
/**
 * Frames between two timed frames. A clock read allocates a 16-byte number in V8 (performance.now and
 * Date.now alike): two reads every 64 frames are 0.5 B a frame (three on the few frames after a change).
 */
const SAMPLE_EVERY = 64;
/** Under budget means below this fraction of it: the band keeps the budget from flickering. */
const PROMOTE_BELOW = 0.8;
/** A single frame's measured cost counts for at most this many budgets (a hitch, a first compile). */
const COST_CLAMP = 3;
/**
 * Frames after the controller starts in which the budget neither measures nor acts: the first frames compile code
 * (40 walking Xbots: 117 ms for the first frame's pass, 1.3 to 1.9 ms once compiled).
 */
const WARMUP_FRAMES = 60;
/**
 * Frames timed before the budget acts, after the warm-up and after each change's fades (the levels it measured are
 * gone), {@link FRESH_EVERY} frames apart: the quickest counts (40 walking Xbots on a busy 2-core machine, frames 60
 * to 63: 2.1 to 44 ms, and 3 to 8 ms in a row; settled 1.4 to 2).
 */
const FIRST_SAMPLES = 4;
/** Frames between two of the {@link FIRST_SAMPLES}: a pause of the machine lasts a few frames. */
const FRESH_EVERY = 4;
/** Frames a budget change waits after its fades before it is measured (a fade's last frame, the clock's rounding). */
const SETTLE_FRAMES = 2;
/**
 * A change aims at this fraction of the budget, the middle of the band it leaves alone (from {@link PROMOTE_BELOW}
 * to 1): an estimate off by a level either way still lands inside it.
 */
const AIM = (1 + PROMOTE_BELOW) / 2;
/** Levels two decisions' measurements must differ by before the cost per level is fitted through them. */
const FIT_LEVELS = 2;
/** The fixed part a fit may find outside the controller's own work, at most this share of the rest (timing noise). */
const FIT_FIXED_SHARE = 0.5;
/** Indices into {@link IKLevelOfDetail}'s `state` (doubles kept in one array: none crosses a call). */
const S = {
  /** The clock at the start of the solve pass, on a timed frame. */
  Start: 0,
  /** The pass's cost, ms: the quickest of a fresh start's frames, then smoothed. */
  Cost: 1,
  /** Levels lowered by the budget. */
  Demotion: 2,
  /** The last cost of one more running level, ms (kept for when none runs). */
  PerLevel: 3,
  /** The last timed frame's span of the pass. */
  LastCost: 4,
  /** The clock at the end of the controller's own work, on a timed frame. */
  OwnEnd: 5,
  /**
   * The controller's own share of {@link Cost} (its work for every character, whatever their levels), ms: the quickest
   * of a fresh start's frames.
   */
  Own: 6,
  /** The quickest {@link Own} of the fresh start so far. */
  LastOwn: 7,
  /** The fixed part outside the controller's work (IKs it does not level), fitted through two decisions, ms. */
  Fixed: 8,
  /** The running levels at the last decision (-1: none yet). */
  FitLevels: 9,
  /** {@link Cost} less {@link Own} at the last decision. */
  FitCost: 10,
} as const;

/** Babylon's default layers (a mesh's and a camera's default `layerMask`). */
const DEFAULT_LAYERS = 0x0fffffff;

/**
 * IK level of detail for crowds: per character and automatic, full quality near the camera, FinalIK's cheap
 * mode (`iterations` 0: hands and feet reach, the body is not pulled) further away, and off beyond a
 * distance, below a screen size or outside the camera's view. Every change of level cross-fades the output
 * from what was shown to what the new level gives over {@link fadeSeconds} (from or to the animated pose
 * for Off), and every threshold has a {@link hysteresis} band, so nothing pops or flickers. A budget in ms
 * per frame ({@link budgetMs}), measured around the solves, lowers the characters smallest on screen (the
 * farthest) first when it is exceeded and gives them back when under it. An Off character costs nothing
 * but this controller's look at its place (no FixTransforms, read, solve or write, no hooks).
 *
 * Off by default: `IKLevelOfDetail.for(scene)` switches it on for every FullBodyBipedIK of the scene, those
 * created later included; {@link setManaged} excludes one. The user's settings are never changed: the cheap
 * mode sets `iterations` to 0 during the solve only (the solve's own hooks see 0), and the fades blend the
 * output. A settled Full character is solved and written exactly as without the controller. The defaults
 * need no tuning: the thresholds are fractions of the viewport's height, whatever the units and the size.
 *
 * ```ts
 * const lod = IKLevelOfDetail.for(scene); // every FullBodyBipedIK of the scene, now and later
 * lod.budgetMs = 2; // optional: the IK's share of a frame
 * ```
 */
export class IKLevelOfDetail {
  /** The scene. */
  readonly scene: Scene;
  /** When false every character fades back to Full (the controller stays attached). */
  enabled = true;
  /** Notified once by {@link dispose}, before it lets go of its state (Babylon's convention). */
  readonly onDisposeObservable = new Observable<IKLevelOfDetail>();
  /**
   * Notified when a character's level changes (by the view, the budget, {@link enabled} or {@link setManaged}), in
   * the solve pass, as its cross-fade starts; not by {@link dispose}. The event object is reused: copy what you keep.
   */
  readonly onLevelChangedObservable = new Observable<IKLevelChangedEvent>();
  /**
   * The camera the levels are seen from; null: the scene's active cameras (with several viewports, the
   * highest level any of them asks for).
   */
  camera: Camera | null = null;
  /** Full at or above this projected height (fraction of the viewport's height); default 0.15. */
  fullScreenSize = 0.15;
  /** Off below this projected height (fraction of the viewport's height); default 0.03. */
  offScreenSize = 0.03;
  /** Cheap beyond this distance from the camera (world units); default Infinity (screen size decides). */
  cheapDistance = Number.POSITIVE_INFINITY;
  /** Off beyond this distance from the camera (world units); default Infinity. */
  offDistance = Number.POSITIVE_INFINITY;
  /**
   * Relative width of the band around each threshold (and of the frustum test's margin): a level is left
   * only this fraction past its threshold; default 0.1.
   */
  hysteresis = 0.1;
  /**
   * Seconds of the cross-fade at a change of level; default 1.2. Each bone turns at an even pace, so a bone
   * moves by about the arc the change turns it through × the frame's time ÷ this: at 60 frames a second, a
   * bone the IK moves by 30 % of the character's height moves about 0.45 % of it a frame while the
   * character changes level.
   */
  fadeSeconds = 1.2;
  /**
   * The IK's share of a frame in ms (its solves and this controller, timed with `performance.now()` on one
   * frame in 64, the quicker of the last two counting, smoothed); over it the characters smallest on screen are
   * lowered first, one level at a time. Only IKs that solve count and are lowered (not one with `enabled` false,
   * `ikPositionWeight` 0 or `autoUpdate` false). It acts after 60 frames (compiling) on the quickest of 4 timed
   * frames, and after each change on 4 more timed once its fades are over. A change aims at 90 % of the budget,
   * modelling the cost as this controller's own work (timed apart), a fixed part (what else the pass runs, fitted
   * through the measures of two changes) and a cost per running level, so one change usually lands.
   * Default 3; Infinity: no budget (and no clock reads).
   */
  budgetMs = 3;

  private readonly updater: SceneUpdater;
  private readonly start: SceneUpdatable;
  private readonly end: SceneUpdatable;
  private readonly characters: LodCharacter[] = [];
  /** The characters by projected size, largest first (sorted in place each frame; nearly sorted already). */
  private readonly order: LodCharacter[] = [];
  private readonly byIK = new WeakMap<FullBodyBipedIK, LodCharacter>();
  private readonly planes = [0, 1, 2, 3, 4, 5].map(() => new Plane(0, 0, 0, 0));
  private readonly viewProjection = new Matrix();
  private readonly cameraList: (Camera | null)[] = [];
  /** Where an instance draws the character this frame, and at what scale ({@link classifyInstances}). */
  private readonly placed = new Vector3();
  private readonly placedScale = new Float64Array(1);
  /** How many of the character's instances {@link classifyInstances} found drawn for its camera. */
  private instancesDrawn = 0;
  /** The budget's doubles, indexed by {@link S} (no double crosses a call). */
  private readonly state = new Float64Array([
    0,
    0,
    0,
    0,
    Number.POSITIVE_INFINITY,
    0,
    0,
    Number.POSITIVE_INFINITY,
    0,
    -1,
    0,
  ]);
  /** [this frame's step in seconds, the fade's seconds] for the characters' {@link LodCharacter.advance}. */
  private readonly clock = new Float64Array(2);
  /** This frame's step in seconds, as the scene's clock gives it. */
  private readonly step = new NumberRef(0);
  /** The one event {@link onLevelChangedObservable} delivers, refilled at each change. */
  private readonly levelEvent: { -readonly [K in keyof IKLevelChangedEvent]: IKLevelChangedEvent[K] } = {
    ik: null as unknown as FullBodyBipedIK,
    previousLevel: IKLevel.Full,
    level: IKLevel.Full,
  };
  /** True on a frame whose solves are timed. */
  private timed = false;
  /** Frames timed since the budget started or last changed the levels; it acts once {@link FIRST_SAMPLES} are in. */
  private samples = 0;
  private version = -1;
  private frames = 0;
  /** Seconds before the budget may change the levels again (its last change fading in and settling). */
  private hold = 0;
  private disposed = false;

  private constructor(scene: Scene) {
    this.scene = scene;
    this.updater = SceneUpdater.for(scene);
    // first of the solve pass, and right after the full-body solves: the span between is what is measured
    this.start = {
      updateOrder: -1,
      _beforeAnimations: () => {},
      _beforeRender: () => this.frame(),
      dispose: () => this.dispose(),
    };
    this.end = { updateOrder: 1, _beforeAnimations: () => {}, _beforeRender: () => this.measure() };
    this.updater.add(this.start);
    this.updater.add(this.end);
  }

  /** The scene's level of detail, created (and switched on for every FullBodyBipedIK of it) on first use. */
  static for(scene: Scene): IKLevelOfDetail {
    let c = controllers.get(scene);
    if (c === undefined) {
      c = new IKLevelOfDetail(scene);
      controllers.set(scene, c);
    }
    return c;
  }

  /** The scene's level of detail, or null when there is none. */
  static get(scene: Scene): IKLevelOfDetail | null {
    return controllers.get(scene) ?? null;
  }

  /** The level `ik` runs at now (Full for an IK not under this controller). */
  levelOf(ik: FullBodyBipedIK): IKLevel {
    return this.byIK.get(ik)?.level ?? IKLevel.Full;
  }

  /**
   * What the controller sees of `ik` (its levels, projected size, distance, frustum test, bounds centre),
   * read-only and live (updated each frame, no copy made), or null for an IK not under this controller.
   */
  viewOf(ik: FullBodyBipedIK): IKLodView | null {
    this.sync();
    return this.byIK.get(ik) ?? null;
  }

  /** The fade weight of `ik` now, in [0, 1] (1 for an IK not under this controller). */
  weightOf(ik: FullBodyBipedIK): number {
    const c = this.byIK.get(ik);
    return c === undefined ? 1 : c.weight(this.fadeSeconds);
  }

  /**
   * Includes `ik` in the level of detail (the default) or excludes it: an excluded IK fades back to Full and
   * stays there whatever its distance and the budget.
   */
  setManaged(ik: FullBodyBipedIK, managed: boolean): void {
    this.sync();
    const c = this.byIK.get(ik);
    if (c !== undefined) c.managed = managed;
  }

  /** True when `ik` is under this controller and not excluded. */
  isManaged(ik: FullBodyBipedIK): boolean {
    this.sync();
    return this.byIK.get(ik)?.managed ?? false;
  }

  /** The measured cost of the IK's solves, ms per frame, smoothed. */
  get costMs(): number {
    return this.state[S.Cost]!;
  }

  /** How many levels the budget takes off the farthest characters now. */
  get budgetDemotion(): number {
    return this.state[S.Demotion]!;
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "IKLevelOfDetail";
  }

  /** Detaches: every IK gets its own settings back at once, and the scene's controller is gone. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    this.onLevelChangedObservable.clear();
    for (const c of this.characters) c.release();
    this.characters.length = 0;
    this.order.length = 0;
    this.updater.remove(this.start);
    this.updater.remove(this.end);
    if (controllers.get(this.scene) === this) controllers.delete(this.scene);
  }

  /** Follows the updater's list: new FullBodyBipedIKs join, disposed ones leave (only when the list changed). */
  private sync(): void {
    if (this.version === this.updater.version) return;
    this.version = this.updater.version;
    const items = this.updater.items;
    // the characters that left (IK disposed) are forgotten: levelOf and viewOf no longer report them
    for (const c of this.characters) c.looked = false;
    const kept = this.order;
    kept.length = 0;
    for (const c of this.characters) kept.push(c);
    this.characters.length = 0;
    for (const item of items) {
      if (!(item instanceof FullBodyBipedIK)) continue;
      let c = this.byIK.get(item);
      if (c === undefined) {
        c = new LodCharacter(item);
        this.byIK.set(item, c);
      }
      c.looked = true;
      this.characters.push(c);
    }
    for (const c of kept) if (!c.looked) this.byIK.delete(c.ik);
    this.order.length = 0;
    for (const c of this.characters) this.order.push(c);
  }

  /** The solve pass's first step: levels, budget and fades for every character. */
  private frame(): void {
    const budgeted = this.enabled && this.budgetMs < Number.POSITIVE_INFINITY;
    // off, what was measured goes stale: switched on again, the budget starts from fresh frames
    if (!budgeted && this.samples !== 0) this.restart();
    // a fresh start times a few frames once the last change's fades are over, then one frame in SAMPLE_EVERY
    this.timed =
      budgeted &&
      this.frames >= WARMUP_FRAMES &&
      (this.samples < FIRST_SAMPLES
        ? this.hold <= 0 && this.frames % FRESH_EVERY === 0
        : this.frames % SAMPLE_EVERY === 0);
    if (this.timed) this.state[S.Start] = performance.now();
    this.sync();
    const cameras = this.cameras();
    const chars = this.characters;
    // a resting character (Off, faded out) is looked at one frame in REST_LOOK_EVERY, each on its own frame, and
    // judged in between from that look: in a crowd that is most of them, and reading their Babylon nodes (a clone's
    // are slow-property objects in V8, each read a cache miss) was most of the pass (ARCHITECTURE.md, Level of detail)
    const slot = this.frames % REST_LOOK_EVERY;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      c.best = -1;
      c.rested = this.enabled && c.resting() && i % REST_LOOK_EVERY !== slot;
      if (!c.rested) this.look(c);
    }
    // with several cameras (viewports) a character gets the highest level any of them asks for
    if (this.enabled) {
      this.judgeAll(cameras, false);
      // one that asks to come back is looked at now: it wakes from what it is this frame, not what it was
      let woken = false;
      for (let i = 0; i < chars.length; i++) {
        const c = chars[i]!;
        if (!c.rested || c.best <= IKLevel.Off) c.rested = false;
        else {
          c.best = -1;
          this.look(c);
          woken = true;
        }
      }
      if (woken) this.judgeAll(cameras, true);
    }
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      c.natural = c.hidden ? IKLevel.Off : c.best < 0 ? IKLevel.Full : (c.best as IKLevel);
      c.visible = !c.hidden && (c.best < 0 || c.seen);
    }
    this.sortBySize();
    // the scene's animation time, or the engine's while a paused game's camera moves (see viewDeltaSecondsToRef)
    const step = viewDeltaSecondsToRef(this.scene, this.step).value;
    // the step and the fade travel in an array: a double handed to a call V8 does not inline is boxed
    const clock = this.clock;
    clock[0] = step > 0 ? step : 0;
    clock[1] = this.fadeSeconds;
    this.applyBudget();
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      c.advance(clock);
      if (c.level !== c.announced) this.announce(c);
      // an observer disposed the controller: its characters are let go
      if (this.disposed) return;
    }
    // the controller's own work is the same whatever the levels: the budget tells it from what a level costs
    // (read while it starts afresh only: a third read on every timed frame would be 0.25 B a frame more)
    if (this.timed && this.samples < FIRST_SAMPLES) this.state[S.OwnEnd] = performance.now();
  }

  /** The budget starts afresh: the next decision waits for {@link FIRST_SAMPLES} new timed frames. */
  private restart(): void {
    this.samples = 0;
    this.state[S.LastCost] = Number.POSITIVE_INFINITY;
    this.state[S.LastOwn] = Number.POSITIVE_INFINITY;
  }

  /** Tells {@link onLevelChangedObservable} that `c`'s level changed (observed or not, it is then the known one). */
  private announce(c: LodCharacter): void {
    const previous = c.announced;
    c.announced = c.level;
    if (!this.onLevelChangedObservable.hasObservers()) return;
    const e = this.levelEvent;
    e.ik = c.ik;
    e.previousLevel = previous;
    e.level = c.level;
    try {
      this.onLevelChangedObservable.notifyObservers(e);
    } catch (err) {
      // the other characters still get their levels and fades this frame
      Logger.Error(`babylon-fbbik: an onLevelChangedObservable observer threw: ${String(err)}`);
    }
  }

  /**
   * The span of the solve pass on a timed frame: the quicker of the last two is smoothed into the cost; while the
   * budget starts afresh, the quickest so far is the cost, and the quickest of the controller's own part its own.
   */
  private measure(): void {
    if (!this.timed) return;
    this.timed = false;
    const s = this.state;
    const fresh = this.samples < FIRST_SAMPLES;
    const cap = COST_CLAMP * this.budgetMs;
    // here, not in a helper: one called on one frame in 64 stayed unoptimised for ~50,000 frames (V8 inlines only
    // calls made most times), boxing its doubles, 144 B a timed frame; this runs every frame, optimised early
    for (let k = 0; k < (fresh ? 2 : 1); k++) {
      const into = k === 0 ? S.Cost : S.Own;
      const last = k === 0 ? S.LastCost : S.LastOwn;
      // the pass's span, then the controller's own part of it
      let raw = (k === 0 ? performance.now() : s[S.OwnEnd]!) - s[S.Start]!;
      // a pause in one timed frame (a garbage collection, another thread) is not the IK's cost (40 walking Xbots:
      // the pass's median 0.43 ms, 1 frame in 100 over 5 ms); a lasting cost shows in both
      const previous = s[last]!;
      // a fresh start keeps its quickest frame, and that is the cost: smoothed, the old levels' cost would linger
      if (!fresh || raw < previous) s[last] = raw;
      if (previous < raw) raw = previous;
      if (raw > cap) raw = cap;
      s[into] = fresh ? raw : s[into]! + (raw - s[into]!) * COST_SMOOTHING;
    }
    this.samples++;
  }

  /** The camera's frustum planes and projection; false when it cannot be read. */
  private view(camera: Camera): boolean {
    camera.getViewMatrix().multiplyToRef(camera.getProjectionMatrix(), this.viewProjection);
    Frustum.GetPlanesToRef(this.viewProjection, this.planes);
    return Number.isFinite(this.viewProjection.m[5]!);
  }

  /**
   * The cameras the levels are seen from into {@link cameraList}, how many: {@link camera}, else the scene's
   * active cameras (overwritten in place: `length = 0` would drop the array's store, a new one every frame).
   */
  private cameras(): number {
    const out = this.cameraList;
    const scene = this.scene;
    let n = 0;
    if (this.camera !== null) out[n++] = this.camera;
    else if (scene.activeCameras !== null && scene.activeCameras.length > 0) {
      // Babylon leaves activeCamera on the last viewport rendered: every one of them counts
      for (let i = 0; i < scene.activeCameras.length; i++) out[n++] = scene.activeCameras[i]!;
    } else if (scene.activeCamera !== null) out[n++] = scene.activeCamera;
    // a camera no longer in use is not kept alive here
    for (let i = n; i < out.length; i++) out[i] = null;
    return n;
  }

  /** A character's rig, visibility and place this frame: whether the view levels it ({@link LodCharacter.looked}). */
  private look(c: LodCharacter): void {
    const state = c.detachment();
    // an Off IK does not look at its rig: woken, it sees its skeleton or nodes gone and disposes itself (only
    // then: one out of the scene with its container, or unlinked, would wake to Full and fade Off again, for ever)
    c.waking = c.ik._lodOff && c.gone(state);
    c.looked = !(!this.enabled || !c.managed || c.node === null || c.waking);
    // not shown, or out of the scene with its asset container (a level streamed out): Off (it costs nothing, and
    // the budget must not count it as running); an Off character is judged by its root alone (its meshes are the
    // crowd's most numerous objects)
    c.hidden = c.looked && (state === RigDetachment.SkeletonRemoved || !c.ik._shown(c.ik._lodOff));
    if (c.hidden) c.looked = false;
    if (c.looked) c.place();
  }

  /**
   * The level each camera asks for of every looked-at character ({@link LodCharacter.best}), or, with `rested`, of
   * the rested ones only (looked at again as they ask to come back).
   */
  private judgeAll(cameras: number, rested: boolean): void {
    const chars = this.characters;
    for (let k = 0; k < cameras; k++) {
      const camera = this.cameraList[k]!;
      if (!this.view(camera)) continue;
      // among several, a camera off Babylon's default layers (a GUI's) levels only the characters it draws a mesh
      // of; a lone camera's mask is not read (a frame drawn with it at 0 to skip drawing keeps its levels)
      const layers = camera.layerMask;
      const some = cameras > 1 && (layers & DEFAULT_LAYERS) !== DEFAULT_LAYERS;
      for (let i = 0; i < chars.length; i++) {
        const c = chars[i]!;
        if (!c.looked || (rested && !c.rested)) continue;
        if (some && !c.ik._drawnBy(layers)) c.undrawn(camera);
        else {
          // instances of its skinned meshes draw it elsewhere; its own place counts unless only they are enabled,
          // or Babylon's mesh LOD draws nothing of it there (a null level: `addLODLevel(distance, null)`)
          const enabled = this.classifyInstances(c, camera);
          if ((enabled === 0 || c.node!.isEnabled()) && !c.ik._lodCulledBy(camera, rested || !c.rested)) {
            this.placedScale[0] = 1;
            this.classify(c, camera, c.centre);
          } else if (this.instancesDrawn === 0) c.undrawn(camera);
        }
      }
    }
  }

  /**
   * Each enabled instance of the character's skinned meshes (`createInstance`) that Babylon's mesh LOD draws for
   * `camera`, classified where it draws the character (see {@link classify}); how many are enabled (those drawn:
   * {@link instancesDrawn}). Babylon lists them on their source mesh: no scene scan.
   */
  private classifyInstances(c: LodCharacter, camera: Camera): number {
    if (!c.ik._instanced()) {
      this.instancesDrawn = 0;
      return 0;
    }
    const sources = c.ik._skinnedSources();
    let n = 0;
    let drawn = 0;
    for (let i = 0; i < sources.length; i++) {
      const source = sources[i]!;
      const instances = source.instances;
      for (let j = 0; j < instances.length; j++) {
        const instance = instances[j]!;
        if (!instance.isEnabled()) continue;
        n++;
        // past a null level of its source's at its own place, Babylon draws nothing of it (as InstancedMesh.getLOD)
        if (lodDrawsNothing(instance, camera)) continue;
        instancePlacement(source, instance, c.centre, this.placed, this.placedScale);
        this.classify(c, camera, this.placed);
        drawn++;
      }
    }
    this.instancesDrawn = drawn;
    return n;
  }

  /**
   * The level `camera` (the current view) asks for of the character drawn around `p` at `placedScale[0]` times its
   * size (its own place, or an instance's), with hysteresis on each threshold from last frame's level; kept, with
   * what the camera sees, when it is the highest so far this frame.
   */
  private classify(c: LodCharacter, camera: Camera, p: Vector3): void {
    const k = this.placedScale[0]!;
    const m = this.viewProjection.m;
    const current = c.natural;
    const up = 1 + this.hysteresis;
    const down = 1 - this.hysteresis;
    // inside the frustum: the bounding sphere (grown by the band once visible) meets every plane
    const margin = -c.radius * k * (c.visible ? up : 1);
    let visible = true;
    for (let k = 0; k < 6; k++) {
      const pl = this.planes[k]!;
      const n = pl.normal;
      if (n._x * p._x + n._y * p._y + n._z * p._z + pl.d < margin) visible = false;
    }
    // clip w: the depth for a perspective projection, 1 for an orthographic one
    const w = p._x * m[3]! + p._y * m[7]! + p._z * m[11]! + m[15]!;
    const scale = m[5]! < 0 ? -m[5]! : m[5]!;
    const size = w > 1e-9 ? (c.height * k * scale) / (2 * w) : Number.POSITIVE_INFINITY;
    const e = camera.globalPosition;
    const dx = p._x - e._x;
    const dy = p._y - e._y;
    const dz = p._z - e._z;
    const distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
    let level: IKLevel = IKLevel.Off;
    if (visible) {
      // a level is left only past its threshold by the band, so a character on a threshold keeps its level
      const fullAt = this.fullScreenSize * (current === IKLevel.Full ? down : up);
      const onAt = this.offScreenSize * (current === IKLevel.Off ? up : down);
      level = size >= fullAt ? IKLevel.Full : size >= onAt ? IKLevel.Cheap : IKLevel.Off;
      const cheapBeyond = this.cheapDistance * (current === IKLevel.Full ? up : down);
      const offBeyond = this.offDistance * (current === IKLevel.Off ? down : up);
      if (distance > offBeyond) level = IKLevel.Off;
      else if (distance > cheapBeyond && level === IKLevel.Full) level = IKLevel.Cheap;
    }
    if (c.best < 0) c.seen = false;
    if (visible) c.seen = true;
    if (level > c.best || (level === c.best && size > c.size)) {
      c.best = level;
      c.size = size;
      c.distance = distance;
    }
  }

  /** Insertion sort of {@link order} by size, largest first: the order changes little between frames. */
  private sortBySize(): void {
    const o = this.order;
    for (let i = 1; i < o.length; i++) {
      const c = o[i]!;
      const s = c.size;
      let j = i - 1;
      while (j >= 0 && o[j]!.size < s) {
        o[j + 1] = o[j]!;
        j--;
      }
      o[j + 1] = c;
    }
  }

  /**
   * Targets after the budget. Over it, or under most of it, the cost is modelled as a fixed part (the controller's
   * own work, and what a fit finds beside it) plus a cost per running level, and the levels that take it to the
   * middle of the band (see {@link AIM}) come off the characters smallest on screen, the farthest first (Full →
   * Cheap → Off), or come back, nearest first. Each change waits for its fades and a fresh measure before the next.
   */
  private applyBudget(): void {
    const dt = this.clock[0]!;
    const s = this.state;
    const o = this.order;
    let available = 0;
    let running = 0;
    for (let i = 0; i < o.length; i++) {
      const c = o[i]!;
      // an IK that does not solve (off, weight 0, no autoUpdate) costs nothing a level could save: it neither
      // counts nor is lowered (40 Xbots, 20 of them off: they took half the levels the budget lowered)
      c.solves = c.ik._solves;
      if (!c.solves) continue;
      if (c.managed) available += c.natural;
      running += c.level;
    }
    let demotion = s[S.Demotion]!;
    let change = 0;
    this.frames++;
    this.hold -= dt;
    const cost = s[S.Cost]!;
    const budget = this.budgetMs;
    if (!(budget < Number.POSITIVE_INFINITY) || !this.enabled) demotion = 0;
    else if (this.samples >= FIRST_SAMPLES && this.hold <= 0 && (running > 0 || demotion > 0)) {
      const over = cost > budget;
      if (over || (cost < budget * PROMOTE_BELOW && demotion > 0)) {
        // The cost of one running level: the pass's cost less the controller's own work and the fixed part, over the
        // running levels. The fixed part is fitted through this decision's measure and the last one's when their
        // levels differ (none running: what is left is all fixed), and kept for the decisions after. A cost at
        // COST_CLAMP budgets is a bound, not a measure: no fit goes through it. Here, not in a helper: one called at
        // decisions only stayed unoptimised and boxed its doubles, 99 B a decision (lod-crowd-frame-heap.test.ts).
        // What the levels cost, with whatever else the pass runs that no level saves (IKs not levelled):
        const left = cost - s[S.Own]!;
        const rest = left > 0 ? left : 0;
        const measured = cost < COST_CLAMP * budget;
        const before = s[S.FitLevels]!;
        const apart = running - before;
        if (measured && running === 0) s[S.Fixed] = rest;
        else if (measured && before >= 0 && (apart >= FIT_LEVELS || apart <= -FIT_LEVELS)) {
          const slope = (rest - s[S.FitCost]!) / apart;
          // a cost that did not fall with the levels is the clock's noise: the last fit stands
          if (slope > 0) {
            const fixed = rest - slope * running;
            s[S.Fixed] = fixed > 0 ? fixed : 0;
          }
        }
        s[S.FitLevels] = measured ? running : -1;
        s[S.FitCost] = rest;
        if (running > 0) {
          const most = rest * FIT_FIXED_SHARE;
          const fixed = s[S.Fixed]! < most ? s[S.Fixed]! : most;
          s[S.PerLevel] = (rest - fixed) / running;
        }
        const perLevel = s[S.PerLevel]! > 0 ? s[S.PerLevel]! : cost;
        const aim = budget * AIM;
        // to the nearest level: the aim is the band's middle, half a level either way stays inside it
        const levels = Math.round((over ? cost - aim : aim - cost) / perLevel);
        change = (over ? 1 : -1) * (levels > 1 ? levels : 1);
        demotion += change;
      }
    }
    demotion = demotion > available ? available : demotion < 0 ? 0 : demotion;
    // a change the clamp undid (every character already Off) changes no level: nothing to wait for
    if (change !== 0 && demotion !== s[S.Demotion]!) {
      this.hold = this.fadeSeconds + SETTLE_FRAMES * dt;
      // the next decision measures the new levels afresh, once their fades are over
      this.restart();
    }
    s[S.Demotion] = demotion;
    for (let i = o.length - 1; i >= 0; i--) {
      const c = o[i]!;
      let t: number = c.natural;
      // one waking to dispose is not demoted (it would stay Off, and its IK in the scene, for good)
      if (c.managed && c.solves && !c.waking && demotion > 0 && t > 0) {
        const take = demotion < t ? demotion : t;
        t -= take;
        demotion -= take;
      }
      c.target = t as IKLevel;
    }
  }
}
