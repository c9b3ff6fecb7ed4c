/**
 * The animated bend plane of a three-bone limb as its end bone carries it (not in FinalIK): what the end
 * effector's rotation turns when `IKSolverFullBody.animatedBendNormal` is on.
 * @module
 */
import { type ReadonlyQuat, inverseRotateVector } from "../math/quat.js";
import { NumberRef } from "../math/number-ref.js";
import { type ReadonlyVec3, type Vec3, copy } from "../math/vec3.js";

/**
 * sin of the angle between the limb's axis and its upper bone below which the animated bend plane is not trusted
 * (about 1°: a straight limb has none), and above which it is trusted fully (about 4.6°); the setup pose's normal
 * fills in between.
 */
const STRAIGHT_SIN_LOW = 0.02;
const STRAIGHT_SIN_HIGH = 0.08;
/** The trust animatedBendNormal reads (a NumberRef: see animatedBendPlane). */
const planeTrust = new NumberRef();

/**
 * The animated bend plane of a limb: its normal (limb axis × upper bone, not normalised) into `normal`, and how
 * well the animation defines it into `trust` (0 for a straight limb to 1 for a bent one; by reference, see
 * ARCHITECTURE.md, "Doubles across calls"). `first`, `middle`, `end` are the animated positions of the upper,
 * middle and end bones.
 */
export function animatedBendPlane(
  normal: Vec3,
  trust: NumberRef,
  first: ReadonlyVec3,
  middle: ReadonlyVec3,
  end: ReadonlyVec3,
): void {
  const lx = end.x - first.x;
  const ly = end.y - first.y;
  const lz = end.z - first.z;
  const ux = middle.x - first.x;
  const uy = middle.y - first.y;
  const uz = middle.z - first.z;
  const nx = ly * uz - lz * uy;
  const ny = lz * ux - lx * uz;
  const nz = lx * uy - ly * ux;
  normal.x = nx;
  normal.y = ny;
  normal.z = nz;
  const scale = Math.sqrt((lx * lx + ly * ly + lz * lz) * (ux * ux + uy * uy + uz * uz));
  // sin of the angle between the axis and the upper bone: how well the plane is defined
  const sin = scale > 0 ? Math.sqrt(nx * nx + ny * ny + nz * nz) / scale : 0;
  const g = (sin - STRAIGHT_SIN_LOW) / (STRAIGHT_SIN_HIGH - STRAIGHT_SIN_LOW);
  trust.value = g > 1 ? 1 : g > 0 ? g : 0;
}

/**
 * The normal of the animated bend plane (limb axis × upper bone, FinalIK's defaultChildDirection convention) in
 * the end bone's frame, into `out` (unit): `first`, `middle`, `end` are the animated positions of the upper,
 * middle and end bones, `endRotation` the end bone's animated rotation. Where the animated limb is (nearly)
 * straight, its bend plane is undefined and `fallback` (the setup pose's normal, end bone's frame, unit) takes
 * over. Hand or foot rotation then carries the plane the animation bends in this frame instead of the setup pose's,
 * so the effector's rotation reproduces the animated elbow or knee exactly when it equals the animated rotation.
 */
export function animatedBendNormal(
  out: Vec3,
  first: ReadonlyVec3,
  middle: ReadonlyVec3,
  end: ReadonlyVec3,
  endRotation: ReadonlyQuat,
  fallback: ReadonlyVec3,
): Vec3 {
  animatedBendPlane(out, planeTrust, first, middle, end);
  const g = planeTrust.value;
  if (!(g > 0)) {
    return copy(out, fallback);
  }
  // written field by field: doubles handed to `set` are boxed where V8 does not inline it (a nearly straight
  // limb's branch below, once in a jog's cycle: 0.8 B a frame; see ARCHITECTURE.md, "Doubles across calls")
  const nl = Math.sqrt(out.x * out.x + out.y * out.y + out.z * out.z);
  out.x /= nl;
  out.y /= nl;
  out.z /= nl;
  inverseRotateVector(out, endRotation, out);
  if (g >= 1) return out;
  const nx = out.x * g + fallback.x * (1 - g);
  const ny = out.y * g + fallback.y * (1 - g);
  const nz = out.z * g + fallback.z * (1 - g);
  const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
  // opposite normals half-way cancel: the setup pose's then
  if (!(l > 1e-6)) {
    return copy(out, fallback);
  }
  out.x = nx / l;
  out.y = ny / l;
  out.z = nz / l;
  return out;
}
