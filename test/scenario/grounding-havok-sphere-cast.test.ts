/**
 * HavokGroundRaycast's sphere cast (`raycast.sphereCast`, Havok's shapeCast) against StaticGroundRaycast's
 * triangle sweep over the same boxes (a floor, a step, a 20° slope, a box turned 30° for its corners), given
 * as mesh bodies (sharp edges) and as box bodies (Havok rounds their edges for shape casts): the contact's
 * distance, point and normal agree over seeded random sweeps of several radii and directions; ground the
 * sphere starts in is left out; the filters are the ray's; a plugin without shapeCast has no sphere cast.
 */
import "@babylonjs/core/Materials/standardMaterial.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import "@babylonjs/core/Physics/joinedPhysicsEngineComponent.js";
import { PhysicsShapeType } from "@babylonjs/core/Physics/v2/IPhysicsEnginePlugin.js";
import { HavokPlugin } from "@babylonjs/core/Physics/v2/Plugins/havokPlugin.js";
import { PhysicsAggregate } from "@babylonjs/core/Physics/v2/physicsAggregate.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import {
  type GroundingBody,
  GroundingHit,
  GroundingQuality,
  type GroundingRaycast,
} from "../../src/effectors/grounding/grounding-common.js";
import { HavokGroundRaycast, type PhysicsRaycaster } from "../../src/effectors/grounding/havok-ground-raycast.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { loadHavok } from "../helpers/havok.js";
import { mannequinOnHavok } from "../helpers/havok-mannequin.js";
import { report } from "../helpers/modifier-scene.js";
import { Random } from "../helpers/random.js";
import { worldPos } from "../helpers/scene-probes.js";

const havok = await loadHavok();

type V = { x: number; y: number; z: number };
const DOWN: V = { x: 0, y: -1, z: 0 };
const STALE_GROUND: GroundingBody = { worldMatrixToRef: () => false };

const open: Scene[] = [];
const models: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.getEngine().dispose();
  while (models.length > 0) models.pop()!.dispose();
});

/** A NullEngine scene with Havok. */
function world() {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  open.push(scene);
  const plugin = new HavokPlugin(false, havok.engine);
  scene.enablePhysics(new Vector3(0, -9.81, 0), plugin);
  new FreeCamera("camera", new Vector3(0, 5, -10), scene);
  return { scene, plugin };
}

/** A static box as a mesh and a body of `type` (BOX, or MESH: its triangles). */
function staticBox(scene: Scene, type: PhysicsShapeType, size: V, at: V, turn?: Quaternion) {
  const mesh = CreateBox("box", { width: size.x, height: size.y, depth: size.z }, scene);
  mesh.position.set(at.x, at.y, at.z);
  if (turn) mesh.rotationQuaternion = turn;
  mesh.computeWorldMatrix(true);
  const aggregate = new PhysicsAggregate(mesh, type, { mass: 0 }, scene);
  return { mesh, aggregate };
}

/** The course: a floor (top y = 0), a step 0.15 high (x > 0), a 20° slope and a box turned 30° (0.1 high). */
function course(scene: Scene, type: PhysicsShapeType) {
  const parts = [
    staticBox(scene, type, { x: 6, y: 0.2, z: 6 }, { x: 0, y: -0.1, z: 0 }),
    staticBox(scene, type, { x: 1.5, y: 0.3, z: 1.5 }, { x: 0.75, y: 0, z: -0.75 }),
    staticBox(
      scene,
      type,
      { x: 1.5, y: 0.2, z: 1.5 },
      { x: -0.9, y: 0.05, z: 0.9 },
      Quaternion.RotationAxis(new Vector3(0, 0, 1), (20 * Math.PI) / 180),
    ),
    staticBox(
      scene,
      type,
      { x: 0.5, y: 0.2, z: 0.5 },
      { x: 0.8, y: 0, z: 0.9 },
      Quaternion.RotationAxis(new Vector3(0, 1, 0), (30 * Math.PI) / 180),
    ),
  ];
  // one step: the bodies are in the broadphase
  scene.render();
  return parts;
}

const title = havok.engine
  ? "HavokGroundRaycast.sphereCast (Havok wasm in Node)"
  : `HavokGroundRaycast.sphereCast (skipped: @babylonjs/havok's wasm did not load: ${havok.reason})`;

describe.skipIf(!havok.engine)(title, () => {
  // mesh bodies: Havok's triangles stand about 4e-4 lower than the mesh's (its quantised mesh shape), edges
  // sharp; box bodies: faces exact, edges rounded by about 0.015 for shape casts (rays see them sharp), so the
  // sphere sinks past an edge (never stops before the sharp box), or grazes by it
  for (const [name, type, faceTolerance, edgeTolerance] of [
    ["mesh", PhysicsShapeType.MESH, 1e-3, 2e-3],
    ["box", PhysicsShapeType.BOX, 3e-3, Number.POSITIVE_INFINITY],
  ] as const) {
    it(`agrees with StaticGroundRaycast's sweep over ${name} bodies (several radii and directions)`, () => {
      const { scene, plugin } = world();
      const parts = course(scene, type);
      const probe = new HavokGroundRaycast(plugin);
      const reference = StaticGroundRaycast.fromMeshes(parts.map((p) => p.mesh as Mesh));
      const sweep = probe.raycast.sphereCast!;
      const sweepRef = reference.raycast.sphereCast!;
      expect(sweep).toBeTypeOf("function");
      const rng = new Random(0x5eeb);
      const a = new GroundingHit();
      const b = new GroundingHit();
      // worst |distance| differences on faces and at edges (vertical casts, the grounder's, apart), worst
      // |point| difference and 1 − normal dot where the normals agree, worst gap of a tie broken otherwise
      const worst = { face: 0, edge: 0, edgeVertical: 0, point: 0, normal: 0, tieGap: 0 };
      const counts = { hits: 0, edges: 0, ties: 0 };
      for (let k = 0; k < 1000; k++) {
        const radius = rng.pick([0.02, 0.05, 0.1, 0.2]);
        const o = { x: rng.range(-2, 2), y: rng.range(0.8, 1.2), z: rng.range(-2, 2) };
        const vertical = k % 2 === 0;
        const t = vertical ? DOWN : { x: rng.range(-0.4, 0.4), y: -1, z: rng.range(-0.4, 0.4) };
        const l = Math.hypot(t.x, t.y, t.z);
        const dir = { x: t.x / l, y: t.y / l, z: t.z / l };
        // a ground left from an earlier ray: a sphere cast's contact has none (GroundingHit.ground)
        a.ground = STALE_GROUND;
        b.ground = STALE_GROUND;
        const hitA = sweep(o, dir, radius, 2, a);
        const hitB = sweepRef(o, dir, radius, 2, b);
        expect(hitA, `sweep ${k}`).toBe(hitB);
        if (!hitA) continue;
        expect(a.ground, `sweep ${k}: ground`).toBe(b.ground);
        counts.hits++;
        const dd = a.distance - b.distance;
        // Havok's sphere never stops before the sharp geometry's (but for its mesh's 4e-4)
        expect(dd, `sweep ${k}: Havok's contact before the reference's`).toBeGreaterThan(-faceTolerance);
        // the reference touches a face where its centre stands the radius off the contact along the normal
        const c = { x: o.x + dir.x * b.distance, y: o.y + dir.y * b.distance, z: o.z + dir.z * b.distance };
        const off = Math.hypot(
          c.x - b.point.x - radius * b.normal.x,
          c.y - b.point.y - radius * b.normal.y,
          c.z - b.point.z - radius * b.normal.z,
        );
        if (off < 1e-6 * radius) {
          worst.face = Math.max(worst.face, Math.abs(dd));
          expect(Math.abs(dd), `sweep ${k}: on a face`).toBeLessThan(faceTolerance);
        } else {
          counts.edges++;
          worst.edge = Math.max(worst.edge, Math.abs(dd));
          if (vertical) worst.edgeVertical = Math.max(worst.edgeVertical, Math.abs(dd));
          expect(Math.abs(dd), `sweep ${k}: at an edge`).toBeLessThan(edgeTolerance);
        }
        const dn = 1 - (a.normal.x * b.normal.x + a.normal.y * b.normal.y + a.normal.z * b.normal.z);
        if (dn < 1e-6) {
          worst.normal = Math.max(worst.normal, dn);
          worst.point = Math.max(
            worst.point,
            Math.hypot(a.point.x - b.point.x, a.point.y - b.point.y, a.point.z - b.point.z),
          );
          continue;
        }
        // a tie broken otherwise (a crease, an edge swept across): Havok's sphere touches both contacts
        counts.ties++;
        const ca = { x: o.x + dir.x * a.distance, y: o.y + dir.y * a.distance, z: o.z + dir.z * a.distance };
        for (const p of [a.point, b.point])
          worst.tieGap = Math.max(worst.tieGap, Math.abs(Math.hypot(ca.x - p.x, ca.y - p.y, ca.z - p.z) - radius));
      }
      expect(counts.hits).toBeGreaterThan(900);
      expect(counts.edges).toBeGreaterThan(40);
      // most contacts name the same surface
      expect(counts.ties).toBeLessThan(0.03 * counts.hits);
      if (type === PhysicsShapeType.MESH) {
        expect(worst.point).toBeLessThan(faceTolerance);
        expect(worst.tieGap).toBeLessThan(faceTolerance);
      }
      report(
        `${name} bodies: contacts, at edges, ties broken otherwise; worst distance on faces, at edges, at edges ` +
          "cast vertically; worst point, 1 − normal dot where the normals agree; worst tie gap",
        counts.hits,
        counts.edges,
        counts.ties,
        worst.face,
        worst.edge,
        worst.edgeVertical,
        worst.point,
        worst.normal,
        worst.tieGap,
      );
    });
  }

  it("leaves out ground the sphere starts in; a touch within Havok's start tolerance is a contact", () => {
    const { scene, plugin } = world();
    const type = PhysicsShapeType.BOX;
    staticBox(scene, type, { x: 4, y: 0.2, z: 4 }, { x: 0, y: -0.1, z: 0 });
    // a slab 0.5 above the floor (top y = 0.6) over x < 0, and a wall over x > 1
    const slab = staticBox(scene, type, { x: 2, y: 0.2, z: 2 }, { x: -1, y: 0.5, z: 0 });
    staticBox(scene, type, { x: 1, y: 2, z: 2 }, { x: 1.5, y: 1, z: 0 });
    scene.render();
    const probe = new HavokGroundRaycast(plugin);
    const sweep = probe.raycast.sphereCast!;
    const hit = new GroundingHit();
    const r = 0.1;
    // starting in the slab's top (Havok: fraction 0): the slab is left out, the floor found (centre 0.55 down)
    expect(sweep({ x: -1, y: 0.65, z: 0 }, DOWN, r, 2, hit)).toBe(true);
    expect(hit.distance).toBeCloseTo(0.55, 5);
    expect(hit.point.y).toBeCloseTo(0, 5);
    expect(hit.normal.y).toBeCloseTo(1, 6);
    // the same start just above the slab (0.0005, inside Havok's start tolerance): the slab, 0.0005 down
    expect(sweep({ x: -1, y: 0.7005, z: 0 }, DOWN, r, 2, hit)).toBe(true);
    expect(hit.distance).toBeCloseTo(0.0005, 6);
    expect(hit.point.y).toBeCloseTo(0.6, 6);
    // resting on it exactly: distance 0
    expect(sweep({ x: -1, y: 0.7, z: 0 }, DOWN, r, 2, hit)).toBe(true);
    expect(hit.distance).toBeCloseTo(0, 6);
    // beside the wall, in it by half the radius, going down along it: the floor (Havok leaves it out itself)
    expect(sweep({ x: 0.95, y: 1, z: 0 }, DOWN, r, 2, hit)).toBe(true);
    expect(hit.distance).toBeCloseTo(0.9, 5);
    // Havok ignores one body per query: with ignoreBody taken, ground the sphere starts in gives no contact
    probe.ignoreBody = slab.aggregate.body;
    expect(sweep({ x: 0.5, y: 0.15, z: 0.5 }, DOWN, 0.2, 2, hit)).toBe(false);
    probe.ignoreBody = null;
    // starting in the floor: left out, nothing below
    expect(sweep({ x: 0.5, y: 0.05, z: 0.5 }, DOWN, r, 2, hit)).toBe(false);
    // the triangle sweep agrees where both see the same ground
    const reference = StaticGroundRaycast.fromMeshes(scene.meshes.filter((m) => m.name === "box") as Mesh[]);
    expect(reference.raycast.sphereCast!({ x: 0.95, y: 1, z: 0 }, DOWN, r, 2, hit)).toBe(true);
    expect(hit.distance).toBeCloseTo(0.9, 5);
    expect(reference.raycast.sphereCast!({ x: -1, y: 0.7005, z: 0 }, DOWN, r, 2, hit)).toBe(true);
    expect(hit.distance).toBeCloseTo(0.0005, 6);
  });

  it("passes through the ignored body; the filters are the ray's, changed at run time", () => {
    const { scene, plugin } = world();
    const type = PhysicsShapeType.BOX;
    staticBox(scene, type, { x: 2, y: 0.2, z: 2 }, { x: 0, y: -0.1, z: 0 });
    const prop = staticBox(scene, type, { x: 0.5, y: 0.2, z: 0.5 }, { x: 0, y: 0.1, z: 0 });
    const trigger = staticBox(scene, type, { x: 0.5, y: 0.1, z: 0.5 }, { x: 0, y: 0.5, z: 0 });
    trigger.aggregate.shape.isTrigger = true;
    prop.aggregate.shape.filterMembershipMask = 2;
    scene.render();
    const hit = new GroundingHit();
    const o = { x: 0, y: 1, z: 0 };
    const r = 0.05;
    const lowest = (probe: HavokGroundRaycast) =>
      probe.raycast.sphereCast!(o, DOWN, r, 2, hit) ? o.y - hit.distance - r : Number.NaN;
    // by default: the prop's top, through the trigger
    expect(lowest(new HavokGroundRaycast(plugin))).toBeCloseTo(0.2, 5);
    expect(lowest(new HavokGroundRaycast(plugin, { queryTriggers: true }))).toBeCloseTo(0.55, 5);
    expect(lowest(new HavokGroundRaycast(plugin, { collideWith: ~2 }))).toBeCloseTo(0, 5);
    expect(lowest(new HavokGroundRaycast(plugin, { ignoreBody: prop.aggregate.body }))).toBeCloseTo(0, 5);
    // the prop not colliding with the probe's membership bit 4
    prop.aggregate.shape.filterCollideMask = ~4;
    expect(lowest(new HavokGroundRaycast(plugin, { membership: 4 }))).toBeCloseTo(0, 5);
    prop.aggregate.shape.filterCollideMask = ~0;
    // fields changed after the first cast (the sphere's filter follows them)
    const probe = new HavokGroundRaycast(plugin);
    expect(lowest(probe)).toBeCloseTo(0.2, 5);
    probe.collideWith = ~2;
    expect(lowest(probe)).toBeCloseTo(0, 5);
    probe.collideWith = ~0;
    expect(lowest(probe)).toBeCloseTo(0.2, 5);
    probe.queryTriggers = true;
    expect(lowest(probe)).toBeCloseTo(0.55, 5);
    probe.queryTriggers = false;
    probe.ignoreBody = prop.aggregate.body;
    expect(lowest(probe)).toBeCloseTo(0, 5);
  });

  it("keeps two spheres (the feet's and the root's radius), disposes of them; a plugin without shapeCast has none", () => {
    const { scene, plugin } = world();
    staticBox(scene, PhysicsShapeType.BOX, { x: 2, y: 0.2, z: 2 }, { x: 0, y: -0.1, z: 0 });
    scene.render();
    let made = 0;
    let released = 0;
    // the plugin's own methods, counted
    const counted: PhysicsRaycaster = {
      raycast: plugin.raycast.bind(plugin),
      shapeCast: plugin.shapeCast.bind(plugin),
      initShape: (shape, kind, options) => {
        made++;
        plugin.initShape(shape, kind, options);
      },
      disposeShape: (shape) => {
        released++;
        plugin.disposeShape(shape);
      },
      setShapeFilterMembershipMask: plugin.setShapeFilterMembershipMask.bind(plugin),
      setShapeFilterCollideMask: plugin.setShapeFilterCollideMask.bind(plugin),
    };
    const probe = new HavokGroundRaycast(counted);
    const hit = new GroundingHit();
    const o = { x: 0, y: 1, z: 0 };
    for (let f = 0; f < 10; f++)
      for (const r of [0.05, 0.1]) {
        expect(probe.raycast.sphereCast!(o, DOWN, r, 2, hit)).toBe(true);
        expect(hit.distance).toBeCloseTo(1 - r, 5);
      }
    expect([made, released]).toEqual([2, 0]);
    // a third radius replaces the one used least recently (0.05)
    expect(probe.raycast.sphereCast!(o, DOWN, 0.2, 2, hit)).toBe(true);
    expect(hit.distance).toBeCloseTo(0.8, 5);
    expect(probe.raycast.sphereCast!(o, DOWN, 0.1, 2, hit)).toBe(true);
    expect([made, released]).toEqual([3, 1]);
    probe.dispose();
    expect([made, released]).toEqual([3, 3]);
    probe.dispose();
    expect(released).toBe(3);
    // still usable: a sphere is made again
    expect(probe.raycast.sphereCast!(o, DOWN, 0.1, 2, hit)).toBe(true);
    expect(made).toBe(4);
    probe.dispose();
    // only raycast: rays as before, no sphere cast (the grounder samples the sphere with rays)
    const raysOnly = new HavokGroundRaycast({ raycast: plugin.raycast.bind(plugin) });
    expect(raysOnly.raycast.sphereCast).toBeUndefined();
    expect(raysOnly.sphereCast(o, DOWN, 0.1, 2, hit)).toBe(false);
    expect(raysOnly.raycast(o, DOWN, 2, hit)).toBe(true);
    expect(hit.distance).toBeCloseTo(1, 5);
  });

  it("the grounder's Best probe on Havok lands the feet at a step's edge as over StaticGroundRaycast", async () => {
    const { m, ik, plugin, h } = await mannequinOnHavok(havok.engine);
    models.push(m);
    const r = ik.references;
    const bones = [r.leftFoot, r.rightFoot, r.pelvis];
    const rest = bones.map((b) => worldPos(b));
    const floor = staticBox(
      m.scene,
      PhysicsShapeType.BOX,
      { x: 4 * h, y: 0.2 * h, z: 4 * h },
      { x: 0, y: -0.1 * h, z: 0 },
    );
    const probe = new HavokGroundRaycast(plugin);
    // the grounder's raycast: one of three, the sphere cast with it (none: the grounder samples the sphere)
    let current: GroundingRaycast = probe.raycast;
    const raycast: GroundingRaycast = (o, d, max, out) => current(o, d, max, out);
    const grounder = GrounderFBBIK.create(ik, { quality: GroundingQuality.Best, raycast });
    const g = grounder.solver;
    m.scene.render();
    const radius = g.footRadius;
    const step = 0.1 * h;
    // the edge outside the left foot, turned 22.5° off the foot's right: between two of the 8 sampling rays
    const left = rest[0]!;
    const side = Math.sign((left.x - rest[1]!.x) * g.right.x + (left.z - rest[1]!.z) * g.right.z);
    const turn = (22.5 * Math.PI) / 180;
    const out = {
      x: (g.right.x * Math.cos(turn) + g.forward.x * Math.sin(turn)) * side,
      z: (g.right.z * Math.cos(turn) + g.forward.z * Math.sin(turn)) * side,
    };
    const figures: number[] = [];
    let worstAfter = 0;
    let worstBefore = 0;
    for (const at of [0.5, 0.9, 0.95, 0.98]) {
      const x = at * radius;
      const width = h;
      const box = staticBox(
        m.scene,
        PhysicsShapeType.BOX,
        { x: width, y: step + 0.1 * h, z: 2 * h },
        { x: left.x + out.x * (x + width / 2), y: step - (step + 0.1 * h) / 2, z: left.z + out.z * (x + width / 2) },
        Quaternion.RotationAxis(new Vector3(0, 1, 0), Math.atan2(-out.z, out.x)),
      );
      const reference = StaticGroundRaycast.fromMeshes([floor.mesh, box.mesh]);
      // the edge is where it should be: the floor just inside, the step just outside
      const hit = new GroundingHit();
      const probeAt = (k: number) => ({ x: left.x + out.x * k, y: h, z: left.z + out.z * k });
      expect(reference.cast(probeAt(x - 0.01 * radius), DOWN, 2 * h, hit) && hit.point.y).toBeCloseTo(0, 6);
      expect(reference.cast(probeAt(x + 0.01 * radius), DOWN, 2 * h, hit) && hit.point.y).toBeCloseTo(step, 6);
      m.scene.render();
      // the heights of the feet and the pelvis over the reference, Havok swept, Havok sampled
      const heights: number[][] = [];
      const sampled: GroundingRaycast = (o, d, max, hit) => probe.cast(o, d, max, hit);
      for (const ground of [reference.raycast, probe.raycast, sampled]) {
        current = ground;
        raycast.sphereCast = ground.sphereCast;
        grounder.resetPosition();
        for (let f = 0; f < 40; f++) m.scene.render();
        heights.push(bones.map((b) => worldPos(b).y / h));
      }
      bones.forEach((_, i) => {
        const after = Math.abs(heights[1]![i]! - heights[0]![i]!);
        const before = Math.abs(heights[2]![i]! - heights[0]![i]!);
        worstAfter = Math.max(worstAfter, after);
        worstBefore = Math.max(worstBefore, before);
        expect(after, `edge at ${at} × footRadius, ${["left foot", "right foot", "pelvis"][i]}`).toBeLessThan(1e-5);
      });
      figures.push(at, ...heights.map((hs) => hs[0]! - rest[0]!.y / h), heights[0]![2]! - rest[2]!.y / h);
      box.aggregate.dispose();
      box.mesh.dispose();
    }
    // the sampled sphere missed the edge between its rays: the left foot stayed on the floor
    expect(worstBefore).toBeGreaterThan(0.5 * (step / h));
    report("grounder at a step edge: worst |Havok − static| (× h) swept, sampled", worstAfter, worstBefore);
    report(
      "per edge offset (× footRadius): left foot's rise (× h) static, Havok swept, Havok sampled; pelvis (static)",
      ...figures,
    );
    probe.dispose();
  });
});
