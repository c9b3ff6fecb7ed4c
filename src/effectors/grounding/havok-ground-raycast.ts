import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { type IRaycastQuery, PhysicsRaycastResult } from "@babylonjs/core/Physics/physicsRaycastResult.js";
import type { HavokPlugin } from "@babylonjs/core/Physics/v2/Plugins/havokPlugin.js";
import type { PhysicsBody } from "@babylonjs/core/Physics/v2/physicsBody.js";
import type { ReadonlyVec3 } from "../../math/vec3.js";
import type { GroundingHit } from "./grounding-common.js";

/** Hits on the ignored body stepped past, at most, when the plugin does not skip them itself. */
const IGNORED_PASSES = 4;
/** How far past such a hit the next pass starts, as a fraction of the ray's length. */
const IGNORED_STEP = 1e-5;

/**
 * What the probe needs of the physics plugin: Physics v2's `raycast` (a `HavokPlugin`, or any plugin with
 * the same method). A type only: the library does not load Havok, you pass the plugin you made.
 */
export type PhysicsRaycaster = Pick<HavokPlugin, "raycast">;

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
 * Allocation: the probe reuses its points, query and result; the plugin's raycast itself allocates a few
 * small arrays per ray (the query it hands to Havok's wasm and the hits it reads back).
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
  /** The raycast as a function (bound once). */
  readonly raycast: (origin: ReadonlyVec3, direction: ReadonlyVec3, maxDistance: number, out: GroundingHit) => boolean;
  private readonly from = new Vector3();
  private readonly to = new Vector3();
  private readonly result = new PhysicsRaycastResult();
  private readonly query: IRaycastQuery = {};

  /** Probes the world of `plugin` (the HavokPlugin given to `scene.enablePhysics`). */
  constructor(plugin: PhysicsRaycaster, options: HavokGroundRaycastOptions = {}) {
    this.plugin = plugin;
    this.membership = options.membership ?? ~0;
    this.collideWith = options.collideWith ?? ~0;
    this.queryTriggers = options.queryTriggers ?? false;
    this.ignoreBody = options.ignoreBody ?? null;
    this.raycast = (origin, direction, maxDistance, out) => this.cast(origin, direction, maxDistance, out);
  }

  /** Casts one ray; writes the nearest contact into `out`. */
  cast(origin: ReadonlyVec3, direction: ReadonlyVec3, maxDistance: number, out: GroundingHit): boolean {
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
    q.ignoreBody = this.ignoreBody ?? undefined;
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
      if (this.ignoreBody === null || r.body !== this.ignoreBody) break;
      start = d + IGNORED_STEP * maxDistance;
      if (pass === IGNORED_PASSES || !(start < maxDistance)) return false;
    }
    if (!(d >= 0 && d <= maxDistance)) return false;
    out.distance = d;
    out.point.x = p.x;
    out.point.y = p.y;
    out.point.z = p.z;
    const n = r.hitNormalWorld;
    const l = Math.sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
    if (!(l > 0) || l === Number.POSITIVE_INFINITY) {
      out.normal.x = -direction.x;
      out.normal.y = -direction.y;
      out.normal.z = -direction.z;
      return true;
    }
    // toward the ray's origin (a ray starting inside a shape sees its far side)
    const s = n.x * direction.x + n.y * direction.y + n.z * direction.z > 0 ? -1 / l : 1 / l;
    out.normal.x = n.x * s;
    out.normal.y = n.y * s;
    out.normal.z = n.z * s;
    return true;
  }
}
