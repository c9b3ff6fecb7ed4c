import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { currentWorldMatrix, multiplyMatrices } from "../../babylon/world-matrix.js";
import { type ReadonlyVec3, Vec3 } from "../../math/vec3.js";
import {
  type GroundingBody,
  type GroundingHit,
  type GroundingRaycast,
  type GroundingSphereCast,
  placeOnRay,
} from "./grounding-common.js";
import { checkGroundMeshes, meshTriangles, thinInstanceCount, thinInstanceMatrices } from "./mesh-triangles.js";
import { PendingVertices } from "./pending-vertices.js";
import { SphereSweep } from "./sphere-sweep.js";
import { TriangleGrid, clipRayToBoxAxis, faceNormalToward } from "./triangle-grid.js";
import { type OptionKinds, checkLoggedOptions } from "../../babylon/option-check.js";

/** Options of {@link MovingGroundRaycast}. */
export interface MovingGroundRaycastOptions {
  /**
   * Edge of each mesh's grid cells in the mesh's own XZ plane (local units). Default: about two
   * triangles' worth of the mesh's XZ area per cell, at most 512 cells along each axis.
   */
  cellSize?: number;
}

/** The kinds of {@link MovingGroundRaycastOptions}, for the check at create. */
export const MOVING_GROUND_RAYCAST_OPTION_KINDS: OptionKinds<MovingGroundRaycastOptions> = {
  cellSize: "number",
};

/**
 * One ground mesh, or one thin instance of it: the triangles binned in the mesh's space, and the world transform as
 * last seen.
 */
class MovingMesh implements GroundingBody {
  readonly mesh: AbstractMesh;
  /** The thin instance this entry stands for, or −1 for the mesh itself. */
  readonly instance: number;
  grid: TriangleGrid;
  /** updateFlag of the mesh's world matrix these numbers were derived from (−1: none yet). */
  flag = -1;
  /** True when the world matrix is invertible and finite. */
  usable = false;
  /** The world matrix's linear part (rows, Babylon's row-vector convention) and translation: 12 numbers. */
  readonly world = new Float64Array(12);
  /** The inverse of the linear part (rows), 9 numbers. */
  readonly inverse = new Float64Array(9);
  /** World-space bounds of the triangles: min x, y, z, max x, y, z. */
  readonly worldBounds = new Float64Array(6);
  /** A thin instance's matrix as last seen (to notice `thinInstanceSetMatrixAt`), and instance × world. */
  readonly instanceMatrix: Float64Array | null;
  readonly combined: Float64Array | null;

  constructor(mesh: AbstractMesh, grid: TriangleGrid, instance: number) {
    this.mesh = mesh;
    this.grid = grid;
    this.instance = instance;
    this.instanceMatrix = instance >= 0 ? new Float64Array(16).fill(Number.NaN) : null;
    this.combined = instance >= 0 ? new Float64Array(16) : null;
  }

  /** The current world matrix (the mesh's, or the instance's × the mesh's), as the rays see it. */
  worldMatrixToRef(out: Float64Array): boolean {
    if (!current(this)) return false;
    const w = this.world;
    for (let r = 0; r < 4; r++) {
      out[r * 4] = w[r * 3]!;
      out[r * 4 + 1] = w[r * 3 + 1]!;
      out[r * 4 + 2] = w[r * 3 + 2]!;
      out[r * 4 + 3] = r < 3 ? 0 : 1;
    }
    return true;
  }
}

/** The entries of `meshes`: one per mesh, or one per thin instance sharing the mesh's grid. */
function entriesOf(meshes: readonly AbstractMesh[], cellSize: number | undefined): MovingMesh[] {
  const entries: MovingMesh[] = [];
  for (const mesh of meshes) {
    const grid = new TriangleGrid(meshTriangles(mesh, null), cellSize);
    const count = thinInstanceCount(mesh);
    if (count === 0) entries.push(new MovingMesh(mesh, grid, -1));
    else for (let i = 0; i < count; i++) entries.push(new MovingMesh(mesh, grid, i));
  }
  return entries;
}

const localOrigin = new Vec3();
const localDirection = new Vec3();
// the hit triangle's corners in world space
const corners = new Float64Array(9);
// [closest hit so far, slab entry, slab exit]
const span = new Float64Array(3);

/**
 * A {@link GroundingRaycast} over ground meshes that move: platforms, lifts, a ship's deck, a rotating
 * bridge. Each mesh's triangles are binned once in the mesh's own space (as {@link StaticGroundRaycast}
 * bins world triangles), and each ray is carried into a mesh's space by the inverse of its current world
 * matrix, so moving, turning or scaling a mesh (or its parents) needs no re-baking. Allocation-free per ray.
 *
 * Per ray and mesh: the mesh's world matrix (Babylon's cached one when neither the mesh nor a parent
 * changed, else computed, as the rest of the library reads nodes), its inverse when that matrix changed,
 * a test against the mesh's world bounds, then the grid walk. Meshes that are disposed or disabled are
 * skipped. The normal is the hit triangle's world face normal turned toward the ray's origin, as
 * {@link BabylonGroundRaycast} and {@link StaticGroundRaycast} report it.
 *
 * `GrounderFBBIK.create(ik, { raycast: MovingGroundRaycast.fromMeshes([deck, lift]).raycast })`. Call
 * {@link refresh} only after editing a mesh's vertices (a mesh that has none yet, a `CreateGroundFromHeightMap`
 * still loading its image, is binned by the first ray after they arrive). The world matrices are expected to be
 * affine (as every mesh's is). Thin instances are ground each at its matrix × the mesh's world matrix, followed as
 * they move. Skinned and morphed ground cannot be probed this way: `fromMeshes` throws a RangeError
 * naming such meshes (use Babylon picking).
 *
 * `raycast.sphereCast` ({@link sphereCast}) sweeps a sphere over each mesh whose world bounds it crosses,
 * the triangles of the cells under it carried into world space: the grounder's `Best` quality uses it.
 *
 * Each ray's hit names the mesh (or thin instance) it hit (`GroundingHit.ground`), so a foot standing on a moving
 * mesh has its velocity measured over that mesh, not over the world.
 */
export class MovingGroundRaycast {
  /** The raycast as a function (bound once), for `GrounderFBBIK`'s `raycast` option. */
  readonly raycast: GroundingRaycast;
  private entries: MovingMesh[];
  /** Meshes binned before they had vertices: the first ray after theirs arrive bins again. */
  private readonly pending = new PendingVertices();
  private readonly meshList: readonly AbstractMesh[];
  private readonly cellSize: number | undefined;
  private readonly sweep = new SphereSweep();

  private constructor(meshes: readonly AbstractMesh[], options: MovingGroundRaycastOptions) {
    checkLoggedOptions("MovingGroundRaycast", options, MOVING_GROUND_RAYCAST_OPTION_KINDS);
    this.cellSize = options.cellSize;
    this.meshList = meshes.slice();
    this.entries = entriesOf(this.meshList, this.cellSize);
    this.pending.watch(this.meshList);
    const raycast: GroundingRaycast = (origin, direction, maxDistance, out) =>
      this.cast(origin, direction, maxDistance, out);
    raycast.sphereCast = (origin, direction, radius, maxDistance, out) =>
      this.sphereCast(origin, direction, radius, maxDistance, out);
    this.raycast = raycast;
  }

  /** Bins the triangles of `meshes` in their own spaces; their world matrices are followed on every ray. */
  static fromMeshes(meshes: readonly AbstractMesh[], options: MovingGroundRaycastOptions = {}): MovingGroundRaycast {
    checkGroundMeshes(meshes, "MovingGroundRaycast");
    return new MovingGroundRaycast(meshes, options);
  }

  /** The ground meshes. */
  get meshes(): readonly AbstractMesh[] {
    return this.meshList;
  }

  /** Number of triangles over all meshes (each thin instance counted). */
  get triangleCount(): number {
    return this.entries.reduce((n, e) => n + e.grid.triangleCount, 0);
  }

  /**
   * Bins every mesh's triangles again: after its vertices were edited, or thin instances were added or
   * removed. Moving a mesh, its parents or a thin instance (`thinInstanceSetMatrixAt`) needs no refresh.
   */
  refresh(): void {
    this.entries = entriesOf(this.meshList, this.cellSize);
    this.pending.watch(this.meshList);
  }

  /**
   * Casts a ray from `origin` along the unit `direction` up to `maxDistance`; writes the closest contact
   * into `out` and returns true, or returns false. Allocates nothing.
   */
  cast(origin: ReadonlyVec3, direction: ReadonlyVec3, maxDistance: number, out: GroundingHit): boolean {
    if (this.pending.arrived()) this.refresh();
    span[0] = maxDistance;
    return this.castAll(origin, direction, out);
  }

  /** The cast, with its maximum distance in span[0] (see ARCHITECTURE.md, "Doubles across calls"). */
  private castAll(origin: ReadonlyVec3, direction: ReadonlyVec3, out: GroundingHit): boolean {
    if (!(span[0]! >= 0)) return false;
    let best: MovingMesh | null = null;
    let bestTriangle = -1;
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if (!current(e) || !crossesBounds(e.worldBounds, origin, direction)) continue;
      toLocal(e, origin, direction);
      // the map is affine, so the local ray's parameter is still the world distance along `direction`
      const grid = e.grid;
      grid.io[1] = span[0]!;
      const t = grid.castRay(localOrigin, localDirection);
      if (t < 0) continue;
      span[0] = grid.io[0]!;
      best = e;
      bestTriangle = t;
    }
    if (best === null) return false;
    out.distance = span[0]!;
    placeOnRay(out, origin, direction);
    worldCorners(best, bestTriangle);
    faceNormalToward(corners, 0, direction, out.normal);
    out.ground = best;
    return true;
  }

  /**
   * Sweeps a sphere of `radius` from `origin` along the unit `direction` up to `maxDistance` against every
   * mesh at its current pose (see {@link GroundingSphereCast}); writes the first contact into `out` and
   * returns true, or returns false. The triangles under the sweep are carried into world space, so a mesh's
   * scale, even a non-uniform one, does not bend the sphere. Allocates nothing.
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
    const io = sweep.io;
    io[0] = radius;
    io[1] = maxDistance;
    if (!sweep.begin(origin, direction)) return false;
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if (!current(e)) continue;
      const wb = e.worldBounds;
      if (
        !(wb[0]! <= io[20]! && wb[3]! >= io[17]!) ||
        !(wb[1]! <= io[21]! && wb[4]! >= io[18]!) ||
        !(wb[2]! <= io[22]! && wb[5]! >= io[19]!)
      )
        continue;
      localSweepBox(e, io, e.grid.sweepBox);
      e.grid.sweepSphere(sweep, e.world);
    }
    return sweep.finish(out);
  }
}

/**
 * Brings the entry's transform up to date with its mesh (or thin instance) if it moved; false when the mesh
 * is disposed or disabled or its matrix is not usable.
 */
function current(e: MovingMesh): boolean {
  const mesh = e.mesh;
  if (mesh.isDisposed() || !mesh.isEnabled()) return false;
  const m = currentWorldMatrix(mesh);
  if (e.instance < 0) {
    if (m.updateFlag !== e.flag) {
      e.flag = m.updateFlag;
      updateTransform(e, m.m);
    }
  } else if (instanceMoved(e, m.updateFlag)) {
    updateTransform(e, multiplyMatrices(e.instanceMatrix!, 0, m.m, e.combined!));
  }
  return e.usable;
}

/**
 * The XZ extent, in the entry's space, of the world box `io[17…22]` (a sweep's): its centre through the
 * inverse map, its half extents through |inverse|; into `out` as min x, min z, max x, max z.
 */
function localSweepBox(e: MovingMesh, io: Float64Array, out: Float64Array): void {
  const w = e.world;
  const inv = e.inverse;
  const cx = 0.5 * (io[17]! + io[20]!) - w[9]!;
  const cy = 0.5 * (io[18]! + io[21]!) - w[10]!;
  const cz = 0.5 * (io[19]! + io[22]!) - w[11]!;
  const hx = 0.5 * (io[20]! - io[17]!);
  const hy = 0.5 * (io[21]! - io[18]!);
  const hz = 0.5 * (io[22]! - io[19]!);
  const lx = cx * inv[0]! + cy * inv[3]! + cz * inv[6]!;
  const lz = cx * inv[2]! + cy * inv[5]! + cz * inv[8]!;
  const ex = hx * Math.abs(inv[0]!) + hy * Math.abs(inv[3]!) + hz * Math.abs(inv[6]!);
  const ez = hx * Math.abs(inv[2]!) + hy * Math.abs(inv[5]!) + hz * Math.abs(inv[8]!);
  out[0] = lx - ex;
  out[1] = lz - ez;
  out[2] = lx + ex;
  out[3] = lz + ez;
}

/**
 * True (and the entry's copy of the instance matrix refreshed) when the thin instance's matrix or the
 * mesh's world matrix changed since last seen. An instance removed since the last refresh is not ground.
 */
function instanceMoved(e: MovingMesh, flag: number): boolean {
  const data = thinInstanceMatrices(e.mesh);
  if (data === null || e.instance >= thinInstanceCount(e.mesh)) {
    e.usable = false;
    e.flag = -1;
    return false;
  }
  const copy = e.instanceMatrix!;
  const o = e.instance * 16;
  let changed = flag !== e.flag;
  for (let k = 0; k < 16; k++) {
    if (copy[k] !== data[o + k]) {
      copy[k] = data[o + k]!;
      changed = true;
    }
  }
  e.flag = flag;
  return changed;
}

/** Refreshes the entry's copy of its world matrix `m` (Babylon's elements), the inverse and the world bounds. */
function updateTransform(e: MovingMesh, m: ArrayLike<number>): void {
  const w = e.world;
  // rows of the linear part, then the translation
  w[0] = m[0]!;
  w[1] = m[1]!;
  w[2] = m[2]!;
  w[3] = m[4]!;
  w[4] = m[5]!;
  w[5] = m[6]!;
  w[6] = m[8]!;
  w[7] = m[9]!;
  w[8] = m[10]!;
  w[9] = m[12]!;
  w[10] = m[13]!;
  w[11] = m[14]!;
  // inverse of the 3×3 part by cofactors, in double precision
  const c00 = w[4]! * w[8]! - w[5]! * w[7]!;
  const c01 = w[5]! * w[6]! - w[3]! * w[8]!;
  const c02 = w[3]! * w[7]! - w[4]! * w[6]!;
  const det = w[0]! * c00 + w[1]! * c01 + w[2]! * c02;
  e.usable = det !== 0 && Number.isFinite(det) && Number.isFinite(w[9]! + w[10]! + w[11]!);
  if (!e.usable) return;
  const id = 1 / det;
  const inv = e.inverse;
  inv[0] = c00 * id;
  inv[1] = (w[2]! * w[7]! - w[1]! * w[8]!) * id;
  inv[2] = (w[1]! * w[5]! - w[2]! * w[4]!) * id;
  inv[3] = c01 * id;
  inv[4] = (w[0]! * w[8]! - w[2]! * w[6]!) * id;
  inv[5] = (w[2]! * w[3]! - w[0]! * w[5]!) * id;
  inv[6] = c02 * id;
  inv[7] = (w[1]! * w[6]! - w[0]! * w[7]!) * id;
  inv[8] = (w[0]! * w[4]! - w[1]! * w[3]!) * id;
  // world bounds: the local box's centre carried over, its half extents through |linear part|
  const lb = e.grid.bounds;
  const wb = e.worldBounds;
  for (let j = 0; j < 3; j++) {
    let c = w[9 + j]!;
    let r = 0;
    for (let i = 0; i < 3; i++) {
      const a = w[i * 3 + j]!;
      c += a * 0.5 * (lb[i]! + lb[i + 3]!);
      r += Math.abs(a) * 0.5 * (lb[i + 3]! - lb[i]!);
    }
    wb[j] = c - r;
    wb[j + 3] = c + r;
  }
}

/** True when the ray crosses the box `b` (min xyz, max xyz) within [0, span[0]]. */
function crossesBounds(b: Float64Array, origin: ReadonlyVec3, direction: ReadonlyVec3): boolean {
  span[1] = 0;
  span[2] = span[0]!;
  return (
    clipRayToBoxAxis(b, 0, origin, direction, span, 1) &&
    clipRayToBoxAxis(b, 1, origin, direction, span, 1) &&
    clipRayToBoxAxis(b, 2, origin, direction, span, 1)
  );
}

/** The ray in the entry's local space, into localOrigin and localDirection (row vectors: (p − t) × A⁻¹). */
function toLocal(e: MovingMesh, origin: ReadonlyVec3, direction: ReadonlyVec3): void {
  const w = e.world;
  const inv = e.inverse;
  const px = origin.x - w[9]!;
  const py = origin.y - w[10]!;
  const pz = origin.z - w[11]!;
  localOrigin.x = px * inv[0]! + py * inv[3]! + pz * inv[6]!;
  localOrigin.y = px * inv[1]! + py * inv[4]! + pz * inv[7]!;
  localOrigin.z = px * inv[2]! + py * inv[5]! + pz * inv[8]!;
  const dx = direction.x;
  const dy = direction.y;
  const dz = direction.z;
  localDirection.x = dx * inv[0]! + dy * inv[3]! + dz * inv[6]!;
  localDirection.y = dx * inv[1]! + dy * inv[4]! + dz * inv[7]!;
  localDirection.z = dx * inv[2]! + dy * inv[5]! + dz * inv[8]!;
}

/** The world-space corners of triangle `t` of the entry, into `corners`. */
function worldCorners(e: MovingMesh, t: number): void {
  const tris = e.grid.triangles;
  const w = e.world;
  for (let c = 0; c < 3; c++) {
    const b = t * 9 + c * 3;
    const x = tris[b]!;
    const y = tris[b + 1]!;
    const z = tris[b + 2]!;
    corners[c * 3] = x * w[0]! + y * w[3]! + z * w[6]! + w[9]!;
    corners[c * 3 + 1] = x * w[1]! + y * w[4]! + z * w[7]! + w[10]!;
    corners[c * 3 + 2] = x * w[2]! + y * w[5]! + z * w[8]! + w[11]!;
  }
}
