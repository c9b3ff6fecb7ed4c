/**
 * What the joint-solver frame needs from a collider set (`ColliderSet` in `colliders/` has this shape).
 * @module
 */
import type { IKPose } from "../solver/pose.js";

/** Colliders a chain's joints are pushed out of during the frame's sub-steps. */
export interface JointColliders {
  /**
   * Reads the component-space transforms of the bones the colliders hang on: this step's end; the last end becomes
   * its start.
   */
  update(pose: IKPose): void;
  /**
   * Pushes the chain's joints (3 numbers each at i*3 in `positions`, `count` joints) and the segments between
   * consecutive joints out of every collider placed at `alpha` in [0,1] between the step's start and end, keeping
   * `radius` clearance. True when something moved. Allocation-free.
   */
  resolveChain(positions: Float64Array, count: number, radius: number, alpha: number): boolean;
}
