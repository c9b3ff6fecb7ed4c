/**
 * How much of the hips' turn the spine above them takes back when the body effector's rotation turns the body
 * (not in FinalIK; see body-turn.ts).
 * @module
 */
import type { NumberRef } from "../math/number-ref.js";
import type { Quat, ReadonlyQuat } from "../math/quat.js";
import type { ReadonlyVec3 } from "../math/vec3.js";

/**
 * The tilt (radians) up to which the spine takes back its full share of the hips' tilt: a stride's sway (about 3°).
 */
export const COUNTER_TILT_LINEAR = 0.05;
/**
 * The most the spine takes back of a tilt (radians, about 6°), reached smoothly beyond
 * {@link COUNTER_TILT_LINEAR}: a body lying down, rolling or bowing takes the upper body with the hips.
 */
export const COUNTER_TILT_MAX = 0.1;

/**
 * The turn the spine bone above the hips takes back, into `out`, for the hips' turn `turn` and the spine's axis
 * there `axis` (from the turned bone to the spine bone above it, before the turn; any length): `turn` split into a
 * twist about `axis` and a swing (tilt), the twist taken back by `amount` (1 − spineStiffness) and the swing by
 * `amount` up to {@link COUNTER_TILT_LINEAR}, then less and less, never beyond {@link COUNTER_TILT_MAX}. With
 * amount 1 and a small tilt the whole turn is taken back (the spine keeps facing where it faced); a large tilt
 * (lying down, a roll) carries the upper body along instead of bending the spine against it. A zero `axis`
 * treats the whole turn as a tilt.
 */
export function spineCounterTurn(out: Quat, turn: ReadonlyQuat, axis: ReadonlyVec3, amount: Readonly<NumberRef>): Quat {
  const k = amount.value;
  // the same rotation with w ≥ 0: half-angles in [0, π/2]
  const sign = turn.w < 0 ? -1 : 1;
  const qx = turn.x * sign;
  const qy = turn.y * sign;
  const qz = turn.z * sign;
  const qw = turn.w * sign;
  const al = Math.sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
  // twist about the axis: the vector part projected on it, with w
  let ax = 0;
  let ay = 0;
  let az = 0;
  let d = 0;
  if (al > 0) {
    ax = axis.x / al;
    ay = axis.y / al;
    az = axis.z / al;
    d = qx * ax + qy * ay + qz * az;
  }
  const tl = Math.sqrt(d * d + qw * qw);
  // a half turn about a perpendicular axis has no twist
  const tw = tl > 1e-12 ? qw / tl : 1;
  const td = tl > 1e-12 ? d / tl : 0;
  // swing = turn × twist⁻¹ (twist = (axis · td, tw))
  const tx = ax * td;
  const ty = ay * td;
  const tz = az * td;
  let sx = -qw * tx + qx * tw - qy * tz + qz * ty;
  let sy = -qw * ty + qx * tz + qy * tw - qz * tx;
  let sz = -qw * tz - qx * ty + qy * tx + qz * tw;
  let sw = qw * tw + qx * tx + qy * ty + qz * tz;
  if (sw < 0) {
    sx = -sx;
    sy = -sy;
    sz = -sz;
    sw = -sw;
  }
  const sl = Math.sqrt(sx * sx + sy * sy + sz * sz);
  // the twist's share: its angle × amount
  const twistHalf = Math.atan2(td, tw) * k;
  const ts = Math.sin(twistHalf);
  const bx = ax * ts;
  const by = ay * ts;
  const bz = az * ts;
  const bw = Math.cos(twistHalf);
  // the swing's share: its angle × amount, saturating beyond the linear range
  let tilt = 2 * Math.atan2(sl, sw) * k;
  if (tilt > COUNTER_TILT_LINEAR) {
    const room = COUNTER_TILT_MAX - COUNTER_TILT_LINEAR;
    tilt = COUNTER_TILT_LINEAR + room * Math.tanh((tilt - COUNTER_TILT_LINEAR) / room);
  }
  const ss = sl > 0 ? Math.sin(tilt / 2) / sl : 0;
  const cx = sx * ss;
  const cy = sy * ss;
  const cz = sz * ss;
  const cw = Math.cos(tilt / 2);
  // back = swing share × twist share (the order turn = swing × twist has)
  out.x = cw * bx + cx * bw + cy * bz - cz * by;
  out.y = cw * by - cx * bz + cy * bw + cz * bx;
  out.z = cw * bz + cx * by - cy * bx + cz * bw;
  out.w = cw * bw - cx * bx - cy * by - cz * bz;
  return out;
}
