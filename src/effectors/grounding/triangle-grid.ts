import type { ReadonlyVec3, Vec3 } from "../../math/vec3.js";
import type { SphereSweep } from "./sphere-sweep.js";

/** Cells along each axis at most: bounds the grid's memory for huge, finely tessellated grounds. */
const MAX_CELLS_PER_AXIS = 512;

/**
 * A triangle soup binned into a uniform grid over its XZ plane, for ray casts that allocate nothing: a ray
 * walks only the cells its XZ shadow crosses (Amanatides–Woo, clipped to the grid's rectangle; a vertical
 * ray visits one cell) and tests their triangles exactly (Möller–Trumbore, both sides). The ray's
 * direction need not be unit: distances are in units of the ray's parameter, so a ray transformed into the
 * grid's space by an affine map keeps its distances.
 *
 * The shared core of {@link StaticGroundRaycast} (one grid in world space) and {@link MovingGroundRaycast}
 * (one grid per mesh, in the mesh's local space).
 */
export class TriangleGrid {
  /** The triangles, 9 numbers each (x, y, z of their three corners), in the grid's space. */
  readonly triangles: Float64Array;
  /** Bounds of the triangles: min x, y, z, then max x, y, z. */
  readonly bounds = new Float64Array(6);
  private cell = 1;
  private nx = 0;
  private nz = 0;
  // the triangles of cell (ix, iz) are items[start[ix + iz × nx] … start[ix + iz × nx + 1]]
  private start: Int32Array = new Int32Array(1);
  private items: Int32Array = new Int32Array(0);
  /**
   * The numbers of a cast, in a typed array so that no double crosses a call (see ARCHITECTURE.md,
   * "Doubles across calls"): [0] the distance of the hit {@link castRay} found,
   * [1] the maximum distance it reads; [2] and [3] are its own scratch.
   */
  readonly io = new Float64Array(4);
  /** The swept box of {@link sweepSphere} in the grid's XZ plane: min x, min z, max x, max z. */
  readonly sweepBox = new Float64Array(4);
  // the sweep that last tested each triangle (one that spans several cells is tested once)
  private stamps: Int32Array = new Int32Array(0);
  private sweepId = 0;
  // a triangle carried into another space for a sweep
  private readonly corners = new Float64Array(9);

  /**
   * Bins `triangles` (kept, not copied). `cellSize` is the cells' edge in the XZ plane; default about two
   * triangles' worth of the XZ area per cell, at most 512 cells along each axis.
   */
  constructor(triangles: Float64Array, cellSize?: number) {
    this.triangles = triangles;
    this.build(cellSize);
  }

  /** Number of triangles. */
  get triangleCount(): number {
    return this.triangles.length / 9;
  }

  /** Grid cells along X and Z, and their edge length. */
  get gridSize(): { cellsX: number; cellsZ: number; cellSize: number } {
    return { cellsX: this.nx, cellsZ: this.nz, cellSize: this.cell };
  }

  private build(cellSizeOption: number | undefined): void {
    const tris = this.triangles;
    const n = tris.length / 9;
    const b = this.bounds;
    b.set([Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity]);
    for (let k = 0; k < tris.length; k += 3) {
      for (let a = 0; a < 3; a++) {
        const v = tris[k + a]!;
        if (v < b[a]!) b[a] = v;
        if (v > b[a + 3]!) b[a + 3] = v;
      }
    }
    const minX = b[0]!;
    const minZ = b[2]!;
    const maxX = b[3]!;
    const maxZ = b[5]!;
    if (n === 0 || !Number.isFinite(minX + maxX + minZ + maxZ)) {
      this.nx = 0;
      this.nz = 0;
      return;
    }
    const w = maxX - minX;
    const d = maxZ - minZ;
    let cell =
      cellSizeOption !== undefined && cellSizeOption > 0
        ? cellSizeOption
        : Math.sqrt((Math.max(w, 1e-9) * Math.max(d, 1e-9) * 2) / n);
    const longest = Math.max(w, d);
    // floor(longest / cell) + 1 cells along the longest axis, at most MAX_CELLS_PER_AXIS
    if (!(cell > 0) || longest / cell > MAX_CELLS_PER_AXIS - 1)
      cell = longest > 0 ? longest / (MAX_CELLS_PER_AXIS - 1) : 1;
    // cellX maps [minX, maxX] onto 0 … floor(w / cell)
    const nx = Math.floor(w / cell) + 1;
    const nz = Math.floor(d / cell) + 1;
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
    this.stamps = new Int32Array(n);
  }

  /**
   * Tests `sweep` against the triangles of the cells that {@link sweepBox} overlaps, each once. With `world`
   * (an affine map: the rows of its linear part, then its translation, 12 numbers; Babylon's row-vector
   * convention) the triangles are carried through it first, so the sweep runs in that space: a sphere stays
   * a sphere under any scale. Allocates nothing.
   */
  sweepSphere(sweep: SphereSweep, world: Float64Array | null): void {
    if (this.nx === 0) return;
    const box = this.sweepBox;
    const b = this.bounds;
    if (!(box[0]! <= b[3]! && box[2]! >= b[0]! && box[1]! <= b[5]! && box[3]! >= b[2]!)) return;
    const cell = this.cell;
    const ix0 = Math.max(0, Math.floor((box[0]! - b[0]!) / cell));
    const iz0 = Math.max(0, Math.floor((box[1]! - b[2]!) / cell));
    const ix1 = Math.min(this.nx - 1, Math.floor((box[2]! - b[0]!) / cell));
    const iz1 = Math.min(this.nz - 1, Math.floor((box[3]! - b[2]!) / cell));
    if (this.sweepId === 0x7fffffff) {
      this.stamps.fill(0);
      this.sweepId = 0;
    }
    const id = ++this.sweepId;
    const stamps = this.stamps;
    const items = this.items;
    const start = this.start;
    const tris = this.triangles;
    const c = this.corners;
    for (let iz = iz0; iz <= iz1; iz++) {
      for (let ix = ix0; ix <= ix1; ix++) {
        const at = ix + iz * this.nx;
        for (let k = start[at]!, end = start[at + 1]!; k < end; k++) {
          const t = items[k]!;
          if (stamps[t] === id) continue;
          stamps[t] = id;
          if (world === null) {
            sweep.test(tris, t * 9);
            continue;
          }
          for (let j = 0; j < 9; j += 3) {
            const x = tris[t * 9 + j]!;
            const y = tris[t * 9 + j + 1]!;
            const z = tris[t * 9 + j + 2]!;
            c[j] = x * world[0]! + y * world[3]! + z * world[6]! + world[9]!;
            c[j + 1] = x * world[1]! + y * world[4]! + z * world[7]! + world[10]!;
            c[j + 2] = x * world[2]! + y * world[5]! + z * world[8]! + world[11]!;
          }
          sweep.test(c, 0);
        }
      }
    }
  }

  private cellX(x: number): number {
    const i = Math.floor((x - this.bounds[0]!) / this.cell);
    return i < 0 ? 0 : i >= this.nx ? this.nx - 1 : i;
  }

  private cellZ(z: number): number {
    const i = Math.floor((z - this.bounds[2]!) / this.cell);
    return i < 0 ? 0 : i >= this.nz ? this.nz - 1 : i;
  }

  /**
   * Casts a ray from `origin` along `direction` up to the parameter `io[1]`: returns the index of the
   * closest triangle hit (its distance in `io[0]`), or −1. Allocates nothing.
   */
  castRay(origin: ReadonlyVec3, direction: ReadonlyVec3): number {
    const maxDistance = this.io[1]!;
    if (this.nx === 0 || !(maxDistance >= 0)) return -1;
    const ox = origin.x;
    const oz = origin.z;
    const dx = direction.x;
    const dz = direction.z;
    // the part of the ray over the grid's XZ rectangle (slab test): [t0, t1] in io[2], io[3]
    const io = this.io;
    io[2] = 0;
    io[3] = maxDistance;
    if (
      !clipRayToBoxAxis(this.bounds, 0, origin, direction, io, 2) ||
      !clipRayToBoxAxis(this.bounds, 2, origin, direction, io, 2)
    )
      return -1;
    const t0 = io[2]!;
    const t1 = io[3]!;
    if (!(t0 <= t1)) return -1;
    io[0] = maxDistance; // the closest hit so far
    let best = -1;
    // walk the cells the ray's XZ shadow crosses (Amanatides–Woo), from where it enters the rectangle
    const cell = this.cell;
    let ix = this.cellX(ox + dx * t0);
    let iz = this.cellZ(oz + dz * t0);
    const stepX = dx > 0 ? 1 : dx < 0 ? -1 : 0;
    const stepZ = dz > 0 ? 1 : dz < 0 ? -1 : 0;
    let tMaxX = stepX === 0 ? Infinity : (this.bounds[0]! + (ix + (stepX > 0 ? 1 : 0)) * cell - ox) / dx;
    let tMaxZ = stepZ === 0 ? Infinity : (this.bounds[2]! + (iz + (stepZ > 0 ? 1 : 0)) * cell - oz) / dz;
    const tDeltaX = stepX === 0 ? Infinity : cell / Math.abs(dx);
    const tDeltaZ = stepZ === 0 ? Infinity : cell / Math.abs(dz);
    for (;;) {
      const hit = this.castCell(ix + iz * this.nx, origin, direction);
      if (hit >= 0) best = hit;
      // the cell's far edge along the ray: nothing beyond it can be closer than a hit already found
      const exit = tMaxX < tMaxZ ? tMaxX : tMaxZ;
      if (exit > t1 || (best >= 0 && io[0]! <= exit)) break;
      if (tMaxX < tMaxZ) {
        ix += stepX;
        tMaxX += tDeltaX;
      } else {
        iz += stepZ;
        tMaxZ += tDeltaZ;
      }
      if (ix < 0 || iz < 0 || ix >= this.nx || iz >= this.nz) break;
    }
    return best;
  }

  /** Tests the triangles of one cell; returns the index of a triangle closer than io[0] (updated), or −1. */
  private castCell(c: number, origin: ReadonlyVec3, direction: ReadonlyVec3): number {
    const tris = this.triangles;
    const items = this.items;
    const io = this.io;
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
      if (dist >= 0 && dist <= io[0]!) {
        io[0] = dist;
        found = t;
      }
    }
    return found;
  }
}

/**
 * The unit face normal of the triangle whose corners are `v[b…b + 8]`, turned to face against
 * `direction` (toward the ray's origin), into `out`. The triangle must not be degenerate (a hit one is not).
 */
export function faceNormalToward(v: Float64Array, b: number, direction: ReadonlyVec3, out: Vec3): Vec3 {
  const e1x = v[b + 3]! - v[b]!;
  const e1y = v[b + 4]! - v[b + 1]!;
  const e1z = v[b + 5]! - v[b + 2]!;
  const e2x = v[b + 6]! - v[b]!;
  const e2y = v[b + 7]! - v[b + 1]!;
  const e2z = v[b + 8]! - v[b + 2]!;
  const nx = e1y * e2z - e1z * e2y;
  const ny = e1z * e2x - e1x * e2z;
  const nz = e1x * e2y - e1y * e2x;
  const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
  const k = (nx * direction.x + ny * direction.y + nz * direction.z > 0 ? -1 : 1) / l;
  out.x = nx * k;
  out.y = ny * k;
  out.z = nz * k;
  return out;
}

/**
 * Narrows the ray's parameter span [span[at], span[at + 1]] to where it lies between the faces of the box
 * `box` (min x, y, z, then max x, y, z) on one axis (0, 1, 2); false when the span is empty, or when a
 * number is not finite (NaN never passes). Takes the vectors, not their numbers (see ARCHITECTURE.md,
 * "Doubles across calls").
 */
export function clipRayToBoxAxis(
  box: Float64Array,
  axis: number,
  origin: ReadonlyVec3,
  direction: ReadonlyVec3,
  span: Float64Array,
  at: number,
): boolean {
  const o = axis === 0 ? origin.x : axis === 1 ? origin.y : origin.z;
  const d = axis === 0 ? direction.x : axis === 1 ? direction.y : direction.z;
  const lo = box[axis]!;
  const hi = box[axis + 3]!;
  if (d === 0) return o >= lo && o <= hi;
  const p = (lo - o) / d;
  const q = (hi - o) / d;
  span[at] = Math.max(span[at]!, Math.min(p, q));
  span[at + 1] = Math.min(span[at + 1]!, Math.max(p, q));
  return span[at]! <= span[at + 1]!;
}
