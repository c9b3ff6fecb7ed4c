import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { ReadonlyVec3 } from "../../math/vec3.js";
import type { GroundingHit, GroundingRaycast } from "./grounding-common.js";

/** Options of {@link StaticGroundRaycast}. */
export interface StaticGroundRaycastOptions {
  /**
   * Edge of the grid's square cells in the XZ plane (world units). Default: about two triangles' worth of
   * the ground's XZ area per cell, at most 512 cells along each axis.
   */
  cellSize?: number;
}

/** Cells along each axis at most: bounds the grid's memory for huge, finely tessellated grounds. */
const MAX_CELLS_PER_AXIS = 512;

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
 * and its world matrix at that moment: call {@link refresh} after moving, scaling or editing a ground mesh
 * (it allocates). Thin instances and skinned or morphed ground are not baked (use Babylon picking there).
 */
export class StaticGroundRaycast {
  /** The raycast as a function (bound once), for `GrounderFBBIK`'s `raycast` option. */
  readonly raycast: GroundingRaycast;
  /** The baked meshes; null for {@link fromTriangles}. */
  private readonly meshes: readonly AbstractMesh[] | null;
  private readonly cellSizeOption: number | undefined;
  // world triangles, 9 numbers each (v0, v1, v2)
  private tris: Float64Array = new Float64Array(0);
  private minX = 0;
  private minZ = 0;
  private maxX = 0;
  private maxZ = 0;
  private cell = 1;
  private nx = 0;
  private nz = 0;
  // the triangles of cell (ix, iz) are items[start[ix + iz × nx] … start[ix + iz × nx + 1]]
  private start: Int32Array = new Int32Array(1);
  private items: Int32Array = new Int32Array(0);
  // per-cast scratch, in a typed array so the hot loop stores no double into an object field
  // [closest hit so far, maximum distance, slab entry, slab exit]
  private readonly scratch = new Float64Array(4);

  private constructor(meshes: readonly AbstractMesh[] | null, triangles: Float64Array, options: StaticGroundRaycastOptions) {
    this.meshes = meshes;
    this.cellSizeOption = options.cellSize;
    this.raycast = (origin, direction, maxDistance, out) => this.cast(origin, direction, maxDistance, out);
    this.build(triangles);
    this.refresh();
  }

  /** Bakes the triangles of `meshes` (their current world matrices). */
  static fromMeshes(meshes: readonly AbstractMesh[], options: StaticGroundRaycastOptions = {}): StaticGroundRaycast {
    return new StaticGroundRaycast(meshes.slice(), new Float64Array(0), options);
  }

  /**
   * Uses the given world-space triangles: 9 numbers per triangle (x, y, z of its three corners), copied.
   * For ground that is not a Babylon mesh (a heightfield, a physics shape's triangles).
   */
  static fromTriangles(triangles: ArrayLike<number>, options: StaticGroundRaycastOptions = {}): StaticGroundRaycast {
    if (triangles.length % 9 !== 0) throw new RangeError(`StaticGroundRaycast: ${triangles.length} numbers is not a whole number of triangles (9 each).`);
    return new StaticGroundRaycast(null, Float64Array.from(triangles), options);
  }

  /** Number of triangles baked. */
  get triangleCount(): number {
    return this.tris.length / 9;
  }

  /** Grid cells along X and Z, and their edge length. */
  get gridSize(): { cellsX: number; cellsZ: number; cellSize: number } {
    return { cellsX: this.nx, cellsZ: this.nz, cellSize: this.cell };
  }

  /** Bakes the meshes again (after one moved or changed). Does nothing for {@link fromTriangles}. */
  refresh(): void {
    if (this.meshes === null) return;
    const out: number[] = [];
    for (const mesh of this.meshes) {
      if (mesh.isDisposed()) continue;
      const positions = mesh.getVerticesData("position");
      if (positions === null) continue;
      const indices = mesh.getIndices();
      const m = mesh.computeWorldMatrix(true).m;
      const count = indices !== null && indices.length > 0 ? indices.length : positions.length / 3;
      for (let k = 0; k + 2 < count; k += 3) {
        for (let c = 0; c < 3; c++) {
          const i = (indices !== null && indices.length > 0 ? indices[k + c]! : k + c) * 3;
          const x = positions[i]!;
          const y = positions[i + 1]!;
          const z = positions[i + 2]!;
          // Babylon's row-vector convention: world = local × m
          const w = x * m[3]! + y * m[7]! + z * m[11]! + m[15]!;
          const iw = w !== 0 && w !== 1 ? 1 / w : 1;
          out.push((x * m[0]! + y * m[4]! + z * m[8]! + m[12]!) * iw, (x * m[1]! + y * m[5]! + z * m[9]! + m[13]!) * iw, (x * m[2]! + y * m[6]! + z * m[10]! + m[14]!) * iw);
        }
      }
    }
    this.build(Float64Array.from(out));
  }

  private build(tris: Float64Array): void {
    this.tris = tris;
    const n = tris.length / 9;
    let minX = Infinity;
    let minZ = Infinity;
    let maxX = -Infinity;
    let maxZ = -Infinity;
    for (let k = 0; k < tris.length; k += 3) {
      const x = tris[k]!;
      const z = tris[k + 2]!;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (z < minZ) minZ = z;
      if (z > maxZ) maxZ = z;
    }
    if (n === 0 || !Number.isFinite(minX + maxX + minZ + maxZ)) {
      this.nx = 0;
      this.nz = 0;
      this.start = new Int32Array(1);
      this.items = new Int32Array(0);
      return;
    }
    const w = maxX - minX;
    const d = maxZ - minZ;
    let cell = this.cellSizeOption !== undefined && this.cellSizeOption > 0 ? this.cellSizeOption : Math.sqrt((Math.max(w, 1e-9) * Math.max(d, 1e-9) * 2) / n);
    const longest = Math.max(w, d);
    // floor(longest / cell) + 1 cells along the longest axis, at most MAX_CELLS_PER_AXIS
    if (!(cell > 0) || longest / cell > MAX_CELLS_PER_AXIS - 1) cell = longest > 0 ? longest / (MAX_CELLS_PER_AXIS - 1) : 1;
    // cellX maps [minX, maxX] onto 0 … floor(w / cell)
    const nx = Math.floor(w / cell) + 1;
    const nz = Math.floor(d / cell) + 1;
    this.minX = minX;
    this.minZ = minZ;
    this.maxX = maxX;
    this.maxZ = maxZ;
    this.cell = cell;
    this.nx = nx;
    this.nz = nz;
    // counting pass, then filling pass (compressed rows)
    const start = new Int32Array(nx * nz + 1);
    const range = (t: number, into: Int32Array): void => {
      let x0 = Infinity;
      let x1 = -Infinity;
      let z0 = Infinity;
      let z1 = -Infinity;
      for (let c = 0; c < 3; c++) {
        const x = tris[t * 9 + c * 3]!;
        const z = tris[t * 9 + c * 3 + 2]!;
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x);
        z0 = Math.min(z0, z);
        z1 = Math.max(z1, z);
      }
      into[0] = this.cellX(x0);
      into[1] = this.cellX(x1);
      into[2] = this.cellZ(z0);
      into[3] = this.cellZ(z1);
    };
    const r = new Int32Array(4);
    for (let t = 0; t < n; t++) {
      range(t, r);
      for (let iz = r[2]!; iz <= r[3]!; iz++) for (let ix = r[0]!; ix <= r[1]!; ix++) start[ix + iz * nx + 1]!++;
    }
    for (let i = 0; i < nx * nz; i++) start[i + 1]! += start[i]!;
    const items = new Int32Array(start[nx * nz]!);
    const fill = start.slice(0, nx * nz);
    for (let t = 0; t < n; t++) {
      range(t, r);
      for (let iz = r[2]!; iz <= r[3]!; iz++) for (let ix = r[0]!; ix <= r[1]!; ix++) items[fill[ix + iz * nx]!++] = t;
    }
    this.start = start;
    this.items = items;
  }

  private cellX(x: number): number {
    const i = Math.floor((x - this.minX) / this.cell);
    return i < 0 ? 0 : i >= this.nx ? this.nx - 1 : i;
  }

  private cellZ(z: number): number {
    const i = Math.floor((z - this.minZ) / this.cell);
    return i < 0 ? 0 : i >= this.nz ? this.nz - 1 : i;
  }

  /**
   * Casts a ray from `origin` along the unit `direction` up to `maxDistance`; writes the closest contact
   * into `out` and returns true, or returns false. Allocates nothing.
   */
  cast(origin: ReadonlyVec3, direction: ReadonlyVec3, maxDistance: number, out: GroundingHit): boolean {
    // the distance goes on through the typed array: a double passed to the (large, not inlined) walk
    // would be boxed on every ray
    this.scratch[1] = maxDistance;
    return this.walk(origin, direction, out);
  }

  /** The cast, with its maximum distance in scratch[1]. */
  private walk(origin: ReadonlyVec3, direction: ReadonlyVec3, out: GroundingHit): boolean {
    const maxDistance = this.scratch[1]!;
    if (this.nx === 0 || !(maxDistance >= 0)) return false;
    const ox = origin.x;
    const oz = origin.z;
    const dx = direction.x;
    const dz = direction.z;
    // the part of the ray over the grid's XZ rectangle (slab test): [t0, t1] in scratch[2], scratch[3]
    const scratch = this.scratch;
    scratch[2] = 0;
    scratch[3] = maxDistance;
    if (!this.clipSlab(true, origin, direction) || !this.clipSlab(false, origin, direction)) return false;
    const t0 = scratch[2]!;
    const t1 = scratch[3]!;
    if (!(t0 <= t1)) return false;
    scratch[0] = maxDistance; // the closest hit so far
    let best = -1;
    // walk the cells the ray's XZ shadow crosses (Amanatides–Woo), from where it enters the rectangle
    const cell = this.cell;
    let ix = this.cellX(ox + dx * t0);
    let iz = this.cellZ(oz + dz * t0);
    const stepX = dx > 0 ? 1 : dx < 0 ? -1 : 0;
    const stepZ = dz > 0 ? 1 : dz < 0 ? -1 : 0;
    let tMaxX = stepX === 0 ? Infinity : (this.minX + (ix + (stepX > 0 ? 1 : 0)) * cell - ox) / dx;
    let tMaxZ = stepZ === 0 ? Infinity : (this.minZ + (iz + (stepZ > 0 ? 1 : 0)) * cell - oz) / dz;
    const tDeltaX = stepX === 0 ? Infinity : cell / Math.abs(dx);
    const tDeltaZ = stepZ === 0 ? Infinity : cell / Math.abs(dz);
    for (;;) {
      const hit = this.castCell(ix + iz * this.nx, origin, direction);
      if (hit >= 0) best = hit;
      // the cell's far edge along the ray: nothing beyond it can be closer than a hit already found
      const exit = tMaxX < tMaxZ ? tMaxX : tMaxZ;
      if (exit > t1 || (best >= 0 && scratch[0]! <= exit)) break;
      if (tMaxX < tMaxZ) {
        ix += stepX;
        tMaxX += tDeltaX;
      } else {
        iz += stepZ;
        tMaxZ += tDeltaZ;
      }
      if (ix < 0 || iz < 0 || ix >= this.nx || iz >= this.nz) break;
    }
    if (best < 0) return false;
    this.writeHit(best, scratch[0]!, origin, direction, out);
    return true;
  }

  /**
   * Narrows [scratch[2], scratch[3]] to where the ray lies within the grid on the X (`alongX`) or Z axis;
   * false when it never does. Takes the vectors, not their numbers: doubles passed to a call V8 does not
   * inline are boxed.
   */
  private clipSlab(alongX: boolean, origin: ReadonlyVec3, direction: ReadonlyVec3): boolean {
    const o = alongX ? origin.x : origin.z;
    const d = alongX ? direction.x : direction.z;
    const lo = alongX ? this.minX : this.minZ;
    const hi = alongX ? this.maxX : this.maxZ;
    if (d === 0) return o >= lo && o <= hi;
    const a = (lo - o) / d;
    const b = (hi - o) / d;
    const scratch = this.scratch;
    scratch[2] = Math.max(scratch[2]!, Math.min(a, b));
    scratch[3] = Math.min(scratch[3]!, Math.max(a, b));
    return true;
  }

  /** Tests the triangles of one cell; returns the index of a triangle closer than scratch[0] (updated), or −1. */
  private castCell(c: number, origin: ReadonlyVec3, direction: ReadonlyVec3): number {
    const tris = this.tris;
    const items = this.items;
    const scratch = this.scratch;
    const ox = origin.x;
    const oy = origin.y;
    const oz = origin.z;
    const dx = direction.x;
    const dy = direction.y;
    const dz = direction.z;
    let found = -1;
    for (let k = this.start[c]!, end = this.start[c + 1]!; k < end; k++) {
      const t = items[k]!;
      const b = t * 9;
      const x0 = tris[b]!;
      const y0 = tris[b + 1]!;
      const z0 = tris[b + 2]!;
      const e1x = tris[b + 3]! - x0;
      const e1y = tris[b + 4]! - y0;
      const e1z = tris[b + 5]! - z0;
      const e2x = tris[b + 6]! - x0;
      const e2y = tris[b + 7]! - y0;
      const e2z = tris[b + 8]! - z0;
      // Möller–Trumbore, both sides
      const px = dy * e2z - dz * e2y;
      const py = dz * e2x - dx * e2z;
      const pz = dx * e2y - dy * e2x;
      const det = e1x * px + e1y * py + e1z * pz;
      if (det === 0 || !Number.isFinite(det)) continue;
      const inv = 1 / det;
      const sx = ox - x0;
      const sy = oy - y0;
      const sz = oz - z0;
      const u = (sx * px + sy * py + sz * pz) * inv;
      if (u < 0 || u > 1) continue;
      const qx = sy * e1z - sz * e1y;
      const qy = sz * e1x - sx * e1z;
      const qz = sx * e1y - sy * e1x;
      const v = (dx * qx + dy * qy + dz * qz) * inv;
      if (v < 0 || u + v > 1) continue;
      const dist = (e2x * qx + e2y * qy + e2z * qz) * inv;
      if (dist >= 0 && dist <= scratch[0]!) {
        scratch[0] = dist;
        found = t;
      }
    }
    return found;
  }

  private writeHit(t: number, distance: number, origin: ReadonlyVec3, direction: ReadonlyVec3, out: GroundingHit): void {
    const tris = this.tris;
    const b = t * 9;
    const e1x = tris[b + 3]! - tris[b]!;
    const e1y = tris[b + 4]! - tris[b + 1]!;
    const e1z = tris[b + 5]! - tris[b + 2]!;
    const e2x = tris[b + 6]! - tris[b]!;
    const e2y = tris[b + 7]! - tris[b + 1]!;
    const e2z = tris[b + 8]! - tris[b + 2]!;
    let nx = e1y * e2z - e1z * e2y;
    let ny = e1z * e2x - e1x * e2z;
    let nz = e1x * e2y - e1y * e2x;
    const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
    // a hit triangle has det ≠ 0, so its edges are not parallel and l > 0
    const k = (nx * direction.x + ny * direction.y + nz * direction.z > 0 ? -1 : 1) / l;
    nx *= k;
    ny *= k;
    nz *= k;
    out.distance = distance;
    out.point.x = origin.x + direction.x * distance;
    out.point.y = origin.y + direction.y * distance;
    out.point.z = origin.z + direction.z * distance;
    out.normal.x = nx;
    out.normal.y = ny;
    out.normal.z = nz;
  }
}
