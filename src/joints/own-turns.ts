/**
 * The compose step after a tip-to-root pass that turned each link within its limit (CCD's limited pass, FABRIK's
 * closing sweeps): every joint turns with the links above it, its own turn already in its rotation.
 * @module
 */
import type { Vec3 } from "../math/vec3.js";

/**
 * After a pass that stored each link's new rotation in `R` and its turn in `D` (the rotations of the links above it
 * not yet applied): root to tip, every rotation becomes the turns of the links above it times its own, and every
 * joint's position is rebuilt from its parent's and the parent's bone vector `O` (lengths exact). `tip` receives the
 * tip's new position. Allocation-free.
 */
export function composeOwnTurns(
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
  for (let j = 0; j < n; j++) {
    const j4 = 4 * j;
    const ox = R[j4]!;
    const oy = R[j4 + 1]!;
    const oz = R[j4 + 2]!;
    const ow = R[j4 + 3]!;
    // rotation = accumulated · own, renormalised so rounding does not build up over iterations
    let rx = cw * ox + cx * ow + cy * oz - cz * oy;
    let ry = cw * oy - cx * oz + cy * ow + cz * ox;
    let rz = cw * oz + cx * oy - cy * ox + cz * ow;
    let rw = cw * ow - cx * ox - cy * oy - cz * oz;
    const l = 1 / Math.sqrt(rx * rx + ry * ry + rz * rz + rw * rw);
    rx *= l;
    ry *= l;
    rz *= l;
    rw *= l;
    R[j4] = rx;
    R[j4 + 1] = ry;
    R[j4 + 2] = rz;
    R[j4 + 3] = rw;
    if (j === n - 1) break;
    const dx = D[j4]!;
    const dy = D[j4 + 1]!;
    const dz = D[j4 + 2]!;
    const dw = D[j4 + 3]!;
    const nx = cw * dx + cx * dw + cy * dz - cz * dy;
    const ny = cw * dy - cx * dz + cy * dw + cz * dx;
    const nz = cw * dz + cx * dy - cy * dx + cz * dw;
    const nw = cw * dw - cx * dx - cy * dy - cz * dz;
    cx = nx;
    cy = ny;
    cz = nz;
    cw = nw;
    const j3 = 3 * j;
    const vx = O[j3]!;
    const vy = O[j3 + 1]!;
    const vz = O[j3 + 2]!;
    const qx = 2 * (ry * vz - rz * vy);
    const qy = 2 * (rz * vx - rx * vz);
    const qz = 2 * (rx * vy - ry * vx);
    P[j3 + 3] = P[j3]! + vx + rw * qx + (ry * qz - rz * qy);
    P[j3 + 4] = P[j3 + 1]! + vy + rw * qy + (rz * qx - rx * qz);
    P[j3 + 5] = P[j3 + 2]! + vz + rw * qz + (rx * qy - ry * qx);
  }
  const k = 3 * (n - 1);
  tip.x = P[k]!;
  tip.y = P[k + 1]!;
  tip.z = P[k + 2]!;
}
