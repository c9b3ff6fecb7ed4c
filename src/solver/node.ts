import { Quat } from "../math/quat.js";
import { Vec3 } from "../math/vec3.js";

/**
 * A point of the solver (FinalIK's IKSolver.Node): one referenced bone of a chain. It carries the
 * bone's animated pose for this frame, the position the solver moves, and what the effectors wrote.
 */
export class IKNode {
  /** Id of the bone in the {@link IKPose}. */
  readonly bone: number;
  /** Animated component-space position of the bone this frame (after LimitBend). */
  readonly bonePosition = new Vec3();
  /** Animated component-space rotation of the bone this frame (after LimitBend). */
  readonly boneRotation = new Quat();
  /** Where the solver currently places this node. */
  readonly solverPosition = new Vec3();
  /** Rotation the node's effector asks for (hands and feet), set in the effector's pre-solve while its rotation weight is above 0. */
  readonly solverRotation = new Quat();
  /** Distance to the next node of the chain, re-measured from the animated pose every frame. */
  length = 0;
  /** Effector position weight × ikPositionWeight (0 when no effector drives this node). */
  effectorPositionWeight = 0;
  /** Effector rotation weight × ikPositionWeight. */
  effectorRotationWeight = 0;
  /** Position offset gathered from effectors this frame (component space). */
  readonly offset = new Vec3();

  /** Creates the node for pose bone `bone`. */
  constructor(bone: number) {
    this.bone = bone;
  }
}
