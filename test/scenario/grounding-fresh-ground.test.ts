/**
 * Does the grounder see this frame's ground? Babylon raises the render id only once the cameras render, after
 * the IK's solve, so a ground mesh moved in `onBeforeRenderObservable` or through a moving parent would be probed at
 * last frame's cached world matrix unless the probe recomputes it (an Animation marks its node dirty, which Babylon
 * recomputes on its own; not the children of an animated parent). Twins: one scene moves its platform that way, the
 * other places it at the same pose and computes its world matrix before the solve (fresh); GrounderFBBIK (Fastest,
 * Best, MovingGroundRaycast) and GrounderIK on LimbIK legs must put the feet where the fresh twin does. Within the
 * grounder, reading the velocity of the ground a foot stood on also brings that mesh up to date, so each probe is
 * also checked alone, as the first read of its frame. Havok's probe sees its world as the last physics step left it.
 */
import { Animation } from "@babylonjs/core/Animations/animation.js";
import "@babylonjs/core/Animations/animatable.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import "@babylonjs/core/Materials/standardMaterial.js";
import { Axis } from "@babylonjs/core/Maths/math.axis.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Scene } from "@babylonjs/core/scene.js";
import "@babylonjs/core/Physics/joinedPhysicsEngineComponent.js";
import { PhysicsMotionType, PhysicsShapeType } from "@babylonjs/core/Physics/v2/IPhysicsEnginePlugin.js";
import { HavokPlugin } from "@babylonjs/core/Physics/v2/Plugins/havokPlugin.js";
import { PhysicsAggregate } from "@babylonjs/core/Physics/v2/physicsAggregate.js";
import { afterEach, describe, expect, it } from "vitest";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { GrounderIK } from "../../src/effectors/grounding/grounder-ik.js";
import { BabylonGroundRaycast } from "../../src/effectors/grounding/babylon-ground-raycast.js";
import { GroundingHit, GroundingQuality } from "../../src/effectors/grounding/grounding-common.js";
import { Vec3 } from "../../src/math/vec3.js";
import { HavokGroundRaycast } from "../../src/effectors/grounding/havok-ground-raycast.js";
import { MovingGroundRaycast } from "../../src/effectors/grounding/moving-ground-raycast.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { loadHavok } from "../helpers/havok.js";
import { report } from "../helpers/modifier-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/**
 * How the platform moves: in onBeforeRender or by an Animation, itself or through its parent; or (a Havok body) in
 * onBeforePhysicsObservable.
 */
type Motion = "beforeRender" | "animation" | "parent" | "animatedParent" | "beforePhysics";
/** The grounder and its probe. */
type Rig = "fbbik-fastest" | "fbbik-best" | "fbbik-moving" | "ik-best" | "fbbik-havok";

const havok = await loadHavok();

const FRAMES = 90;
/** The seconds a frame (the scenes' constant animation delta time). */
const DT = 0.016;

/** The platform's pose at time t: rise and sink at 0.5 m/s at most (scaled to the model), tilt ±4° about X. */
function pose(t: number, scale: number, out: { y: number; tilt: number }): void {
  const w = Math.PI; // 0.5 Hz
  out.y = ((0.5 * scale) / w) * Math.sin(w * t);
  out.tilt = ((4 * Math.PI) / 180) * Math.sin(2 * Math.PI * 0.35 * t);
}

interface Run {
  /** Per frame, both feet's world positions (x, y, z each). */
  feet: number[];
  /**
   * Worst |ankle height above the platform's top − at rest| over the frames, in % of h (a foot turned to the 4° tilt
   * moves its ankle by up to 0.03 % h).
   */
  worst: number;
  h: number;
}

/** Runs the Mannequin on a moving platform for FRAMES frames; `fresh`: the platform is placed before the frame. */
async function run(rig: Rig, motion: Motion, fresh: boolean): Promise<Run> {
  const m = await loadModel("Mannequin");
  open.push(m);
  const scene = m.scene;
  const plugin = rig === "fbbik-havok" ? new HavokPlugin(false, havok.engine) : null;
  if (plugin !== null) scene.enablePhysics(new Vector3(0, -9.81, 0), plugin);
  const r = resolveBipedReferences(m.skeleton).references;
  const ik = rig.startsWith("fbbik") ? FullBodyBipedIK.create(scene, m.skeleton) : null;
  scene.render();
  const h = height(m);
  const scale = h / 1.75;
  const feet = [r.leftFoot!, r.rightFoot!];
  const rootY = m.root.computeWorldMatrix(true).m[13]!;
  const rest = feet.map((f) => worldPos(f).y - rootY);
  // the platform's top at the root's height at rest; under a mover node for the parent case
  const mover = new TransformNode("mover", scene);
  const platform = CreateBox("platform", { width: 3 * h, height: 0.1 * h, depth: 3 * h }, scene);
  platform.position.y = rootY - 0.05 * h;
  const throughParent = motion === "parent" || motion === "animatedParent";
  if (throughParent) platform.parent = mover;
  const moved: TransformNode = throughParent ? mover : platform;
  const animated = motion === "animation" || motion === "animatedParent";
  const baseY = moved.position.y;
  if (plugin !== null) {
    // a kinematic platform: Havok takes the node's pose at each step (the pre-step), before the solve
    platform.computeWorldMatrix(true);
    const body = new PhysicsAggregate(platform, PhysicsShapeType.BOX, { mass: 0 }, scene).body;
    body.setMotionType(PhysicsMotionType.ANIMATED);
    body.disablePreStep = false;
  }
  const p = { y: 0, tilt: 0 };
  const place = (t: number) => {
    pose(t, scale, p);
    moved.position.y = baseY + p.y;
    // a physics body's node turns by its quaternion (the aggregate gives it one)
    if (moved.rotationQuaternion !== null) Quaternion.RotationAxisToRef(Axis.X, p.tilt, moved.rotationQuaternion);
    else moved.rotation.x = p.tilt;
  };
  if (rig === "ik-best") {
    const legs = feet.map((foot, i) => {
      const thigh = i === 0 ? r.leftThigh! : r.rightThigh!;
      const calf = i === 0 ? r.leftCalf! : r.rightCalf!;
      const leg = LimbIK.create(scene, thigh, calf, foot);
      leg.solver.ikPositionWeight = 0;
      leg.solver.ikRotationWeight = 0;
      return leg;
    });
    GrounderIK.create(legs, r.pelvis!, { quality: GroundingQuality.Best });
  } else {
    const quality = rig === "fbbik-fastest" ? GroundingQuality.Fastest : GroundingQuality.Best;
    const raycast =
      rig === "fbbik-moving"
        ? MovingGroundRaycast.fromMeshes([platform]).raycast
        : plugin !== null
          ? new HavokGroundRaycast(plugin).raycast
          : undefined;
    GrounderFBBIK.create(ik!, { quality, ...(raycast && { raycast }) });
  }
  // rendered once at rest: its matrix cached, as a platform's is before it moves
  scene.render();
  let frame = 0;
  if (animated) {
    const keys = (value: (t: number) => number) =>
      Array.from({ length: FRAMES + 2 }, (_, k) => ({ frame: k, value: value(k / 60) }));
    const rise = new Animation("rise", "position.y", 60, Animation.ANIMATIONTYPE_FLOAT);
    rise.setKeys(
      keys((t) => {
        pose(t, scale, p);
        return baseY + p.y;
      }),
    );
    const tilt = new Animation("tilt", "rotation.x", 60, Animation.ANIMATIONTYPE_FLOAT);
    tilt.setKeys(
      keys((t) => {
        pose(t, scale, p);
        return p.tilt;
      }),
    );
    moved.animations.push(rise, tilt);
    scene.beginAnimation(moved, 0, FRAMES + 1, false);
    // the fresh twin: the animated pose computed right after the animations
    if (fresh)
      scene.onAfterAnimationsObservable.add(() => {
        moved.computeWorldMatrix(true);
        platform.computeWorldMatrix(true);
      });
  } else if (!fresh) {
    const when = motion === "beforePhysics" ? scene.onBeforePhysicsObservable : scene.onBeforeRenderObservable;
    when.add(() => place(frame * DT));
  }
  const out: number[] = [];
  const local = new Vector3();
  const inverse = new Matrix();
  let worst = 0;
  for (frame = 1; frame <= FRAMES; frame++) {
    if (fresh && !animated) {
      place(frame * DT);
      // the whole chain, as Babylon would compute it in a frame that had rendered since
      moved.computeWorldMatrix(true);
      platform.computeWorldMatrix(true);
    }
    scene.render();
    platform.computeWorldMatrix(true).invertToRef(inverse);
    feet.forEach((foot: Bone, i) => {
      const w = worldPos(foot);
      out.push(w.x, w.y, w.z);
      Vector3.TransformCoordinatesToRef(w, inverse, local);
      // the ankle's height above the platform's top, against its height above the ground at rest
      const lift = local.y - 0.05 * h - rest[i]!;
      worst = Math.max(worst, (100 * Math.abs(lift)) / h);
    });
  }
  return { feet: out, worst, h };
}

/** The largest distance between the twins' feet over the frames, in % of h. */
function apart(a: Run, b: Run): number {
  let d = 0;
  for (let k = 0; k < a.feet.length; k += 3) {
    const dx = a.feet[k]! - b.feet[k]!;
    const dy = a.feet[k + 1]! - b.feet[k + 1]!;
    const dz = a.feet[k + 2]! - b.feet[k + 2]!;
    d = Math.max(d, Math.sqrt(dx * dx + dy * dy + dz * dz));
  }
  return (100 * d) / a.h;
}

describe("the grounders probe the ground where it is this frame (Mannequin on a moving platform)", () => {
  const cases: [Rig, Motion][] = [
    ["fbbik-fastest", "beforeRender"],
    ["fbbik-best", "beforeRender"],
    ["fbbik-moving", "beforeRender"],
    ["ik-best", "beforeRender"],
    ["fbbik-fastest", "animation"],
    ["fbbik-best", "animation"],
    ["ik-best", "animation"],
    ["fbbik-fastest", "parent"],
    ["fbbik-best", "parent"],
    ["fbbik-moving", "parent"],
    ["ik-best", "parent"],
    ["fbbik-fastest", "animatedParent"],
    ["fbbik-best", "animatedParent"],
    ["ik-best", "animatedParent"],
  ];
  it.each(cases)("%s, platform moved %s: the feet as on a platform placed before the frame", async (rig, motion) => {
    const moving = await run(rig, motion, false);
    const fresh = await run(rig, motion, true);
    const d = apart(moving, fresh);
    report(
      `${rig}, ${motion}: worst ankle error vs platform (% h) moving, fresh; twins apart (% h)`,
      moving.worst,
      fresh.worst,
      d,
    );
    // a frame's travel of the platform is up to 0.46 % h
    expect(d).toBeLessThan(1e-4);
  });
});

describe("each probe alone, the first of its frame, sees a platform moved in onBeforeRender", () => {
  const probes = ["picking", "moving"] as const;
  const casts = ["ray", "sphere"] as const;
  it.each(probes.flatMap((probe) => casts.map((cast) => [probe, cast] as const)))(
    "%s, %s cast: the contact on the platform's top this frame",
    (probe, cast) => {
      const engine = new NullEngine();
      const scene = new Scene(engine);
      new FreeCamera("camera", new Vector3(0, 2, -5), scene);
      const mover = new TransformNode("mover", scene);
      const platform = CreateBox("platform", { width: 4, height: 0.2, depth: 4 }, scene);
      platform.parent = mover;
      platform.position.y = -0.1;
      const raycast =
        probe === "picking"
          ? new BabylonGroundRaycast(scene, (mesh) => mesh === platform).raycast
          : MovingGroundRaycast.fromMeshes([platform]).raycast;
      const origin = new Vec3(0.3, 2, 0.2);
      const down = new Vec3(0, -1, 0);
      const hit = new GroundingHit();
      const top = new Vector3();
      const p = { y: 0, tilt: 0 };
      let worst = 0;
      let frame = 0;
      // rendered once at rest: its matrix cached, as a platform's is before it moves
      scene.render();
      scene.onBeforeRenderObservable.add(() => {
        // the parent and the platform itself both move
        pose(frame * DT, 4, p);
        mover.position.y = p.y;
        platform.rotation.x = p.tilt;
        const found = cast === "ray" ? raycast(origin, down, 4, hit) : raycast.sphereCast!(origin, down, 0.05, 4, hit);
        expect(found).toBe(true);
        // where the probe's line meets the top now (a sphere's contact point is on its line on a flat top)
        const inverse = platform.computeWorldMatrix(true).clone().invert();
        Vector3.TransformCoordinatesToRef(new Vector3(hit.point.x, hit.point.y, hit.point.z), inverse, top);
        worst = Math.max(worst, Math.abs(top.y - 0.1));
      });
      for (frame = 1; frame <= 30; frame++) scene.render();
      scene.dispose();
      engine.dispose();
      report(`${probe} ${cast}: worst contact off the platform's top now (m)`, worst);
      expect(worst).toBeLessThan(1e-5);
    },
  );
});

describe("keeping the ground fresh costs no recomputation of ground that did not move", () => {
  it("with 200 static ground meshes beside a moving platform, picking forces only the platform's world matrix", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const scene = m.scene;
    const ik = FullBodyBipedIK.create(scene, m.skeleton);
    scene.render();
    const h = height(m);
    const forced = new Map<TransformNode, number>();
    const count = (node: TransformNode) => {
      forced.set(node, 0);
      const own = node.computeWorldMatrix.bind(node);
      node.computeWorldMatrix = (force?: boolean, camera?: Parameters<typeof own>[1]) => {
        if (force === true) forced.set(node, forced.get(node)! + 1);
        return own(force, camera);
      };
    };
    // tiles around the character (some under the Best probes' reach), each under a parent of its own
    const statics: TransformNode[] = [];
    for (let i = 0; i < 200; i++) {
      const holder = new TransformNode(`holder${i}`, scene);
      holder.position.set(((i % 20) - 10) * 0.6 * h, -0.5 * h, (Math.floor(i / 20) - 5) * 0.6 * h);
      const tile = CreateBox(`tile${i}`, { size: 0.1 * h }, scene);
      tile.parent = holder;
      statics.push(holder, tile);
    }
    const platform = CreateBox("platform", { width: 1.5 * h, height: 0.1 * h, depth: 1.5 * h }, scene);
    platform.position.y = -0.05 * h;
    for (const node of [...statics, platform]) count(node);
    GrounderFBBIK.create(ik, { quality: GroundingQuality.Best });
    const p = { y: 0, tilt: 0 };
    let frame = 0;
    scene.onBeforeRenderObservable.add(() => {
      pose(frame * DT, h / 1.75, p);
      platform.position.y = -0.05 * h + p.y;
      platform.rotation.x = p.tilt;
    });
    for (frame = 1; frame <= 3; frame++) scene.render();
    for (const node of forced.keys()) forced.set(node, 0);
    const frames = 20;
    for (; frame <= 3 + frames; frame++) scene.render();
    const staticForced = statics.reduce((sum, node) => sum + forced.get(node)!, 0);
    report(
      "forced world matrices per frame: 400 static nodes, the moving platform",
      staticForced / frames,
      forced.get(platform)! / frames,
    );
    expect(staticForced).toBe(0);
    // once a frame, by the first probe that meets it moved (each after sees it synchronized)
    expect(forced.get(platform)).toBe(frames);
  });
});

describe.skipIf(!havok.engine)(
  "HavokGroundRaycast sees a kinematic platform where the last physics step left it",
  () => {
    it("moved before the step (onBeforePhysicsObservable): as placed before the frame; in onBeforeRender: a frame late", async () => {
      const early = await run("fbbik-havok", "beforePhysics", false);
      const fresh = await run("fbbik-havok", "beforePhysics", true);
      const late = await run("fbbik-havok", "beforeRender", false);
      const d = apart(early, fresh);
      const lag = apart(late, fresh);
      report(
        "Havok: worst ankle error (% h) before physics, fresh, onBeforeRender; apart from fresh (% h): early, late",
        early.worst,
        fresh.worst,
        late.worst,
        d,
        lag,
      );
      expect(d).toBeLessThan(1e-4);
      // Havok's world is stepped inside scene.animate(), before onBeforeRender: a pose set there counts a step later
      expect(lag).toBeGreaterThan(0.1);
    });
  },
);
