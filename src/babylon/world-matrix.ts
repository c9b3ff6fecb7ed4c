import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Node } from "@babylonjs/core/node.js";
import { type Quat, lookRotation } from "../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";
import { setVector3Fields } from "./babylon-fields.js";

// Babylon world matrices read as this library reads them: without forcing a recomputation, in Babylon's
// rotation convention, and transformed without handing doubles to a helper (see ARCHITECTURE.md,
// "Doubles across calls").

const axisY = new Vec3();
const axisZ = new Vec3();

/** The parts of a Babylon node this file reads beyond its public typings (internal in @babylonjs/core 9). */
interface NodeSyncState {
  /** Set by `markAsDirty` and by a new parent, position, rotation or scaling object. */
  _isDirty: boolean;
}

/**
 * The node's world matrix, exact, without recomputing it when Babylon's cached one is current: when the
 * node is frozen, or when `isSynchronized()` holds (neither the node's nor any ancestor's position,
 * rotation or scaling changed since it was computed, and no ancestor was recomputed after it) and the
 * node is not marked dirty. This is the test `computeWorldMatrix()` itself applies, minus its
 * same-render-id shortcut, which would return a stale matrix after a parent moved in place within the
 * frame. Forcing (`computeWorldMatrix(true)`) only when something did change leaves the node's and its
 * ancestors' update ids alone otherwise, so Babylon does not recompute every mesh of the character
 * afterwards. Allocation-free.
 */
export function currentWorldMatrix(node: TransformNode): Matrix {
  if (!(node as unknown as NodeSyncState)._isDirty && (node.isWorldMatrixFrozen || node.isSynchronized()))
    return node.worldMatrixFromCache;
  return node.computeWorldMatrix(true);
}

/**
 * A node's world matrix now: a TransformNode's by {@link currentWorldMatrix}, any other node's (a bone, a camera) by
 * its own `getWorldMatrix()`. For a parent, which Node types as the base class.
 */
export function nodeWorldMatrix(node: Node): Matrix {
  return "isWorldMatrixFrozen" in node ? currentWorldMatrix(node as TransformNode) : node.getWorldMatrix();
}

export { matrixEquals } from "../math/matrix-equals.js";

/**
 * The rotation of the Babylon world matrix `m` in Babylon's convention, as `m.decompose` gives it: its
 * Z axis is the matrix's Z axis (row) and its Y axis the matrix's Y axis, flipped when the determinant is
 * negative (a mirror, such as glTF's `__root__` in a left-handed scene), which leaves X matching too. The
 * convention of every world rotation this library reads from a node or reports (effector rotations,
 * targets, `getWorldRotation`). Built from the Z and Y axes rather than the 3×3 block, so it stays a
 * rotation under shear.
 */
export function rotationFromMatrix(m: ArrayLike<number>, out: Quat): Quat {
  // < 0 as for BabylonRig.mirrored (at exactly 0 decompose has no rotation either: it returns identity)
  const flip = isMirror(m);
  axisY.x = flip ? -m[4]! : m[4]!;
  axisY.y = flip ? -m[5]! : m[5]!;
  axisY.z = flip ? -m[6]! : m[6]!;
  axisZ.x = m[8]!;
  axisZ.y = m[9]!;
  axisZ.z = m[10]!;
  return lookRotation(out, axisZ, axisY);
}

/**
 * True when the linear part of the Babylon matrix `m` mirrors (its determinant, which an affine matrix's 4×4
 * determinant equals, is negative), written out: a boolean crosses the call where `Matrix.determinant()`
 * would return a double.
 */
export function isMirror(m: ArrayLike<number>): boolean {
  return (
    m[0]! * (m[5]! * m[10]! - m[6]! * m[9]!) -
      m[1]! * (m[4]! * m[10]! - m[6]! * m[8]!) +
      m[2]! * (m[4]! * m[9]! - m[5]! * m[8]!) <
    0
  );
}

/**
 * True when the Babylon world matrix `m` has a rotation to read: its Z and Y axes (rows) finite, not zero
 * and not parallel (lookRotation's own test). A node scaled to 0, or with a NaN in its chain, has none;
 * rotationFromMatrix would return an arbitrary fallback for it.
 */
export function hasRotation(m: ArrayLike<number>): boolean {
  const zx = m[8]!;
  const zy = m[9]!;
  const zz = m[10]!;
  const yx = m[4]!;
  const yy = m[5]!;
  const yz = m[6]!;
  const zl = zx * zx + zy * zy + zz * zz;
  const yl = yx * yx + yy * yy + yz * yz;
  const cx = yy * zz - yz * zy;
  const cy = yz * zx - yx * zz;
  const cz = yx * zy - yy * zx;
  const xl = cx * cx + cy * cy + cz * cz;
  // squared lengths: |y × z| > 1e-12 |y| |z|; every comparison false for NaN
  return zl > 0 && zl < Infinity && yl > 0 && yl < Infinity && xl > 1e-24 * yl * zl;
}

/** Row-vector point transform by a Babylon matrix (with the projective divide Babylon applies). */
export function transformPoint(m: ArrayLike<number>, v: ReadonlyVec3, out: Vec3): Vec3 {
  // the vector, not its three numbers (see ARCHITECTURE.md, "Doubles across calls")
  const x = v.x;
  const y = v.y;
  const z = v.z;
  const rx = x * m[0]! + y * m[4]! + z * m[8]! + m[12]!;
  const ry = x * m[1]! + y * m[5]! + z * m[9]! + m[13]!;
  const rz = x * m[2]! + y * m[6]! + z * m[10]! + m[14]!;
  const rw = x * m[3]! + y * m[7]! + z * m[11]! + m[15]!;
  const k = rw !== 0 && rw !== 1 ? 1 / rw : 1;
  out.x = rx * k;
  out.y = ry * k;
  out.z = rz * k;
  return out;
}

/** Row-vector direction transform by a Babylon matrix (no translation). */
export function transformVector(m: ArrayLike<number>, v: ReadonlyVec3, out: Vec3): Vec3 {
  const x = v.x;
  const y = v.y;
  const z = v.z;
  out.x = x * m[0]! + y * m[4]! + z * m[8]!;
  out.y = x * m[1]! + y * m[5]! + z * m[9]!;
  out.z = x * m[2]! + y * m[6]! + z * m[10]!;
  return out;
}

const inPlace = new Vec3();

/**
 * The Babylon vector `v` by `m`, in place: a point (`point`, with the translation) or a direction. Not Babylon's
 * `TransformCoordinatesToRef`/`TransformNormalToRef`, which hand the doubles on to another call.
 */
export function transformVector3InPlace(v: Vector3, m: Matrix, point: boolean): Vector3 {
  inPlace.x = v._x;
  inPlace.y = v._y;
  inPlace.z = v._z;
  return setVector3Fields(v, point ? transformPoint(m.m, inPlace, inPlace) : transformVector(m.m, inPlace, inPlace));
}

/**
 * Conjugation by the mirror across the XZ plane (Y flipped, Babylon's decomposition): (x, y, z, w) → (−x, y, −z, w).
 */
export function mirrorY(q: Quat): void {
  q.x = -q.x;
  q.z = -q.z;
}

/** True for a Babylon Bone (as opposed to a TransformNode). */
export function isBone(target: TransformNode | Bone): target is Bone {
  return typeof (target as Bone).getTransformNode === "function" && typeof (target as Bone).getSkeleton === "function";
}

/**
 * A bone's world matrix from Babylon now: its linked TransformNode's ({@link currentWorldMatrix}), or for a
 * bone-only skeleton the bone's absolute matrix (recomputed) times the world matrix of `space`, the node its
 * skeleton lives in (the skinned mesh), into `out`.
 */
export function boneWorldMatrixToRef(bone: Bone, space: TransformNode | null, out: Matrix): Matrix {
  const node = bone.getTransformNode();
  if (node !== null) return out.copyFrom(currentWorldMatrix(node));
  bone.getSkeleton().computeAbsoluteMatrices(true);
  if (space === null) return out.copyFrom(bone.getAbsoluteMatrix());
  return bone.getAbsoluteMatrix().multiplyToRef(currentWorldMatrix(space), out);
}

/** The mesh `bone`'s skeleton skins (the space of a bone without a linked node), or null (linked, or no mesh). */
export function skinnedMeshOf(bone: Bone): TransformNode | null {
  if (bone.getTransformNode() !== null) return null;
  const skeleton = bone.getSkeleton();
  return skeleton.getScene().meshes.find((m) => m.skeleton === skeleton) ?? null;
}

/**
 * `a × b` for Babylon's 4×4 layout (row vectors: a point goes through `a`, then `b`), in double precision, into `out`.
 */
export function multiplyMatrices(
  a: ArrayLike<number>,
  ao: number,
  b: ArrayLike<number>,
  out: Float64Array,
): Float64Array {
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 4; c++) {
      let v = 0;
      for (let k = 0; k < 4; k++) v += a[ao + r * 4 + k]! * b[k * 4 + c]!;
      out[r * 4 + c] = v;
    }
  }
  return out;
}

/** Into `out`, the lengths of the affine matrix `m`'s three axes (rows): its unsigned scale per axis. */
export function axisLengths(m: ArrayLike<number>, out: Vec3): Vec3 {
  out.x = Math.sqrt(m[0]! * m[0]! + m[1]! * m[1]! + m[2]! * m[2]!);
  out.y = Math.sqrt(m[4]! * m[4]! + m[5]! * m[5]! + m[6]! * m[6]!);
  out.z = Math.sqrt(m[8]! * m[8]! + m[9]! * m[9]! + m[10]! * m[10]!);
  return out;
}

const lengths = new Vec3();

/**
 * Into `out[0]`, the longest of the affine matrix `m`'s three axes (the scale that carries a sphere's radius: its
 * largest axis covers it), 0 when that is not finite. In an array: a double a call returns is boxed where V8 does
 * not inline it (see ARCHITECTURE.md, "Doubles across calls"). Allocation-free.
 */
export function largestAxisLengthToRef(m: ArrayLike<number>, out: Float64Array): void {
  const l = axisLengths(m, lengths);
  const s = l.x > l.y ? (l.x > l.z ? l.x : l.z) : l.y > l.z ? l.y : l.z;
  out[0] = Number.isFinite(s) ? s : 0;
}
