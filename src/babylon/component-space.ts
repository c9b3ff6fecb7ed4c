import { Matrix, type Vector3, type Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { setQuaternionFields, setVector3Fields } from "./babylon-fields.js";
import { Quat, type ReadonlyQuat, conjugateMultiply, copyQuat, multiply } from "../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";
import {
  currentWorldMatrix,
  matrixEquals,
  mirrorY,
  rotationFromMatrix,
  transformPoint,
  transformVector,
} from "./world-matrix.js";

const tv = new Vec3();
const tq = new Quat();
const skinPoseWorld = new Matrix();

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
  /** False until componentToWorld and what derives from it were read once. */
  private valid = false;

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
      let w = currentWorldMatrix(root);
      if (skinPose) {
        // Babylon skins such a skeleton with root bone × the mesh's pose matrix (the inverse of its first
        // world matrix), then the mesh's world matrix: the bones live in the mesh's initial world frame.
        // (read after the world matrix: computing it is what sets the pose matrix; reading first would
        // make Babylon create an identity one)
        root.getPoseMatrix().multiplyToRef(w, skinPoseWorld);
        w = skinPoseWorld;
      }
      // unchanged since the last read (a character standing still): nothing to derive again
      if (this.valid && matrixEquals(w.m, c.m)) return false;
      c.copyFrom(w);
    }
    this.valid = true;
    c.invertToRef(this.worldToComponent);
    const m = c.m;
    // rows are the axes (Babylon's row-vector convention)
    // (Math.hypot takes its arguments as a rest array and allocates on every call)
    const lx = Math.sqrt(m[0]! * m[0]! + m[1]! * m[1]! + m[2]! * m[2]!);
    const ly = Math.sqrt(m[4]! * m[4]! + m[5]! * m[5]! + m[6]! * m[6]!);
    const lz = Math.sqrt(m[8]! * m[8]! + m[9]! * m[9]! + m[10]! * m[10]!);
    this.scale = (lx + ly + lz) / 3;
    rotationFromMatrix(m, this.rotation);
    // the sign of the linear part's determinant (an affine matrix's 4×4 determinant equals it), written
    // out: Matrix.determinant() returns a double (see ARCHITECTURE.md, "Doubles across calls")
    this.mirrored =
      m[0]! * (m[5]! * m[10]! - m[6]! * m[9]!) -
        m[1]! * (m[4]! * m[10]! - m[6]! * m[8]!) +
        m[2]! * (m[4]! * m[9]! - m[5]! * m[8]!) <
      0;
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

  /** World rotation (Babylon's convention) → component space. */
  worldToComponentRotation(world: ReadonlyQuat, out: Quat): Quat {
    conjugateMultiply(out, this.rotation, world);
    if (this.mirrored) mirrorY(out);
    return out;
  }

  /** Component rotation → world in Babylon's convention (the inverse of worldToComponentRotation). */
  componentToWorldRotation(component: ReadonlyQuat, out: Quaternion): Quaternion {
    copyQuat(tq, component);
    if (this.mirrored) mirrorY(tq);
    multiply(tq, this.rotation, tq);
    // not `out.set(…)`: the interaction system's frame boxed the four doubles handed to it (64 B a call)
    // whenever V8 had inlined this method but not `set`
    return setQuaternionFields(out, tq);
  }
}
