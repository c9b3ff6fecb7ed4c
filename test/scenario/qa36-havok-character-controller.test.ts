/**
 * A character moved by Babylon's Havok `PhysicsCharacterController` (QA round 36), as Babylon's examples drive it:
 * `checkSupport`, `setVelocity` and `integrate` in `scene.onAfterPhysicsObservable`, the visible character's root
 * copied from `getPosition()` less half the capsule's height. UAL walks in place (its clip) while the controller
 * carries it up and down eight 0.15 × 0.3 m stairs and a 25° ramp of static Havok boxes, and jumps 0.5 m on flat
 * ground, under a GrounderFBBIK probing through HavokGroundRaycast. Measured: where the planted feet stand (the
 * ankle's height over the ground under it, less the clip's planted height on flat ground, × h), whether the solve
 * reads the controller of this frame, whether the probe finds the controller's own capsule, and the feet in a jump.
 */
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import "@babylonjs/core/Physics/joinedPhysicsEngineComponent.js";
import { PhysicsShapeType } from "@babylonjs/core/Physics/v2/IPhysicsEnginePlugin.js";
import { HavokPlugin } from "@babylonjs/core/Physics/v2/Plugins/havokPlugin.js";
import {
  type CharacterSurfaceInfo,
  CharacterSupportedState,
  PhysicsCharacterController,
} from "@babylonjs/core/Physics/v2/characterController.js";
import { PhysicsAggregate } from "@babylonjs/core/Physics/v2/physicsAggregate.js";
import { Scene } from "@babylonjs/core/scene.js";
import { describe, expect, it } from "vitest";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { GroundingHit } from "../../src/effectors/grounding/grounding-common.js";
import { HavokGroundRaycast } from "../../src/effectors/grounding/havok-ground-raycast.js";
import { type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { loadHavok } from "../helpers/havok.js";
import { havokCharacter, staticBox } from "../helpers/havok-character.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";
import { spread } from "../helpers/spread.js";

const havok = await loadHavok();
const RISE = 0.15;
const TREAD = 0.3;
const STEPS = 8;
const Z0 = 1.5;
const TOP = STEPS * RISE;
const SLOPE = (25 * Math.PI) / 180;
const RAMP = 3;
const RAMP_END = Z0 + RAMP * Math.cos(SLOPE);
const RAMP_TOP = RAMP * Math.sin(SLOPE);
/** The ground's collision layer, and the character's (the docs' advice: a bit of its own). */
const GROUND = 1;
const CHARACTER = 2;
/** UAL's walk, in m/s (docs/API.md, "Stairs"). */
const SPEED = 0.93;
const DT = 1 / 60;

type Course = "stairs" | "ramp" | "jump";

/** The surface's height at `z` (the courses run along z at x = 0; analytic: no ray can hit the capsule). */
function groundAt(course: Course, z: number): number {
  if (course === "stairs") return z < Z0 ? 0 : Math.min(TOP, (Math.floor((z - Z0) / TREAD) + 1) * RISE);
  if (course === "ramp") return z < Z0 ? 0 : z < RAMP_END ? (z - Z0) * Math.tan(SLOPE) : RAMP_TOP;
  return 0;
}

interface Run {
  /** Copy the root in `onAfterPhysicsObservable` after `integrate`, or in another observable. */
  copyIn?: "afterPhysics" | "beforeRender" | "afterRender";
  /** The docs' filter: the controller's shape on a layer of its own, left out of the probe's `collideWith`. */
  filter?: boolean;
  grounder?: boolean;
  /** The jump recipe of docs/API.md: the root's hover eased, the grounder's weight faded while unsupported. */
  recipe?: boolean;
  model?: ModelName;
}

/** Walks (or jumps) `course` as described at the top; the figures, and each frame's feet for comparisons. */
async function walk(course: Course, run: Run) {
  const m = await loadModel(run.model ?? "UAL", { clips: (c) => c === "Walk_Loop" });
  try {
    const { scene, plugin, root, ik, h, feet } = havokCharacter(m, havok.engine);
    const box = (size: Vector3, at: Vector3, tilt = 0) => {
      staticBox(scene, size, at, tilt).shape.filterMembershipMask = GROUND;
    };
    box(new Vector3(20, 1, 40), new Vector3(0, -0.5, 5));
    if (course === "stairs") {
      for (let i = 0; i < STEPS; i++)
        box(new Vector3(3, (i + 1) * RISE, TREAD), new Vector3(0, ((i + 1) * RISE) / 2, Z0 + (i + 0.5) * TREAD));
      box(new Vector3(3, TOP, 3), new Vector3(0, TOP / 2, Z0 + STEPS * TREAD + 1.5));
    } else if (course === "ramp") {
      // a slab 0.4 thick whose top runs from (Z0, 0) up to (RAMP_END, RAMP_TOP), and a platform after it
      const normal = new Vector3(0, Math.cos(SLOPE), -Math.sin(SLOPE));
      const middle = new Vector3(0, RAMP_TOP / 2, (Z0 + RAMP_END) / 2).subtract(normal.scale(0.2));
      box(new Vector3(3, 0.4, RAMP + 0.6), middle, -SLOPE);
      box(new Vector3(3, RAMP_TOP, 3), new Vector3(0, RAMP_TOP / 2, RAMP_END + 1.5));
    }
    // the clip's planted ankle height over flat ground, with the root on it
    const clip = m.container.animationGroups.find((g) => g.name === "Walk_Loop");
    clip?.start(true);
    let planted = Infinity;
    for (let f = 0; f < 60; f++) {
      scene.render();
      for (const foot of feet) planted = Math.min(planted, worldPos(foot).y);
    }

    const capsule = h;
    const controller = new PhysicsCharacterController(
      new Vector3(0, capsule / 2 + 0.1, -1),
      { capsuleHeight: capsule, capsuleRadius: 0.28 },
      scene,
    );
    if (run.filter) controller.shape.filterMembershipMask = CHARACTER;
    const inWorld = capsuleInWorld(scene);
    const probe = new HavokGroundRaycast(plugin, run.filter ? { collideWith: ~CHARACTER } : {});
    const grounder = run.grounder === false ? null : GrounderFBBIK.create(ik, { raycast: probe.raycast });
    const down = new Vector3(0, -1, 0);
    const gravity = new Vector3(0, -9.81, 0);
    const support: CharacterSurfaceInfo = controller.checkSupport(DT, down);
    const velocity = new Vector3();
    const desired = new Vector3();
    const forward = new Vector3();
    let direction = 1;
    let jump = false;
    let hover = 0;
    scene.onAfterPhysicsObservable.add(() => {
      controller.checkSupportToRef(DT, down, support);
      const supported = support.supportedState === CharacterSupportedState.SUPPORTED;
      if (supported) {
        forward.set(0, 0, direction);
        desired.set(0, 0, direction * SPEED);
        controller.calculateMovementToRef(
          DT,
          forward,
          support.averageSurfaceNormal,
          controller.getVelocity(),
          support.averageSurfaceVelocity,
          desired,
          Vector3.UpReadOnly,
          velocity,
        );
        if (jump) velocity.y = Math.sqrt(2 * 9.81 * 0.5);
        jump = false;
      } else velocity.copyFrom(controller.getVelocity()).addInPlace(gravity.scale(DT));
      controller.setVelocity(velocity);
      controller.integrate(DT, support, gravity);
      if (run.copyIn === undefined || run.copyIn === "afterPhysics") place();
      if (run.recipe && grounder !== null) {
        // faded out fast when the controller leaves the ground, back in at the pelvis's speed once it lands
        const goal = supported ? 1 : 0;
        const step = (goal < grounder.weight ? 20 : 5) * DT;
        grounder.weight += Math.max(-step, Math.min(step, goal - grounder.weight));
      }
    });
    const place = () => {
      const p = controller.getPosition();
      const foot = p.y - capsule / 2;
      if (run.recipe) {
        // the recipe: the root on the ground under a supported controller, at its foot in the air, eased between
        const goal = support.supportedState === CharacterSupportedState.SUPPORTED ? foot - groundAt(course, p.z) : 0;
        hover += (goal - hover) * 12 * DT;
      }
      root.position.set(p.x, foot - hover, p.z);
      root.rotation.y = direction > 0 ? 0 : Math.PI;
    };
    if (run.copyIn === "beforeRender") scene.onBeforeRenderObservable.add(place);
    if (run.copyIn === "afterRender") scene.onAfterRenderObservable.add(place);
    // Havok's capsule during this frame's solve: where the last integrate put it (the step's pre-step moves it)
    const havokCapsule = new Vector3(0, capsule / 2 + 0.1, -1);
    scene.onBeforePhysicsObservable.add(() => havokCapsule.copyFrom(controller.getPosition()));
    let lag = 0;
    ik.solver.onPostUpdateObservable.add(() => {
      if (scene.getFrameId() > 80) lag = Math.max(lag, Math.abs(root.position.z - controller.getPosition().z));
    });
    /** Whether `p` lies on Havok's capsule (within 1 cm). */
    const onCapsule = (p: { x: number; y: number; z: number }) => {
      const c = havokCapsule;
      const y = Math.min(c.y + capsule / 2 - 0.28, Math.max(c.y - capsule / 2 + 0.28, p.y));
      return Math.abs(Math.hypot(p.x - c.x, p.y - y, p.z - c.z) - 0.28) < 0.01;
    };

    const legs = grounder?.solver.legs;
    const up: number[] = [];
    const downs: number[] = [];
    const frames: number[] = [];
    let capsuleHits = 0;
    const supported: boolean[] = [];
    const rootAbove: number[] = [];
    const lowestFoot: number[] = [];
    const footToRoot: number[][] = [[], []];
    const pelvis: number[] = [];
    let turn = -1;
    const far = Z0 + STEPS * TREAD + 2.2;
    const go = (out: number[], to: number, most: number) => {
      for (let f = 0; f < most; f++) {
        if (course === "jump" && f === 60) jump = true;
        scene.render();
        const p = controller.getPosition();
        supported.push(support.supportedState === CharacterSupportedState.SUPPORTED);
        rootAbove.push((root.position.y - groundAt(course, root.position.z)) / h);
        let lowest = Infinity;
        for (let i = 0; i < 2; i++) {
          const at = worldPos(feet[i]!);
          frames.push(at.x, at.y, at.z);
          const above = (at.y - groundAt(course, at.z) - planted) / h;
          lowest = Math.min(lowest, above);
          footToRoot[i]!.push((at.y - root.position.y) / h);
          // a foot the clip plants (its animated height over the root at most 1 % h above the planted one)
          if (legs !== undefined && legs[i]!.footPosition.y - root.position.y > planted + 0.01 * h) continue;
          out.push(above);
          if (legs !== undefined && (onCapsule(legs[i]!.probeHit.point) || onCapsule(legs[i]!.heelHit.point)))
            capsuleHits++;
        }
        lowestFoot.push(lowest);
        pelvis.push(worldPos(ik.references.pelvis).y / h);
        if (course !== "jump" && direction * (to - p.z) < 0) return;
      }
    };
    if (course === "jump") go(up, 0, 200);
    else {
      go(up, far, 600);
      turn = pelvis.length;
      direction = -1;
      go(downs, -1.5, 600);
    }
    return {
      capsuleInWorld: inWorld,
      h,
      up,
      down: downs,
      frames,
      lag,
      capsuleHits,
      supported,
      rootAbove,
      lowestFoot,
      footToRoot,
      pelvisStep: pelvisStep(pelvis, turn),
    };
  } finally {
    m.dispose();
  }
}

/** Whether the scene's Havok world has a body named like a character controller's (Babylon 9's has one, 8.27's not). */
function capsuleInWorld(scene: Scene): boolean {
  return scene.transformNodes.some((node) => node.name === "CCTransformNode" && node.physicsBody != null);
}

/**
 * The pelvis's largest move in a frame (× h), past the first 30 frames (the grounder settling from its creation)
 * and away from the turn at `turn` (the root turned round in one frame).
 */
function pelvisStep(ys: number[], turn: number): number {
  let most = 0;
  for (let f = 31; f < ys.length; f++)
    if (Math.abs(f - turn) > 40) most = Math.max(most, Math.abs(ys[f]! - ys[f - 1]!));
  return most;
}

/** The largest change of `xs` from one frame to the next, over frames [from, to). */
function largestStep(xs: number[], from = 1, to = xs.length): number {
  let most = 0;
  for (let f = Math.max(1, from); f < to; f++) most = Math.max(most, Math.abs(xs[f]! - xs[f - 1]!));
  return most;
}

const title = havok.engine
  ? "a Havok character controller carrying UAL over stairs, a ramp and a jump"
  : `a Havok character controller (skipped: @babylonjs/havok's wasm did not load: ${havok.reason})`;

describe.skipIf(!havok.engine || !modelAvailable("UAL"))(title, () => {
  it("the solve reads this frame's controller, its root copied after the physics step or before render", async () => {
    const afterPhysics = await walk("stairs", { filter: true });
    const beforeRender = await walk("stairs", { filter: true, copyIn: "beforeRender" });
    const afterRender = await walk("stairs", { filter: true, copyIn: "afterRender" });
    const s = [spread(afterPhysics.up), spread(afterPhysics.down)];
    for (const [name, x] of [
      ["up", s[0]!],
      ["down", s[1]!],
    ] as const)
      report(
        `controller stairs ${name}: planted ankles over the tread mean, rms, lowest, highest (h)`,
        x.mean,
        x.rms,
        x.min,
        x.max,
      );
    report(
      "controller: root from the controller at the solve (m): after physics, before render, after render",
      afterPhysics.lag,
      beforeRender.lag,
      afterRender.lag,
    );
    report("controller stairs: the pelvis's largest move in a frame (h)", afterPhysics.pelvisStep);
    // the descent, where the hovering root leaves the legs short (measured 0.025 h; without the grounder 0.019 h)
    expect(afterPhysics.pelvisStep).toBeLessThan(0.03);
    // both before the solve (the IK solves after every onBeforeRenderObservable observer): the same frames
    expect(afterPhysics.lag).toBe(0);
    expect(beforeRender.frames).toEqual(afterPhysics.frames);
    // copied after render, the root shown and grounded is the last frame's: a frame's walk behind (0.93 m/s)
    expect(afterRender.lag).toBeGreaterThan((0.9 * SPEED) / 60);
    // the grounder keeps the planted feet on the treads (measured up: rms 0.047 h, highest 0.105 h; down: rms
    // 0.023 h); no ankle under its planted height
    expect(s[0]!.rms).toBeLessThan(0.06);
    expect(s[1]!.rms).toBeLessThan(0.04);
    expect(Math.min(s[0]!.min, s[1]!.min)).toBeGreaterThan(-0.01);
  });

  it("the ground probe stands feet on the controller's capsule unless its shape is filtered out", async () => {
    for (const model of ["UAL", "Mannequin"] as const) {
      const bare = await walk("stairs", { model });
      const filtered = await walk("stairs", { model, filter: true });
      const highest = (x: typeof bare) => Math.max(...x.up, ...x.down);
      report(
        `controller stairs, ${model}: planted feet probed on the capsule, highest ankle (h): bare, filtered`,
        bare.capsuleHits,
        highest(bare),
        filtered.capsuleHits,
        highest(filtered),
      );
      // the capsule's round bottom rides over the steps ahead of the feet: sweeps land on it (measured UAL: 63
      // planted feet, the ankle up to 0.25 h over the tread; Mannequin: 176, 0.28 h)
      if (bare.capsuleInWorld) {
        expect(bare.capsuleHits).toBeGreaterThan(10);
        expect(highest(bare)).toBeGreaterThan(0.18);
      } else {
        // Babylon 8.27's controller has no body in the world: nothing to find, with or without the filter
        expect(bare.capsuleHits).toBe(0);
        expect(bare.up).toEqual(filtered.up);
      }
      // docs/API.md's advice as written: none (0.106 h and 0.121 h at the highest, the stairs' own)
      expect(filtered.capsuleHits).toBe(0);
      expect(highest(filtered)).toBeLessThan(0.13);
    }
  });

  it("a probe starting inside the capsule does not find it", () => {
    const engine = new NullEngine();
    const scene = new Scene(engine);
    try {
      new FreeCamera("camera", new Vector3(0, 1, -5), scene);
      scene.enablePhysics(new Vector3(0, -9.81, 0), new HavokPlugin(false, havok.engine));
      const plugin = scene.getPhysicsEngine()!.getPhysicsPlugin() as HavokPlugin;
      const floor = CreateBox("floor", { width: 10, height: 1, depth: 10 }, scene);
      floor.position.y = -0.5;
      new PhysicsAggregate(floor, PhysicsShapeType.BOX, { mass: 0 }, scene);
      // a capsule 1.8 × 0.28 whose bottom is 0.15 above the floor, in Havok's world after a step
      new PhysicsCharacterController(new Vector3(0, 1.05, 0), { capsuleHeight: 1.8, capsuleRadius: 0.28 }, scene);
      scene.render();
      const probe = new HavokGroundRaycast(plugin);
      const hit = new GroundingHit();
      const down = { x: 0, y: -1, z: 0 };
      for (const x of [0, 0.1, 0.2])
        for (const y of [0.3, 0.6, 1]) {
          expect(probe.raycast({ x, y, z: 0 }, down, 1.5, hit)).toBe(true);
          expect(hit.point.y).toBeCloseTo(0, 6);
          expect(probe.raycast.sphereCast!({ x, y, z: 0 }, down, 0.08, 1.5, hit)).toBe(true);
          expect(hit.point.y).toBeCloseTo(0, 6);
        }
      // from outside (above), the probe stops on its round top: Babylon 9's controller puts its capsule in the
      // world as an animated body; 8.27's only casts it (the ray goes on to the floor)
      expect(probe.raycast({ x: 0.2, y: 3, z: 0 }, down, 4, hit)).toBe(true);
      const top = 1.95 - 0.28 + Math.sqrt(0.28 ** 2 - 0.2 ** 2);
      expect(hit.point.y).toBeCloseTo(capsuleInWorld(scene) ? top : 0, 3);
      probe.dispose();
    } finally {
      scene.dispose();
      engine.dispose();
    }
  });

  it("on a 25° ramp the planted feet stay on the slope", async () => {
    const ramp = await walk("ramp", { filter: true });
    const s = [spread(ramp.up), spread(ramp.down)];
    report(
      "controller ramp up, down: planted ankles over the slope rms, highest (h)",
      s[0]!.rms,
      s[0]!.max,
      s[1]!.rms,
      s[1]!.max,
    );
    report("controller ramp: the pelvis's largest move in a frame (h)", ramp.pelvisStep);
    // measured: rms 0.0043 and 0.0089 h, 0.043 and 0.050 h at the highest (where the slope meets the flat); the
    // pelvis 0.026 h in a frame going down (without the grounder 0.0086 h; pelvisReachWeight 0: 0.019 h)
    expect(ramp.pelvisStep).toBeLessThan(0.03);
    expect(Math.max(s[0]!.rms, s[1]!.rms)).toBeLessThan(0.01);
    expect(Math.min(s[0]!.min, s[1]!.min)).toBeGreaterThan(-0.01);
  });

  it("in a jump the grounder reaches for the ground within reach; the recipe lets the feet go", async () => {
    const runs = {
      none: await walk("jump", { filter: true, grounder: false }),
      grounder: await walk("jump", { filter: true }),
      recipe: await walk("jump", { filter: true, recipe: true }),
    };
    const figures = Object.fromEntries(
      Object.entries(runs).map(([name, x]) => {
        const takeoff = x.supported.indexOf(false, 55);
        const landing = x.supported.indexOf(true, takeoff);
        // how far the feet were pulled down from the clip's, in the air: the root's height less the lower foot's
        let pulled = 0;
        for (let f = takeoff; f < landing; f++) pulled = Math.max(pulled, x.rootAbove[f]! - x.lowestFoot[f]!);
        // the feet's largest move over the root in a frame, around the landing
        const moved = Math.max(...x.footToRoot.map((ys) => largestStep(ys, landing - 15, landing + 30)));
        return [name, { pulled, moved, early: x.rootAbove[landing - 4]! - x.lowestFoot[landing - 4]! }];
      }),
    );
    for (const [name, x] of Object.entries(figures))
      report(
        `controller jump, ${name}: feet pulled down in the air, moved over the root at landing (h)`,
        x.pulled,
        x.moved,
        x.early,
      );
    // FinalIK's design: the legs reach ground within maxStep, the pelvis too while the root is within 2 maxStep of
    // it; a 0.5 m jump stays in that reach, so the feet stretch toward the floor (measured 0.21 h) and are down on
    // it four frames before the capsule lands (0.11 h below where the clip has them then)
    expect(figures.grounder!.pulled).toBeGreaterThan(0.15);
    expect(figures.grounder!.early).toBeGreaterThan(figures.none!.early + 0.08);
    // eased (footSpeed, pelvisSpeed): no snap at the landing (measured 0.032 h a frame; the clip's own 0.012 h)
    expect(figures.grounder!.moved).toBeLessThan(0.04);
    // the recipe: pulled 0.044 h at most (at the takeoff, as the weight fades), the clip's feet before the landing,
    // and no snap either (0.028 h a frame)
    expect(figures.recipe!.pulled).toBeLessThan(0.07);
    expect(Math.abs(figures.recipe!.early - figures.none!.early)).toBeLessThan(0.005);
    expect(figures.recipe!.moved).toBeLessThan(0.04);
    expect(figures.none!.pulled).toBeLessThan(1e-3);
  });
});
