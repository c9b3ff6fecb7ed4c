import type { ReadonlyVec3 } from "../../math/vec3.js";
import type { GroundingHit } from "./grounding-common.js";

/** |n · direction| below this: the triangle's plane is parallel to the cast and never the one reported. */
const PARALLEL = 1e-3;
/** Contacts closer than this × the radius along the cast are one contact (an edge or a vertex shared). */
const TIE = 1e-7;

/**
 * A sphere swept along a line against triangles one at a time, keeping the first contact: the shared core of
 * the triangle raycasts' sphere casts. Set the query with {@link begin} (the radius and length in `io`), test
 * triangles with {@link test} in any order (a triangle already overlapping the sphere at the start is
 * ignored, as Unity's and PhysX's sweeps ignore initial overlaps), then read the result with {@link finish}.
 *
 * Several triangles touched at once (on an edge or a vertex they share, or in a crease) report the one
 * whose plane the line of centres meets first, a plane parallel to the cast last: at a step's edge the
 * top rather than the riser, in a crease the side under the sphere. The normal is that triangle's face
 * normal turned toward the cast's origin, not the direction from the contact to the sphere's centre, so
 * a foot resting on an edge takes the surface's own slope. Allocates nothing.
 */
export class SphereSweep {
  /**
   * The numbers of a sweep, in a typed array so that no double crosses a call (see ARCHITECTURE.md,
   * "Doubles across calls"): [0] radius and [1] length, set by the caller; the rest is the sweep's own:
   * [2–4] origin, [5–7] unit direction, [8] the first contact's distance (centre travel), [9–11] its point,
   * [12–14] its normal, [15] its tie score, [16] its |n · direction|, [17–22] the swept box (min x, y, z,
   * max x, y, z), [23–25] a point for the inside test, [26] 1 when the line of centres crosses its triangle.
   */
  readonly io = new Float64Array(27);
  /** True once a contact was found since {@link begin}. */
  found = false;

  /**
   * Starts a sweep from `origin` along the unit `direction`, with the radius and length already in io[0], io[1];
   * false (nothing to sweep) unless the radius is > 0 and the length ≥ 0.
   */
  begin(origin: ReadonlyVec3, direction: ReadonlyVec3): boolean {
    const io = this.io;
    const r = io[0]!;
    const length = io[1]!;
    this.found = false;
    if (!(r > 0 && length >= 0)) return false;
    io[2] = origin.x;
    io[3] = origin.y;
    io[4] = origin.z;
    io[5] = direction.x;
    io[6] = direction.y;
    io[7] = direction.z;
    io[8] = length;
    const ex = origin.x + direction.x * length;
    const ey = origin.y + direction.y * length;
    const ez = origin.z + direction.z * length;
    io[17] = (origin.x < ex ? origin.x : ex) - r;
    io[18] = (origin.y < ey ? origin.y : ey) - r;
    io[19] = (origin.z < ez ? origin.z : ez) - r;
    io[20] = (origin.x > ex ? origin.x : ex) + r;
    io[21] = (origin.y > ey ? origin.y : ey) + r;
    io[22] = (origin.z > ez ? origin.z : ez) + r;
    return true;
  }

  /** Writes the first contact into `out` (distance: how far the centre travelled); false when none. */
  finish(out: GroundingHit): boolean {
    if (!this.found) return false;
    const io = this.io;
    out.distance = io[8]!;
    out.point.x = io[9]!;
    out.point.y = io[10]!;
    out.point.z = io[11]!;
    out.normal.x = io[12]!;
    out.normal.y = io[13]!;
    out.normal.z = io[14]!;
    out.ground = null;
    return true;
  }

  /** Sweeps against the triangle whose corners are `v[b…b + 8]`; keeps it when it is touched first. */
  test(v: Float64Array, b: number): void {
    const io = this.io;
    const ax = v[b]!;
    const ay = v[b + 1]!;
    const az = v[b + 2]!;
    const bx = v[b + 3]!;
    const by = v[b + 4]!;
    const bz = v[b + 5]!;
    const cx = v[b + 6]!;
    const cy = v[b + 7]!;
    const cz = v[b + 8]!;
    // outside the swept box: no contact
    if (
      (ax < io[17]! && bx < io[17]! && cx < io[17]!) ||
      (ax > io[20]! && bx > io[20]! && cx > io[20]!) ||
      (ay < io[18]! && by < io[18]! && cy < io[18]!) ||
      (ay > io[21]! && by > io[21]! && cy > io[21]!) ||
      (az < io[19]! && bz < io[19]! && cz < io[19]!) ||
      (az > io[22]! && bz > io[22]! && cz > io[22]!)
    )
      return;
    const r = io[0]!;
    const r2 = r * r;
    const ox = io[2]!;
    const oy = io[3]!;
    const oz = io[4]!;
    const dx = io[5]!;
    const dy = io[6]!;
    const dz = io[7]!;
    const e1x = bx - ax;
    const e1y = by - ay;
    const e1z = bz - az;
    const e2x = cx - ax;
    const e2y = cy - ay;
    const e2z = cz - az;
    let nx = e1y * e2z - e1z * e2y;
    let ny = e1z * e2x - e1x * e2z;
    let nz = e1x * e2y - e1y * e2x;
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (!(nl > 0) || nl === Number.POSITIVE_INFINITY) return;
    // the unit normal, turned toward the cast's origin (against the direction)
    const k = nx * dx + ny * dy + nz * dz > 0 ? -1 / nl : 1 / nl;
    nx *= k;
    ny *= k;
    nz *= k;
    const dn = nx * dx + ny * dy + nz * dz;
    // the origin's height over the plane, and the face: the centre meets the plane lifted by r
    const h0 = (ox - ax) * nx + (oy - ay) * ny + (oz - az) * nz;
    let t = Number.POSITIVE_INFINITY;
    let px = 0;
    let py = 0;
    let pz = 0;
    // the face: where the centre meets the plane lifted by r, or (the sphere starting across the plane)
    // the centre's foot on the plane, an overlap when inside the triangle
    const across = h0 > -r && h0 < r;
    const tf = across ? 0 : h0 >= r && dn < 0 ? (h0 - r) / -dn : -1;
    if (tf >= 0) {
      const qx = across ? ox - nx * h0 : ox + dx * tf - nx * r;
      const qy = across ? oy - ny * h0 : oy + dy * tf - ny * r;
      const qz = across ? oz - nz * h0 : oz + dz * tf - nz * r;
      io[23] = qx - ax;
      io[24] = qy - ay;
      io[25] = qz - az;
      if (this.inside(v, b)) {
        if (across) return;
        // a face contact comes before any edge or corner contact
        t = tf;
        px = qx;
        py = qy;
        pz = qz;
      }
    }
    if (t === Number.POSITIVE_INFINITY) {
      // the edges (capsules without their caps), then the corners
      for (let e = 0; e < 3; e++) {
        const sx = e === 0 ? ax : e === 1 ? bx : cx;
        const sy = e === 0 ? ay : e === 1 ? by : cy;
        const sz = e === 0 ? az : e === 1 ? bz : cz;
        const fx = (e === 0 ? bx : e === 1 ? cx : ax) - sx;
        const fy = (e === 0 ? by : e === 1 ? cy : ay) - sy;
        const fz = (e === 0 ? bz : e === 1 ? cz : az) - sz;
        const mx = ox - sx;
        const my = oy - sy;
        const mz = oz - sz;
        const ff = fx * fx + fy * fy + fz * fz;
        const mf = mx * fx + my * fy + mz * fz;
        const df = dx * fx + dy * fy + dz * fz;
        const mm = mx * mx + my * my + mz * mz;
        // the corner's sphere
        if (mm < r2) return;
        const md = mx * dx + my * dy + mz * dz;
        const cd = md * md - (mm - r2);
        if (cd >= 0) {
          const tv = -md - Math.sqrt(cd);
          if (tv >= 0 && tv < t) {
            t = tv;
            px = sx;
            py = sy;
            pz = sz;
          }
        }
        if (!(ff > 0)) continue;
        // the cylinder about the edge: |m + t·d|² − ((m + t·d)·f)² / ff = r²
        const ca = ff - df * df;
        const cc = ff * (mm - r2) - mf * mf;
        if (cc < 0) {
          // the origin within r of the edge's line: overlapping when beside the segment
          if (mf >= 0 && mf <= ff) return;
          continue;
        }
        if (!(ca > 1e-12 * ff)) continue;
        const cb = ff * md - df * mf;
        const disc = cb * cb - ca * cc;
        if (disc < 0) continue;
        const te = (-cb - Math.sqrt(disc)) / ca;
        if (!(te >= 0 && te < t)) continue;
        const s = mf + te * df;
        if (s < 0 || s > ff) continue;
        t = te;
        px = sx + (fx * s) / ff;
        py = sy + (fy * s) / ff;
        pz = sz + (fz * s) / ff;
      }
    }
    const best = io[8]!;
    if (!(t <= best + TIE * r)) return;
    // where the centre would rest on the triangle's whole plane along the line (a plane parallel to the cast:
    // nowhere), not before it rests r over the contact: the grounder's rule for the sampled planes
    const adn = -dn;
    const sc = (px - ox) * dx + (py - oy) * dy + (pz - oz) * dz - r;
    let score = adn > PARALLEL ? (h0 - r) / adn : Number.POSITIVE_INFINITY;
    if (score < sc) score = sc;
    // whether the line of centres crosses this triangle (the ground right under the sphere)
    let under = 0;
    if (adn > PARALLEL) {
      const s = h0 / adn;
      io[23] = ox + dx * s - ax;
      io[24] = oy + dy * s - ay;
      io[25] = oz + dz * s - az;
      if (this.inside(v, b)) under = 1;
    }
    if (this.found && t >= best - TIE * r) {
      // touched together with the best so far (an edge or a corner they share, a crease): the one right under
      // the sphere (on a rounded surface, its own slope there), else the plane met first (at a step's edge,
      // the top), then the one facing the cast more
      const was = io[26]!;
      if (under < was) return;
      if (under === was) {
        if (score > io[15]! + TIE * r || (score >= io[15]! - TIE * r && !(adn > io[16]!))) return;
      }
    }
    this.found = true;
    if (t < best) io[8] = t;
    io[9] = px;
    io[10] = py;
    io[11] = pz;
    io[12] = nx;
    io[13] = ny;
    io[14] = nz;
    io[15] = score;
    io[16] = adn;
    io[26] = under;
  }

  /** Whether the point io[23…25] (relative to the corner at v[b]), on the triangle's plane, lies inside it. */
  private inside(v: Float64Array, b: number): boolean {
    const io = this.io;
    const e1x = v[b + 3]! - v[b]!;
    const e1y = v[b + 4]! - v[b + 1]!;
    const e1z = v[b + 5]! - v[b + 2]!;
    const e2x = v[b + 6]! - v[b]!;
    const e2y = v[b + 7]! - v[b + 1]!;
    const e2z = v[b + 8]! - v[b + 2]!;
    const wx = io[23]!;
    const wy = io[24]!;
    const wz = io[25]!;
    // barycentric coordinates
    const d00 = e1x * e1x + e1y * e1y + e1z * e1z;
    const d01 = e1x * e2x + e1y * e2y + e1z * e2z;
    const d11 = e2x * e2x + e2y * e2y + e2z * e2z;
    const d20 = wx * e1x + wy * e1y + wz * e1z;
    const d21 = wx * e2x + wy * e2y + wz * e2z;
    const den = d00 * d11 - d01 * d01;
    const u = (d11 * d20 - d01 * d21) / den;
    const w = (d00 * d21 - d01 * d20) / den;
    return u >= 0 && w >= 0 && u + w <= 1;
  }
}
