/**
 * Direction helpers with FinalIK's semantics: Gram–Schmidt `orthoNormalize`, spherical interpolation
 * of vectors, and `clampDirection` (V3Tools.ClampDirection). Allocation-free.
 * @module
 */
import { NumberRef } from "./number-ref.js";
import { type ReadonlyVec3, Vec3, angleByRef, anyPerpendicular, copy } from "./vec3.js";

/**
 * Gram–Schmidt in place (Unity's `Vector3.OrthoNormalize`): `normal` is normalised, then `tangent` is
 * made perpendicular to it and normalised. The first argument keeps its direction.
 * Fallbacks: a zero `normal` becomes a unit vector perpendicular to `tangent` (or +X when both are
 * zero); a `tangent` that is zero or parallel to `normal` becomes a deterministic perpendicular.
 */
export function orthoNormalize(normal: Vec3, tangent: Vec3): void {
  let nl = Math.sqrt(normal.x * normal.x + normal.y * normal.y + normal.z * normal.z);
  if (!(nl > 0) || nl === Infinity) {
    anyPerpendicular(normal, tangent);
    nl = 1;
  } else {
    normal.x /= nl;
    normal.y /= nl;
    normal.z /= nl;
  }
  const d = normal.x * tangent.x + normal.y * tangent.y + normal.z * tangent.z;
  const tx = tangent.x - normal.x * d;
  const ty = tangent.y - normal.y * d;
  const tz = tangent.z - normal.z * d;
  const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
  const original = Math.sqrt(tangent.x * tangent.x + tangent.y * tangent.y + tangent.z * tangent.z);
  if (!(tl > 1e-12 * original) || !(tl > 0) || tl === Infinity) {
    anyPerpendicular(tangent, normal);
    return;
  }
  // second Gram–Schmidt pass: for a tangent nearly parallel to the normal the subtraction above cancels and
  // leaves an error along the normal of ~1e-16/sin(angle); projecting once more removes it
  const ux = tx / tl;
  const uy = ty / tl;
  const uz = tz / tl;
  const e = normal.x * ux + normal.y * uy + normal.z * uz;
  const rx = ux - normal.x * e;
  const ry = uy - normal.y * e;
  const rz = uz - normal.z * e;
  const rl = Math.sqrt(rx * rx + ry * ry + rz * rz);
  tangent.x = rx / rl;
  tangent.y = ry / rl;
  tangent.z = rz / rl;
}

const axis = new Vec3();
// numbers handed between the helpers by reference (see NumberRef)
const scratchT = new NumberRef();
const slerpT = new NumberRef();
const clampWeightIn = new NumberRef();
const angleOut = new NumberRef();

/**
 * Spherical interpolation of vectors (Unity's `Vector3.Slerp`): the direction turns from `a` toward `b`
 * by the fraction t (clamped to [0, 1]) of the angle between them, and the length is interpolated
 * linearly. Fallbacks: if either vector is zero the result is the linear blend; exactly opposite
 * vectors turn about a deterministic axis perpendicular to `a`.
 */
export function slerpVectors(out: Vec3, a: ReadonlyVec3, b: ReadonlyVec3, t: number): Vec3 {
  scratchT.value = t;
  return slerpVectorsByRef(out, a, b, scratchT);
}

/** {@link slerpVectors} with `t` read from `t.value` (see {@link NumberRef}). */
export function slerpVectorsByRef(out: Vec3, a: ReadonlyVec3, b: ReadonlyVec3, tRef: Readonly<NumberRef>): Vec3 {
  const t = tRef.value;
  if (!(t > 0)) return copy(out, a);
  if (t >= 1) return copy(out, b);
  const la = Math.sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
  const lb = Math.sqrt(b.x * b.x + b.y * b.y + b.z * b.z);
  if (!(la > 0) || !(lb > 0)) {
    out.x = a.x + (b.x - a.x) * t;
    out.y = a.y + (b.y - a.y) * t;
    out.z = a.z + (b.z - a.z) * t;
    return out;
  }
  const theta = angleByRef(angleOut, a, b).value;
  const len = la + (lb - la) * t;
  // unit a
  const ux = a.x / la;
  const uy = a.y / la;
  const uz = a.z / la;
  if (theta < 1e-9) {
    // parallel: only the length changes
    out.x = ux * len;
    out.y = uy * len;
    out.z = uz * len;
    return out;
  }
  // unit vector perpendicular to a in the plane of a and b, toward b
  let px: number;
  let py: number;
  let pz: number;
  const d = ux * b.x + uy * b.y + uz * b.z;
  px = b.x - ux * d;
  py = b.y - uy * d;
  pz = b.z - uz * d;
  let pl = Math.sqrt(px * px + py * py + pz * pz);
  if (!(pl > 1e-12 * lb)) {
    anyPerpendicular(axis, a);
    px = axis.x;
    py = axis.y;
    pz = axis.z;
    pl = 1;
  }
  px /= pl;
  py /= pl;
  pz /= pl;
  // second Gram–Schmidt pass: for b nearly opposite a the subtraction above cancels and leaves p
  // off-perpendicular to a by ~1e-16/sin(theta), which would bend the arc; project that error out
  const e = ux * px + uy * py + uz * pz;
  px -= ux * e;
  py -= uy * e;
  pz -= uz * e;
  pl = Math.sqrt(px * px + py * py + pz * pz);
  px /= pl;
  py /= pl;
  pz /= pl;
  const phi = theta * t;
  const c = Math.cos(phi) * len;
  const s = Math.sin(phi) * len;
  out.x = ux * c + px * s;
  out.y = uy * c + py * s;
  out.z = uz * c + pz * s;
  return out;
}

/**
 * FinalIK's V3Tools.ClampDirection: keeps `direction` within a cone around `normal`.
 *
 * The cone is expressed as a weight: `dot = 1 − angle(normal, direction)/π`, so clampWeight 0.5 allows
 * 90°, 1 allows nothing (the result is `normal`) and 0 allows everything. A direction outside the cone
 * is slerped toward `normal` by `clamp01(dot/clampWeight)` (sharpened by `clampSmoothing` rounds of
 * x ↦ sin(x·π/2)) times `clamp01(1 − (clampWeight − dot)/(1 − dot))`. Directions almost opposite the
 * normal therefore collapse onto the normal instead of flipping between sides.
 *
 * @returns true when the direction was changed.
 */
export function clampDirection(
  out: Vec3,
  direction: ReadonlyVec3,
  normal: ReadonlyVec3,
  clampWeight: number,
  clampSmoothing: number,
): boolean {
  clampWeightIn.value = clampWeight;
  return clampDirectionByRef(out, direction, normal, clampWeightIn, clampSmoothing);
}

/** {@link clampDirection} with the clamp weight read from `clampWeightRef.value` (see {@link NumberRef}). */
export function clampDirectionByRef(
  out: Vec3,
  direction: ReadonlyVec3,
  normal: ReadonlyVec3,
  clampWeightRef: Readonly<NumberRef>,
  clampSmoothing: number,
): boolean {
  const clampWeight = clampWeightRef.value;
  if (!(clampWeight > 0)) {
    copy(out, direction);
    return false;
  }
  if (clampWeight >= 1) {
    copy(out, normal);
    return true;
  }
  const dot = 1 - angleByRef(angleOut, normal, direction).value / Math.PI;
  if (dot > clampWeight) {
    copy(out, direction);
    return false;
  }
  let targetMlp = 1 - (clampWeight - dot) / (1 - dot);
  targetMlp = targetMlp < 0 ? 0 : targetMlp > 1 ? 1 : targetMlp;
  let mlp = dot / clampWeight;
  mlp = mlp < 0 ? 0 : mlp > 1 ? 1 : mlp;
  for (let i = 0; i < clampSmoothing; i++) mlp = Math.sin(mlp * Math.PI * 0.5);
  slerpT.value = mlp * targetMlp;
  slerpVectorsByRef(out, normal, direction, slerpT);
  return true;
}
