import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { rotationFromMatrix } from "../../babylon/world-matrix.js";
import { Quat } from "../../math/quat.js";

const basis = new Matrix();
const inv = new Matrix();
const local = new Matrix();
const ts = new Vector3();
const tq = new Quaternion();
const tp = new Vector3();

const scratchQuat = new Quat();

/**
 * The rotation of the world matrix `m` in Babylon's convention (what `m.decompose` gives: under a
 * mirror, such as glTF's `__root__` in a left-handed scene, the Y axis flipped), the convention of
 * {@link BabylonEffector.rotation}.
 */
export function rotationOfMatrix(m: Matrix, out: Quaternion): Quaternion {
  rotationFromMatrix(m.m, scratchQuat);
  return out.set(scratchQuat.x, scratchQuat.y, scratchQuat.z, scratchQuat.w);
}

/** World position (translation) of the world matrix `m`. */
export function positionOfMatrix(m: Matrix, out: Vector3): Vector3 {
  const a = m.m;
  return out.set(a[12]!, a[13]!, a[14]!);
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
  tp.set(m[12]! - pivot.x, m[13]! - pivot.y, m[14]! - pivot.z);
  Vector3.TransformCoordinatesToRef(tp, basis, tp);
  local.multiplyToRef(basis, inv);
  inv.setTranslationFromFloats(tp.x + pivot.x, tp.y + pivot.y, tp.z + pivot.z);
  const parent = node.parent;
  if (parent !== null) {
    parent.computeWorldMatrix(true).invertToRef(local);
    inv.multiplyToRef(local, basis);
  } else {
    basis.copyFrom(inv);
  }
  if (node.rotationQuaternion === null) node.rotationQuaternion = new Quaternion();
  basis.decompose(ts, tq, tp);
  node.rotationQuaternion.copyFrom(tq);
  node.position.copyFrom(tp);
  node.computeWorldMatrix(true);
}

/** Normalised linear blend of two rotations along the shortest arc (Unity's Quaternion.Lerp), t clamped. */
export function nlerpToRef(a: Quaternion, b: Quaternion, t: number, out: Quaternion): Quaternion {
  const s = t < 0 ? 0 : t > 1 ? 1 : t;
  const dot = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  const sb = dot < 0 ? -s : s;
  const sa = 1 - s;
  out.set(a.x * sa + b.x * sb, a.y * sa + b.y * sb, a.z * sa + b.z * sb, a.w * sa + b.w * sb);
  // not Math.hypot: V8 allocates for its variable argument list on every call
  const l = Math.sqrt(out.x * out.x + out.y * out.y + out.z * out.z + out.w * out.w);
  if (l > 0) out.set(out.x / l, out.y / l, out.z / l, out.w / l);
  else out.copyFrom(a);
  return out;
}
