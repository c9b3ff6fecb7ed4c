/**
 * Pushing points and segments out of placed capsules, on flat numbers. A placed capsule is 7 numbers at
 * offset `o` of a Float64Array: axis start (3), axis end (3), radius; a sphere has equal axis ends.
 * Allocation-free: intermediate results live in module scratch arrays, no double crosses a call.
 * @module
 */
import { Vec3, anyPerpendicular } from "../../math/vec3.js";

/**
 * {@link closestParams}' inputs (first segment's start and direction, second's start and direction: 12
 * numbers) and outputs at 12, 13 (s on the first segment, t on the second): doubles passed through a typed
 * array stay unboxed where an argument or a return value would be allocated on the heap.
 */
const seg = new Float64Array(14);
const axis = new Vec3();
const perp = new Vec3();

/**
 * Parameters of the closest points between segments p + s·d1 and a + t·d2 (read from `seg`), s, t ∈ [0, 1]
 * (Ericson's clamped solve), written into `seg[12]`, `seg[13]`. Degenerate segments (zero direction) are points.
 */
function closestParams(): void {
  const d1x = seg[3]!;
  const d1y = seg[4]!;
  const d1z = seg[5]!;
  const d2x = seg[9]!;
  const d2y = seg[10]!;
  const d2z = seg[11]!;
  const rx = seg[0]! - seg[6]!;
  const ry = seg[1]! - seg[7]!;
  const rz = seg[2]! - seg[8]!;
  const a = d1x * d1x + d1y * d1y + d1z * d1z;
  const e = d2x * d2x + d2y * d2y + d2z * d2z;
  const f = d2x * rx + d2y * ry + d2z * rz;
  // clamps written out: a helper would box every double it takes or returns
  let s = 0;
  let t = 0;
  if (!(a > 0)) {
    if (e > 0) {
      t = f / e;
      t = t > 0 ? (t < 1 ? t : 1) : 0;
    }
  } else {
    const c = d1x * rx + d1y * ry + d1z * rz;
    if (!(e > 0)) {
      s = -c / a;
      s = s > 0 ? (s < 1 ? s : 1) : 0;
    } else {
      const b = d1x * d2x + d1y * d2y + d1z * d2z;
      const denom = a * e - b * b;
      // parallel segments: any s is as good; 0 keeps the choice deterministic
      if (denom > 0) {
        s = (b * f - c * e) / denom;
        s = s > 0 ? (s < 1 ? s : 1) : 0;
      }
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = -c / a;
        s = s > 0 ? (s < 1 ? s : 1) : 0;
      } else if (t > 1) {
        t = 1;
        s = (b - c) / a;
        s = s > 0 ? (s < 1 ? s : 1) : 0;
      }
    }
  }
  seg[12] = s;
  seg[13] = t;
}

/** Loads {@link closestParams}' inputs into `seg`. */
function loadSegments(pos: Float64Array, i: number, j: number, shapes: Float64Array, o: number): void {
  const px = pos[i]!;
  const py = pos[i + 1]!;
  const pz = pos[i + 2]!;
  seg[0] = px;
  seg[1] = py;
  seg[2] = pz;
  seg[3] = pos[j]! - px;
  seg[4] = pos[j + 1]! - py;
  seg[5] = pos[j + 2]! - pz;
  const ax = shapes[o]!;
  const ay = shapes[o + 1]!;
  const az = shapes[o + 2]!;
  seg[6] = ax;
  seg[7] = ay;
  seg[8] = az;
  seg[9] = shapes[o + 3]! - ax;
  seg[10] = shapes[o + 4]! - ay;
  seg[11] = shapes[o + 5]! - az;
}

/**
 * Writes into `perp` the push direction for a point lying exactly on the capsule's axis: perpendicular to
 * both the segment and the axis when they cross, else to whichever is not degenerate.
 */
function pushDirectionOnAxis(): void {
  const d1x = seg[3]!;
  const d1y = seg[4]!;
  const d1z = seg[5]!;
  const d2x = seg[9]!;
  const d2y = seg[10]!;
  const d2z = seg[11]!;
  const cx = d1y * d2z - d1z * d2y;
  const cy = d1z * d2x - d1x * d2z;
  const cz = d1x * d2y - d1y * d2x;
  const cl = Math.sqrt(cx * cx + cy * cy + cz * cz);
  if (cl > 0 && cl < Infinity) {
    perp.x = cx / cl;
    perp.y = cy / cl;
    perp.z = cz / cl;
    return;
  }
  if (d2x !== 0 || d2y !== 0 || d2z !== 0) {
    axis.x = d2x;
    axis.y = d2y;
    axis.z = d2z;
  } else {
    axis.x = d1x;
    axis.y = d1y;
    axis.z = d1z;
  }
  // both degenerate: anyPerpendicular of zero is +X
  anyPerpendicular(perp, axis);
}

/**
 * Pushes the point at `i` (3 numbers) of `pos` out of the capsule at `o` of `shapes` (whose radius slot
 * already holds radius + clearance) along the shortest way. True when it moved; a point already outside is
 * untouched.
 */
export function pushPointOut(pos: Float64Array, i: number, shapes: Float64Array, o: number): boolean {
  loadSegments(pos, i, i, shapes, o);
  closestParams();
  const t = seg[13]!;
  const px = seg[0]!;
  const py = seg[1]!;
  const pz = seg[2]!;
  let nx = px - (seg[6]! + seg[9]! * t);
  let ny = py - (seg[7]! + seg[10]! * t);
  let nz = pz - (seg[8]! + seg[11]! * t);
  const r = shapes[o + 6]!;
  const dd = nx * nx + ny * ny + nz * nz;
  if (!(dd < r * r)) return false;
  const d = Math.sqrt(dd);
  if (d > 0) {
    nx /= d;
    ny /= d;
    nz /= d;
  } else {
    pushDirectionOnAxis();
    nx = perp.x;
    ny = perp.y;
    nz = perp.z;
  }
  const m = r - d;
  pos[i] = px + nx * m;
  pos[i + 1] = py + ny * m;
  pos[i + 2] = pz + nz * m;
  return true;
}

/**
 * Pushes the segment between the points at `i` and `j` of `pos` out of the capsule at `o` of `shapes`
 * (radius slot = radius + clearance): the segment's point closest to the capsule's axis is moved out to the
 * radius, by moving the two end points along the push direction in proportion to the closest point's place
 * along the segment (weights 1 − s and s, scaled so that the closest point travels exactly the missing
 * distance). True when it moved; a segment already outside is untouched.
 */
export function pushSegmentOut(pos: Float64Array, i: number, j: number, shapes: Float64Array, o: number): boolean {
  loadSegments(pos, i, j, shapes, o);
  closestParams();
  const s = seg[12]!;
  const t = seg[13]!;
  let nx = seg[0]! + seg[3]! * s - (seg[6]! + seg[9]! * t);
  let ny = seg[1]! + seg[4]! * s - (seg[7]! + seg[10]! * t);
  let nz = seg[2]! + seg[5]! * s - (seg[8]! + seg[11]! * t);
  const r = shapes[o + 6]!;
  const dd = nx * nx + ny * ny + nz * nz;
  if (!(dd < r * r)) return false;
  const d = Math.sqrt(dd);
  if (d > 0) {
    nx /= d;
    ny /= d;
    nz /= d;
  } else {
    pushDirectionOnAxis();
    nx = perp.x;
    ny = perp.y;
    nz = perp.z;
  }
  // the closest point moves by ((1 − s)² + s²)·k when the ends move by (1 − s)·k and s·k
  const wp = 1 - s;
  const k = (r - d) / (wp * wp + s * s);
  const mp = wp * k;
  const mq = s * k;
  pos[i] += nx * mp;
  pos[i + 1] += ny * mp;
  pos[i + 2] += nz * mp;
  pos[j] += nx * mq;
  pos[j + 1] += ny * mq;
  pos[j + 2] += nz * mq;
  return true;
}

/**
 * Pushes the segment from the fixed point at `i` to the point at `j` of `pos` out of the capsule at `o` of
 * `shapes` (radius slot = radius + clearance) by moving `j` only: the segment's point closest to the axis,
 * at s along it, travels s times as far as `j`, so `j` moves the missing distance over s. True when it moved;
 * a segment already outside, or one whose closest point is the fixed end, is untouched.
 */
export function pushSegmentEndOut(pos: Float64Array, i: number, j: number, shapes: Float64Array, o: number): boolean {
  loadSegments(pos, i, j, shapes, o);
  closestParams();
  const s = seg[12]!;
  const t = seg[13]!;
  if (!(s > 0)) return false;
  let nx = seg[0]! + seg[3]! * s - (seg[6]! + seg[9]! * t);
  let ny = seg[1]! + seg[4]! * s - (seg[7]! + seg[10]! * t);
  let nz = seg[2]! + seg[5]! * s - (seg[8]! + seg[11]! * t);
  const r = shapes[o + 6]!;
  const dd = nx * nx + ny * ny + nz * nz;
  if (!(dd < r * r)) return false;
  const d = Math.sqrt(dd);
  if (d > 0) {
    nx /= d;
    ny /= d;
    nz /= d;
  } else {
    pushDirectionOnAxis();
    nx = perp.x;
    ny = perp.y;
    nz = perp.z;
  }
  const m = (r - d) / s;
  pos[j] += nx * m;
  pos[j + 1] += ny * m;
  pos[j + 2] += nz * m;
  return true;
}
