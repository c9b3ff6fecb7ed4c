/**
 * IK level of detail (`npm run bench -- lod` → results/lod.json): the frame benchmark's crowd (Mannequins,
 * hands and feet at weight 1 on moving targets, 4 iterations; bench/frame.ts) grown to 1, 10, 100 and
 * 1,000 characters on a field, seen by one camera over the field's corner whose field of view is chosen
 * so that about 100 of the 1,000 are in view. Per count: the IK's time per frame without a controller and
 * with `IKLevelOfDetail.for(scene)` at its defaults (budget 3 ms), and with the budget off; bytes per frame;
 * then, on the 1,000, the largest bone jump between two frames of any character while the camera flies over
 * the field (targets frozen, so every bone motion is the level of detail's), against its height.
 *
 * A "frame" is the frame benchmark's: frame id, targets, the three scene observables (FixTransforms, the
 * controller, every solve), nothing of Babylon's render.
 */
import { Camera } from "@babylonjs/core/Cameras/camera.js";
import type { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Frustum } from "@babylonjs/core/Maths/math.frustum.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FullBodyBipedIK } from "../src/babylon/full-body-biped-ik.js";
import { IKLevelOfDetail } from "../src/babylon/lod/ik-level-of-detail.js";
import type { LodCharacter } from "../src/babylon/lod/lod-character.js";
import { type LoadedModel, loadModel } from "../test/helpers/babylon-scene.js";
import {
  type Benchmark,
  type TargetCheck,
  atMost,
  measureAllocation,
  round,
  summarize,
  timeBatches,
} from "./common.js";
import { Crowd, MODEL, growCrowd, jointHeight } from "./frame.js";
import { MEMORY_PROBE_MB, memoryProbe } from "./memory-probe.js";

/** Targets of the level-of-detail benchmark (2-core reference machine). */
export const LOD_TARGETS = {
  /** IK ms per frame for the 1,000 characters with the level of detail on. */
  thousandMs: 4,
  /** µs per character per frame at 1 and 10 characters, and bytes per frame (< 1 B: nothing per frame). */
  microsPerCharacter: 15,
  bytesPerFrameBelow: 1,
  /** Largest bone jump between two frames at a change of level, fraction of the character's height. */
  jumpOfHeight: 0.005,
} as const;

const COUNTS = [1, 10, 100, 1_000] as const;
const PER_ROW = 32;
/** Grid spacing of growCrowd, in heights (bench/frame.ts). */
const SPACING = 1.5;
/** Characters the camera should see of the 1,000. */
const SEEN = 100;
const FRAME_MS = 1000 / 60;
/** Character updates per timed batch, and per count at least. */
const UPDATES_PER_BATCH = 100;
const TIMED_UPDATES = 60_000;
const MIN_TIMED_FRAMES = 60;
/** Frames for a change of level to settle (fades of 1.2 s, the budget's warm-up and steps). */
const SETTLE_FRAMES = 500;
const ALLOCATION_FRAMES = { 1: 50_000, 10: 10_000, 100: 2_000, 1000: 600 } as const;
/**
 * Loops per count's allocation figure, the smallest kept. V8 still compiles the frame's code in the first loops after
 * a count's timing (code and its metadata on the heap, none of it allocated by a frame: V8's sampling heap profiler
 * finds only the budget's clock, 32 B on one frame in 64): the 10 read 3.3, 1.3 and 1.0 B a frame in the first
 * three loops of one process, then 0.5 to 0.7 (2026-12-03, a busy machine; the benchmark kept 2.07 B of two loops).
 */
const ALLOCATION_REPEATS = 4;
/**
 * Frames of the fly's allocation loops: over 600, the one-off growth of the level changes (about 4 kB a loop)
 * read as 6.7 B a frame; over 2,400 the fly allocated nothing beyond the camera's own (99.1 B against 101.4).
 */
const FLY_ALLOCATION_FRAMES = 2_400;
/**
 * Turns of (fly, camera alone) at most. A moved camera's view matrix allocates in Babylon, 50 to 230 B a frame
 * as V8 recompiles that code: a camera reading taken after the fly's is not its share of the fly until two
 * readings agree (the first pair of a process differed by 2–17 B, the next by the clock's 0.5 B).
 */
const FLY_TURNS = 4;
/** Two camera readings this close (B a frame) are the same compiled code (settled ones were 0.5–0.6 B apart). */
const FLY_CAMERA_AGREE = 1;
const FLY_FRAMES = 1_200;

/** Per count: µs per character and ms per frame without and with the level of detail, and the levels. */
export interface LodCountEntry {
  count: number;
  /** Without a controller: µs per character, ms per frame (medians). */
  offMicrosPerCharacter: number;
  offFrameMs: number;
  /** With the controller at its defaults (budget 3 ms): µs per character, ms per frame. */
  lodMicrosPerCharacter: number;
  lodFrameMs: number;
  /** With the controller, budget off: ms per frame. */
  lodNoBudgetFrameMs: number;
  /** Characters at Full / Cheap / Off with the budget off (the view alone) and with the defaults. */
  levelsNoBudget: [number, number, number];
  levels: [number, number, number];
  /** Bytes per frame with the controller at its defaults, settled. */
  lodBytesPerFrame: number;
}

/** What the benchmark writes to bench/results/lod.json. */
export interface LodBenchResult {
  characters: LodCountEntry[];
  /** Characters inside the camera's frustum, of the 1,000. */
  seen: number;
  /** The camera's vertical field of view, radians (chosen so that about {@link SEEN} are seen). */
  fov: number;
  /** The controller's smoothed cost at the end of the 1,000-character run (defaults), ms. */
  costMs: number;
  /** Levels the budget took off at that point. */
  budgetDemotion: number;
  /** Flying over the field: the largest bone jump between two frames, fraction of the height. */
  largestJumpOfHeight: number;
  /** …and the changes of level it covered, by kind ("2→1": Full → Cheap…). */
  levelChanges: Record<string, number>;
  /**
   * Where the largest jump was: the frame, the bone, the character's level and seconds left of its fade then,
   * and its last changes of level as `frame:from→to` (a run over the target says which change caused it).
   */
  largestJumpAt: { frame: number; bone: string; level: number; remaining: number; recent: string[] } | null;
  /**
   * Bytes per frame while flying (fades in progress every frame), and of the camera's motion alone, from the
   * last of {@link flyTurns} turns of the two (see {@link FLY_TURNS}).
   */
  flyBytesPerFrame: number;
  flyCameraBytesPerFrame: number;
  /** Every turn's [fly, camera alone] bytes per frame. */
  flyTurns: number[][];
  /** A random line of 8 / 32 / 72 MB, ns (bench/memory-probe.ts). */
  memoryProbe: { mb: number[]; nsPerLine: number[] };
  model: string;
  node: string;
  date: string;
}

/** Where the camera looks, in heights along the field's diagonal. */
const LOOK_AT = 12;

/** The camera behind the field's corner, 2 heights up, looking along the diagonal at {@link LOOK_AT}. */
function placeCamera(camera: FreeCamera, h: number): void {
  camera.position.set(-4 * h, 2 * h, -4 * h);
  camera.setTarget(new Vector3(LOOK_AT * h, 0, LOOK_AT * h));
}

/** The controller's characters (a benchmark may look inside). */
function characters(lod: IKLevelOfDetail): LodCharacter[] {
  return (lod as unknown as { characters: LodCharacter[] }).characters;
}

function levelCounts(lod: IKLevelOfDetail): [number, number, number] {
  const n: [number, number, number] = [0, 0, 0];
  for (const c of characters(lod)) n[2 - c.level]!++;
  return n;
}

/** Median ms of one frame of `count` characters, over ≥ {@link TIMED_UPDATES} character updates. */
function timeFrame(op: (f: number) => void, count: number, frame: number): { ms: number; next: number } {
  const batchFrames = Math.max(1, Math.round(UPDATES_PER_BATCH / count));
  const batches = Math.max(Math.ceil(MIN_TIMED_FRAMES / batchFrames), Math.ceil(TIMED_UPDATES / count / batchFrames));
  const warm = timeBatches(op, Math.min(10, batches), batchFrames, frame);
  globalThis.gc?.();
  const t = timeBatches(op, batches, batchFrames, warm.nextFrame);
  return { ms: summarize(t.samples, batchFrames).median / 1000, next: t.nextFrame };
}

/**
 * Chooses the camera's vertical field of view that shows about {@link SEEN} of the 1,000 grid places (a
 * sphere of half the height around each, half a height up: about what the controller tests).
 */
function chooseFov(camera: FreeCamera, h: number): number {
  const planes = Frustum.GetPlanes(Matrix.Identity());
  const centre = new Vector3();
  const count = (): number => {
    Frustum.GetPlanesToRef(camera.getViewMatrix(true).multiply(camera.getProjectionMatrix(true)), planes);
    let n = 0;
    for (let i = 0; i < 1_000; i++) {
      centre.set((i % PER_ROW) * SPACING * h, h / 2, Math.floor(i / PER_ROW) * SPACING * h);
      if (planes.every((p) => p.dotCoordinate(centre) >= -h / 2)) n++;
    }
    return n;
  };
  placeCamera(camera, h);
  let lo = 0.02;
  let hi = 1.5;
  for (let i = 0; i < 24; i++) {
    camera.fov = (lo + hi) / 2;
    if (count() > SEEN) hi = camera.fov;
    else lo = camera.fov;
  }
  camera.fov = lo;
  return lo;
}

/** Every bone's world position of each character, into `out` (flat, 3 per bone). */
function bonePositions(ik: FullBodyBipedIK, out: Float64Array): void {
  const bones = ik.skeleton.bones;
  for (let b = 0; b < bones.length; b++) {
    const n = bones[b]!.getTransformNode()!;
    const m = n.computeWorldMatrix(true).m;
    out[b * 3] = m[12]!;
    out[b * 3 + 1] = m[13]!;
    out[b * 3 + 2] = m[14]!;
  }
}

/**
 * Flies the camera over the field for {@link FLY_FRAMES} frames with the targets frozen: every bone motion
 * is the level of detail's. The largest bone jump between two frames of any character, of its height.
 */
function fly(
  crowd: Crowd,
  lod: IKLevelOfDetail,
  camera: FreeCamera,
  h: number,
  frozen: (f: number) => void,
): { jump: number; changes: Record<string, number>; at: LodBenchResult["largestJumpAt"] } {
  const iks = crowd.iks;
  const bones = iks[0]!.skeleton.bones.length;
  const last = iks.map((ik) => {
    const p = new Float64Array(bones * 3);
    bonePositions(ik, p);
    return p;
  });
  const now = new Float64Array(bones * 3);
  const levels = iks.map((ik) => lod.levelOf(ik));
  const history: string[][] = iks.map(() => []);
  const changes: Record<string, number> = {};
  let worst = 0;
  let at: LodBenchResult["largestJumpAt"] = null;
  const chars = characters(lod);
  const byIk = new Map(chars.map((c) => [c.ik, c]));
  const home = camera.position.clone();
  for (let f = 0; f < FLY_FRAMES; f++) {
    flyCamera(camera, h, f, home);
    frozen(f);
    for (let i = 0; i < iks.length; i++) {
      const ik = iks[i]!;
      const c = byIk.get(ik)!;
      const l = c.level;
      if (l !== levels[i]) {
        const k = `${levels[i]}→${l}`;
        changes[k] = (changes[k] ?? 0) + 1;
        history[i]!.push(`${f}:${k}`);
        levels[i] = l;
      }
      // an Off character keeps the animated pose it faded out to: nothing to look at
      if (ik._lodOff && c.remaining === 0) continue;
      bonePositions(ik, now);
      const p = last[i]!;
      for (let b = 0; b < bones; b++) {
        const d = Math.hypot(now[b * 3]! - p[b * 3]!, now[b * 3 + 1]! - p[b * 3 + 1]!, now[b * 3 + 2]! - p[b * 3 + 2]!);
        if (d > worst) {
          worst = d;
          const recent = history[i]!.slice(-3);
          at = { frame: f, bone: ik.skeleton.bones[b]!.name, level: l, remaining: round(c.remaining, 3), recent };
        }
      }
      p.set(now);
    }
  }
  return { jump: worst / h, changes, at };
}

/**
 * The fly-over: the camera keeps its orientation and slides back and forth over the field, 5 s one way
 * (toward the far corner and sideways), 5 s back.
 */
function flyCamera(camera: FreeCamera, h: number, f: number, home: Vector3): void {
  const t = (f % 600) / 600;
  const s = t < 0.5 ? t * 2 : 2 - t * 2;
  camera.position.set(home.x + 20 * s * h, home.y + 4 * s * h, home.z + 8 * s * h);
}

async function benchLod(): Promise<LodBenchResult> {
  Logger.LogLevels = Logger.ErrorLogLevel;
  const memory = { mb: [...MEMORY_PROBE_MB], nsPerLine: memoryProbe() };
  const model: LoadedModel = await loadModel(MODEL);
  try {
    return run(model, memory);
  } finally {
    model.dispose();
  }
}

function run(model: LoadedModel, memory: LodBenchResult["memoryProbe"]): LodBenchResult {
  const scene: Scene = model.scene;
  // the controller's clock: the scene's animation step at 60 frames a second
  scene.deltaTime = FRAME_MS;
  const h = jointHeight(model);
  const crowd = new Crowd(model, h);
  crowd.add(FullBodyBipedIK.create(scene, model.skeleton));
  const camera = scene.activeCamera as FreeCamera;
  camera.mode = Camera.PERSPECTIVE_CAMERA;
  const frozen = (_f: number): void => {
    (scene as unknown as { _frameId: number })._frameId++;
    scene.onBeforeAnimationsObservable.notifyObservers(scene);
    scene.onBeforeRenderObservable.notifyObservers(scene);
    scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
  };
  // the field of view that shows ~100 of the 1,000, kept for every count
  const fov = chooseFov(camera, h);
  let seen = 0;
  let lod: IKLevelOfDetail;
  const entries: LodCountEntry[] = [];
  let frame = 0;
  let costMs = 0;
  let demotion = 0;
  let result: Pick<
    LodBenchResult,
    | "largestJumpOfHeight"
    | "levelChanges"
    | "largestJumpAt"
    | "flyBytesPerFrame"
    | "flyCameraBytesPerFrame"
    | "flyTurns"
  > | null = null;
  for (const count of COUNTS) {
    growCrowd(crowd, count, PER_ROW);
    for (let i = 0; i < 20; i++) crowd.frame(frame++);
    const off = timeFrame(crowd.frame, count, frame);
    frame = off.next;
    lod = IKLevelOfDetail.for(scene);
    const defaultBudget = lod.budgetMs;
    lod.budgetMs = Number.POSITIVE_INFINITY;
    for (let i = 0; i < SETTLE_FRAMES; i++) crowd.frame(frame++);
    const levelsNoBudget = levelCounts(lod);
    if (count === 1_000) seen = characters(lod).filter((c) => c.visible).length;
    const noBudget = timeFrame(crowd.frame, count, frame);
    frame = noBudget.next;
    lod.budgetMs = defaultBudget;
    for (let i = 0; i < SETTLE_FRAMES; i++) crowd.frame(frame++);
    const withLod = timeFrame(crowd.frame, count, frame);
    frame = withLod.next;
    const levels = levelCounts(lod);
    const alloc = measureAllocation(crowd.frame, ALLOCATION_FRAMES[count], frame, ALLOCATION_REPEATS);
    frame = alloc.nextFrame;
    if (count === 1_000) {
      costMs = lod.costMs;
      demotion = lod.budgetDemotion;
      const flown = fly(crowd, lod, camera, h, frozen);
      const home = camera.position.clone();
      const flying = (f: number): void => {
        flyCamera(camera, h, f, home);
        crowd.frame(f);
      };
      // Babylon's own share: a moving camera's view matrix is recomputed with allocations (render does it too)
      const cameraAlone = (f: number): void => {
        flyCamera(camera, h, f, home);
        camera.getViewMatrix();
      };
      const turns: number[][] = [];
      for (let t = 0; t < FLY_TURNS; t++) {
        const flyAlloc = measureAllocation(flying, FLY_ALLOCATION_FRAMES, frame, 3);
        const cameraAlloc = measureAllocation(cameraAlone, FLY_ALLOCATION_FRAMES, flyAlloc.nextFrame, 3);
        frame = cameraAlloc.nextFrame;
        turns.push([round(flyAlloc.bytesPerOp, 2), round(cameraAlloc.bytesPerOp, 2)]);
        const before = turns[t - 1];
        if (before !== undefined && Math.abs(before[1]! - cameraAlloc.bytesPerOp) < FLY_CAMERA_AGREE) break;
      }
      const last = turns[turns.length - 1]!;
      result = {
        largestJumpOfHeight: round(flown.jump, 5),
        levelChanges: flown.changes,
        largestJumpAt: flown.at,
        flyBytesPerFrame: last[0]!,
        flyCameraBytesPerFrame: last[1]!,
        flyTurns: turns,
      };
    }
    lod.dispose();
    placeCamera(camera, h);
    entries.push({
      count,
      offMicrosPerCharacter: round((off.ms * 1000) / count),
      offFrameMs: round(off.ms, 4),
      lodMicrosPerCharacter: round((withLod.ms * 1000) / count),
      lodFrameMs: round(withLod.ms, 4),
      lodNoBudgetFrameMs: round(noBudget.ms, 4),
      levelsNoBudget,
      levels,
      lodBytesPerFrame: round(alloc.bytesPerOp, 2),
    });
  }
  return {
    characters: entries,
    seen,
    fov: round(fov, 4),
    costMs: round(costMs, 4),
    budgetDemotion: demotion,
    ...result!,
    memoryProbe: memory,
    model: MODEL,
    node: process.version,
    date: new Date().toISOString(),
  };
}

/** The level-of-detail benchmark as run by bench/run.ts. */
export const lodBenchmark: Benchmark<LodBenchResult> = {
  name: "lod",
  file: "lod.json",
  run: benchLod,
  rows: (r) => {
    const rows: Array<[string, number | string, string]> = [
      [`camera: ${r.seen} of 1,000 in view, vertical field of view`, r.fov, "rad"],
    ];
    for (const c of r.characters) {
      rows.push(
        [`${c.count}: IK per frame without / with LOD`, `${c.offFrameMs} / ${c.lodFrameMs}`, "ms"],
        [
          "  per character without / with LOD",
          `${c.offMicrosPerCharacter} / ${c.lodMicrosPerCharacter}`,
          `µs (budget off: ${c.lodNoBudgetFrameMs} ms)`,
        ],
        ["  Full / Cheap / Off (budget off; defaults)", `${c.levelsNoBudget.join(" / ")}; ${c.levels.join(" / ")}`, ""],
        ["  allocated per frame with LOD", c.lodBytesPerFrame, "B"],
      );
    }
    rows.push(
      ["1,000: smoothed cost / levels taken off by the budget", `${r.costMs} ms / ${r.budgetDemotion}`, ""],
      ["flying over the field: largest bone jump (of height)", r.largestJumpOfHeight, ""],
      ["  changes of level (2 Full, 1 Cheap, 0 Off)", JSON.stringify(r.levelChanges), ""],
      ["  largest jump at", JSON.stringify(r.largestJumpAt), ""],
      [
        "  allocated per frame while flying / by the camera's motion alone",
        `${r.flyBytesPerFrame} / ${r.flyCameraBytesPerFrame}`,
        "B",
      ],
      [`memory probe: a random line of ${r.memoryProbe.mb.join(" / ")} MB`, r.memoryProbe.nsPerLine.join(" / "), "ns"],
    );
    return rows;
  },
  checks: (r) => {
    const byCount = new Map(r.characters.map((c) => [c.count, c]));
    const checks: TargetCheck[] = [
      atMost("1,000 characters with LOD: IK per frame", byCount.get(1000)!.lodFrameMs, LOD_TARGETS.thousandMs, "ms"),
    ];
    for (const n of [1, 10]) {
      checks.push(
        atMost(
          `${n} character(s) with LOD: per character`,
          byCount.get(n)!.lodMicrosPerCharacter,
          LOD_TARGETS.microsPerCharacter,
          "µs",
        ),
      );
    }
    // the frame benchmark's thresholds: < 1 B a frame for 1 and 10 characters, < 1 B per character update beyond
    for (const c of r.characters) {
      const perUpdate = c.count > 10;
      const value = perUpdate ? round(c.lodBytesPerFrame / c.count, 4) : c.lodBytesPerFrame;
      checks.push({
        label: `${c.count} character(s) with LOD: bytes per ${perUpdate ? "character update" : "frame"}`,
        value,
        unit: "B",
        target: `0 (< ${LOD_TARGETS.bytesPerFrameBelow} B)`,
        pass: value < LOD_TARGETS.bytesPerFrameBelow,
      });
    }
    const flyOwn = round(r.flyBytesPerFrame - r.flyCameraBytesPerFrame, 2);
    checks.push({
      label: "bytes per frame while flying, beyond the camera's own",
      value: flyOwn,
      unit: "B",
      target: `0 (< ${LOD_TARGETS.bytesPerFrameBelow} B)`,
      pass: flyOwn < LOD_TARGETS.bytesPerFrameBelow,
    });
    checks.push(
      atMost("largest bone jump at a change of level (of height)", r.largestJumpOfHeight, LOD_TARGETS.jumpOfHeight, ""),
    );
    return checks;
  },
};
