import { Matrix, type Vector3, type Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import {
  Quat,
  type ReadonlyQuat,
  conjugateMultiply,
  copyQuat,
  lookRotation,
  multiply,
  rotateVector,
} from "../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";
import { setQuaternionFields, setVector3Fields } from "./babylon-fields.js";
import {
  axisLengths,
  currentWorldMatrix,
  isMirror,
  matrixEquals,
  mirrorY,
  rotationFromMatrix,
  transformPoint,
  transformVector,
} from "./world-matrix.js";
import { moduleMatrix } from "./module-matrix.js";

const tv = new Vec3();
const tq = new Quat();
const unitY = new Vec3(0, 1, 0);
const unitZ = new Vec3(0, 0, 1);
const axisY = new Vec3();
const axisZ = new Vec3();
const skinPoseWorld = moduleMatrix();
const lengths = new Vec3();

/** Component space's world matrix now, as {@link ComponentSpace.read} takes it (no copy: Babylon's or a scratch). */
function worldNow(root: TransformNode, skinPose: boolean): Matrix {
  const w = currentWorldMatrix(root);
  if (!skinPose) return w;
  // Babylon skins such a skeleton with root bone × the mesh's pose matrix (the inverse of its first
  // world matrix), then the mesh's world matrix: the bones live in the mesh's initial world frame.
  // (read after the world matrix: computing it is what sets the pose matrix; reading first would
  // make Babylon create an identity one)
  root.getPoseMatrix().multiplyToRef(w, skinPoseWorld);
  return skinPoseWorld;
}

/**
 * The frame a rig's pose lives in (component space: the world matrix of the root bone's parent, or of the
 * mesh a bone-only skeleton deforms) and the conversions between it and the world. World rotations are in
 * Babylon's convention (`Matrix.decompose`, a node's `absoluteRotationQuaternion`): in a mirrored
 * component space (glTF's `__root__` in a left-handed scene) a bone's world matrix decomposes with its Y
 * axis flipped, so a bone's `absoluteRotationQuaternion` converts to its own component rotation.
 */
export class ComponentSpace {
  /** World matrix of component space this frame. */
  readonly componentToWorld = new Matrix();
  /** Inverse of componentToWorld. */
  readonly worldToComponent = new Matrix();
  /** Rotation part of componentToWorld in Babylon's convention (rotationFromMatrix: Y flipped under a mirror). */
  readonly rotation = new Quat();
  /** Uniform scale of component space in the world (mean of the axes' lengths). */
  scale = 1;
  /** True when component space is mirrored in the world (glTF in a left-handed scene). */
  mirrored = false;
  /**
   * True when component space's axes in the world are orthogonal and of one length (a rotation, a uniform
   * scale, a mirror): rotations then convert through {@link rotation} alone. A non-uniform scale above the
   * character makes it false: a rotation converts through its axes then (see worldToComponentRotation).
   */
  conformal = true;
  /** False until componentToWorld and what derives from it were read once. */
  private valid = false;

  /**
   * Component space's world matrix now, into `out`, without reading it: where the nodes stand if they moved
   * since the last {@link read} (identity without a root, as read() keeps it).
   */
  static worldNowToRef(root: TransformNode | null, skinPose: boolean, out: Matrix): Matrix {
    if (root === null) Matrix.IdentityToRef(out);
    else out.copyFrom(worldNow(root, skinPose));
    return out;
  }

  /**
   * Reads component space from `root`'s world matrix (identity without a root), preceded by its pose
   * matrix when `skinPose` (a bone-only skeleton with `needInitialSkinMatrix`); false when it is unchanged
   * since the last read.
   */
  read(root: TransformNode | null, skinPose: boolean): boolean {
    const c = this.componentToWorld;
    if (root === null) {
      if (this.valid) return false;
      Matrix.IdentityToRef(c);
    } else {
      const w = worldNow(root, skinPose);
      // unchanged since the last read (a character standing still): nothing to derive again
      if (this.valid && matrixEquals(w.m, c.m)) return false;
      c.copyFrom(w);
    }
    this.valid = true;
    c.invertToRef(this.worldToComponent);
    const m = c.m;
    // rows are the axes (Babylon's row-vector convention)
    axisLengths(m, lengths);
    const lx = lengths.x;
    const ly = lengths.y;
    const lz = lengths.z;
    this.scale = (lx + ly + lz) / 3;
    // relative to the squared scale, above float32 matrices' rounding (Babylon's default): a scale that
    // uneven (5e-6) turns a rotation by 3e-4° at most
    const tol = 1e-5 * this.scale * this.scale;
    const xy = m[0]! * m[4]! + m[1]! * m[5]! + m[2]! * m[6]!;
    const yz = m[4]! * m[8]! + m[5]! * m[9]! + m[6]! * m[10]!;
    const zx = m[8]! * m[0]! + m[9]! * m[1]! + m[10]! * m[2]!;
    this.conformal =
      Math.abs(lx * lx - ly * ly) <= tol &&
      Math.abs(ly * ly - lz * lz) <= tol &&
      Math.abs(xy) <= tol &&
      Math.abs(yz) <= tol &&
      Math.abs(zx) <= tol;
    rotationFromMatrix(m, this.rotation);
    this.mirrored = isMirror(m);
    return true;
  }

  /** World point → component space. */
  worldToComponentPoint(world: ReadonlyVec3, out: Vec3): Vec3 {
    return transformPoint(this.worldToComponent.m, world, out);
  }

  /** Component point → world. */
  componentToWorldPoint(component: ReadonlyVec3, out: Vector3): Vector3 {
    transformPoint(this.componentToWorld.m, component, tv);
    return setVector3Fields(out, tv);
  }

  /** World direction/offset → component space (scale included, so lengths convert too). */
  worldToComponentVector(world: ReadonlyVec3, out: Vec3): Vec3 {
    return transformVector(this.worldToComponent.m, world, out);
  }

  /** Component direction/offset → world. */
  componentToWorldVector(component: ReadonlyVec3, out: Vector3): Vector3 {
    transformVector(this.componentToWorld.m, component, tv);
    return setVector3Fields(out, tv);
  }

  /**
   * World rotation (Babylon's convention) → component space. Under a non-uniform scale (not
   * {@link conformal}) no component rotation shows as that world rotation: the one returned puts the bone's
   * Z axis exactly along the world rotation's and its Y axis in the plane of the world rotation's Z and Y
   * (what rotationFromMatrix reads back from the bone's world matrix).
   */
  worldToComponentRotation(world: ReadonlyQuat, out: Quat): Quat {
    if (!this.conformal) return this.axesToComponent(world, out);
    conjugateMultiply(out, this.rotation, world);
    if (this.mirrored) mirrorY(out);
    return out;
  }

  /** Component rotation → world in Babylon's convention (the inverse of worldToComponentRotation). */
  componentToWorldRotation(component: ReadonlyQuat, out: Quaternion): Quaternion {
    if (!this.conformal) {
      // the bone's Z and Y axes through component space's matrix, read as rotationFromMatrix reads them
      this.axesThrough(component, this.componentToWorld.m);
      lookRotation(tq, axisZ, axisY);
    } else {
      copyQuat(tq, component);
      if (this.mirrored) mirrorY(tq);
      multiply(tq, this.rotation, tq);
    }
    // not `out.set(…)`: the interaction system's frame boxed the four doubles handed to it (64 B a call)
    // whenever V8 had inlined this method but not `set`
    return setQuaternionFields(out, tq);
  }

  /** The world rotation's Z and Y axes carried into component space, as a rotation. */
  private axesToComponent(world: ReadonlyQuat, out: Quat): Quat {
    this.axesThrough(world, this.worldToComponent.m);
    return lookRotation(out, axisZ, axisY);
  }

  /** axisZ, axisY = q's Z and Y axes through the linear part of `m`, Y flipped under a mirror. */
  private axesThrough(q: ReadonlyQuat, m: ArrayLike<number>): void {
    transformVector(m, rotateVector(axisZ, q, unitZ), axisZ);
    transformVector(m, rotateVector(axisY, q, unitY), axisY);
    if (this.mirrored) {
      axisY.x = -axisY.x;
      axisY.y = -axisY.y;
      axisY.z = -axisY.z;
    }
  }
}
