/**
 * The whole IK frame on a real model: FullBodyBipedIK on the Mannequin (test/assets/models, CC0) in a
 * Babylon NullEngine scene, both hands and feet at weight 1 following moving world-space targets,
 * 4 iterations; then 1, 10, 100 and 1,000 characters in one scene. Beside it, one Mannequin on BipedIK (its four
 * LimbIKs on the same targets), for the row that compares the two.
 *
 * What one measured "frame" is, per character:
 *
 * - advance the scene's frame id (see {@link advanceFrame}: the cheap stand-in for `scene.render()`),
 * - move the character's four targets along Lissajous paths (written into the effectors' existing
 *   Vector3s, read from the shared path table of bench/target-path.ts; no allocation),
 * - `scene.onBeforeAnimationsObservable`, `scene.onBeforeRenderObservable` and
 *   `scene.onBeforeRenderTargetsRenderObservable` notified, exactly as `scene.render()` notifies them:
 *   the one SceneUpdater observer pair then runs every character's `_beforeAnimations()` (FinalIK's
 *   FixTransforms: what the IK wrote last frame taken off again) and
 *   `_beforeRender()` → `update()` = `rig.read()` + `solver.inner.update()` + `rig.write()`.
 *
 * That is all the IK does in a frame, and nothing of Babylon's own render work (animations, world
 * matrices, skeleton matrices, culling): that is measured separately with real `scene.render()` calls,
 * with and without the IK, for context. FixTransforms is included because the updater runs it every
 * frame; it also keeps the input pose steady (the Mannequin has no clip, so without it each read would
 * start from the previous frame's IK output).
 */
import * as os from "node:os";
import { GCProfiler } from "node:v8";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { BipedIK } from "../src/babylon/biped-ik.js";
import { FullBodyBipedIK } from "../src/babylon/full-body-biped-ik.js";
import { setFractionalParameters } from "./solver.js";
import { MEMORY_PROBE_MB, memoryProbe } from "./memory-probe.js";
import { PATH_FRAMES, PATH_STRIDE, unitTargetPath } from "./target-path.js";
import { type LoadedModel, loadModel } from "../test/helpers/babylon-scene.js";
import {
  type AllocationResult,
  type Benchmark,
  type TargetCheck,
  atMost,
  measureAllocation,
  quantile,
  round,
  solverActiveCheck,
  summarize,
  timeBatches,
} from "./common.js";

/** One character count of the scaling run. */
export interface FrameScalingEntry {
  /** Characters in the scene, all updating every frame. */
  count: number;
  /** Median IK time per character per frame, µs (batch median / count). */
  microsPerCharacter: number;
  /** 95th percentile of the per-character time of the batches, µs. */
  p95MicrosPerCharacter: number;
  /** Median IK time of a whole frame (all characters), µs. */
  frameMicros: number;
  /** Frames per timed batch (each batch covers ≥ 100 character updates). */
  batchFrames: number;
  /** Timed frames. */
  timedFrames: number;
  /** GCs during the timed frames (what allocation costs: each pauses every character). */
  gcsDuringTiming: number;
  /**
   * Their total pause spread over the timed character updates, µs per character (part of the mean, rarely of the
   * median).
   */
  gcMicrosPerCharacter: number;
  /**
   * Process CPU time (user + system, all threads) over the timed frames per character update, µs: a mean
   * that, unlike the wall-clock figures, leaves out the time the process waited for a core on a busy
   * machine (it includes GC and compiler threads).
   */
  cpuMicrosPerCharacter: number;
  /** Median `scene.render()` time per frame with the IK, µs (Babylon's work included). */
  renderWithIkMicros: number;
  /** Median `scene.render()` time per frame with every IK disabled (`enabled = false`), µs. */
  renderWithoutIkMicros: number;
}

/** The largest scene's per-character stage times with the character's memory cold and hot (see measureCrowdMemory). */
export interface CrowdMemoryResult {
  /** Characters in the scene. */
  count: number;
  /** Rounds (each times every stage cold and hot; medians over the rounds are kept). */
  rounds: number;
  /**
   * Each stage's own share of an update, µs: cold = every character once per frame (each one's data
   * fetched from memory again), hot = one character `count` times per frame (its data in the caches).
   */
  stages: Record<"fixTransforms" | "read" | "solve" | "write", { coldMicros: number; hotMicros: number }>;
  /** The whole update (FixTransforms + `update()`), cold, µs. */
  coldMicros: number;
  /** The whole update, hot, µs. */
  hotMicros: number;
  /** Median over the rounds of cold ÷ hot for the whole update. */
  coldOverHot: number;
}

/** What the frame benchmark writes to bench/results/frame.json. */
export interface FrameBenchResult {
  /** One Mannequin: median time of one IK frame (FixTransforms + read + solve + write + targets), µs. */
  frameMedianMicrosPerCharacter: number;
  /** Per-character time for 1, 10, 100 and 1,000 characters in one scene. */
  characters: FrameScalingEntry[];
  /** One Mannequin: bytes allocated on the JS heap per frame (smallest of the repeats). */
  bytesPerFrame: number;
  /** Node version. */
  node: string;
  /** When the benchmark ran (ISO 8601). */
  date: string;

  /** One Mannequin: 95th percentile of the per-frame time of the batches, µs. */
  frameP95Micros: number;
  /** One Mannequin: fastest batch, µs per frame. */
  frameMinMicros: number;
  /** One Mannequin: mean over all timed frames, µs. */
  frameMeanMicros: number;
  /** One Mannequin: process CPU time per frame over the timed frames, µs (see FrameScalingEntry). */
  frameCpuMeanMicros: number;
  /** 1-minute load average of the machine when the benchmark started and ended (other work skews timings). */
  loadAverage: [number, number];
  /** One Mannequin, cumulative stages (each with frame id + targets): median µs per frame. */
  stagesMicros: {
    /** Frame id + moving the four targets only (the harness, included in every figure). */
    targetsOnly: number;
    /** + `_beforeAnimations()` (FixTransforms). */
    fixTransforms: number;
    /** + `rig.read()`. */
    read: number;
    /** + `solver.inner.update()` (the solver: its pose read, the solve, the mapping into the rig's arrays). */
    solve: number;
    /**
     * + everything else `update()` does: `rig.write()`, the frame guard, `_afterUpdate()` (= FixTransforms +
     * `update()`).
     */
    write: number;
  };
  /** The same stages' bytes per frame (allocation bisection; all should be 0). */
  stagesBytesPerFrame: {
    targetsOnly: number;
    fixTransforms: number;
    read: number;
    solve: number;
    write: number;
  };
  /** `ik.update()` alone (read + solve + write): stage write − stage fixTransforms, µs. */
  updateMicros: number;
  /** One Mannequin: heapUsed after − before the kept allocation loop, bytes. */
  allocationRawHeapDelta: number;
  /** One Mannequin: GCs during the kept allocation loop (their freed bytes are added back). */
  allocationGcs: number;
  /** Frames per allocation loop (one Mannequin). */
  allocationFrames: number;
  /** 100 characters: bytes allocated per frame (all 100 updating), smallest of the repeats. */
  bytesPerFrame100: number;
  /** 100 characters: the same per character update. */
  bytesPerCharacterUpdate100: number;
  /** 100 characters: heapUsed delta and GCs of the kept loop. */
  allocation100RawHeapDelta: number;
  allocation100Gcs: number;
  /** Frames per allocation loop with 100 characters. */
  allocation100Frames: number;
  /**
   * One Mannequin in a scene of its own with every weight fractional (solver and mappings, see
   * {@link setFractionalFrame}): bytes per frame. V8 boxes doubles passed to calls it does not inline, so
   * weights of exactly 1 could hide an allocation that a user's 0.7 shows.
   */
  fractionalBytesPerFrame: number;
  /** The same configuration: median µs per frame. */
  fractionalMedianMicros: number;
  /**
   * One Mannequin in a scene of its own with BipedIK instead (its four LimbIKs at weight 1 on the same moving
   * targets, the spine, aim, look-at and pelvis parts at 0, as created): median µs per frame, for the row beside
   * FullBodyBipedIK's.
   */
  bipedMedianMicros: number;
  /** The same: bytes per frame. */
  bipedBytesPerFrame: number;
  /** The same: largest foot and hand distance to its target after the last frame, fractions of the height. */
  bipedMaxFootErrorOfHeight: number;
  bipedMaxHandErrorOfHeight: number;
  /** One Mannequin: `scene.render()` per frame with the IK, µs. */
  renderWithIkMicros: number;
  /** One Mannequin: `scene.render()` per frame with the IK disabled, µs. */
  renderWithoutIkMicros: number;
  /**
   * Largest distance from a foot to its target after the last frame, as a fraction of the model's joint height (the IK
   * really solves).
   */
  maxFootErrorOfHeight: number;
  /** Largest distance from a hand to its target (hands may be pulled past the arm's reach), fraction of height. */
  maxHandErrorOfHeight: number;
  /** True when every character's last update ran the solver and its effector nodes are finite. */
  solverActive: boolean;
  /** Solver iterations. */
  iterations: number;
  /** Model. */
  model: string;
  /** Mapped bones in the rig (ids, including the character root). */
  rigBones: number;
  /** Seconds spent creating the 1,000 characters (instantiateModelsToScene + FullBodyBipedIK.create). */
  setupSeconds: number;
  /** Where the scaling goes: the 1,000-character scene's stages with each character's memory cold and hot. */
  crowdMemory: CrowdMemoryResult;
  /**
   * This machine's cost of a cache line nobody kept (bench/memory-probe.ts): ns per randomly ordered line
   * over working sets of `mb` MB. The floor of a crowd's memory time: lines a character touches (bench:touch)
   * × characters is its working set, and each such line costs about this.
   */
  memoryProbe: { mb: number[]; nsPerLine: number[] };
  /** CPU model. */
  cpu: string;
  /** Logical CPUs. */
  cpus: number;
}

/** Targets of the frame benchmark (2-core reference machine). */
export const FRAME_TARGETS = {
  /** Median µs per character per frame (one Mannequin, and every count of the scaling run). */
  microsPerCharacter: 15,
  /** The 1,000-character figure at most this many times the 1-character figure. */
  scalingRatio: 1.5,
  /**
   * Bytes per frame: the target is 0. The smallest V8 heap object is 16 B, so anything allocated per frame
   * shows as ≥ 16 B; below 1 B is fixed heap growth spread over the loop. With 100 characters the
   * threshold is 1 B per character update (100 B per frame): the per-frame allocations of a single
   * character are caught by the 1-character check.
   */
  bytesPerCharacterUpdateBelow: 1,
} as const;

/** The benchmarked model (test/assets/models, CC0). */
export const MODEL = "Mannequin" as const;
const ITERATIONS = 4;
const COUNTS = [1, 10, 100, 1_000] as const;
/** Character updates per timed batch: one timer read per ≥ 100 updates (see timeBatches). */
const UPDATES_PER_BATCH = 100;
const WARMUP_FRAMES = 20_000;
const TIMED_BATCHES = 1_500; // 150,000 timed frames on one Mannequin
const STAGE_BATCHES = 500;
const ALLOCATION_FRAMES = 100_000;
const STAGE_ALLOCATION_FRAMES = 20_000;
const ALLOCATION_REPEATS = 3;
const ALLOCATION_FRAMES_100 = 500;
/** Character updates timed per count of the scaling run (at least MIN_SCALING_FRAMES frames). */
const SCALING_UPDATES = 100_000;
const MIN_SCALING_FRAMES = 150;
/** Frames of `scene.render()` per count (render is slower: fewer frames). */
const RENDER_UPDATES = 10_000;
const MIN_RENDER_FRAMES = 15;
/** Alternating cold/hot rounds of the crowd memory measurement, and frames per timed segment. */
const CROWD_MEMORY_ROUNDS = 9;
const CROWD_MEMORY_FRAMES = 3;
/** Grid spacing of the characters, in model heights. */
const SPACING = 1.5;

/**
 * Adds characters to `crowd` until it holds `count`: clones of its model on a grid in the XZ plane, each
 * with FullBodyBipedIK attached (placed before the IK reads the pose: the targets start at the bones).
 */
export function growCrowd(crowd: Crowd, count: number, perRow: number): void {
  const model = crowd.model;
  while (crowd.iks.length < count) {
    const i = crowd.iks.length;
    const entries = model.container.instantiateModelsToScene((name) => `c${i}_${name}`, false, {
      doNotInstantiate: true,
    });
    const root = entries.rootNodes[0] as TransformNode;
    root.position.set((i % perRow) * SPACING * crowd.height, 0, Math.floor(i / perRow) * SPACING * crowd.height);
    root.computeWorldMatrix(true);
    crowd.add(FullBodyBipedIK.create(crowd.scene, entries.skeletons[0]!));
  }
}

/**
 * Advances `scene.getFrameId()` by one without rendering.
 *
 * `FullBodyBipedIK.update()` compares `scene.getFrameId()` with the frame of its last update: a second
 * update in the same frame first restores the animated pose. In @babylonjs/core 9.34 `getFrameId()`
 * returns the private `_frameId`, and the only thing that increments it is `Scene._renderFrame()` (the
 * body of `render()`), as its first step (scene.pure.js). `incrementRenderId()` does not help: it bumps
 * `_renderId` (what world-matrix caches compare), which the IK does not look at. So the benchmark does what
 * `render()` does first and nothing else: `_frameId++`. The real `render()` is timed separately.
 */
function advanceFrame(scene: Scene): void {
  (scene as unknown as { _frameId: number })._frameId++;
}

/** One character's update up to and including each stage (cumulative, as in `stagesMicros`). */
const STAGE_UPDATES = {
  fixTransforms: (ik: FullBodyBipedIK): void => ik._beforeAnimations(),
  read: (ik: FullBodyBipedIK): void => {
    ik._beforeAnimations();
    ik.rig.read();
  },
  solve: (ik: FullBodyBipedIK): void => {
    ik._beforeAnimations();
    ik.rig.read();
    ik.solver.inner.update();
  },
  write: (ik: FullBodyBipedIK): void => {
    ik._beforeAnimations();
    ik.update();
  },
} as const;
type StageName = keyof typeof STAGE_UPDATES;
const STAGE_NAMES = Object.keys(STAGE_UPDATES) as StageName[];

/**
 * Where the scaling goes: in the largest scene, each cumulative stage timed two ways in alternating
 * segments, so a change of the machine's speed between segments hits both alike.
 *
 * - cold: every character once per frame (as the updater does): by the time a character comes round
 *   again the other 999 have pushed its data out of the caches;
 * - hot: the first character `count` times per frame: its data stays in the caches.
 *
 * The arithmetic is the same (same pose, same targets, every update solves), so cold − hot is what
 * fetching the character's memory costs.
 */
function measureCrowdMemory(crowd: Crowd, firstFrame: number): { result: CrowdMemoryResult; nextFrame: number } {
  const iks = crowd.iks;
  const n = iks.length;
  const scene = crowd.scene;
  let frame = firstFrame;
  // µs per update of one stage (cumulative) in one mode, timed over CROWD_MEMORY_FRAMES frames
  const time = (update: (ik: FullBodyBipedIK) => void, cold: boolean): number => {
    const t0 = process.hrtime.bigint();
    for (let f = 0; f < CROWD_MEMORY_FRAMES; f++) {
      frame++;
      if (cold) {
        advanceFrame(scene);
        for (let i = 0; i < n; i++) update(iks[i]!);
      } else {
        // a frame id per update: a second update of one character in the same frame would first restore
        // the animated pose, work the cold updates never do
        for (let i = 0, ik = iks[0]!; i < n; i++) {
          advanceFrame(scene);
          update(ik);
        }
      }
    }
    return Number(process.hrtime.bigint() - t0) / 1000 / (CROWD_MEMORY_FRAMES * n);
  };
  // per round: each stage's own share (cumulative minus the previous stage), cold and hot, all measured
  // within seconds of each other; the medians over the rounds are kept
  const shares: Record<StageName, { cold: number[]; hot: number[] }> = {
    fixTransforms: { cold: [], hot: [] },
    read: { cold: [], hot: [] },
    solve: { cold: [], hot: [] },
    write: { cold: [], hot: [] },
  };
  const wholeCold: number[] = [];
  const wholeHot: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < CROWD_MEMORY_ROUNDS; r++) {
    let coldBefore = 0;
    let hotBefore = 0;
    for (const name of STAGE_NAMES) {
      const update = STAGE_UPDATES[name];
      // alternate which mode goes first, so neither gains from the other's leftovers in the caches
      const first = time(update, r % 2 === 0);
      const second = time(update, r % 2 !== 0);
      const cold = r % 2 === 0 ? first : second;
      const hot = r % 2 === 0 ? second : first;
      shares[name].cold.push(cold - coldBefore);
      shares[name].hot.push(hot - hotBefore);
      coldBefore = cold;
      hotBefore = hot;
    }
    wholeCold.push(coldBefore);
    wholeHot.push(hotBefore);
    ratios.push(coldBefore / hotBefore);
  }
  const med = (v: number[], digits = 3): number => round(quantile(Float64Array.from(v).sort(), 0.5), digits);
  const stages = Object.fromEntries(
    STAGE_NAMES.map((k) => [k, { coldMicros: med(shares[k].cold), hotMicros: med(shares[k].hot) }]),
  ) as CrowdMemoryResult["stages"];
  return {
    result: {
      count: n,
      rounds: CROWD_MEMORY_ROUNDS,
      stages,
      coldMicros: med(wholeCold),
      hotMicros: med(wholeHot),
      coldOverHot: med(ratios, 2),
    },
    nextFrame: frame,
  };
}

/**
 * Every character of the scene with its targets, flat for a cheap per-frame loop (also driven by bench/touch-crowd.ts).
 */
export class Crowd {
  readonly iks: FullBodyBipedIK[] = [];
  /** Joint height of the model, for the target radii and error figures. */
  readonly height: number;
  private readonly targets: Vector3[] = [];
  private centres = new Float64Array(0);
  private radii = new Float64Array(0);
  private readonly path = unitTargetPath();

  constructor(
    readonly model: LoadedModel,
    height: number,
  ) {
    this.height = height;
  }

  get scene(): Scene {
    return this.model.scene;
  }

  /** Attaches FullBodyBipedIK to `skeleton` with the four end effectors at weight 1 around their bones. */
  add(ik: FullBodyBipedIK): void {
    ik.solver.iterations = ITERATIONS;
    const s = ik.solver;
    const effectors = [s.leftHandEffector, s.rightHandEffector, s.leftFootEffector, s.rightFootEffector];
    for (const e of effectors) e.positionWeight = 1;
    this.addTargets(effectors.map((e) => e.position));
    this.iks.push(ik);
  }

  /**
   * Moves `targets` (left hand, right hand, left foot, right foot; each starting at its bone) from now on: a circle
   * around where each is, hands within 0.15 of the height (≈0.2 m on a human), feet within 0.075 (the per-axis
   * amplitudes keep |offset| < radius).
   */
  addTargets(targets: readonly Vector3[]): void {
    const first = this.targets.length;
    const centres = new Float64Array(this.centres.length + 12);
    centres.set(this.centres);
    const radii = new Float64Array(this.radii.length + 4);
    radii.set(this.radii);
    targets.forEach((t, i) => {
      this.targets.push(t);
      centres[(first + i) * 3] = t.x;
      centres[(first + i) * 3 + 1] = t.y;
      centres[(first + i) * 3 + 2] = t.z;
      radii[first + i] = (i < 2 ? 0.15 : 0.075) * this.height;
    });
    this.centres = centres;
    this.radii = radii;
  }

  /**
   * Moves every target to its place at `frame`, read from the shared path table (bench/target-path.ts);
   * character j runs 37 j frames ahead, so the characters are out of phase with each other.
   */
  readonly moveTargets = (frame: number): void => {
    const targets = this.targets;
    const c = this.centres;
    const path = this.path;
    for (let k = 0; k < targets.length; k++) {
      const r = this.radii[k]!;
      const o = ((frame + (k >> 2) * 37) % PATH_FRAMES) * PATH_STRIDE + (k & 3) * 3;
      targets[k]!.set(c[k * 3]! + r * path[o]!, c[k * 3 + 1]! + r * path[o + 1]!, c[k * 3 + 2]! + r * path[o + 2]!);
    }
  };

  /** The harness alone: frame id + targets. */
  readonly targetsOnly = (frame: number): void => {
    advanceFrame(this.scene);
    this.moveTargets(frame);
  };

  /** One IK frame for every character, as `scene.render()` drives it (see the file comment). */
  readonly frame = (frame: number): void => {
    const scene = this.scene;
    advanceFrame(scene);
    this.moveTargets(frame);
    scene.onBeforeAnimationsObservable.notifyObservers(scene);
    scene.onBeforeRenderObservable.notifyObservers(scene);
    scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
  };

  /** Stage: + FixTransforms. */
  readonly fixOnly = (frame: number): void => this.eachCharacter(frame, STAGE_UPDATES.fixTransforms);
  /** Stage: + rig.read(). */
  readonly fixRead = (frame: number): void => this.eachCharacter(frame, STAGE_UPDATES.read);
  /** Stage: + the solver (read + solve, nothing written to Babylon). */
  readonly fixReadSolve = (frame: number): void => this.eachCharacter(frame, STAGE_UPDATES.solve);
  /** Stage: FixTransforms + `update()` (the updater's work without the observers). */
  readonly fixUpdate = (frame: number): void => this.eachCharacter(frame, STAGE_UPDATES.write);

  private eachCharacter(frame: number, update: (ik: FullBodyBipedIK) => void): void {
    this.targetsOnly(frame);
    const iks = this.iks;
    for (let i = 0; i < iks.length; i++) update(iks[i]!);
  }

  /** A real `scene.render()` (animations, matrices, culling, the IK through its observers). */
  readonly render = (frame: number): void => {
    this.moveTargets(frame);
    this.scene.render();
  };

  setEnabled(enabled: boolean): void {
    for (const ik of this.iks) ik.enabled = enabled;
  }

  /** True when every last update solved and every effector node is finite. */
  healthy(): boolean {
    for (const ik of this.iks) {
      if (!ik.solver.inner.solvedLastUpdate) return false;
      for (const e of ik.solver.inner.effectors) {
        const p = e.node.solverPosition;
        if (!Number.isFinite(p.x) || !Number.isFinite(p.y) || !Number.isFinite(p.z)) return false;
      }
    }
    return true;
  }

  /** Largest hand and foot distances to their targets (world, fractions of the height) after the last frame. */
  errors(): { hands: number; feet: number } {
    let hands = 0;
    let feet = 0;
    for (const ik of this.iks) {
      const s = ik.solver;
      [s.leftHandEffector, s.rightHandEffector, s.leftFootEffector, s.rightFootEffector].forEach((e, i) => {
        const node = e.bone!.getTransformNode()!;
        node.computeWorldMatrix(true);
        const d = node.getAbsolutePosition().subtract(e.position).length() / this.height;
        if (i < 2) hands = Math.max(hands, d);
        else feet = Math.max(feet, d);
      });
    }
    return { hands, feet };
  }
}

/**
 * One Mannequin in a scene of its own with the benchmark's setup (weights, iterations, moving targets):
 * `frame(n)` is one measured frame. Used by the A/B comparison (bench/ab.ts).
 */
export async function createFrameScene(): Promise<{ frame: (frame: number) => void }> {
  const model = await loadModel(MODEL);
  const crowd = new Crowd(model, jointHeight(model));
  crowd.add(FullBodyBipedIK.create(model.scene, model.skeleton));
  return { frame: crowd.frame };
}

/** Joint height of a skeleton (max − min world y of its bones' nodes). */
export function jointHeight(m: LoadedModel): number {
  let lo = Infinity;
  let hi = -Infinity;
  for (const b of m.skeleton.bones) {
    const n = b.getTransformNode()!;
    n.computeWorldMatrix(true);
    const y = n.getAbsolutePosition().y;
    lo = Math.min(lo, y);
    hi = Math.max(hi, y);
  }
  return hi - lo;
}

/**
 * Times `op` (one frame of `count` characters) in batches of ≥ 100 character updates; µs per frame. Also
 * counts the GCs during the timed batches and their total pause (a GCProfiler allocates nothing on the
 * JS heap until stopped), which is what allocation costs in time.
 */
function timeFrames(
  op: (frame: number) => void,
  count: number,
  updates: number,
  minFrames: number,
  firstFrame: number,
) {
  const batchFrames = Math.max(1, Math.round(UPDATES_PER_BATCH / count));
  const batches = Math.max(Math.ceil(minFrames / batchFrames), Math.ceil(updates / count / batchFrames));
  // warm the timing loop on a few batches, then a clean heap
  let frame = timeBatches(op, Math.min(20, batches), batchFrames, firstFrame).nextFrame;
  globalThis.gc?.();
  const profiler = new GCProfiler();
  profiler.start();
  const cpu0 = process.cpuUsage();
  const timed = timeBatches(op, batches, batchFrames, frame);
  const cpu = process.cpuUsage(cpu0);
  const gcs = profiler.stop().statistics;
  frame = timed.nextFrame;
  let gcMicros = 0;
  for (const g of gcs) gcMicros += g.cost;
  const timing = summarize(timed.samples, batchFrames);
  const cpuMicros = (cpu.user + cpu.system) / timing.operations;
  return { timing, cpuMicros, batchFrames, nextFrame: frame, gcs: gcs.length, gcMicros };
}

/** Runs the frame benchmark: one Mannequin in detail, then 1 → 1,000 characters in one scene. */
export async function benchFrame(): Promise<FrameBenchResult> {
  Logger.LogLevels = Logger.ErrorLogLevel;
  // first, on a small heap: after the crowd, the collector's background work on its gigabyte of disposed
  // characters competes for the same memory bandwidth (probed there it read 51 / 13 / 69 ns, here ~7 / 14 / 30)
  const memory = { mb: [...MEMORY_PROBE_MB], nsPerLine: memoryProbe() };
  // the fractional and BipedIK configurations first, each in a scene of its own, so that they never run in a heap
  // holding the 1,000-character run's gigabyte of disposed characters
  const fractional = await onFreshModel(runFractional);
  const biped = await onFreshModel(runBiped);
  const main = await onFreshModel(run);
  return { ...main, ...fractional, ...biped, memoryProbe: memory };
}

/** `measure` on the Mannequin loaded in a scene of its own, disposed after; a collection first (see benchFrame). */
async function onFreshModel<T>(measure: (model: LoadedModel) => T): Promise<T> {
  globalThis.gc?.();
  const model = await loadModel(MODEL);
  try {
    return measure(model);
  } finally {
    model.dispose();
  }
}

/**
 * Every weight of `ik` fractional: the solver's (effectors, chains, master weight, spine stiffness,
 * pull body; see bench/solver.ts) and the mappings' (limb weight and maintainRotationWeight, spine
 * twistWeight, head maintainRotationWeight).
 */
export function setFractionalFrame(ik: FullBodyBipedIK): void {
  const s = ik.solver;
  setFractionalParameters(s.inner);
  for (const m of [s.leftArmMapping, s.rightArmMapping, s.leftLegMapping, s.rightLegMapping]) {
    m.weight = 0.91;
    m.maintainRotationWeight = 0.57;
  }
  s.spineMapping.twistWeight = 0.73;
  if (s.headMapping !== null) s.headMapping.maintainRotationWeight = 0.44;
}

/** One Mannequin with every weight fractional: allocation and time per frame. */
function runFractional(
  model: LoadedModel,
): Pick<FrameBenchResult, "fractionalBytesPerFrame" | "fractionalMedianMicros"> {
  const crowd = new Crowd(model, jointHeight(model));
  const ik = FullBodyBipedIK.create(model.scene, model.skeleton);
  crowd.add(ik);
  setFractionalFrame(ik);
  let frame = 0;
  for (let i = 0; i < WARMUP_FRAMES; i++) crowd.frame(frame++);
  const t = timeFrames(crowd.frame, 1, (TIMED_BATCHES / 3) * UPDATES_PER_BATCH, 0, frame);
  const a = measureAllocation(crowd.frame, ALLOCATION_FRAMES, t.nextFrame, ALLOCATION_REPEATS);
  if (!crowd.healthy())
    throw new Error("fractional configuration: the solver did not run or produced non-finite nodes");
  return { fractionalBytesPerFrame: round(a.bytesPerOp, 2), fractionalMedianMicros: round(t.timing.median) };
}

/** The BipedIK row's figures ({@link runBiped}). */
type BipedFrameResult = Pick<
  FrameBenchResult,
  "bipedMedianMicros" | "bipedBytesPerFrame" | "bipedMaxFootErrorOfHeight" | "bipedMaxHandErrorOfHeight"
>;

/** One Mannequin on BipedIK, its hands and feet on the FBBIK row's moving targets: time, allocation, errors. */
function runBiped(model: LoadedModel): BipedFrameResult {
  const crowd = new Crowd(model, jointHeight(model));
  const ik = BipedIK.create(model.scene, model.skeleton);
  const limbs = [ik.solvers.leftHand, ik.solvers.rightHand, ik.solvers.leftFoot, ik.solvers.rightFoot];
  for (const l of limbs) l.solver.ikPositionWeight = 1;
  crowd.addTargets(limbs.map((l) => l.targetPosition));
  let frame = 0;
  for (let i = 0; i < WARMUP_FRAMES; i++) crowd.frame(frame++);
  const t = timeFrames(crowd.frame, 1, (TIMED_BATCHES / 3) * UPDATES_PER_BATCH, 0, frame);
  const a = measureAllocation(crowd.frame, ALLOCATION_FRAMES, t.nextFrame, ALLOCATION_REPEATS);
  const errors = limbs.map((l) => {
    const node = l.bones[2]!.getTransformNode()!;
    node.computeWorldMatrix(true);
    return node.getAbsolutePosition().subtract(l.targetPosition).length() / crowd.height;
  });
  if (!errors.every(Number.isFinite)) throw new Error("BipedIK: a hand or foot is not finite");
  ik.dispose();
  return {
    bipedMedianMicros: round(t.timing.median),
    bipedBytesPerFrame: round(a.bytesPerOp, 2),
    bipedMaxFootErrorOfHeight: round(Math.max(errors[2]!, errors[3]!), 5),
    bipedMaxHandErrorOfHeight: round(Math.max(errors[0]!, errors[1]!), 5),
  };
}

/** Everything but the fractional-weight and BipedIK figures ({@link runFractional}, {@link runBiped}). */
type MainFrameResult = Omit<
  FrameBenchResult,
  "fractionalBytesPerFrame" | "fractionalMedianMicros" | "memoryProbe" | keyof BipedFrameResult
>;

function run(model: LoadedModel): MainFrameResult {
  const loadAtStart = os.loadavg()[0]!;
  const scene = model.scene;
  const before = scene.getFrameId();
  advanceFrame(scene);
  if (scene.getFrameId() !== before + 1)
    throw new Error("advanceFrame: scene.getFrameId() did not move (Babylon changed?)");

  const crowd = new Crowd(model, jointHeight(model));
  crowd.add(FullBodyBipedIK.create(scene, model.skeleton));
  const updater = [
    scene.onBeforeAnimationsObservable.observers.length,
    scene.onBeforeRenderTargetsRenderObservable.observers.length,
  ];
  if (updater[0] !== 1 || updater[1] !== 1)
    throw new Error(`expected the IK's one observer pair on the scene, found ${updater.join("/")}`);

  // ---- one Mannequin -------------------------------------------------------------------------------
  let frame = 0;
  for (let i = 0; i < WARMUP_FRAMES; i++) crowd.frame(frame++);
  let healthy = crowd.healthy();
  const main = timeFrames(crowd.frame, 1, TIMED_BATCHES * UPDATES_PER_BATCH, 0, frame);
  frame = main.nextFrame;
  healthy &&= crowd.healthy();
  const errors = crowd.errors();

  // cumulative stages: time and allocation of each (the differences locate time and bytes)
  const stageOps = {
    targetsOnly: crowd.targetsOnly,
    fixTransforms: crowd.fixOnly,
    read: crowd.fixRead,
    solve: crowd.fixReadSolve,
    write: crowd.fixUpdate,
  };
  const stagesMicros = {} as FrameBenchResult["stagesMicros"];
  const stagesBytes = {} as FrameBenchResult["stagesBytesPerFrame"];
  for (const [name, op] of Object.entries(stageOps) as [keyof typeof stageOps, (f: number) => void][]) {
    for (let i = 0; i < 2_000; i++) op(frame++);
    const t = timeFrames(op, 1, STAGE_BATCHES * UPDATES_PER_BATCH, 0, frame);
    frame = t.nextFrame;
    stagesMicros[name] = round(t.timing.median);
    const a = measureAllocation(op, STAGE_ALLOCATION_FRAMES, frame, ALLOCATION_REPEATS);
    frame = a.nextFrame;
    stagesBytes[name] = round(a.bytesPerOp, 2);
  }

  // allocation of the whole frame: a separate plain loop with nothing but frames in it
  const alloc: AllocationResult & { nextFrame: number } = measureAllocation(
    crowd.frame,
    ALLOCATION_FRAMES,
    frame,
    ALLOCATION_REPEATS,
  );
  frame = alloc.nextFrame;
  healthy &&= crowd.healthy();

  // ---- 1 → 1,000 characters in one scene ----------------------------------------------------------
  const characters: FrameScalingEntry[] = [];
  let alloc100: (AllocationResult & { nextFrame: number }) | null = null;
  let renderOne = { withIk: 0, withoutIk: 0 };
  let setupMs = 0;
  const perRow = Math.ceil(Math.sqrt(COUNTS[COUNTS.length - 1]!));
  for (const count of COUNTS) {
    const t0 = performance.now();
    growCrowd(crowd, count, perRow);
    setupMs += performance.now() - t0;
    // warm the newly added characters (≥ 2,000 character updates, ≥ 5 frames)
    for (let i = 0, n = Math.max(5, Math.ceil(2_000 / count)); i < n; i++) crowd.frame(frame++);
    const t = timeFrames(crowd.frame, count, SCALING_UPDATES, MIN_SCALING_FRAMES, frame);
    frame = t.nextFrame;
    healthy &&= crowd.healthy();
    if (count === 100) {
      alloc100 = measureAllocation(crowd.frame, ALLOCATION_FRAMES_100, frame, ALLOCATION_REPEATS);
      frame = alloc100.nextFrame;
    }
    // for context: Babylon's real frame, with the IK and with every IK disabled
    const withIk = timeFrames(crowd.render, count, RENDER_UPDATES, MIN_RENDER_FRAMES, frame);
    frame = withIk.nextFrame;
    healthy &&= crowd.healthy();
    crowd.setEnabled(false);
    const withoutIk = timeFrames(crowd.render, count, RENDER_UPDATES, MIN_RENDER_FRAMES, frame);
    frame = withoutIk.nextFrame;
    crowd.setEnabled(true);
    if (count === 1) renderOne = { withIk: withIk.timing.median, withoutIk: withoutIk.timing.median };
    characters.push({
      count,
      microsPerCharacter: round(t.timing.median / count),
      p95MicrosPerCharacter: round(t.timing.p95 / count),
      frameMicros: round(t.timing.median, 1),
      batchFrames: t.batchFrames,
      timedFrames: t.timing.operations,
      gcsDuringTiming: t.gcs,
      gcMicrosPerCharacter: round(t.gcMicros / (t.timing.operations * count), 4),
      cpuMicrosPerCharacter: round(t.cpuMicros / count),
      renderWithIkMicros: round(withIk.timing.median, 1),
      renderWithoutIkMicros: round(withoutIk.timing.median, 1),
    });
  }

  // where the scaling goes, in the largest scene
  const memory = measureCrowdMemory(crowd, frame);
  frame = memory.nextFrame;
  healthy &&= crowd.healthy();

  const timing = main.timing;
  const cpus = os.cpus();
  return {
    frameMedianMicrosPerCharacter: round(timing.median),
    characters,
    bytesPerFrame: round(alloc.bytesPerOp, 2),
    node: process.version,
    date: new Date().toISOString(),
    frameP95Micros: round(timing.p95),
    frameMinMicros: round(timing.min),
    frameMeanMicros: round(timing.mean),
    frameCpuMeanMicros: round(main.cpuMicros),
    loadAverage: [round(loadAtStart, 2), round(os.loadavg()[0]!, 2)],
    stagesMicros,
    stagesBytesPerFrame: stagesBytes,
    updateMicros: round(stagesMicros.write - stagesMicros.fixTransforms),
    allocationRawHeapDelta: alloc.rawHeapDelta,
    allocationGcs: alloc.gcsDuringLoop,
    allocationFrames: ALLOCATION_FRAMES,
    bytesPerFrame100: round(alloc100!.bytesPerOp, 2),
    bytesPerCharacterUpdate100: round(alloc100!.bytesPerOp / 100, 2),
    allocation100RawHeapDelta: alloc100!.rawHeapDelta,
    allocation100Gcs: alloc100!.gcsDuringLoop,
    allocation100Frames: ALLOCATION_FRAMES_100,
    renderWithIkMicros: round(renderOne.withIk, 1),
    renderWithoutIkMicros: round(renderOne.withoutIk, 1),
    maxFootErrorOfHeight: round(errors.feet, 5),
    maxHandErrorOfHeight: round(errors.hands, 5),
    solverActive: healthy,
    iterations: ITERATIONS,
    model: MODEL,
    rigBones: crowd.iks[0]!.rig.count,
    setupSeconds: round(setupMs / 1000, 1),
    crowdMemory: memory.result,
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cpus: cpus.length,
  };
}

/** The cold/hot stage table: per stage (differences of the cumulative medians), cold, hot and what memory adds. */
function crowdMemoryRows(m: CrowdMemoryResult): Array<[string, number | string, string]> {
  const rows: Array<[string, number | string, string]> = [
    [`${m.count} characters, memory cold / hot per character:`, "", ""],
  ];
  for (const name of STAGE_NAMES) {
    const { coldMicros, hotMicros } = m.stages[name];
    const memory = round(coldMicros - hotMicros);
    rows.push([
      `  ${STAGE_LABELS[name]}`,
      `${coldMicros} / ${hotMicros}`,
      `µs (memory: ${memory >= 0 ? "+" : ""}${memory} µs)`,
    ]);
  }
  rows.push([
    "  whole update",
    `${m.coldMicros} / ${m.hotMicros}`,
    `µs (cold ÷ hot per round, median: ${m.coldOverHot} ×)`,
  ]);
  return rows;
}

const STAGE_LABELS: Record<StageName, string> = {
  fixTransforms: "FixTransforms",
  read: "rig.read()",
  solve: "solver.inner.update()",
  write: "rig.write() + rest of update()",
};

/** The frame benchmark as run by bench/run.ts. */
export const frameBenchmark: Benchmark<FrameBenchResult> = {
  name: "frame",
  file: "frame.json",
  run: benchFrame,
  rows: (r) => {
    const s = r.stagesMicros;
    const b = r.stagesBytesPerFrame;
    const rows: Array<[string, number | string, string]> = [
      ["one Mannequin: median per frame", r.frameMedianMicrosPerCharacter, "µs"],
      ["  the same on BipedIK (hands and feet, same targets)", r.bipedMedianMicros, "µs"],
      ["p95 per frame (of 100-frame batches)", r.frameP95Micros, "µs"],
      ["fastest batch", r.frameMinMicros, "µs"],
      ["mean", r.frameMeanMicros, "µs"],
      ["process CPU time per frame (mean)", r.frameCpuMeanMicros, "µs"],
      ["load average at start / end (1 min)", `${r.loadAverage[0]} / ${r.loadAverage[1]}`, ""],
      ["  stages (differences of medians, ± noise):", "", ""],
      ["  frame id + moving the 4 targets", s.targetsOnly, "µs"],
      ["  FixTransforms", round(s.fixTransforms - s.targetsOnly), "µs"],
      ["  rig.read()", round(s.read - s.fixTransforms), "µs"],
      ["  solver.inner.update()", round(s.solve - s.read), "µs"],
      ["  rig.write() + rest of update()", round(s.write - s.solve), "µs"],
      ["  scene observers", round(r.frameMedianMicrosPerCharacter - s.write), "µs"],
      ["  ik.update() (read + solve + write)", r.updateMicros, "µs"],
      ["allocated per frame", r.bytesPerFrame, "B"],
      [
        "  cumulative stages (targets/fix/read/solve/write)",
        `${b.targetsOnly} / ${b.fixTransforms} / ${b.read} / ${b.solve} / ${b.write}`,
        "B",
      ],
      ["  raw heapUsed delta (kept loop)", r.allocationRawHeapDelta, "B"],
      ["  GCs during the kept loop", r.allocationGcs, ""],
      ["fractional weights: allocated per frame", r.fractionalBytesPerFrame, "B"],
      ["fractional weights: median per frame", r.fractionalMedianMicros, "µs"],
      ["scene.render() with IK / without", `${r.renderWithIkMicros} / ${r.renderWithoutIkMicros}`, "µs"],
      ["max foot / hand error (of height)", `${r.maxFootErrorOfHeight} / ${r.maxHandErrorOfHeight}`, ""],
      ["BipedIK: allocated per frame", r.bipedBytesPerFrame, "B"],
      [
        "BipedIK: max foot / hand error (of height)",
        `${r.bipedMaxFootErrorOfHeight} / ${r.bipedMaxHandErrorOfHeight}`,
        "",
      ],
    ];
    for (const c of r.characters) {
      rows.push([
        `${c.count} characters: per character`,
        c.microsPerCharacter,
        `µs (CPU ${c.cpuMicrosPerCharacter}; p95 ${c.p95MicrosPerCharacter}; frame ${c.frameMicros} µs; ` +
          `${c.gcsDuringTiming} GCs = ${c.gcMicrosPerCharacter} µs/char; render ${c.renderWithIkMicros} / ` +
          `${c.renderWithoutIkMicros} µs with / without IK)`,
      ]);
    }
    rows.push(
      [
        "100 characters: allocated per frame",
        r.bytesPerFrame100,
        `B (${r.bytesPerCharacterUpdate100} B per character update, ${r.allocation100Gcs} GCs)`,
      ],
      ["setup of 1,000 characters", r.setupSeconds, "s"],
      ...crowdMemoryRows(r.crowdMemory),
      [
        `memory probe: a random line of ${r.memoryProbe.mb.join(" / ")} MB`,
        r.memoryProbe.nsPerLine.join(" / "),
        "ns (see bench/memory-probe.ts)",
      ],
      ["rig bones / iterations", `${r.rigBones} / ${r.iterations}`, ""],
      ["solver active", r.solverActive ? "yes" : "NO", ""],
    );
    return rows;
  },
  checks: (r) => {
    const first = r.characters[0]!;
    const last = r.characters[r.characters.length - 1]!;
    const ratio = round(last.microsPerCharacter / first.microsPerCharacter, 2);
    const checks: TargetCheck[] = [
      solverActiveCheck(r.solverActive),
      atMost(
        "one Mannequin: median per frame",
        r.frameMedianMicrosPerCharacter,
        FRAME_TARGETS.microsPerCharacter,
        "µs",
      ),
    ];
    for (const c of r.characters) {
      checks.push(
        atMost(`${c.count} characters: per character`, c.microsPerCharacter, FRAME_TARGETS.microsPerCharacter, "µs"),
      );
    }
    checks.push(atMost(`flat: ${last.count} vs ${first.count} character(s)`, ratio, FRAME_TARGETS.scalingRatio, "×"));
    checks.push({
      label: "bytes per frame (one Mannequin)",
      value: r.bytesPerFrame,
      unit: "B",
      target: `0 (< ${FRAME_TARGETS.bytesPerCharacterUpdateBelow} B: no per-frame allocation)`,
      pass: r.bytesPerFrame < FRAME_TARGETS.bytesPerCharacterUpdateBelow,
    });
    for (const [label, value] of [
      ["one Mannequin, fractional weights", r.fractionalBytesPerFrame],
      ["one Mannequin on BipedIK", r.bipedBytesPerFrame],
    ] as const) {
      checks.push({
        label: `bytes per frame (${label})`,
        value,
        unit: "B",
        target: `0 (< ${FRAME_TARGETS.bytesPerCharacterUpdateBelow} B)`,
        pass: value < FRAME_TARGETS.bytesPerCharacterUpdateBelow,
      });
    }
    checks.push({
      label: "bytes per frame (100 characters)",
      value: r.bytesPerFrame100,
      unit: "B",
      target:
        `0 (< ${100 * FRAME_TARGETS.bytesPerCharacterUpdateBelow} B: ` +
        `< ${FRAME_TARGETS.bytesPerCharacterUpdateBelow} B per character update)`,
      pass: r.bytesPerCharacterUpdate100 < FRAME_TARGETS.bytesPerCharacterUpdateBelow,
    });
    return checks;
  },
};
