/**
 * HavokGroundRaycast: the grounder over Havok's physics world (@babylonjs/havok's wasm, loaded in Node from
 * node_modules) lands the feet as it does over Babylon picking, on the same course of static boxes (a step
 * and a 20° ramp) given both as meshes and as PhysicsAggregates; rays agree one by one; nothing below is a
 * miss; the query's filters (collideWith, triggers, an ignored body) decide what is ground.
 */
import "@babylonjs/core/Materials/standardMaterial.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import "@babylonjs/core/Physics/joinedPhysicsEngineComponent.js";
import { PhysicsShapeType } from "@babylonjs/core/Physics/v2/IPhysicsEnginePlugin.js";
import { PhysicsAggregate } from "@babylonjs/core/Physics/v2/physicsAggregate.js";
import { afterEach, describe, expect, it } from "vitest";
import { BabylonGroundRaycast } from "../../src/effectors/grounding/babylon-ground-raycast.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import {
  GroundingHit,
  GroundingQuality,
  type GroundingRaycast,
} from "../../src/effectors/grounding/grounding-common.js";
import { HavokGroundRaycast } from "../../src/effectors/grounding/havok-ground-raycast.js";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { loadHavok } from "../helpers/havok.js";
import { mannequinOnHavok } from "../helpers/havok-mannequin.js";
import { report } from "../helpers/modifier-scene.js";
import { Random } from "../helpers/random.js";
import { worldPos } from "../helpers/scene-probes.js";

const havok = await loadHavok();

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** A static box as a mesh (for picking) and a PhysicsAggregate (for Havok), both the same geometry. */
function staticBox(m: LoadedModel, name: string, size: Vector3, at: Vector3, turn?: Quaternion) {
  const mesh = CreateBox(name, { width: size.x, height: size.y, depth: size.z }, m.scene);
  mesh.position.copyFrom(at);
  if (turn) mesh.rotationQuaternion = turn;
  mesh.computeWorldMatrix(true);
  const aggregate = new PhysicsAggregate(mesh, PhysicsShapeType.BOX, { mass: 0 }, m.scene);
  return { mesh, aggregate };
}

/** The Mannequin with its IK and the Havok world; feet at rest; h and the feet's rest positions. */
async function standing() {
  const { m, ik, plugin, h } = await mannequinOnHavok(havok.engine);
  open.push(m);
  const r = ik.references;
  const rest = [worldPos(r.leftFoot), worldPos(r.rightFoot)];
  return { m, ik, plugin, h, rest, feet: [r.leftFoot, r.rightFoot] };
}

/** Babylon picking over `meshes`, with exact triangle tests (no Ray.epsilon past the edges). */
function picking(m: LoadedModel, meshes: Mesh[]): BabylonGroundRaycast {
  const p = new BabylonGroundRaycast(m.scene, (mesh) => meshes.includes(mesh as Mesh));
  (p as unknown as { ray: { epsilon: number } }).ray.epsilon = 0;
  return p;
}

const title = havok.engine
  ? "HavokGroundRaycast (Havok wasm in Node, Mannequin)"
  : `HavokGroundRaycast (skipped: @babylonjs/havok's wasm did not load: ${havok.reason})`;

describe.skipIf(!havok.engine)(title, () => {
  it("the feet land on a step and a 20° ramp as with Babylon picking; rays agree one by one", async () => {
    const { m, ik, plugin, h, rest, feet } = await standing();
    const size = 8 * h;
    const d = 0.1 * h;
    const edge = (rest[0]!.x + rest[1]!.x) / 2;
    const leftSide = Math.sign(rest[0]!.x - edge);
    // the course: a floor with its top at y = 0, a step of d under the left foot; then a 20° ramp alone
    const floor = staticBox(m, "floor", new Vector3(size, 0.2 * h, size), new Vector3(0, -0.1 * h, 0));
    const step = staticBox(
      m,
      "step",
      new Vector3(size / 2, h, size),
      new Vector3(edge + (leftSide * size) / 4, d - h / 2, 0),
    );
    const n = new Vector3(0, 1, 0);
    const turn = Quaternion.RotationAxis(new Vector3(1, 0, 2).normalize(), (20 * Math.PI) / 180);
    n.rotateByQuaternionToRef(turn, n);
    const rampCentre = n.scale(-0.1 * h);
    const courses = [
      { name: "step", parts: [floor, step], surface: (p: Vector3) => (Math.sign(p.x - edge) === leftSide ? d : 0) },
      { name: "ramp", parts: [] as (typeof floor)[], surface: (p: Vector3) => -(n.x * p.x + n.z * p.z) / n.y },
    ];
    const havokProbe = new HavokGroundRaycast(plugin);
    let current: GroundingRaycast = havokProbe.raycast;
    const grounder = GrounderFBBIK.create(ik, {
      footRadius: 0.05 * (h / 1.8),
      quality: GroundingQuality.Best,
      raycast: (o, dir, max, out) => current(o, dir, max, out),
    });
    const rng = new Random(0x4a70);
    const a = new GroundingHit();
    const b = new GroundingHit();
    let compared = 0;
    let worstRay = 0;
    let worstFeet = 0;
    let worstSurface = 0;
    const figures: number[] = [];
    for (const course of courses) {
      if (course.name === "ramp") {
        for (const part of [floor, step]) {
          part.aggregate.dispose();
          part.mesh.dispose();
        }
        course.parts.push(staticBox(m, "ramp", new Vector3(size, 0.2 * h, size), rampCentre, turn));
      }
      if (course.name === "ramp") {
        // a real slope under the feet: their grounds differ by more than 2 % of h
        expect(Math.abs(course.surface(rest[0]!) - course.surface(rest[1]!)) / h).toBeGreaterThan(0.02);
      }
      const meshes = course.parts.map((p) => p.mesh);
      const pick = picking(m, meshes);
      // one step of the physics world: the bodies are in its broadphase
      m.scene.render();
      for (let k = 0; k < 200; k++) {
        const foot = rest[k & 1]!;
        const o = { x: foot.x + rng.range(-0.3, 0.3) * h, y: foot.y + rng.range(0.1, 0.8) * h, z: foot.z };
        o.z += rng.range(-0.3, 0.3) * h;
        const t = { x: rng.range(-0.3, 0.3), y: -1, z: rng.range(-0.3, 0.3) };
        const l = Math.hypot(t.x, t.y, t.z);
        const dir = { x: t.x / l, y: t.y / l, z: t.z / l };
        const hitA = havokProbe.cast(o, dir, 2 * h, a);
        const hitB = pick.cast(o, dir, 2 * h, b);
        expect(hitA, `${course.name} ray ${k}`).toBe(hitB);
        if (!hitA) continue;
        compared++;
        worstRay = Math.max(worstRay, Math.abs(a.distance - b.distance) / h);
        expect(Math.abs(a.distance - b.distance) / h, `${course.name} ray ${k}`).toBeLessThan(1e-5);
        expect(a.normal.x * b.normal.x + a.normal.y * b.normal.y + a.normal.z * b.normal.z).toBeGreaterThan(0.99999);
      }
      // the same course through each probe: the feet's heights after the grounder settled
      const heights: number[][] = [];
      for (const probe of [havokProbe.raycast, pick.raycast]) {
        current = probe;
        grounder.resetPosition();
        for (let f = 0; f < 40; f++) m.scene.render();
        heights.push(feet.map((foot) => worldPos(foot).y));
      }
      feet.forEach((foot, i) => {
        const diff = Math.abs(heights[0]![i]! - heights[1]![i]!) / h;
        worstFeet = Math.max(worstFeet, diff);
        expect(diff, `${course.name} foot ${i}: Havok vs picking (× h)`).toBeLessThan(1e-5);
        // and on the ground as the animation stands on flat ground
        const p = worldPos(foot);
        const onGround = Math.abs(heights[0]![i]! - course.surface(p) - rest[i]!.y) / h;
        worstSurface = Math.max(worstSurface, onGround);
        expect(onGround, `${course.name} foot ${i} above its ground (× h)`).toBeLessThan(1e-3);
        figures.push((heights[0]![i]! - course.surface(p)) / h, (heights[1]![i]! - course.surface(p)) / h);
      });
    }
    expect(compared).toBeGreaterThan(300);
    report(
      "Havok vs picking: rays compared, worst ray distance diff, worst foot diff, worst off-ground (× h)",
      compared,
      worstRay,
      worstFeet,
      worstSurface,
    );
    report("foot heights above the ground (× h), Havok then picking: step L, R, ramp L, R", ...figures);
  });

  it("nothing below is a miss; a ray too short, or one pointing away, misses", async () => {
    const { m, plugin, h } = await standing();
    staticBox(m, "floor", new Vector3(2 * h, 0.2 * h, 2 * h), new Vector3(0, -0.1 * h, 0));
    m.scene.render();
    const probe = new HavokGroundRaycast(plugin);
    const hit = new GroundingHit();
    const down = { x: 0, y: -1, z: 0 };
    expect(probe.cast({ x: 0, y: h, z: 0 }, down, 2 * h, hit)).toBe(true);
    expect(hit.distance).toBeCloseTo(h, 5);
    expect(hit.normal.y).toBeCloseTo(1, 6);
    expect(probe.cast({ x: 5 * h, y: h, z: 0 }, down, 10 * h, hit)).toBe(false);
    expect(probe.cast({ x: 0, y: h, z: 0 }, down, 0.5 * h, hit)).toBe(false);
    expect(probe.cast({ x: 0, y: h, z: 0 }, { x: 0, y: 1, z: 0 }, 10 * h, hit)).toBe(false);
  });

  it("the query decides what is ground: collideWith, trigger shapes, an ignored body", async () => {
    const { m, plugin, h } = await standing();
    staticBox(m, "floor", new Vector3(2 * h, 0.2 * h, 2 * h), new Vector3(0, -0.1 * h, 0));
    const prop = staticBox(m, "prop", new Vector3(0.5 * h, 0.2 * h, 0.5 * h), new Vector3(0, 0.1 * h, 0));
    const trigger = staticBox(m, "trigger", new Vector3(0.5 * h, 0.1 * h, 0.5 * h), new Vector3(0, 0.5 * h, 0));
    trigger.aggregate.shape.isTrigger = true;
    prop.aggregate.shape.filterMembershipMask = 2;
    m.scene.render();
    const hit = new GroundingHit();
    const o = { x: 0, y: h, z: 0 };
    const down = { x: 0, y: -1, z: 0 };
    const heightOf = (probe: HavokGroundRaycast) => (probe.cast(o, down, 2 * h, hit) ? hit.point.y / h : Number.NaN);
    // by default: the prop's top, through the trigger
    expect(heightOf(new HavokGroundRaycast(plugin))).toBeCloseTo(0.2, 5);
    // triggers counted: the trigger's top
    expect(heightOf(new HavokGroundRaycast(plugin, { queryTriggers: true }))).toBeCloseTo(0.55, 5);
    // the prop's layer (2) left out: the floor
    expect(heightOf(new HavokGroundRaycast(plugin, { collideWith: ~2 }))).toBeCloseTo(0, 5);
    // the prop's body ignored (as a character's own capsule): the floor
    expect(heightOf(new HavokGroundRaycast(plugin, { ignoreBody: prop.aggregate.body }))).toBeCloseTo(0, 5);
    // the settings are fields: changed at run time
    const probe = new HavokGroundRaycast(plugin);
    probe.collideWith = ~2;
    expect(heightOf(probe)).toBeCloseTo(0, 5);
  });
});
