import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { setQuaternionFields } from "../../babylon/babylon-fields.js";
import { rotationFromMatrix, transformPoint } from "../../babylon/world-matrix.js";
import { NumberRef } from "../../math/number-ref.js";
import { Quat, conjugateMultiply, multiply } from "../../math/quat.js";
import { Vec3 } from "../../math/vec3.js";
import { moduleMatrix } from "../../babylon/module-matrix.js";

// Per-frame helpers of the interaction system on Babylon's vectors: they write Babylon's fields directly
// and take weights through a NumberRef, so no double crosses a call V8 may not inline (it would box it:
// 16 B a frame each; see NumberRef).

const basis = moduleMatrix();
const inv = moduleMatrix();
const local = moduleMatrix();
const tp = new Vector3();

const scratchQuat = new Quat();
const scratchQuat2 = new Quat();
const scratchVec = new Vec3();
const scratchT = new NumberRef();

/**
 * The rotation of the world matrix `m` in Babylon's convention (what `m.decompose` gives: under a
 * mirror, such as glTF's `__root__` in a left-handed scene, the Y axis flipped), the convention of
 * {@link BabylonEffector.rotation}.
 */
export function rotationOfMatrix(m: Matrix, out: Quaternion): Quaternion {
  return setQuaternionFields(out, rotationFromMatrix(m.m, scratchQuat));
}

/** World position (translation) of the world matrix `m`. */
export function positionOfMatrix(m: Matrix, out: Vector3): Vector3 {
  const a = m.m;
  out._x = a[12]!;
  out._y = a[13]!;
  out._z = a[14]!;
  out._isDirty = true;
  return out;
}

/** The point `v` transformed by `m` (with the projective divide, as Babylon's TransformCoordinatesToRef). */
export function transformCoordinatesToRef(v: Vector3, m: Matrix, out: Vector3): Vector3 {
  scratchVec.x = v._x;
  scratchVec.y = v._y;
  scratchVec.z = v._z;
  const p = transformPoint(m.m, scratchVec, scratchVec);
  out._x = p.x;
  out._y = p.y;
  out._z = p.z;
  out._isDirty = true;
  return out;
}

/** `a` × `b` (Babylon's `a.multiplyToRef(b, out)`: `b` applied first), into `out` (which may be either). */
export function multiplyQuaternionsToRef(a: Quaternion, b: Quaternion, out: Quaternion): Quaternion {
  return setQuaternionFields(
    out,
    multiply(scratchQuat, fromQuaternion(a, scratchQuat), fromQuaternion(b, scratchQuat2)),
  );
}

/**
 * conjugate(`a`) × `b` (Babylon's `Quaternion.Inverse(a).multiplyToRef(b, out)` for a unit `a`), into `out`:
 * through the solver's own math, optimised early, where code run once per pause would box every double.
 */
export function conjugateMultiplyQuaternionsToRef(a: Quaternion, b: Quaternion, out: Quaternion): Quaternion {
  return setQuaternionFields(
    out,
    conjugateMultiply(scratchQuat, fromQuaternion(a, scratchQuat), fromQuaternion(b, scratchQuat2)),
  );
}

/** Babylon's quaternion into ours, field by field. */
function fromQuaternion(q: Quaternion, out: Quat): Quat {
  out.x = q._x;
  out.y = q._y;
  out.z = q._z;
  out.w = q._w;
  return out;
}

/** lerp(a, b, t.value) into `out`, t not clamped (Babylon's Vector3.LerpToRef). */
export function lerpVector3ByRef(a: Vector3, b: Vector3, t: Readonly<NumberRef>, out: Vector3): Vector3 {
  const w = t.value;
  out._x = a._x + (b._x - a._x) * w;
  out._y = a._y + (b._y - a._y) * w;
  out._z = a._z + (b._z - a._z) * w;
  out._isDirty = true;
  return out;
}

/**
 * Gives `node` the world matrix `world` by setting its local position, rotation and scaling through its
 * current parent. Mirrors are kept in the matrix (a decomposed negative scale where needed).
 */
export function setWorldMatrix(node: TransformNode, world: Matrix): void {
  const parent = node.parent;
  if (parent !== null) {
    parent.computeWorldMatrix(true).invertToRef(inv);
    world.multiplyToRef(inv, local);
  } else {
    local.copyFrom(world);
  }
  if (node.rotationQuaternion === null) node.rotationQuaternion = new Quaternion();
  local.decompose(node.scaling, node.rotationQuaternion, node.position);
  node.computeWorldMatrix(true);
}

/**
 * Rotates `node` in the world by `delta` (a proper world rotation) about the world point `pivot`,
 * changing only its local rotation (and position when the pivot is not its origin).
 */
export function rotateNodeAround(node: TransformNode, delta: Quaternion, pivot: Vector3): void {
  const w = node.computeWorldMatrix(true);
  // world' = world · T(−pivot) · R(delta) · T(pivot) in Babylon's row-vector convention
  Matrix.FromQuaternionToRef(delta, basis);
  local.copyFrom(w);
  const m = local.m;
  // translate, rotate, translate back, composed by hand to avoid temporaries
  tp._x = m[12]! - pivot._x;
  tp._y = m[13]! - pivot._y;
  tp._z = m[14]! - pivot._z;
  tp._isDirty = true;
  transformCoordinatesToRef(tp, basis, tp);
  local.multiplyToRef(basis, inv);
  // as setTranslation does, without the three doubles it hands to setTranslationFromFloats (48 B a frame)
  const t = inv.m as Float32Array | number[];
  t[12] = tp._x + pivot._x;
  t[13] = tp._y + pivot._y;
  t[14] = tp._z + pivot._z;
  inv.markAsUpdated();
  const parent = node.parent;
  if (parent !== null) {
    parent.computeWorldMatrix(true).invertToRef(local);
    inv.multiplyToRef(local, basis);
  } else {
    basis.copyFrom(inv);
  }
  if (node.rotationQuaternion === null) node.rotationQuaternion = new Quaternion();
  // the rotation and translation as decompose would give them, without the doubles it hands to Babylon's setters
  setQuaternionFields(node.rotationQuaternion, rotationFromMatrix(basis.m, scratchQuat));
  positionOfMatrix(basis, node.position);
  node.computeWorldMatrix(true);
}

/** Normalised linear blend of two rotations along the shortest arc (Unity's Quaternion.Lerp), t clamped. */
export function nlerpToRef(a: Quaternion, b: Quaternion, t: number, out: Quaternion): Quaternion {
  scratchT.value = t;
  return nlerpQuaternionByRef(a, b, scratchT, out);
}

/** {@link nlerpToRef} with `t` read from `t.value` (see {@link NumberRef}). */
export function nlerpQuaternionByRef(
  a: Quaternion,
  b: Quaternion,
  t: Readonly<NumberRef>,
  out: Quaternion,
): Quaternion {
  const v = t.value;
  const s = v > 0 ? (v < 1 ? v : 1) : 0;
  const dot = a._x * b._x + a._y * b._y + a._z * b._z + a._w * b._w;
  const sb = dot < 0 ? -s : s;
  const sa = 1 - s;
  const x = a._x * sa + b._x * sb;
  const y = a._y * sa + b._y * sb;
  const z = a._z * sa + b._z * sb;
  const w = a._w * sa + b._w * sb;
  // not Math.hypot: V8 allocates for its variable argument list on every call
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  if (l > 0) {
    out._x = x / l;
    out._y = y / l;
    out._z = z / l;
    out._w = w / l;
    out._isDirty = true;
  } else out.copyFrom(a);
  return out;
}
