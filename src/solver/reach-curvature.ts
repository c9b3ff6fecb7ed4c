/**
 * The curvature a leg's excess reach adds to the pelvis turn's normal equations (solver/rigid-pelvis.ts): the
 * positive part of e ∇²d, e the leg's excess and d the distance from its thigh to its foot's target as the pelvis
 * turns.
 * @module
 */
import type { NumberRef } from "../math/number-ref.js";
import { Vec3, anyPerpendicular } from "../math/vec3.js";

const u = new Vec3();
const n = new Vec3();
/** The sum's shares of u uᵀ, n nᵀ, u nᵀ + n uᵀ and I, from addReachCurvature to addShares. */
const shares = new Float64Array(4);

/**
 * Adds to `normal` (3 × 3, row-major) the positive part of `excess` × the Hessian at ω = 0 of
 * d(ω) = |toTarget + lever − R(ω) lever|, the distance from the thigh (at `lever` from the root node) to its target
 * (at `toTarget` from the thigh) once the pelvis turns by the rotation vector ω. Gauss–Newton leaves this term
 * out: on a pull no turn meets, the excess stays large while its gradient fades as the thigh swings in line with the
 * target, and the steps overshoot and alternate in sign. Only the positive part is added, so the equations never
 * promise a step more than the leg gives. In the frame u (thigh to target), n (the lever's part across u),
 * m = u × n, with a = lever · u and b the lever's length across u, the Hessian is p = b²/d on u, q = a²/d + a on n
 * and on m, and s = −b (a/d + ½) between u and n: the u–n block A has one eigenvalue of each sign unless b = 0 (its
 * determinant is −b²/4), and its positive part is λ₊ (A − λ₋) / (λ₊ − λ₋).
 */
export function addReachCurvature(
  normal: Float64Array,
  lever: Readonly<Vec3>,
  toTarget: Readonly<Vec3>,
  excess: Readonly<NumberRef>,
): void {
  const e = excess.value;
  const d = Math.sqrt(toTarget.x * toTarget.x + toTarget.y * toTarget.y + toTarget.z * toTarget.z);
  if (!(e > 0) || !(d > 0)) return;
  u.x = toTarget.x / d;
  u.y = toTarget.y / d;
  u.z = toTarget.z / d;
  const a = lever.x * u.x + lever.y * u.y + lever.z * u.z;
  n.x = lever.x - a * u.x;
  n.y = lever.y - a * u.y;
  n.z = lever.z - a * u.z;
  const b = Math.sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
  // a lever along u couples nothing to u (b = 0): any n across u then gives the same sum
  if (b > 0) {
    n.x /= b;
    n.y /= b;
    n.z /= b;
  } else anyPerpendicular(n, u);
  const p = (b * b) / d;
  const q = (a * a) / d + a;
  const s = -b * (a / d + 0.5);
  const mid = 0.5 * (p + q);
  const spread = Math.sqrt(0.25 * (p - q) * (p - q) + s * s);
  const low = mid - spread;
  // the block's positive part: the block itself when it has no negative eigenvalue, else λ₊ × its λ₊ projector
  const k = low >= 0 ? e : (e * (mid + spread)) / (2 * spread);
  const shift = low >= 0 ? 0 : low;
  // m's share, e q⁺ m mᵀ, written as e q⁺ (I − u uᵀ − n nᵀ): m is needed no further
  const across = q > 0 ? e * q : 0;
  shares[0] = k * (p - shift) - across;
  shares[1] = k * (q - shift) - across;
  shares[2] = k * s;
  shares[3] = across;
  addShares(normal);
}

/**
 * normal += the shares' sum. A function of its own so that addReachCurvature stays small enough for V8 to inline
 * into addLeg: in one piece it stayed a call, run unoptimised in the rare frames a foot is out of reach, boxing its
 * doubles (61 B a frame on the ladder climb's heap test).
 */
function addShares(normal: Float64Array): void {
  const cu = shares[0]!;
  const cn = shares[1]!;
  const cs = shares[2]!;
  const across = shares[3]!;
  const ux = u.x;
  const uy = u.y;
  const uz = u.z;
  const nx = n.x;
  const ny = n.y;
  const nz = n.z;
  const xy = cu * ux * uy + cn * nx * ny + cs * (ux * ny + nx * uy);
  const xz = cu * ux * uz + cn * nx * nz + cs * (ux * nz + nx * uz);
  const yz = cu * uy * uz + cn * ny * nz + cs * (uy * nz + ny * uz);
  normal[0]! += cu * ux * ux + cn * nx * nx + 2 * cs * ux * nx + across;
  normal[1]! += xy;
  normal[2]! += xz;
  normal[3]! += xy;
  normal[4]! += cu * uy * uy + cn * ny * ny + 2 * cs * uy * ny + across;
  normal[5]! += yz;
  normal[6]! += xz;
  normal[7]! += yz;
  normal[8]! += cu * uz * uz + cn * nz * nz + 2 * cs * uz * nz + across;
}
