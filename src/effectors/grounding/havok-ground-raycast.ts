import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { type IRaycastQuery, PhysicsRaycastResult } from "@babylonjs/core/Physics/physicsRaycastResult.js";
import type { IPhysicsShapeCastQuery } from "@babylonjs/core/Physics/physicsShapeCastQuery.js";
import { ShapeCastResult } from "@babylonjs/core/Physics/shapeCastResult.js";
import { PhysicsShapeType } from "@babylonjs/core/Physics/v2/IPhysicsEnginePlugin.js";
import type { HavokPlugin } from "@babylonjs/core/Physics/v2/Plugins/havokPlugin.js";
import type { PhysicsBody } from "@babylonjs/core/Physics/v2/physicsBody.js";
import type { PhysicsShape } from "@babylonjs/core/Physics/v2/physicsShape.js";
import { type ReadonlyVec3, Vec3 } from "../../math/vec3.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { GroundingHit, type GroundingRaycast, type GroundingSphereCast } from "./grounding-common.js";
import { thinInstanceCount } from "./mesh-triangles.js";
import { groundBodyOf } from "./node-ground-body.js";
import { type OptionKinds, checkLoggedOptions } from "../../babylon/option-check.js";

/** Hits on the ignored body stepped past, at most, when the plugin does not skip them itself. */
const IGNORED_PASSES = 4;
/** How far past such a hit the next pass starts, as a fraction of the ray's length. */
const IGNORED_STEP = 1e-5;
/** Sphere shapes kept per probe: the grounder's feet and its root cast with two radii. */
const SPHERES = 2;
/** A contact at the cast's start nearer the centre than this × the radius: ground the sphere starts in. */
const OVERLAP = 1 - 1e-3;
/** How much farther than the radius (× the radius) from the centre a surface found by a ray may be, and touched. */
const REACH = 1e-3;
/** How far past the contact (× the radius), away from the centre's line, the edge ray aims. */
const EDGE_NUDGE = 0.01;

/**
 * What the probe needs of the physics plugin: Physics v2's `raycast` (a `HavokPlugin`, or any plugin with
 * the same method), and for the sphere cast also `shapeCast` and the shape methods it makes its sphere with
 * (`initShape`, `disposeShape`, `setShapeFilterMembershipMask`, `setShapeFilterCollideMask`). A plugin
 * without them still probes with rays, and then has no sphere cast. A type only: the library does not load
 * Havok, you pass the plugin you made.
 */
export type PhysicsRaycaster = Pick<HavokPlugin, "raycast"> &
  Partial<
    Pick<
      HavokPlugin,
      "shapeCast" | "initShape" | "disposeShape" | "setShapeFilterMembershipMask" | "setShapeFilterCollideMask"
    >
  >;

/** A plugin with everything the sphere cast needs. */
type PhysicsShapeCaster = Required<PhysicsRaycaster>;

/** Options of {@link HavokGroundRaycast}: the filters of Havok's raycast query. */
export interface HavokGroundRaycastOptions {
  /** The ray's membership bits (Havok's collision filter; default all: `~0`). */
  membership?: number;
  /** The shape membership bits the ray hits (`collideWith`, default all: `~0`). */
  collideWith?: number;
  /** Whether trigger shapes count as ground (default false, like Unity's `QueryTriggerInteraction.Ignore`). */
  queryTriggers?: boolean;
  /**
   * A body the rays pass through, e.g. the character's own capsule aggregate (default none). Babylon's
   * PhysicsCharacterController keeps its body private: filter its shape out with `collideWith` instead.
   */
  ignoreBody?: PhysicsBody | null;
}

/** The kinds of {@link HavokGroundRaycastOptions}, for the check at create. */
export const HAVOK_GROUND_RAYCAST_OPTION_KINDS: OptionKinds<HavokGroundRaycastOptions> = {
  membership: "number",
  collideWith: "number",
  queryTriggers: "boolean",
  ignoreBody: "object|null",
};

/**
 * A {@link GroundingRaycast} over the physics world: `HavokPlugin.raycast` (Physics v2), so the grounder
 * stands on the shapes of the game's PhysicsAggregates/PhysicsBodies instead of picking render meshes.
 * Pass `probe.raycast` as GrounderFBBIK's `raycast`. The contact is the nearest hit Havok reports, the
 * normal the hit shape's surface normal turned toward the ray's origin.
 *
 * ```ts
 * // ES modules: scene.enablePhysics needs core's Physics/joinedPhysicsEngineComponent.js imported
 * const havok = new HavokPlugin(true, await HavokPhysics());
 * scene.enablePhysics(new Vector3(0, -9.81, 0), havok);
 * const probe = new HavokGroundRaycast(havok, { collideWith: GROUND_LAYER });
 * const grounder = GrounderFBBIK.create(ik, { raycast: probe.raycast });
 * ```
 *
 * When the plugin has `shapeCast` (a `HavokPlugin` has), `raycast.sphereCast` ({@link sphereCast}) sweeps
 * a Havok sphere through the world with the same filters, and the grounder's `Best` quality uses it for its
 * sphere probes. The probe makes its spheres in the plugin itself (one per radius in use, at most two:
 * the feet's and the root's); {@link dispose} releases them.
 *
 * Allocation: the probe reuses its points, queries, results and spheres; the plugin itself allocates a few
 * small arrays per ray (the query it hands to Havok's wasm and the hits it reads back), and about as much
 * per shape cast (Babylon 9.28 in Node: about 2.9 KB a ray, 3.2 KB a shape cast). A sphere cast is one shape
 * cast and one or two rays (for the normal, see {@link sphereCast}): 6.1–9.1 KB, where the grounder's
 * sampled sphere cast 9 rays (26 KB); a new radius makes a sphere (and releases the one least recently used).
 */
export class HavokGroundRaycast {
  /** The physics plugin probed. */
  readonly plugin: PhysicsRaycaster;
  /** The ray's membership bits (Havok's collision filter). */
  membership: number;
  /** The shape membership bits the ray hits. */
  collideWith: number;
  /** Whether trigger shapes count as ground. */
  queryTriggers: boolean;
  /** A body the rays pass through (the character's own), or null. */
  ignoreBody: PhysicsBody | null;
  /** The raycast as a function (bound once), with the sphere cast as its `sphereCast` when the plugin has one. */
  readonly raycast: GroundingRaycast;
  private readonly from = new Vector3();
  private readonly to = new Vector3();
  private readonly result = new PhysicsRaycastResult();
  private readonly query: IRaycastQuery = {};
  /** The plugin, when it can cast shapes. */
  private readonly caster: PhysicsShapeCaster | null;
  /** The spheres made so far (null: none in that slot), their radii and the filter bits set on them. */
  private readonly spheres: (PhysicsShape | null)[] = [];
  private readonly sphereValues = new Float64Array(3 * SPHERES);
  /** The slot used last (the other is the one replaced). */
  private lastSphere = 0;
  private readonly shapeQuery: IPhysicsShapeCastQuery;
  private readonly shapeInput = new ShapeCastResult();
  private readonly shapeHit = new ShapeCastResult();
  /** The body the internal rays pass through besides {@link ignoreBody} (the sphere cast's overlapped one). */
  private rayIgnore: PhysicsBody | null = null;
  private readonly normalHit = new GroundingHit();
  private readonly rayOrigin = new Vec3();
  /** The sphere's centre at its contact (the normal's rays). */
  private readonly centre = new Vec3();
  /**
   * The sphere cast's numbers, so that no double crosses an internal call (ARCHITECTURE.md, "Doubles across
   * calls"): [0] the radius, [1] the centre's travel, [2] the length of the ray {@link castRay} casts.
   */
  private readonly io = new Float64Array(3);

  /** Probes the world of `plugin` (the HavokPlugin given to `scene.enablePhysics`). */
  constructor(plugin: PhysicsRaycaster, options: HavokGroundRaycastOptions = {}) {
    checkLoggedOptions("HavokGroundRaycast", options, HAVOK_GROUND_RAYCAST_OPTION_KINDS);
    this.plugin = plugin;
    this.membership = options.membership ?? ~0;
    this.collideWith = options.collideWith ?? ~0;
    this.queryTriggers = options.queryTriggers ?? false;
    this.ignoreBody = options.ignoreBody ?? null;
    const raycast: GroundingRaycast = (origin, direction, maxDistance, out) =>
      this.cast(origin, direction, maxDistance, out);
    this.caster = canCastShapes(plugin) ? plugin : null;
    if (this.caster !== null)
      raycast.sphereCast = (origin, direction, radius, maxDistance, out) =>
        this.sphereCast(origin, direction, radius, maxDistance, out);
    this.raycast = raycast;
    for (let i = 0; i < SPHERES; i++) this.spheres.push(null);
    this.shapeQuery = {
      shape: null as unknown as PhysicsShape,
      rotation: Quaternion.Identity(),
      startPosition: this.from,
      endPosition: this.to,
      shouldHitTriggers: false,
    };
  }

  /** Casts one ray; writes the nearest contact into `out`. */
  cast(origin: ReadonlyVec3, direction: ReadonlyVec3, maxDistance: number, out: GroundingHit): boolean {
    this.rayIgnore = null;
    this.io[2] = maxDistance;
    return this.castRay(origin, direction, out);
  }

  /**
   * Sweeps a Havok sphere of `radius` from `origin` (its centre) along the unit `direction` up to
   * `maxDistance` (`HavokPlugin.shapeCast`, the probe's filters); writes the first contact into `out` and
   * returns true, or returns false (always, when the plugin has no `shapeCast`). `distance` is how far the
   * centre travelled, `point` Havok's contact on the ground.
   *
   * Havok's normal points from the contact to the sphere's centre: at an edge it leans toward the edge. The
   * normal reported is the surface's own ({@link GroundingSphereCast}'s rule), read by a ray along the cast:
   * first down the centre's line (the ground under the sphere, when the sphere reaches its plane), else just
   * past the contact away from that line (at a step's edge, the top); `point` is then moved onto that
   * surface's plane. Havok rounds its boxes' edges for shape casts (about 0.015 units, whatever the box's
   * size; rays see them sharp), so near an edge the sphere sinks a little past where it stops on a sharp box,
   * and a sweep grazing an edge can pass it.
   *
   * Havok reports ground the sphere starts in, when the cast goes deeper into it, at fraction 0. That ground
   * is left out ({@link GroundingSphereCast}: the triangle sweeps ignore it too): the overlapped body is cast
   * again as Havok's ignored body. Havok ignores one body per query, so where that slot is taken (by
   * {@link ignoreBody}), or the second cast starts in ground again, there is no contact (false). A body
   * overlapped is left out whole: one mesh body for a whole level loses its floor too.
   */
  sphereCast(
    origin: ReadonlyVec3,
    direction: ReadonlyVec3,
    radius: number,
    maxDistance: number,
    out: GroundingHit,
  ): boolean {
    const caster = this.caster;
    if (caster === null || !(radius > 0 && radius < Number.POSITIVE_INFINITY)) return false;
    if (!(maxDistance >= 0) || maxDistance === Number.POSITIVE_INFINITY) return false;
    const q = this.shapeQuery;
    this.io[0] = radius;
    q.shape = this.sphereOf(caster);
    q.shouldHitTriggers = this.queryTriggers;
    this.from.set(origin.x, origin.y, origin.z);
    this.to.set(
      origin.x + direction.x * maxDistance,
      origin.y + direction.y * maxDistance,
      origin.z + direction.z * maxDistance,
    );
    const hit = this.shapeHit;
    const p = hit.hitPoint;
    let ignore = this.ignoreBody;
    let t = 0;
    for (let pass = 0; ; pass++) {
      q.ignoreBody = ignore ?? undefined;
      caster.shapeCast(q, this.shapeInput, hit);
      if (!hit.hasHit) return false;
      t = hit.hitFraction * maxDistance;
      if (hit.hitFraction > 0) break;
      // at the start: touching (Havok reports contacts within about 1e-3 of the start there), or overlapping
      const wx = p.x - origin.x;
      const wy = p.y - origin.y;
      const wz = p.z - origin.z;
      const ww = wx * wx + wy * wy + wz * wz;
      if (ww >= OVERLAP * OVERLAP * radius * radius) {
        // the centre's travel until the sphere touches that point
        const m = wx * direction.x + wy * direction.y + wz * direction.z;
        const disc = m * m - (ww - radius * radius);
        t = m > 0 && disc >= 0 ? m - Math.sqrt(disc) : 0;
        if (!(t >= 0)) t = 0;
        break;
      }
      // ground the sphere starts in: cast again with its body left out, if Havok's one ignored body is free
      if (pass > 0 || ignore !== null || hit.body === undefined) return false;
      ignore = hit.body;
    }
    if (!(t <= maxDistance)) return false;
    out.distance = t;
    // GroundingHit's rule for sweeps: no body to follow (the normal's rays below write their own hit)
    out.ground = null;
    out.point.x = p.x;
    out.point.y = p.y;
    out.point.z = p.z;
    this.rayIgnore = ignore === this.ignoreBody ? null : ignore;
    this.io[1] = t;
    this.surface(origin, direction, out);
    this.rayIgnore = null;
    return true;
  }

  /**
   * Releases the Havok spheres the sphere cast made (the probe keeps working: the next sphere cast makes
   * one again). Call it when the probe is no longer used, before or after disposing of the physics plugin.
   */
  dispose(): void {
    const caster = this.caster;
    for (let i = 0; i < SPHERES; i++) {
      const shape = this.spheres[i];
      if (shape === null || shape === undefined) continue;
      this.spheres[i] = null;
      // a plugin already disposed released its shapes with its world
      if (caster !== null && shape._pluginData !== undefined) {
        try {
          caster.disposeShape(shape);
        } catch {
          // the wasm engine gone with the plugin: nothing left to release
        }
      }
    }
  }

  /** The sphere of radius io[0] with the probe's filter bits: kept, or made in the slot used least recently. */
  private sphereOf(caster: PhysicsShapeCaster): PhysicsShape {
    const radius = this.io[0]!;
    const v = this.sphereValues;
    let slot = -1;
    for (let i = 0; i < SPHERES; i++)
      if (this.spheres[i] !== null && v[3 * i] === radius) {
        slot = i;
        break;
      }
    if (slot < 0) {
      slot = (this.lastSphere + 1) % SPHERES;
      const old = this.spheres[slot];
      if (old !== null && old !== undefined) caster.disposeShape(old);
      // a bare shape object: the plugin keeps its Havok handle in `_pluginData` (PhysicsShape's constructor
      // wants a scene, which the probe does not have)
      const shape = { _pluginData: undefined } as unknown as PhysicsShape;
      caster.initShape(shape, PhysicsShapeType.SPHERE, { radius });
      this.spheres[slot] = shape;
      v[3 * slot] = radius;
      // Havok's default filter: all bits; set below when the probe's differ
      v[3 * slot + 1] = ~0;
      v[3 * slot + 2] = ~0;
    }
    this.lastSphere = slot;
    const shape = this.spheres[slot]!;
    // the query's filter is its shape's (the ray's membership and collideWith), set only when changed
    if (v[3 * slot + 1] !== this.membership) {
      caster.setShapeFilterMembershipMask(shape, this.membership);
      v[3 * slot + 1] = this.membership;
    }
    if (v[3 * slot + 2] !== this.collideWith) {
      caster.setShapeFilterCollideMask(shape, this.collideWith);
      v[3 * slot + 2] = this.collideWith;
    }
    return shape;
  }

  /**
   * `out.normal`: the surface's own normal at the contact `out.point` of a sphere whose centre travelled `t`,
   * and the point on that surface's plane (see {@link sphereCast}); Havok's contact normal, turned toward the
   * origin, and its point where no ray finds the surface.
   */
  private surface(origin: ReadonlyVec3, direction: ReadonlyVec3, out: GroundingHit): void {
    const io = this.io;
    const radius = io[0]!;
    const t = io[1]!;
    const dx = direction.x;
    const dy = direction.y;
    const dz = direction.z;
    const p = out.point;
    facingNormal(out.normal, this.shapeHit.hitNormal, direction);
    // the centre at the contact
    const c = this.centre;
    c.x = origin.x + dx * t;
    c.y = origin.y + dy * t;
    c.z = origin.z + dz * t;
    const cx = c.x;
    const cy = c.y;
    const cz = c.z;
    const o = this.rayOrigin;
    const h = this.normalHit;
    // down the centre's line: the ground under the sphere, when the sphere reaches its plane (slopes to ~75°)
    io[2] = 4 * radius;
    if (this.castRay(c, direction, h) && this.reaches(h)) {
      onSurface(out, h);
      return;
    }
    // past the contact, away from the centre's line: at an edge or a corner the face met first
    const wx = p.x - cx;
    const wy = p.y - cy;
    const wz = p.z - cz;
    const wd = wx * dx + wy * dy + wz * dz;
    const ux = wx - dx * wd;
    const uy = wy - dy * wd;
    const uz = wz - dz * wd;
    const ul = Math.sqrt(ux * ux + uy * uy + uz * uz);
    if (!(ul > 1e-6 * radius)) return;
    const k = (EDGE_NUDGE * radius) / ul;
    o.x = p.x - dx * radius + ux * k;
    o.y = p.y - dy * radius + uy * k;
    o.z = p.z - dz * radius + uz * k;
    io[2] = 2 * radius;
    if (this.castRay(o, direction, h) && this.reaches(h)) onSurface(out, h);
  }

  /**
   * Whether the sphere at {@link centre} reaches the plane of the ray hit `h` (a face beside the one touched
   * would hold the sphere off: farther than the radius; a rounded box edge lets it sink past: nearer).
   */
  private reaches(h: GroundingHit): boolean {
    const radius = this.io[0]!;
    const n = h.normal;
    const c = this.centre;
    const e = (c.x - h.point.x) * n.x + (c.y - h.point.y) * n.y + (c.z - h.point.z) * n.z;
    return e <= radius * (1 + REACH);
  }

  /** One ray io[2] long with the probe's filters, passing through {@link ignoreBody} and {@link rayIgnore}. */
  private castRay(origin: ReadonlyVec3, direction: ReadonlyVec3, out: GroundingHit): boolean {
    const maxDistance = this.io[2]!;
    if (!(maxDistance > 0) || maxDistance === Number.POSITIVE_INFINITY) return false;
    this.to.set(
      origin.x + direction.x * maxDistance,
      origin.y + direction.y * maxDistance,
      origin.z + direction.z * maxDistance,
    );
    const q = this.query;
    q.membership = this.membership;
    q.collideWith = this.collideWith;
    q.shouldHitTriggers = this.queryTriggers;
    // Havok skips one body; the other (when the sphere cast left one out) is stepped past below
    const extra = this.rayIgnore;
    q.ignoreBody = extra ?? this.ignoreBody ?? undefined;
    const r = this.result;
    const p = r.hitPointWorld;
    // how far along the ray this pass starts; d: the hit's distance along the unit direction (the grounder
    // measures heights with it)
    let start = 0;
    let d = 0;
    for (let pass = 0; ; pass++) {
      this.from.set(origin.x + direction.x * start, origin.y + direction.y * start, origin.z + direction.z * start);
      this.plugin.raycast(this.from, this.to, r, q);
      if (!r.hasHit) return false;
      d = (p.x - origin.x) * direction.x + (p.y - origin.y) * direction.y + (p.z - origin.z) * direction.z;
      // Babylon 8.27's plugin does not hand `ignoreBody` to Havok: past its hits, cast again
      const body = r.body ?? null;
      if (body === null || (body !== this.ignoreBody && body !== extra)) break;
      start = d + IGNORED_STEP * maxDistance;
      if (pass === IGNORED_PASSES || !(start < maxDistance)) return false;
    }
    if (!(d >= 0 && d <= maxDistance)) return false;
    out.distance = d;
    out.point.x = p.x;
    out.point.y = p.y;
    out.point.z = p.z;
    facingNormal(out.normal, r.hitNormalWorld, direction);
    // the body's node (or instance) hit: a foot standing on it is carried by its motion
    const hitBody = r.body;
    if (hitBody === undefined) out.ground = null;
    else {
      // Havok reports index 0 for a body without instances: an instance only where the node has thin instances
      const node = hitBody.transformNode;
      out.ground = groundBodyOf(node, thinInstanceCount(node as AbstractMesh) > 0 ? (r.bodyIndex ?? 0) : -1);
    }
    return true;
  }
}

/** Whether `plugin` has what the sphere cast needs. */
function canCastShapes(plugin: PhysicsRaycaster): plugin is PhysicsShapeCaster {
  return (
    typeof plugin.shapeCast === "function" &&
    typeof plugin.initShape === "function" &&
    typeof plugin.disposeShape === "function" &&
    typeof plugin.setShapeFilterMembershipMask === "function" &&
    typeof plugin.setShapeFilterCollideMask === "function"
  );
}

/**
 * `n` as a unit normal turned toward where the cast came from (a ray starting inside a shape sees its far side;
 * a sphere's contact normal points at its centre), into `out`; against `direction` where `n` has no length.
 */
function facingNormal(out: Vec3, n: ReadonlyVec3, direction: ReadonlyVec3): void {
  const l = Math.sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
  if (!(l > 0) || l === Number.POSITIVE_INFINITY) {
    out.x = -direction.x;
    out.y = -direction.y;
    out.z = -direction.z;
    return;
  }
  const s = n.x * direction.x + n.y * direction.y + n.z * direction.z > 0 ? -1 / l : 1 / l;
  out.x = n.x * s;
  out.y = n.y * s;
  out.z = n.z * s;
}

/**
 * The contact `out` on the surface a ray found (`h`): its normal (already unit, toward the cast's origin), and
 * the point moved onto its plane (off a box's rounded edge onto the face, as the rays see boxes: sharp).
 */
function onSurface(out: GroundingHit, h: GroundingHit): void {
  const n = h.normal;
  const p = out.point;
  const e = (p.x - h.point.x) * n.x + (p.y - h.point.y) * n.y + (p.z - h.point.z) * n.z;
  p.x -= n.x * e;
  p.y -= n.y * e;
  p.z -= n.z * e;
  out.normal.x = n.x;
  out.normal.y = n.y;
  out.normal.z = n.z;
}
