/**
 * One joint of a chain solved by an {@link IKSolverJoints}.
 * @module
 */
import type { RotationLimit } from "./limits/rotation-limit.js";

/** A joint of a chain: the bone, its weight in the solve, its rotation limit (FinalIK's `IKSolver.Bone`). */
export class JointBone {
  /** The bone's id in the pose. */
  readonly id: number;
  /** How much of its turn the joint takes each time the solver turns it, in [0, 1] (CCD); 1 by default. */
  weight = 1;
  /** The joint's rotation limit, or null; set it with the solver's `setLimit` so its rest rotation is stored. */
  limit: RotationLimit | null = null;

  /** Creates the joint for bone `id`. */
  constructor(id: number) {
    this.id = id;
  }
}
