import type { Quat } from "../math/quat.js";
import { Vec3 } from "../math/vec3.js";

/**
 * An end effector of an {@link IKSolverJacobian}: a joint's bone pulled to `position` (component space) and,
 * when `rotation` is set, turned to it. Effectors of one priority that conflict are resolved by weighted
 * least squares: the solver minimises Σ weight·(|position error|² + rotationWeight·(L·angle error)²), L the
 * joints' total length, so two effectors on one bone end at the weighted mean of their targets when it is
 * reachable. Between priorities, the higher one wins (see {@link priority}).
 */
export class JacobianEffector {
  /** The bone's id on the pose (one of the solver's joints). */
  readonly bone: number;
  /** Index of the bone in the solver's joint list. */
  readonly joint: number;
  /** Target position, component space. */
  readonly position = new Vec3();
  /** Target rotation, component space; null (the default) leaves the bone's rotation free. */
  rotation: Quat | null = null;
  /** Least-squares weight (≥ 0; 0 switches the effector off; relative to the other effectors'). */
  weight = 1;
  /** Weight of the rotation target relative to the position target (≥ 0). */
  rotationWeight = 1;
  /**
   * Priority: effectors of a higher priority are solved first, those of lower ones only in what freedom is
   * left (the null space of the higher ones), whatever their weights. Equal priorities share one weighted
   * least-squares level. Default 0.
   */
  priority = 0;
  /**
   * True when the last update found the target on the effector's root joint (within `ON_POINT`, 1e-4, of the
   * joints' length between them), where float noise has no direction: the effector was held where the
   * animation has it instead. Set by the solver.
   */
  targetOnRoot = false;

  /** Created by {@link IKSolverJacobian.addEffector}. */
  constructor(bone: number, joint: number) {
    this.bone = bone;
    this.joint = joint;
  }
}
