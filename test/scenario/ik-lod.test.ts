/**
 * IK level of detail (IKLevelOfDetail): levels by distance and screen size with hysteresis, the weight fade
 * at a change of level (no frame-to-frame jump above 0.5 % of the height), Off doing no work, the budget
 * lowering the farthest first, the user's settings untouched, bit-exact output at Full and without a
 * controller, and dispose.
 */
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { FBBIKHeadEffector } from "../../src/effectors/head/fbbik-head-effector.js";
import { IKLevel, LodCharacter } from "../../src/babylon/lod/lod-character.js";
import { OutputFade } from "../../src/babylon/lod/output-fade.js";
import { SceneUpdater } from "../../src/babylon/scene-updater.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

async function mannequin(): Promise<LoadedModel> {
  const m = await loadModel("Mannequin");
  open.push(m);
  return m;
}

/** Both hands on targets a tenth of the height from where the animation holds them (frozen). */
function reach(ik: FullBodyBipedIK, h: number): void {
  const s = ik.solver;
  for (const [e, d] of [
    [s.leftHandEffector, new Vector3(0.06, 0.08, 0.03)],
    [s.rightHandEffector, new Vector3(-0.05, 0.07, 0.06)],
  ] as const) {
    e.position.copyFrom(worldPos(e.bone!).add(d.scale(h)));
    e.positionWeight = 1;
  }
}

/** Every bone's local rotation and position, as numbers. */
function locals(skeleton: Skeleton): number[] {
  const out: number[] = [];
  for (const b of skeleton.bones) {
    const n = b.getTransformNode()!;
    const q = n.rotationQuaternion!;
    out.push(q.x, q.y, q.z, q.w, n.position.x, n.position.y, n.position.z);
  }
  return out;
}

/** Every bone's world position. */
function positions(skeleton: Skeleton): Vector3[] {
  return skeleton.bones.map((b) => worldPos(b));
}

function largestJump(a: Vector3[], b: Vector3[]): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Vector3.Distance(a[i]!, b[i]!));
  return worst;
}

/** Clones of the model's character (its own skeleton each) at the given world positions. */
function clones(m: LoadedModel, at: Vector3[]): { root: TransformNode; skeleton: Skeleton }[] {
  return at.map((p, i) => {
    const e = m.container.instantiateModelsToScene((name) => `c${i}_${name}`, false, { doNotInstantiate: true });
    const root = e.rootNodes[0] as TransformNode;
    root.position.copyFrom(p);
    root.computeWorldMatrix(true);
    return { root, skeleton: e.skeletons[0]! };
  });
}

/** Four clones in a row before the camera under a level of detail with a 0.3 ms budget. */
async function budgetCrowd() {
  const m = await mannequin();
  m.root.position.set(1000, 0, 0);
  const crowd = clones(
    m,
    [0, 1, 2, 3].map((i) => new Vector3(0, 0, 2 * i)),
  );
  const iks = crowd.map((c) => FullBodyBipedIK.create(m.scene, c.skeleton));
  const lod = IKLevelOfDetail.for(m.scene);
  Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, budgetMs: 0.3 });
  m.scene.activeCamera!.position.set(0, 1, -4);
  return { m, crowd, iks, lod };
}

/** `n` clones in a row before the camera, levelled by the budget alone. */
async function costCrowd(n: number) {
  const m = await mannequin();
  const h = height(m);
  m.root.position.set(1000, 0, 0);
  const crowd = clones(
    m,
    Array.from({ length: n }, (_, i) => new Vector3(0, 0, 2 * i)),
  );
  const iks = crowd.map((c) => FullBodyBipedIK.create(m.scene, c.skeleton));
  const lod = IKLevelOfDetail.for(m.scene);
  Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0 });
  m.scene.activeCamera!.position.set(0, 1, -4);
  return { m, crowd, iks, lod, h };
}

/**
 * `performance.now()` on a clock that only the IKs' updates move: 0.1 ms at Full, 0.06 at Cheap, 0.02 fading out,
 * and more in the first frames, as on 40 walking Xbots (compiling: the first frame 100 ms, then a cost that falls
 * to within 5 % of the steady one by frame 60). `fixed`: a part no level saves, `controller` ms for each character
 * the controller places (its own work: 0.19 ms of the pass for 40 walking Xbots all Off, the pass 0.19 ms) and
 * `other` ms a frame in an update the controller does not level (an IK of another kind).
 */
function costClock(iks: FullBodyBipedIK[], lod: IKLevelOfDetail, fixed = { controller: 0, other: 0 }) {
  let ms = 0;
  let frame = 0;
  const now = vi.spyOn(performance, "now").mockImplementation(() => ms);
  const scene = iks[0]!.scene;
  const counter = scene.onAfterRenderObservable.add(() => frame++);
  const hooks = iks.map((ik) =>
    ik.solver.onPreUpdateObservable.add(() => {
      const level = lod.levelOf(ik);
      const steady = level === IKLevel.Full ? 0.1 : level === IKLevel.Cheap ? 0.06 : 0.02;
      ms += steady * (1 + 20 * Math.exp(-frame / 10)) + (frame === 0 ? 100 / iks.length : 0);
    }),
  );
  const place = LodCharacter.prototype.place;
  const placed = vi.spyOn(LodCharacter.prototype, "place").mockImplementation(function (this: LodCharacter) {
    ms += fixed.controller;
    place.call(this);
  });
  const other = { _beforeAnimations: () => {}, _beforeRender: () => (ms += fixed.other) };
  SceneUpdater.for(scene).add(other);
  return {
    restore(): void {
      now.mockRestore();
      placed.mockRestore();
      SceneUpdater.for(scene).remove(other);
      scene.onAfterRenderObservable.remove(counter);
      iks.forEach((ik, i) => ik.solver.onPreUpdateObservable.remove(hooks[i]!));
    },
  };
}

/**
 * A crowd of `n` under `budgetMs` on {@link costClock} with `fixed`, the far half Cheap by distance when `mixed`:
 * the budget's changes (`frame demotion`) over `frames` frames, and the cost at the end.
 */
async function budgetRun(n: number, budgetMs: number, mixed: boolean, fixed: { controller: number; other: number }) {
  const { m, iks, lod } = await costCrowd(n);
  Object.assign(lod, { budgetMs, cheapDistance: mixed ? n + 3 : Number.POSITIVE_INFINITY });
  const clock = costClock(iks, lod, fixed);
  const changes: { frame: number; demotion: number }[] = [];
  try {
    for (let f = 0; f < 450; f++) {
      m.scene.render();
      const d = lod.budgetDemotion;
      if (d !== (changes.at(-1)?.demotion ?? 0)) changes.push({ frame: f, demotion: d });
    }
  } finally {
    clock.restore();
  }
  const cost = lod.costMs;
  m.dispose();
  open.splice(open.indexOf(m), 1);
  return {
    changes,
    cost,
    text: `${n}${mixed ? " mixed" : ""} at ${budgetMs} ms: ${changes.map((c) => `f${c.frame} ${c.demotion}`).join(", ")} (cost ${cost.toFixed(3)})`,
  };
}

describe("IK level of detail", () => {
  it("is off by default, and at Full with weight 1 the output is bit-exact as without it", async () => {
    const runs: number[][][] = [];
    for (const withLod of [false, true]) {
      const m = await mannequin();
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      expect(IKLevelOfDetail.get(m.scene)).toBeNull();
      const lod = withLod ? IKLevelOfDetail.for(m.scene) : null;
      reach(ik, height(m));
      const frames: number[][] = [];
      for (let f = 0; f < 20; f++) {
        ik.solver.leftHandEffector.position.x += 0.002 * Math.sin(f);
        m.scene.render();
        frames.push(locals(m.skeleton));
      }
      if (lod !== null) expect(lod.levelOf(ik)).toBe(IKLevel.Full);
      runs.push(frames);
    }
    expect(runs[1]).toEqual(runs[0]);
  });

  it("levels by distance, with hysteresis: no flicker at a threshold", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, cheapDistance: 10, offDistance: 20, budgetMs: Infinity });
    const camera = m.scene.activeCamera!;
    camera.position.set(0, 1, -5);
    const at = (d: number): void => {
      // the character's bounds centre is about a metre up: the camera moves back along -z
      camera.position.z = -d;
    };
    const levels: number[] = [];
    const settle = (d: number, frames = 40): void => {
      at(d);
      for (let i = 0; i < frames; i++) m.scene.render();
    };
    settle(5);
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    // wobbling ±4 % around the cheap threshold never changes the level (the band is 10 %)
    for (let i = 0; i < 60; i++) {
      at(10 + 0.4 * Math.sin(i));
      m.scene.render();
      levels.push(lod.levelOf(ik));
    }
    expect(new Set(levels)).toEqual(new Set([IKLevel.Full]));
    settle(11.5);
    expect(lod.levelOf(ik)).toBe(IKLevel.Cheap);
    levels.length = 0;
    for (let i = 0; i < 60; i++) {
      at(10 + 0.4 * Math.sin(i));
      m.scene.render();
      levels.push(lod.levelOf(ik));
    }
    expect(new Set(levels)).toEqual(new Set([IKLevel.Cheap]));
    settle(23);
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    settle(5);
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    expect(lod.weightOf(ik)).toBe(1);
  });

  it("notifies each change of level once, as it starts, with one reused event", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, cheapDistance: 10, offDistance: 20, budgetMs: Infinity });
    const changes: string[] = [];
    const events = new Set<object>();
    lod.onLevelChangedObservable.add((e) => {
      changes.push(`${e.previousLevel}→${e.level}`);
      events.add(e);
      expect(e.ik).toBe(ik);
      // what levelOf reports from now on
      expect(lod.levelOf(ik)).toBe(e.level);
    });
    const camera = m.scene.activeCamera!;
    for (const d of [5, 15, 25, 5]) {
      camera.position.z = -d;
      for (let i = 0; i < 90; i++) m.scene.render();
    }
    lod.setManaged(ik, false);
    camera.position.z = -25;
    for (let i = 0; i < 90; i++) m.scene.render();
    expect(changes).toEqual(["2→1", "1→0", "0→2"]);
    expect(events.size).toBe(1);
    lod.dispose();
    expect(lod.onLevelChangedObservable.hasObservers()).toBe(false);
  });

  it("levels a character where it stands now, after its root moved (no mesh renders its armature node)", async () => {
    const m = await loadModel("UAL");
    open.push(m);
    const [a] = clones(m, [new Vector3(0, 0, 0)]);
    m.root.setEnabled(false);
    const ik = FullBodyBipedIK.create(m.scene, a!.skeleton);
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, cheapDistance: 10, offDistance: 20, budgetMs: Infinity });
    m.scene.activeCamera!.position.set(0, 1, -5);
    for (let i = 0; i < 10; i++) m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    // moved 30 m away along the view (beyond offDistance) by its root only, as a crowd's grid re-layout does
    a!.root.position.z = 30;
    for (let i = 0; i < 40; i++) m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    a!.root.position.z = 0;
    for (let i = 0; i < 40; i++) m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    // removed from the game while Off: the IK still notices and disposes itself (nothing keeps the clone)
    a!.root.position.z = 30;
    for (let i = 0; i < 90; i++) m.scene.render();
    expect(ik._lodOff).toBe(true);
    a!.root.dispose();
    a!.skeleton.dispose();
    for (let i = 0; i < 3; i++) m.scene.render();
    expect(ik.isDisposed).toBe(true);
    expect(lod.viewOf(ik)).toBeNull();
  });

  it("levels a character moved between its IK's create() and the controller's (no frame in between)", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    // spawned where it belongs before any frame, then the controller made: it measures the character there
    m.root.position.z = 30;
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, cheapDistance: 10, offDistance: 20, budgetMs: Infinity });
    m.scene.activeCamera!.position.set(0, 1, -5);
    for (let i = 0; i < 3; i++) m.scene.render();
    const view = lod.viewOf(ik)!;
    expect(view.centre.z).toBeGreaterThan(29);
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
  });

  it("a character not shown is Off at once (no fade, no budget share); shown again, at its level at once", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const h = height(m);
    reach(ik, h);
    const lod = IKLevelOfDetail.for(m.scene);
    lod.budgetMs = Infinity;
    m.scene.activeCamera!.position.set(0, 1, -4);
    for (let i = 0; i < 20; i++) m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    const hand = ik.solver.leftHandEffector;
    const miss = (): number => Vector3.Distance(worldPos(hand.bone!), hand.position) / h;
    expect(miss()).toBeLessThan(1e-3);
    m.root.setEnabled(false);
    m.scene.render();
    expect([lod.levelOf(ik), ik._lodOff, lod.viewOf(ik)!.visible]).toEqual([IKLevel.Off, true, false]);
    for (let i = 0; i < 10; i++) m.scene.render();
    // shown again: on its target from the first frame, not faded in from the animation over fadeSeconds
    m.root.setEnabled(true);
    m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    expect(miss()).toBeLessThan(1e-3);
  });

  it("a hand's fadeSeconds ease takes its time at every level, solved every frame or not", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const h = height(m);
    reach(ik, h);
    const hand = ik.solver.leftHandEffector;
    hand.fadeSeconds = 0.3;
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, budgetMs: Infinity });
    m.scene.activeCamera!.position.set(0, 1, -4);
    const miss = (): number => Vector3.Distance(worldPos(hand.bone!), hand.position) / h;
    const dt = 0.016; // the scenes' useConstantAnimationDeltaTime
    /** The scene time the hand takes to reach its target once its weight steps 0 → 1, `frame` one frame. */
    const fadeIn = (frame: () => void): number => {
      hand.positionWeight = 0;
      for (let i = 0; i < 60; i++) frame();
      hand.positionWeight = 1;
      let f = 0;
      while (f < 200 && !(miss() < 1e-4)) {
        frame();
        f++;
      }
      return f * dt;
    };
    const render = (): void => m.scene.render();
    for (const [cheapDistance, level] of [
      [Number.POSITIVE_INFINITY, IKLevel.Full],
      [1, IKLevel.Cheap],
    ] as const) {
      lod.cheapDistance = cheapDistance;
      // past the level's own cross-fade (1.2 s)
      for (let i = 0; i < 90; i++) render();
      expect(lod.levelOf(ik)).toBe(level);
      const seconds = fadeIn(render);
      console.log(`fadeSeconds 0.3 at level ${level}: ${seconds.toFixed(3)} s`);
      expect(Math.abs(seconds - 0.3)).toBeLessThanOrEqual(dt + 1e-9);
    }
    // solved every third frame (update() by hand): the ease follows the scene's time, not the solves (was 0.91 s)
    ik.autoUpdate = false;
    let n = 0;
    const third = (): void => {
      render();
      if (++n % 3 === 0) ik.update();
    };
    const everyThird = fadeIn(third);
    console.log(`fadeSeconds 0.3, solved every third frame: ${everyThird.toFixed(3)} s`);
    expect(Math.abs(everyThird - 0.3)).toBeLessThanOrEqual(3 * dt + 1e-9);
    ik.autoUpdate = true;
    // hidden (Off) in the middle of an ease for longer than it lasts: shown again, the ease is over (was: the
    // hand 8.2 % of the height short, the ease going on from where it stopped)
    hand.positionWeight = 0;
    for (let i = 0; i < 40; i++) render();
    hand.positionWeight = 1;
    for (let i = 0; i < 3; i++) render();
    m.root.setEnabled(false);
    for (let i = 0; i < 30; i++) render();
    m.root.setEnabled(true);
    render();
    console.log(`shown again 0.48 s into a 0.3 s ease: the hand ${(miss() * 100).toExponential(2)} % of h off`);
    expect(miss()).toBeLessThan(1e-4);
  });

  it("levels by screen size and frustum with the defaults", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const lod = IKLevelOfDetail.for(m.scene);
    lod.budgetMs = Infinity;
    const camera = m.scene.activeCamera!;
    const seen: number[] = [];
    for (const z of [-4, -20, -200]) {
      camera.position.set(0, 1, z);
      for (let i = 0; i < 60; i++) m.scene.render();
      seen.push(lod.levelOf(ik));
    }
    expect(seen).toEqual([IKLevel.Full, IKLevel.Cheap, IKLevel.Off]);
    // near but looking away: out of the frustum counts as far
    camera.position.set(0, 1, 4);
    for (let i = 0; i < 60; i++) m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    // scaled ×0.01 after it joined: near the camera it is tiny on screen now
    camera.position.set(0, 1, -4);
    for (let i = 0; i < 60; i++) m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    m.root.scaling.scaleInPlace(0.01);
    for (let i = 0; i < 60; i++) m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
  });

  it("a camera that draws none of a character's meshes (a GUI camera's layerMask) does not level it", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const lod = IKLevelOfDetail.for(m.scene);
    lod.budgetMs = Infinity;
    const camera = m.scene.activeCamera!;
    camera.position.set(0, 1, -200); // the character a speck: Off
    // Babylon's recipe for a GUI over the scene: a second camera that draws the GUI's layer only
    const gui = new FreeCamera("gui", new Vector3(0, 1, -3), m.scene);
    gui.layerMask = 0x10000000;
    m.scene.activeCameras = [camera, gui];
    for (let i = 0; i < 100; i++) m.scene.render();
    const seenFromGui = lod.levelOf(ik);
    // a mesh put on the GUI's layer is drawn by it: then the GUI camera levels the character
    for (const mesh of m.scene.meshes) if (mesh.skeleton === m.skeleton) mesh.layerMask = 0x10000000;
    for (let i = 0; i < 100; i++) m.scene.render();
    if (process.env.FBBIK_REPORT)
      console.log(`level with the GUI camera: ${seenFromGui}, meshes on its layer: ${lod.levelOf(ik)}`);
    expect(seenFromGui).toBe(IKLevel.Off);
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
  });

  it("fades at every change of level: no bone jumps more than 0.5 % of the height between frames", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const h = height(m);
    reach(ik, h);
    ik.solver.leftArmChain.pull = 1;
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, cheapDistance: 10, offDistance: 20, budgetMs: Infinity });
    const camera = m.scene.activeCamera!;
    for (let i = 0; i < 5; i++) m.scene.render();
    let last = positions(m.skeleton);
    let worst = 0;
    const changes = new Set<string>();
    let level = lod.levelOf(ik);
    // Full → Cheap → Off → Full → Off → Cheap → Full, and a change of mind halfway through a fade
    for (const [d, frames] of [
      [15, 90],
      [25, 90],
      [5, 90],
      [25, 90],
      [15, 90],
      [5, 10],
      [15, 10],
      [5, 90],
    ] as const) {
      camera.position.z = -d;
      for (let i = 0; i < frames; i++) {
        m.scene.render();
        const now = positions(m.skeleton);
        worst = Math.max(worst, largestJump(last, now) / h);
        last = now;
        const l = lod.levelOf(ik);
        if (l !== level) changes.add(`${level}→${l}`);
        level = l;
      }
    }
    expect(changes).toEqual(new Set(["2→1", "1→0", "0→2", "2→0", "0→1", "1→2"]));
    expect(worst).toBeGreaterThan(0);
    if (process.env.FBBIK_REPORT)
      console.log(`largest jump at a level change: ${(worst * 100).toFixed(3)} % of height`);
    expect(worst).toBeLessThanOrEqual(0.005);
  });

  it("a fade under a moving target ends without a catch-up: no bone outpaces both levels by more than the fade's", async () => {
    const m = await mannequin();
    m.root.position.set(1000, 0, 0);
    // the character, and twins outside the controller at Full and at Cheap's 0 iterations, on one moving target
    const [me, full, cheap] = clones(m, [Vector3.Zero(), Vector3.Zero(), Vector3.Zero()]).map((c) =>
      FullBodyBipedIK.create(m.scene, c.skeleton),
    );
    const h = height(m);
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, cheapDistance: 10, offDistance: 20, budgetMs: Infinity });
    lod.setManaged(full!, false);
    lod.setManaged(cheap!, false);
    cheap!.solver.iterations = 0;
    const from = worldPos(me!.solver.leftHandEffector.bone!);
    for (const ik of [me!, full!, cheap!]) {
      ik.solver.leftHandEffector.positionWeight = 1;
      ik.solver.leftArmChain.pull = 1;
    }
    const camera = m.scene.activeCamera!;
    let frame = 0;
    let last: Vector3[][] | null = null;
    /** Renders `n` frames, the target circling 0.15 h about a point before the hand: the worst excess, % h. */
    const run = (d: number, n: number): number => {
      camera.position.z = -d;
      let worst = 0;
      for (let i = 0; i < n; i++, frame++) {
        const a = frame * 0.05;
        for (const ik of [me!, full!, cheap!])
          ik.solver.leftHandEffector.position.set(
            from.x + 0.15 * h * Math.cos(a),
            from.y + 0.1 * h + 0.15 * h * Math.sin(a),
            from.z - 0.15 * h,
          );
        m.scene.render();
        const now = [me!, full!, cheap!].map((ik) => positions(ik.skeleton));
        if (last !== null) {
          for (let b = 0; b < now[0]!.length; b++) {
            const jump = (k: number) => Vector3.Distance(last![k]![b]!, now[k]![b]!);
            worst = Math.max(worst, (jump(0) - Math.max(jump(1), jump(2))) / h);
          }
        }
        last = now;
      }
      return worst;
    };
    run(5, 10);
    // out to Off, back to Full, out to Cheap and back: each fade over 1.2 s (72 frames), a settled stretch after
    const fades = [run(25, 100), run(5, 100), run(15, 100), run(5, 100)];
    expect(lod.levelOf(me!)).toBe(IKLevel.Full);
    if (process.env.FBBIK_REPORT)
      console.log(`beyond both levels' motion in a frame: ${fades.map((f) => (f * 100).toFixed(3)).join(", ")} % h`);
    // the fade's own pace: the hand held up to 0.35 h off its animated place, 0.016 s / 1.2 s of it a frame
    for (const f of fades) expect(f).toBeLessThanOrEqual(0.005);
  });

  it("a controller created while a character solves fades it from what it shows, without a pop", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const h = height(m);
    reach(ik, h);
    m.scene.activeCamera!.position.z = -30;
    for (let i = 0; i < 5; i++) m.scene.render();
    const solved = positions(m.skeleton);
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { offDistance: 20, budgetMs: Infinity });
    let last = solved;
    let worst = 0;
    for (let i = 0; i < 90; i++) {
      m.scene.render();
      const now = positions(m.skeleton);
      worst = Math.max(worst, largestJump(last, now) / h);
      last = now;
    }
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    expect(largestJump(solved, last) / h).toBeGreaterThan(0.05);
    expect(worst).toBeLessThanOrEqual(0.005);
  });

  it("Off does no work: no FixTransforms, read, solve or write, and the bones keep the animated pose", async () => {
    const m = await mannequin();
    const animated = locals(m.skeleton);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    reach(ik, height(m));
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { offDistance: 20, budgetMs: Infinity });
    m.scene.render();
    expect(locals(m.skeleton)).not.toEqual(animated);
    m.scene.activeCamera!.position.z = -30;
    // the fade (1.2 s at 16 ms a frame) and a frame more
    for (let i = 0; i < 90; i++) m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    const fix = vi.spyOn(ik.rig, "fixTransforms");
    const read = vi.spyOn(ik.rig, "read");
    const write = vi.spyOn(ik.rig, "write");
    const solve = vi.spyOn(ik.solver.inner, "update");
    for (let i = 0; i < 10; i++) m.scene.render();
    expect([fix.mock.calls.length, read.mock.calls.length, write.mock.calls.length, solve.mock.calls.length]).toEqual([
      0, 0, 0, 0,
    ]);
    expect(locals(m.skeleton)).toEqual(animated);
  });

  it("never changes the user's ikPositionWeight or iterations", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    reach(ik, height(m));
    ik.solver.ikPositionWeight = 0.8;
    ik.solver.iterations = 3;
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { cheapDistance: 10, budgetMs: Infinity });
    m.scene.activeCamera!.position.z = -15;
    const seen: number[][] = [];
    ik.solver.onPostUpdateObservable.add(() => seen.push([ik.solver.ikPositionWeight, ik.solver.iterations]));
    for (let i = 0; i < 40; i++) {
      m.scene.render();
      expect([ik.solver.ikPositionWeight, ik.solver.iterations]).toEqual([0.8, 3]);
    }
    expect(lod.levelOf(ik)).toBe(IKLevel.Cheap);
    // inside the solve, the iterations in effect: 0 at Cheap
    expect(seen[seen.length - 1]).toEqual([0.8, 0]);
  });

  it("a head effector at Cheap does not warn of 0 iterations (the level's choice); the user's 0 still warns", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const headset = new TransformNode("headset", m.scene);
    headset.position.copyFrom(worldPos(ik.references.head!));
    FBBIKHeadEffector.create(ik, { target: headset });
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { cheapDistance: 10, budgetMs: Infinity });
    m.scene.activeCamera!.position.z = -15;
    for (let i = 0; i < 40; i++) m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Cheap);
    expect(ik.warningsRaised).toEqual([]);
    lod.dispose();
    ik.solver.iterations = 0;
    m.scene.render();
    expect(ik.warningsRaised.map((w) => w.cause)).toContain("headEffector:iterations");
  });

  it("the budget lowers the farthest characters first and gives the levels back under it", async () => {
    const { m, iks, lod } = await budgetCrowd();
    // a clock the solve pass costs 0.5 ms a frame on, whatever the levels (an update the controller does not level)
    let clock = 0;
    let pass = 0.5;
    const now = vi.spyOn(performance, "now").mockImplementation(() => clock);
    SceneUpdater.for(m.scene).add({ _beforeAnimations: () => {}, _beforeRender: () => (clock += pass) });
    const seen = new Set<string>();
    try {
      for (let f = 0; f < 500; f++) {
        m.scene.render();
        const levels = iks.map((ik) => lod.levelOf(ik));
        // nearest first in the array: the levels never rise with distance
        for (let i = 1; i < levels.length; i++) expect(levels[i]).toBeLessThanOrEqual(levels[i - 1]!);
        seen.add(levels.join(""));
      }
    } finally {
      now.mockRestore();
    }
    expect(lod.costMs).toBeCloseTo(0.5, 1);
    // the farthest went first, the nearest last
    expect(seen.has("2222")).toBe(true);
    expect([...seen].some((l) => l.startsWith("2") && l.endsWith("0"))).toBe(true);
    expect(seen.has("0000")).toBe(true);
    // all off, then cheap again (or the budget raised): the levels come back, though none runs to measure
    expect(iks.map((ik) => lod.levelOf(ik)).join("")).toBe("0000");
    pass = 0.05;
    const cheaper = vi.spyOn(performance, "now").mockImplementation(() => clock);
    try {
      for (let f = 0; f < 600; f++) m.scene.render();
    } finally {
      cheaper.mockRestore();
    }
    expect(iks.map((ik) => lod.levelOf(ik)).join("")).toBe("2222");
    lod.budgetMs = Infinity;
    for (let f = 0; f < 60; f++) m.scene.render();
    expect(iks.map((ik) => lod.levelOf(ik))).toEqual([IKLevel.Full, IKLevel.Full, IKLevel.Full, IKLevel.Full]);
    expect(lod.budgetDemotion).toBe(0);
  });

  it("the budget ignores a spike on one of two timed frames (a garbage collection), counts a lasting cost", async () => {
    const { m, iks, lod } = await budgetCrowd();
    lod.budgetMs = 1;
    // the solves cost 0.05 ms a frame; every `every` frames one of them is slowed by 10 ms, on a timed frame
    // every other time (40 Xbots walking: the solve pass's median 0.43 ms, p99 5.0 ms, max 6.5 ms)
    let clock = 0;
    let frame = 0;
    let every = 128;
    const now = vi.spyOn(performance, "now").mockImplementation(() => (clock += 0.025));
    iks[0]!.solver.onPreUpdateObservable.add(() => {
      if (frame % every === 0) clock += 10;
    });
    try {
      for (; frame < 600; frame++) m.scene.render();
      const spiked = lod.budgetDemotion;
      // 10 ms more every frame: a real cost, the budget lowers the farthest
      every = 1;
      for (; frame < 900; frame++) m.scene.render();
      if (process.env.FBBIK_REPORT)
        console.log(
          `levels taken by the budget: ${spiked} under one spike in 128 frames, ${lod.budgetDemotion} under lasting ones`,
        );
      expect(spiked).toBe(0);
      expect(lod.budgetDemotion).toBeGreaterThan(0);
    } finally {
      now.mockRestore();
    }
  });

  it("the budget counts and lowers only IKs that solve; one switched back on joins it, fading", async () => {
    const { m, iks, lod, h } = await costCrowd(8);
    for (const ik of iks) {
      reach(ik, h);
      ik.enableFadeSeconds = 1.2;
    }
    // the odd ones off, the farthest among them: the budget's first choice when it counted them
    const off = iks.filter((_, i) => i % 2 === 1);
    for (const ik of off) ik.enabled = false;
    lod.budgetMs = 0.3;
    const clock = costClock(iks, lod);
    try {
      for (let f = 0; f < 600; f++) m.scene.render();
      const levels = iks.map((ik) => lod.levelOf(ik)).join("");
      const cost = lod.costMs;
      // switched back on: they join the budget, and nothing pops (the IK's own fade, then the level's)
      for (const ik of off) ik.enabled = true;
      let last = iks.map((ik) => positions(ik.skeleton));
      let worst = 0;
      for (let f = 0; f < 900; f++) {
        m.scene.render();
        const now = iks.map((ik) => positions(ik.skeleton));
        for (let i = 0; i < iks.length; i++) worst = Math.max(worst, largestJump(last[i]!, now[i]!) / h);
        last = now;
      }
      const joined = iks.map((ik) => lod.levelOf(ik)).join("");
      if (process.env.FBBIK_REPORT)
        console.log(
          `4 of 8 off: levels ${levels} (cost ${cost.toFixed(2)} ms, budget 0.3); all on: ${joined} ` +
            `(cost ${lod.costMs.toFixed(2)} ms), largest jump ${(worst * 100).toFixed(3)} % of height`,
        );
      // was 22220000: half the levels lowered went to off IKs (the farthest), saving nothing
      expect([1, 3, 5, 7].map((i) => levels[i]).join("")).toBe("2222");
      expect(levels).not.toBe("22222222");
      expect(cost).toBeLessThanOrEqual(0.3);
      expect(joined).not.toBe(levels);
      expect(lod.costMs).toBeLessThanOrEqual(0.3);
      expect(worst).toBeLessThanOrEqual(0.005);
    } finally {
      clock.restore();
    }
  });

  it("the budget's first change lands within a level of where it settles (the warm-up's frames not timed)", async () => {
    const { m, iks, lod } = await costCrowd(8);
    // 8 at Full cost 0.84 ms once warm: a budget just under that takes one level or two
    lod.budgetMs = 0.8;
    const clock = costClock(iks, lod);
    const steps: string[] = [];
    let first = -1;
    try {
      for (let f = 0; f < 1200; f++) {
        m.scene.render();
        const d = lod.budgetDemotion;
        if (first < 0 && d > 0) first = d;
        if (steps.length === 0 || !steps[steps.length - 1]!.endsWith(` ${d}`)) steps.push(`f${f} ${d}`);
      }
    } finally {
      clock.restore();
    }
    const settled = lod.budgetDemotion;
    if (process.env.FBBIK_REPORT) console.log(`levels taken by the budget, frame by frame: ${steps.join(", ")}`);
    // was 6 (three of eight Off) from the first frame's compile, settling at 1 or 2
    expect(settled).toBeGreaterThan(0);
    expect(Math.abs(first - settled)).toBeLessThanOrEqual(1);
  });

  // six crowds of up to 80 for 450 frames: 84 s on two cores shared at a load of 10, 145–197 s at 12, over the default
  // 120 s; the budget reads the injected clock (costClock), so the time taken changes nothing but the timeout
  it("the budget's first change reaches it where the cost has a fixed part (the controller's own work)", {
    timeout: 600_000,
  }, async () => {
    // the controller's work for a character a fifth of a Full one's IK: the cost per level an average of the pass
    // overestimated what a level saves (40 Full at 2 ms: 0.06 ms a level, 0.05 saved), so the first change fell short
    const fixed = { controller: 0.02, other: 0 };
    const runs = [];
    for (const [n, budget, mixed] of [
      [10, 0.5, false],
      [20, 1, true],
      [40, 2, false],
      [40, 2, true],
      [80, 4, false],
      // over 3 budgets a measure is a bound (COST_CLAMP): 4.8 ms at 1 ms may take a second change
      [40, 1, false],
    ] as const)
      runs.push({ n, budget, ...(await budgetRun(n, budget, mixed, fixed)) });
    if (process.env.FBBIK_REPORT) console.log(`levels taken by the budget:\n${runs.map((r) => r.text).join("\n")}`);
    for (const r of runs) {
      // one change (two over 3 budgets, the same way), the cost it leaves inside the band the budget holds
      const bound = r.n * 0.12 > 3 * r.budget;
      expect(r.changes.length, r.text).toBeLessThanOrEqual(bound ? 2 : 1);
      expect(r.changes.at(-1)!.demotion, r.text).toBeGreaterThanOrEqual(r.changes[0]!.demotion);
      expect(r.cost, r.text).toBeLessThanOrEqual(r.budget);
      expect(r.cost, r.text).toBeGreaterThanOrEqual(r.budget * 0.8);
    }
  });

  it("the budget learns a fixed part outside the controller from its first change, without oscillating", {
    timeout: 600_000,
  }, async () => {
    // an update the controller does not level costs half a Full crowd of 20: the first change cannot know it
    const runs = [];
    for (const [n, budget] of [
      [20, 1.5],
      [40, 3],
    ] as const)
      runs.push({ budget, ...(await budgetRun(n, budget, false, { controller: 0.01, other: n * 0.05 })) });
    if (process.env.FBBIK_REPORT) console.log(`levels taken by the budget:\n${runs.map((r) => r.text).join("\n")}`);
    for (const r of runs) {
      // at most a second change, the same way as the first, and the cost inside the band
      expect(r.changes.length, r.text).toBeLessThanOrEqual(2);
      expect(r.changes.at(-1)!.demotion, r.text).toBeGreaterThanOrEqual(r.changes[0]!.demotion);
      expect(r.cost, r.text).toBeLessThanOrEqual(r.budget);
      expect(r.cost, r.text).toBeGreaterThanOrEqual(r.budget * 0.8);
    }
  });

  it("a character disposed while the budget holds it Off still takes its IK with it", async () => {
    const { m, crowd, iks, lod } = await budgetCrowd();
    // solves that cost 0.5 ms a frame: over the budget, every character ends Off
    let clock = 0;
    const now = vi.spyOn(performance, "now").mockImplementation(() => (clock += 0.5));
    try {
      for (let f = 0; f < 500; f++) m.scene.render();
      expect(iks.map((ik) => lod.levelOf(ik)).join("")).toBe("0000");
      // a game removes the farthest character without ik.dispose(); the budget is still exceeded
      crowd[3]!.root.dispose();
      crowd[3]!.skeleton.dispose();
      for (let f = 0; f < 10; f++) m.scene.render();
    } finally {
      now.mockRestore();
    }
    // was: never woken (the budget kept it Off), so the disposed character's IK stayed in the scene
    expect(iks[3]!.isDisposed).toBe(true);
    expect(lod.viewOf(iks[3]!)).toBeNull();
    expect(iks.slice(0, 3).every((ik) => !ik.isDisposed)).toBe(true);
  });

  it("follows IKs created and disposed later, excludes one on request, and detaches on dispose", async () => {
    const m = await mannequin();
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { offDistance: 20, budgetMs: Infinity });
    expect(IKLevelOfDetail.for(m.scene)).toBe(lod);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    expect(lod.isManaged(ik)).toBe(true);
    m.scene.activeCamera!.position.z = -30;
    for (let i = 0; i < 40; i++) m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    lod.setManaged(ik, false);
    for (let i = 0; i < 90; i++) m.scene.render();
    expect([lod.levelOf(ik), lod.weightOf(ik)]).toEqual([IKLevel.Full, 1]);
    lod.setManaged(ik, true);
    for (let i = 0; i < 90; i++) m.scene.render();
    expect(ik._lodOff).toBe(true);
    const updater = SceneUpdater.for(m.scene);
    expect(updater.items.length).toBe(3);
    // an offset added every frame while Off (nothing solves to reset it) is dropped, not applied at once
    ik.solver.leftHandEffector.positionOffset.y += 90;
    lod.dispose();
    expect([ik._lodOff, ik._lodCheap, ik._lodFade]).toEqual([false, false, null]);
    expect(ik.solver.leftHandEffector.positionOffset.y).toBe(0);
    expect(IKLevelOfDetail.get(m.scene)).toBeNull();
    expect(updater.items).toEqual([ik]);
    ik.dispose();
    expect(SceneUpdater.isActive(m.scene)).toBe(false);
  });
});

describe("OutputFade", () => {
  it("turns a fading bone at an even pace: no step at the end larger than at the start", () => {
    // one bone 150° off its animated rotation, fading out over 75 frames (a hand on an interaction target);
    // measured with nlerp steps: 2.33° at most where each should be 2°
    const fade = new OutputFade(2);
    const half = (150 * Math.PI) / 360;
    fade.offsets.set([0, 0, 0, Math.sin(half), 0, 0, Math.cos(half)], 7);
    const lrot = new Float64Array(8);
    const lpos = new Float64Array(6);
    const animated = new Float64Array([0, 0, 0, 0, 0, 0, 1]);
    const indexOf = new Int32Array([-1, 0]);
    fade.capture(indexOf, animated); // what is shown starts the fade
    fade.toAnimated = true;
    const steps: number[] = [];
    let angle = 150;
    for (let done = 1; done <= 75; done++) {
      fade.step = done / 75;
      fade.apply(lrot, lpos, new Uint8Array(2), new Uint8Array(2), indexOf, animated);
      const now = (360 / Math.PI) * Math.acos(Math.min(1, Math.abs(fade.offsets[13]!)));
      steps.push(angle - now);
      angle = now;
    }
    expect(angle).toBeCloseTo(0, 6);
    expect(Math.max(...steps)).toBeLessThan(2.01);
    expect(Math.min(...steps)).toBeGreaterThan(1.99);
  });
});
