/**
 * Rotation helpers of the head effector: a fraction of a rotation, and FinalIK's rotation clamp
 * (QuaTools.ClampRotation). Out-parameter style, allocation-free.
 * @module
 */
import type { Quat, ReadonlyQuat } from "../../math/quat.js";

/**
 * Numbers handed to the helpers below through fields, so no computed double crosses a call (see
 * ARCHITECTURE.md, "Doubles across calls").
 */
export class RotationIO {
  /** The fraction of the rotation to keep ({@link partialRotation}), or the clamp weight ({@link clampRotation}). */
  t = 0;
  /** Output: the angle of the last rotation measured, radians. */
  angle = 0;
}

/**
 * `out` = the rotation `q` scaled to `io.t` of its angle about the same axis (slerp from the identity,
 * along the shorter arc; `t` outside [0, 1] extrapolates). `out` may alias `q`. Also leaves the full
 * angle of `q` (radians, in [0, π]) in `io.angle`.
 */
export function partialRotation(out: Quat, q: ReadonlyQuat, io: RotationIO): Quat {
  let x = q.x;
  let y = q.y;
  let z = q.z;
  let w = q.w;
  // the shorter arc: q and −q are the same rotation
  if (w < 0) {
    x = -x;
    y = -y;
    z = -z;
    w = -w;
  }
  const s = Math.sqrt(x * x + y * y + z * z);
  const half = Math.atan2(s, w);
  io.angle = 2 * half;
  const t = io.t;
  if (!(s > 1e-300)) {
    out.x = 0;
    out.y = 0;
    out.z = 0;
    out.w = 1;
    return out;
  }
  const h = half * t;
  const k = Math.sin(h) / s;
  out.x = x * k;
  out.y = y * k;
  out.z = z * k;
  out.w = Math.cos(h);
  return out;
}

/**
 * FinalIK's rotation clamp: `out` = `q` with its angle limited by `io.t` (the clamp weight) as
 * `clampDirection` (src/math/direction.ts) limits a direction: 0 leaves the rotation free, 1 clamps it to
 * the identity, 0.5 lets 90° through; an angle beyond is slerped toward the identity, smoothed by
 * `smoothing` rounds of x ↦ sin(x·π/2). `out` may alias `q`.
 */
export function clampRotation(out: Quat, q: ReadonlyQuat, io: RotationIO, smoothing: number): Quat {
  const clampWeight = io.t;
  if (!(clampWeight > 0)) {
    out.x = q.x;
    out.y = q.y;
    out.z = q.z;
    out.w = q.w;
    return out;
  }
  if (clampWeight >= 1) {
    out.x = 0;
    out.y = 0;
    out.z = 0;
    out.w = 1;
    return out;
  }
  const aw = Math.abs(q.w);
  const angle = 2 * Math.atan2(Math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z), aw);
  const dot = 1 - angle / Math.PI;
  if (dot > clampWeight) {
    out.x = q.x;
    out.y = q.y;
    out.z = q.z;
    out.w = q.w;
    return out;
  }
  let target = 1 - (clampWeight - dot) / (1 - dot);
  target = target < 0 ? 0 : target > 1 ? 1 : target;
  let mlp = dot / clampWeight;
  mlp = mlp < 0 ? 0 : mlp > 1 ? 1 : mlp;
  for (let i = 0; i < smoothing; i++) mlp = Math.sin(mlp * Math.PI * 0.5);
  io.t = mlp * target;
  partialRotation(out, q, io);
  io.t = clampWeight;
  return out;
}
