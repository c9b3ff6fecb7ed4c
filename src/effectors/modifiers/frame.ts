/**
 * Spaces the offset modifiers work in: the character's frame (right, up, forward) in world space, bone
 * poses read from Babylon before the IK reads them, and world rotations brought into the rig's component
 * space. Allocation-free.
 * @module
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { boneWorldMatrixToRef, currentWorldMatrix, isBone, transformVector } from "../../babylon/world-matrix.js";
import { Quat, type ReadonlyQuat, copyQuat, identity, multiply, rotateVector } from "../../math/quat.js";
import { type ReadonlyVec3, Vec3, copy } from "../../math/vec3.js";
import { moduleMatrix } from "../../babylon/module-matrix.js";

const tv = new Vec3();
const tv2 = new Vec3();
const tq = new Quat();
const tm = moduleMatrix();
const unitZ: ReadonlyVec3 = new Vec3(0, 0, 1);

/** Anything with writable x, y, z (the library's Vec3 or a Babylon Vector3). */
export interface MutableVec3 {
  /** The x component. */
  x: number;
  /** The y component. */
  y: number;
  /** The z component. */
  z: number;
}

/** Anything with writable x, y, z, w (the library's Quat or a Babylon Quaternion). */
export interface MutableQuat {
  /** The x component. */
  x: number;
  /** The y component. */
  y: number;
  /** The z component. */
  z: number;
  /** The w component. */
  w: number;
}

/**
 * An orthonormal frame in world space: the character's `right`, `up` and `forward` (x, y, z of "root
 * space") and an origin. `right` is the character's right side in both handedness modes: up × forward in a
 * left-handed scene, forward × up in a right-handed one; so a right-handed scene, which Babylon's glTF
 * loader makes the mirror image of the left-handed one, sees the mirrored offsets, and
 * {@link CharacterFrame.determinant} is −1 there.
 *
 * An optional {@link CharacterFrame.localRotation} turns the frame about its own axes first (Recoil's random
 * rotation). Plain-field vectors (the library's Vec3/Quat), so the per-frame math allocates nothing.
 */
export class CharacterFrame {
  /** The frame's x axis in the world (the character's right). */
  readonly right = new Vec3(1, 0, 0);
  /** The frame's y axis in the world (the character's up). */
  readonly up = new Vec3(0, 1, 0);
  /** The frame's z axis in the world (the character's forward). */
  readonly forward = new Vec3(0, 0, 1);
  /** The frame's origin in the world (the character root's position). */
  readonly position = new Vec3();
  /** A rotation in the frame's own axes applied before mapping to the world; identity by default. */
  readonly localRotation = new Quat();
  /** +1 when (right, up, forward) is a rotation of the world axes (left-handed scene), −1 when mirrored. */
  determinant = 1;
  /**
   * World units per unit of a length given in the frame: 1, or how much the character was scaled since the
   * modifier using the frame was created (ARCHITECTURE.md, deviation 24), so offsets authored at one size keep
   * their proportion at another. The conversions of offsets and points apply it.
   */
  lengthScale = 1;

  /**
   * Sets the axes from a forward and an up direction (forward is made perpendicular to up). Degenerate
   * input falls back to the world's +Y up and a forward perpendicular to it.
   */
  setAxes(forward: ReadonlyVec3, up: ReadonlyVec3, rightHanded: boolean): this {
    const fx0 = forward.x;
    const fy0 = forward.y;
    const fz0 = forward.z;
    const u = this.up;
    const f = this.forward;
    u.x = up.x;
    u.y = up.y;
    u.z = up.z;
    let l = Math.sqrt(u.x * u.x + u.y * u.y + u.z * u.z);
    if (!(l > 1e-12) || !Number.isFinite(l)) {
      u.x = 0;
      u.y = 1;
      u.z = 0;
    } else {
      u.x /= l;
      u.y /= l;
      u.z /= l;
    }
    const d = fx0 * u.x + fy0 * u.y + fz0 * u.z;
    f.x = fx0 - u.x * d;
    f.y = fy0 - u.y * d;
    f.z = fz0 - u.z * d;
    l = Math.sqrt(f.x * f.x + f.y * f.y + f.z * f.z);
    if (!(l > 1e-12) || !Number.isFinite(l)) {
      // any direction perpendicular to up, deterministic
      if (Math.abs(u.z) < 0.9) {
        f.x = -u.x * u.z;
        f.y = -u.y * u.z;
        f.z = 1 - u.z * u.z;
      } else {
        f.x = 1 - u.x * u.x;
        f.y = -u.y * u.x;
        f.z = -u.z * u.x;
      }
      l = Math.sqrt(f.x * f.x + f.y * f.y + f.z * f.z);
    }
    f.x /= l;
    f.y /= l;
    f.z /= l;
    const r = this.right;
    // right = up × forward (left-handed) or forward × up (right-handed)
    const s = rightHanded ? -1 : 1;
    r.x = s * (u.y * f.z - u.z * f.y);
    r.y = s * (u.z * f.x - u.x * f.z);
    r.z = s * (u.x * f.y - u.y * f.x);
    this.determinant = s;
    return this;
  }

  /**
   * Sets the frame from a node's world matrix: up = its Y axis, forward = `localForward` (default its Z axis),
   * origin = its position (null: the world's axes at the origin).
   */
  setFromNode(node: TransformNode | null, rightHanded: boolean, localForward: ReadonlyVec3 = unitZ): this {
    const p = this.position;
    if (node === null) {
      p.x = p.y = p.z = 0;
      tv.x = 0;
      tv.y = 0;
      tv.z = 1;
      tv2.x = 0;
      tv2.y = 1;
      tv2.z = 0;
      return this.setAxes(tv, tv2, rightHanded);
    }
    // the cached matrix when it is current: forcing it would make Babylon redo an unmoved character
    const m = currentWorldMatrix(node).m;
    p.x = m[12]!;
    p.y = m[13]!;
    p.z = m[14]!;
    tv2.x = m[4]!;
    tv2.y = m[5]!;
    tv2.z = m[6]!;
    // (0, 0, 1) gives the Z axis bit for bit
    return this.setAxes(transformVector(m, localForward, tv), tv2, rightHanded);
  }

  /** Copies another frame. */
  copyFrom(other: CharacterFrame): this {
    copy(this.right, other.right);
    copy(this.up, other.up);
    copy(this.forward, other.forward);
    copy(this.position, other.position);
    copyQuat(this.localRotation, other.localRotation);
    this.determinant = other.determinant;
    this.lengthScale = other.lengthScale;
    return this;
  }

  /**
   * An offset given in the frame (x right, y up, z forward) → world, × {@link lengthScale}. `out` may alias
   * `local`.
   */
  directionToWorld<T extends MutableVec3>(local: ReadonlyVec3, out: T): T {
    rotateVector(tv, this.localRotation, local);
    const k = this.lengthScale;
    const x = tv.x * k;
    const y = tv.y * k;
    const z = tv.z * k;
    const r = this.right;
    const u = this.up;
    const f = this.forward;
    out.x = r.x * x + u.x * y + f.x * z;
    out.y = r.y * x + u.y * y + f.y * z;
    out.z = r.z * x + u.z * y + f.z * z;
    return out;
  }

  /** A world offset → the frame's axes (the inverse of {@link directionToWorld}). `out` may alias `world`. */
  directionToLocal<T extends MutableVec3>(world: ReadonlyVec3, out: T): T {
    const k = this.lengthScale;
    const wx = world.x / k;
    const wy = world.y / k;
    const wz = world.z / k;
    const r = this.right;
    const u = this.up;
    const f = this.forward;
    tv.x = r.x * wx + r.y * wy + r.z * wz;
    tv.y = u.x * wx + u.y * wy + u.z * wz;
    tv.z = f.x * wx + f.y * wy + f.z * wz;
    const q = this.localRotation;
    tq.x = -q.x;
    tq.y = -q.y;
    tq.z = -q.z;
    tq.w = q.w;
    rotateVector(tv, tq, tv);
    out.x = tv.x;
    out.y = tv.y;
    out.z = tv.z;
    return out;
  }

  /** A world point → the frame's axes relative to its origin. */
  pointToLocal<T extends MutableVec3>(world: ReadonlyVec3, out: T): T {
    tv2.x = world.x - this.position.x;
    tv2.y = world.y - this.position.y;
    tv2.z = world.z - this.position.z;
    return this.directionToLocal(tv2, out);
  }

  /** A point given in the frame relative to its origin → world. */
  pointToWorld<T extends MutableVec3>(local: ReadonlyVec3, out: T): T {
    this.directionToWorld(local, out);
    out.x += this.position.x;
    out.y += this.position.y;
    out.z += this.position.z;
    return out;
  }

  /**
   * A rotation given about the frame's axes → the same rotation about the world's axes (conjugation by
   * the frame; in a mirrored frame the turning sense follows the mirror).
   */
  rotationToWorld<T extends MutableQuat>(local: ReadonlyQuat, out: T): T {
    // turn the rotation's axis by the frame's local rotation first: q · local · conjugate(q)
    const q = this.localRotation;
    multiply(tq, q, local);
    const ax = tq.x;
    const ay = tq.y;
    const az = tq.z;
    const aw = tq.w;
    const bx = -q.x;
    const by = -q.y;
    const bz = -q.z;
    const bw = q.w;
    const x = aw * bx + ax * bw + ay * bz - az * by;
    const y = aw * by - ax * bz + ay * bw + az * bx;
    const z = aw * bz + ax * by - ay * bx + az * bw;
    const w = aw * bw - ax * bx - ay * by - az * bz;
    const d = this.determinant;
    const r = this.right;
    const u = this.up;
    const f = this.forward;
    out.x = d * (r.x * x + u.x * y + f.x * z);
    out.y = d * (r.y * x + u.y * y + f.y * z);
    out.z = d * (r.z * x + u.z * y + f.z * z);
    out.w = w;
    return out;
  }
}

/**
 * The character's frame as the IK sees it: the rig's character root node, facing its
 * {@link FullBodyBipedIK.characterForward} axis, in the scene's handedness. `lengthScale` is left as it is.
 */
export function readCharacterFrame(ik: FullBodyBipedIK, out: CharacterFrame): CharacterFrame {
  out.setFromNode(ik.rig.characterRoot, ik.scene.useRightHandedSystem, ik.characterForward);
  identity(out.localRotation);
  return out;
}

/**
 * A bone's world matrix now. During an update, once the IK's rig has read the skeleton (the modifiers run
 * there), a bone of the rig comes from the rig's own pose: no Babylon world matrix is recomputed. Otherwise
 * (a modifier updated by hand before the IK reads, a bone outside the rig) from Babylon: linked
 * TransformNodes directly, bone-only skeletons through the skeleton's absolute matrices and the mesh the
 * rig reads them in (slower: the skeleton's matrices are recomputed).
 */
export function rigBoneWorldMatrix(ik: FullBodyBipedIK, bone: Bone, out: Matrix): Matrix {
  const rig = ik.rig;
  if (rig.poseIsCurrent) {
    const id = rig.idOf(bone);
    if (id > 0) return rig.worldMatrixToRef(id, out);
  }
  return boneWorldMatrixToRef(bone, rig.componentRoot, out);
}

/** A bone's (or a node's) world position as Babylon holds it now. */
export function worldPositionOf<T extends MutableVec3>(ik: FullBodyBipedIK, target: TransformNode | Bone, out: T): T {
  const m = isBone(target) ? rigBoneWorldMatrix(ik, target, tm).m : currentWorldMatrix(target).m;
  out.x = m[12]!;
  out.y = m[13]!;
  out.z = m[14]!;
  return out;
}

/** The world matrix of a bone or a node as Babylon holds it now. */
export function worldMatrixOf(ik: FullBodyBipedIK, target: TransformNode | Bone, out: Matrix): Matrix {
  if (isBone(target)) return rigBoneWorldMatrix(ik, target, out);
  return out.copyFrom(currentWorldMatrix(target));
}

export { worldDeltaToComponent } from "../../babylon/world-delta.js";

/**
 * Numbers handed to and from the modifiers' small helpers through fields (an offset modifier's protected
 * `scalars`; see ARCHITECTURE.md, "Doubles across calls").
 */
export class Scalars {
  /** Input. */
  a = 0;
  /** Output / second input. */
  b = 0;
  /** Scale. */
  s = 0;
}

// The two below write the Babylon vector's fields as its `set` does, without the call
// (see ARCHITECTURE.md, "Doubles across calls").

/** @internal `target += v × io.s` (target a Babylon Vector3, v anything with x, y, z). */
export function addScaled(target: Vector3, v: ReadonlyVec3, io: Scalars): void {
  const s = io.s;
  target._x += v.x * s;
  target._y += v.y * s;
  target._z += v.z * s;
  target._isDirty = true;
}

/** @internal `target = a + b`. */
export function setSum(target: Vector3, a: ReadonlyVec3, b: ReadonlyVec3): void {
  target._x = a.x + b.x;
  target._y = a.y + b.y;
  target._z = a.z + b.z;
  target._isDirty = true;
}

/**
 * @internal `out` = the rotation of Euler angles `degrees` × `io.s` (z, then x, then y, as Babylon's
 * `RotationYawPitchRoll` and Unity's `Euler` compose them; degrees → radians included).
 */
export function eulerDegreesScaled(out: Quat, degrees: ReadonlyVec3, io: Scalars): void {
  const k = (io.s * Math.PI) / 360;
  tv.x = degrees.x * k;
  tv.y = degrees.y * k;
  tv.z = degrees.z * k;
  rotationFromHalfAngles(out, tv);
}

/**
 * @internal `out` = the rotation of Euler angles whose halves are `half` (radians; z, then x, then y), with
 * the products of Babylon's `Quaternion.RotationYawPitchRollToRef(2 half.y, 2 half.x, 2 half.z)`, bit for bit.
 */
export function rotationFromHalfAngles(out: Quat, half: ReadonlyVec3): void {
  const hy = half.y;
  const hx = half.x;
  const hz = half.z;
  const sy = Math.sin(hy);
  const cy = Math.cos(hy);
  const sx = Math.sin(hx);
  const cx = Math.cos(hx);
  const sz = Math.sin(hz);
  const cz = Math.cos(hz);
  out.x = cy * sx * cz + sy * cx * sz;
  out.y = sy * cx * cz - cy * sx * sz;
  out.z = cy * cx * sz - sy * sx * cz;
  out.w = cy * cx * cz + sy * sx * sz;
}
