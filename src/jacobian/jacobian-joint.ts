import type { ReadonlyVec3 } from "../math/vec3.js";

/**
 * One joint of an {@link IKSolverJacobian}: a bone that turns. By default it has three rotational degrees
 * of freedom, angles about its parent's X, then Y, then Z axes applied on top of its rest local rotation
 * (local = Rz·Ry·Rx·rest); with `hingeAxis` it has one, the angle about that axis (local = R(axis, θ)·rest,
 * off-axis rotation of the animated pose kept); `locked` joints have none (they follow their parent).
 */
export interface JacobianJoint {
  /** The bone's id on the {@link IKPose}. */
  bone: number;
  /**
   * Index in the joint list of the parent joint (an ancestor bone listed earlier); −1 for the root joint.
   * Default: the previous joint (a chain), −1 for the first.
   */
  parent?: number;
  /** A hinge's axis, in the parent's frame at rest (need not be unit). */
  hingeAxis?: ReadonlyVec3;
  /** No degree of freedom: the joint keeps its local rotation. */
  locked?: boolean;
  /** Lower angle limits in radians, one per degree of freedom (x, y, z; a hinge's one). −∞ when absent. */
  min?: readonly number[];
  /** Upper angle limits in radians, one per degree of freedom. +∞ when absent. */
  max?: readonly number[];
}
