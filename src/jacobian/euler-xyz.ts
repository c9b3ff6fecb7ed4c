/**
 * Rotations about the parent frame's X, then Y, then Z axes (R = Rz·Ry·Rx), the parametrisation of a
 * free {@link IKSolverJacobian} joint. Angles are read from and written to a flat store at an offset
 * (x, y, z), so no double crosses a call.
 * @module
 */
import type { Quat, ReadonlyQuat } from "../math/quat.js";

/** Writes Rz(θz)·Ry(θy)·Rx(θx) into `out`, the angles read at `o` of `theta` (x, y, z). */
export function quatFromEulerXYZ(out: Quat, theta: Float64Array, o: number): Quat {
  const hx = theta[o]! * 0.5;
  const hy = theta[o + 1]! * 0.5;
  const hz = theta[o + 2]! * 0.5;
  const sx = Math.sin(hx);
  const cx = Math.cos(hx);
  const sy = Math.sin(hy);
  const cy = Math.cos(hy);
  const sz = Math.sin(hz);
  const cz = Math.cos(hz);
  // (0, 0, sz, cz)·(0, sy, 0, cy)·(sx, 0, 0, cx) expanded
  out.x = cz * cy * sx - sz * sy * cx;
  out.y = cz * sy * cx + sz * cy * sx;
  out.z = sz * cy * cx - cz * sy * sx;
  out.w = cz * cy * cx + sz * sy * sx;
  return out;
}

/**
 * Writes into `theta` at `o` the angles (x, y, z) with Rz(θz)·Ry(θy)·Rx(θx) = `q` (unit): θy ∈ [−π/2, π/2],
 * θx, θz ∈ (−π, π]. At θy = ±π/2 (gimbal lock) θx takes the whole turn and θz is 0.
 */
export function eulerXYZFromQuat(theta: Float64Array, o: number, q: ReadonlyQuat): void {
  const x = q.x;
  const y = q.y;
  const z = q.z;
  const w = q.w;
  const r00 = 1 - 2 * (y * y + z * z);
  const r10 = 2 * (x * y + w * z);
  const r20 = 2 * (x * z - w * y);
  const r21 = 2 * (y * z + w * x);
  const r22 = 1 - 2 * (x * x + y * y);
  const cyy = Math.sqrt(r00 * r00 + r10 * r10);
  theta[o + 1] = Math.atan2(-r20, cyy);
  if (cyy > 1e-12) {
    theta[o] = Math.atan2(r21, r22);
    theta[o + 2] = Math.atan2(r10, r00);
  } else {
    // gimbal lock: only θx ± θz is defined; put it all in θx (from the rotation's second and first columns)
    const r01 = 2 * (x * y - w * z);
    const r11 = 1 - 2 * (x * x + z * z);
    theta[o] = Math.atan2(r20 < 0 ? r01 : -r01, r11);
    theta[o + 2] = 0;
  }
}
