/**
 * The tip-to-root CCD pass over a chain without limits, and the compose step after every tip-to-root pass:
 * the two loops a CCD iteration spends its time in, written out on the solver's flat arrays.
 * @module
 */
import { type ReadonlyVec3, Vec3, anyPerpendicular } from "../math/vec3.js";

/** What a free pass reads besides the arrays: a class instance, so no double crosses a call. */
export class FreePassSettings {
  /** This iteration's tolerance-region radius (optimized CCD); 0: none. */
  region = 0;
  /** Largest turn of one link, radians; Infinity: none. */
  maxAngle = Infinity;
  /** The pass stops once the tip is this close to the goal; 0: never. */
  tolerance = 0;
}

const arm = new Vec3();
const perpendicular = new Vec3();

/**
 * One tip-to-root CCD pass over links `n − 2` … 0 of a chain none of whose joints has a limit: each link turns by
 * its `scales[i]` share of the arc that takes the tip onto the goal (stopped at `settings.region` from the goal,
 * capped at `settings.maxAngle`), its turn stored in `D` (identity for a link that does not turn). Joints up to `i`
 * have not moved when link `i` turns, so only the tip (`tip`, updated) is tracked; the rotations and the other
 * positions follow in {@link composeTurns}. True when the tip came within `settings.tolerance` (the pass stops).
 */
export function turnFreeLinks(
  P: Float64Array,
  D: Float64Array,
  scales: Float64Array,
  n: number,
  goal: ReadonlyVec3,
  tip: Vec3,
  settings: FreePassSettings,
): boolean {
  const gx = goal.x;
  const gy = goal.y;
  const gz = goal.z;
  const region = settings.region;
  const maxAngle = settings.maxAngle;
  const tolerance = settings.tolerance;
  const tol2 = tolerance * tolerance;
  // the exact arc needs no trigonometry: allowed when nothing scales, stops or caps the turn
  const whole = !(region > 0) && maxAngle === Infinity;
  let ex = tip.x;
  let ey = tip.y;
  let ez = tip.z;
  let reached = false;
  for (let i = 4 * n - 4; i >= 0; i -= 4) {
    D[i] = 0;
    D[i + 1] = 0;
    D[i + 2] = 0;
    D[i + 3] = 1;
  }
  for (let i = n - 2; i >= 0; i--) {
    const scale = scales[i]!;
    const i3 = 3 * i;
    const i4 = 4 * i;
    const px = P[i3]!;
    const py = P[i3 + 1]!;
    const pz = P[i3 + 2]!;
    const ax = ex - px;
    const ay = ey - py;
    const az = ez - pz;
    const bx = gx - px;
    const by = gy - py;
    const bz = gz - pz;
    const cx = ay * bz - az * by;
    const cy = az * bx - ax * bz;
    const cz = ax * by - ay * bx;
    const dot = ax * bx + ay * by + az * bz;
    const aa = ax * ax + ay * ay + az * az;
    const bb = bx * bx + by * by + bz * bz;
    let tx = 0;
    let ty = 0;
    let tz = 0;
    let tw = 1;
    let turned = true;
    if (scale === 1 && whole && bb > 0) {
      const na = Math.sqrt(aa);
      const nb = Math.sqrt(bb);
      const m = na * nb;
      const w0 = m + dot;
      if (w0 > 1e-6 * m) {
        // the shortest arc (a × b, |a||b| + a·b) normalised; it lays the tip on the ray to the goal
        const inv = 1 / Math.sqrt(cx * cx + cy * cy + cz * cz + w0 * w0);
        tx = cx * inv;
        ty = cy * inv;
        tz = cz * inv;
        tw = w0 * inv;
        // |a| / |b| as a product: the reciprocal does not wait for the tip, the division would
        const k = na * (1 / nb);
        ex = px + bx * k;
        ey = py + by * k;
        ez = pz + bz * k;
      } else {
        turned = false;
      }
    } else {
      turned = false;
    }
    if (!turned) {
      if (!(scale > 0)) continue;
      const sn = Math.sqrt(cx * cx + cy * cy + cz * cz);
      // atan2(sn, dot) by quadrant: Math.atan costs half of Math.atan2 here
      let angle = dot > 0 ? Math.atan(sn / dot) : dot < 0 ? Math.PI + Math.atan(sn / dot) : Math.PI * 0.5;
      let ux: number;
      let uy: number;
      let uz: number;
      if (sn > 0) {
        ux = cx / sn;
        uy = cy / sn;
        uz = cz / sn;
      } else if (dot < 0) {
        arm.x = ax;
        arm.y = ay;
        arm.z = az;
        anyPerpendicular(perpendicular, arm);
        ux = perpendicular.x;
        uy = perpendicular.y;
        uz = perpendicular.z;
      } else {
        continue;
      }
      angle *= scale;
      if (region > 0) {
        // stop at the edge of the tolerance region seen from this joint
        const dist = Math.sqrt(bb);
        angle -= region < dist ? Math.asin(region / dist) : angle;
      }
      if (angle > maxAngle) angle = maxAngle;
      if (!(angle > 0)) continue;
      const sh = Math.sin(angle * 0.5);
      const ch = Math.cos(angle * 0.5);
      tx = ux * sh;
      ty = uy * sh;
      tz = uz * sh;
      tw = ch;
      // the tip turns about this joint: v' = v + w t + q × t with t = 2 q × v
      const qx = 2 * (ty * az - tz * ay);
      const qy = 2 * (tz * ax - tx * az);
      const qz = 2 * (tx * ay - ty * ax);
      ex = px + ax + tw * qx + (ty * qz - tz * qy);
      ey = py + ay + tw * qy + (tz * qx - tx * qz);
      ez = pz + az + tw * qz + (tx * qy - ty * qx);
    }
    D[i4] = tx;
    D[i4 + 1] = ty;
    D[i4 + 2] = tz;
    D[i4 + 3] = tw;
    if (tolerance > 0) {
      const dx = ex - gx;
      const dy = ey - gy;
      const dz = ez - gz;
      if (dx * dx + dy * dy + dz * dz <= tol2) {
        reached = true;
        break;
      }
    }
  }
  tip.x = ex;
  tip.y = ey;
  tip.z = ez;
  return reached;
}

/**
 * After a tip-to-root pass: every joint turns by its own link's turn and those of the links above it (the turns `D`
 * accumulated root to tip, applied to the rotations `R`, renormalised so rounding does not build up over
 * iterations), and the positions `P` are rebuilt root to tip from each bone's vector `O` in its joint's frame. The
 * tip's new position goes into `tip`.
 */
export function composeTurns(
  P: Float64Array,
  R: Float64Array,
  O: Float64Array,
  D: Float64Array,
  n: number,
  tip: Vec3,
): void {
  let cx = 0;
  let cy = 0;
  let cz = 0;
  let cw = 1;
  let px = P[0]!;
  let py = P[1]!;
  let pz = P[2]!;
  for (let j = 0; j < n; j++) {
    const j4 = 4 * j;
    const dx = D[j4]!;
    const dy = D[j4 + 1]!;
    const dz = D[j4 + 2]!;
    const dw = D[j4 + 3]!;
    // accumulated turn, this link's included: accumulated · own turn (the tip's own turn is identity)
    const nx = cw * dx + cx * dw + cy * dz - cz * dy;
    const ny = cw * dy - cx * dz + cy * dw + cz * dx;
    const nz = cw * dz + cx * dy - cy * dx + cz * dw;
    const nw = cw * dw - cx * dx - cy * dy - cz * dz;
    cx = nx;
    cy = ny;
    cz = nz;
    cw = nw;
    const ox = R[j4]!;
    const oy = R[j4 + 1]!;
    const oz = R[j4 + 2]!;
    const ow = R[j4 + 3]!;
    let rx = cw * ox + cx * ow + cy * oz - cz * oy;
    let ry = cw * oy - cx * oz + cy * ow + cz * ox;
    let rz = cw * oz + cx * oy - cy * ox + cz * ow;
    let rw = cw * ow - cx * ox - cy * oy - cz * oz;
    // a product of unit quaternions is unit to rounding: one Newton step for 1/√(norm²) renormalises it exactly
    const l = 1.5 - 0.5 * (rx * rx + ry * ry + rz * rz + rw * rw);
    rx *= l;
    ry *= l;
    rz *= l;
    rw *= l;
    R[j4] = rx;
    R[j4 + 1] = ry;
    R[j4 + 2] = rz;
    R[j4 + 3] = rw;
    if (j === n - 1) break;
    const j3 = 3 * j;
    const vx = O[j3]!;
    const vy = O[j3 + 1]!;
    const vz = O[j3 + 2]!;
    const qx = 2 * (ry * vz - rz * vy);
    const qy = 2 * (rz * vx - rx * vz);
    const qz = 2 * (rx * vy - ry * vx);
    px = px + vx + rw * qx + (ry * qz - rz * qy);
    py = py + vy + rw * qy + (rz * qx - rx * qz);
    pz = pz + vz + rw * qz + (rx * qy - ry * qx);
    P[j3 + 3] = px;
    P[j3 + 4] = py;
    P[j3 + 5] = pz;
  }
  tip.x = px;
  tip.y = py;
  tip.z = pz;
}
