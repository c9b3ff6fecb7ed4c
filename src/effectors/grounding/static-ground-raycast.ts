import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { multiplyMatrices } from "../../babylon/world-matrix.js";
import type { ReadonlyVec3 } from "../../math/vec3.js";
import { type GroundingHit, type GroundingRaycast, type GroundingSphereCast, placeOnRay } from "./grounding-common.js";
import { checkGroundMeshes, meshTriangles, thinInstanceCount, thinInstanceMatrices } from "./mesh-triangles.js";
import { PendingVertices } from "./pending-vertices.js";
import { SphereSweep } from "./sphere-sweep.js";
import { TriangleGrid, faceNormalToward } from "./triangle-grid.js";
import { type OptionKinds, checkLoggedOptions } from "../../babylon/option-check.js";

/** Options of {@link StaticGroundRaycast}. */
export interface StaticGroundRaycastOptions {
  /**
   * Edge of the grid's square cells in the XZ plane (world units). Default: about two triangles' worth of
   * the ground's XZ area per cell, at most 512 cells along each axis.
   */
  cellSize?: number;
}

/** The kinds of {@link StaticGroundRaycastOptions}, for the check at create. */
export const STATIC_GROUND_RAYCAST_OPTION_KINDS: OptionKinds<StaticGroundRaycastOptions> = {
  cellSize: "number",
};

/**
 * A {@link GroundingRaycast} over static ground, allocation-free and independent of the scene's size: the
 * ground's triangles are baked once into world space and binned into a uniform grid over the XZ plane,
 * and a ray walks only the cells its XZ shadow crosses (a vertical probe visits one cell), testing their
 * triangles exactly (Möller–Trumbore, both sides). The normal is the hit triangle's face normal turned
 * toward the ray's origin, as {@link BabylonGroundRaycast} reports it. The test is exact: Babylon's picking
 * also accepts hits up to `Ray.epsilon` (1e-3) outside a triangle in barycentric terms, a few millimetres
 * past the edge of a large ground quad, so the two can differ right at a step's edge.
 *
 * Use it instead of Babylon picking for ground that does not move: `GrounderFBBIK.create(ik, { raycast:
 * StaticGroundRaycast.fromMeshes(groundMeshes).raycast })`. Picking allocates about 0.9 KB a ray and visits
 * every mesh of the scene; this allocates nothing per ray. Baking reads each mesh's positions and indices
 * and its world matrix at that moment: call {@link refresh} after moving, scaling, editing or disposing a
 * ground mesh (it allocates; a disposed mesh stays ground until then). A mesh that has no vertices yet (a
 * `CreateGroundFromHeightMap` still loading its image) is baked by the first ray after they arrive. Thin
 * instances are baked each at their matrix. Skinned or morphed ground cannot be baked: `fromMeshes` throws a
 * RangeError naming such meshes (use Babylon picking there).
 *
 * `raycast.sphereCast` ({@link sphereCast}) sweeps a sphere over the triangles of the cells under it, each
 * tested once: the grounder's `Best` quality uses it for its sphere probes.
 */
export class StaticGroundRaycast {
  /** The raycast as a function (bound once), for `GrounderFBBIK`'s `raycast` option. */
  readonly raycast: GroundingRaycast;
  /** The baked meshes; null for {@link fromTriangles}. */
  private readonly meshes: readonly AbstractMesh[] | null;
  private readonly cellSizeOption: number | undefined;
  private grid: TriangleGrid;
  /** Meshes baked before they had vertices: the first ray after theirs arrive bakes again. */
  private readonly pending = new PendingVertices();
  private readonly sweep = new SphereSweep();

  private constructor(
    meshes: readonly AbstractMesh[] | null,
    triangles: Float64Array,
    options: StaticGroundRaycastOptions,
  ) {
    checkLoggedOptions("StaticGroundRaycast", options, STATIC_GROUND_RAYCAST_OPTION_KINDS);
    this.meshes = meshes;
    this.cellSizeOption = options.cellSize;
    const raycast: GroundingRaycast = (origin, direction, maxDistance, out) =>
      this.cast(origin, direction, maxDistance, out);
    raycast.sphereCast = (origin, direction, radius, maxDistance, out) =>
      this.sphereCast(origin, direction, radius, maxDistance, out);
    this.raycast = raycast;
    this.grid = new TriangleGrid(triangles, this.cellSizeOption);
    this.refresh();
  }

  /** Bakes the triangles of `meshes` (their current world matrices). */
  static fromMeshes(meshes: readonly AbstractMesh[], options: StaticGroundRaycastOptions = {}): StaticGroundRaycast {
    checkGroundMeshes(meshes, "StaticGroundRaycast");
    return new StaticGroundRaycast(meshes.slice(), new Float64Array(0), options);
  }

  /**
   * Uses the given world-space triangles: 9 numbers per triangle (x, y, z of its three corners), copied.
   * For ground that is not a Babylon mesh (a heightfield, a physics shape's triangles).
   */
  static fromTriangles(triangles: ArrayLike<number>, options: StaticGroundRaycastOptions = {}): StaticGroundRaycast {
    if (triangles.length % 9 !== 0)
      throw new RangeError(
        `StaticGroundRaycast: ${triangles.length} numbers is not a whole number of triangles (9 each).`,
      );
    return new StaticGroundRaycast(null, Float64Array.from(triangles), options);
  }

  /** Number of triangles baked. */
  get triangleCount(): number {
    return this.grid.triangleCount;
  }

  /** Grid cells along X and Z, and their edge length. */
  get gridSize(): { cellsX: number; cellsZ: number; cellSize: number } {
    return this.grid.gridSize;
  }

  /** Bakes the meshes again (after one moved or changed). Does nothing for {@link fromTriangles}. */
  refresh(): void {
    if (this.meshes === null) return;
    this.pending.watch(this.meshes);
    const parts: Float64Array[] = [];
    const combined = new Float64Array(16);
    for (const mesh of this.meshes) {
      if (mesh.isDisposed()) continue;
      const world = mesh.computeWorldMatrix(true).m;
      const thin = thinInstanceMatrices(mesh);
      if (thin === null) {
        parts.push(meshTriangles(mesh, world));
        continue;
      }
      // each thin instance is the mesh's triangles at instance matrix × world (as Babylon draws and picks them)
      for (let i = 0; i < thinInstanceCount(mesh); i++)
        parts.push(meshTriangles(mesh, multiplyMatrices(thin, i * 16, world, combined)));
    }
    this.grid = new TriangleGrid(concat(parts), this.cellSizeOption);
  }

  /**
   * Casts a ray from `origin` along the unit `direction` up to `maxDistance`; writes the closest contact
   * into `out` and returns true, or returns false. Allocates nothing.
   */
  cast(origin: ReadonlyVec3, direction: ReadonlyVec3, maxDistance: number, out: GroundingHit): boolean {
    if (this.pending.arrived()) this.refresh();
    const grid = this.grid;
    grid.io[1] = maxDistance;
    const t = grid.castRay(origin, direction);
    if (t < 0) return false;
    out.distance = grid.io[0]!;
    placeOnRay(out, origin, direction);
    faceNormalToward(grid.triangles, t * 9, direction, out.normal);
    out.ground = null;
    return true;
  }

  /**
   * Sweeps a sphere of `radius` from `origin` along the unit `direction` up to `maxDistance` against the
   * triangles of the cells it passes over (see {@link GroundingSphereCast}); writes the first contact into
   * `out` and returns true, or returns false. Allocates nothing.
   */
  sphereCast(
    origin: ReadonlyVec3,
    direction: ReadonlyVec3,
    radius: number,
    maxDistance: number,
    out: GroundingHit,
  ): boolean {
    if (this.pending.arrived()) this.refresh();
    const sweep = this.sweep;
    sweep.io[0] = radius;
    sweep.io[1] = maxDistance;
    if (!sweep.begin(origin, direction)) return false;
    const grid = this.grid;
    const box = grid.sweepBox;
    box[0] = sweep.io[17]!;
    box[1] = sweep.io[19]!;
    box[2] = sweep.io[20]!;
    box[3] = sweep.io[22]!;
    grid.sweepSphere(sweep, null);
    return sweep.finish(out);
  }
}

function concat(parts: readonly Float64Array[]): Float64Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
