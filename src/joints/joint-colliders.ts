/**
 * What the joint-solver frame needs from a collider set (`ColliderSet` in `colliders/` has this shape).
 * @module
 */
import type { IKPose } from "../solver/pose.js";

/**
 * The numbers of one collider sub-step, handed to {@link JointColliders.resolveStep} in an object: a double passed
 * as an argument to a call V8 does not inline is boxed, 16 B a sub-step (ARCHITECTURE.md, "Doubles across calls").
 */
export class ColliderStep {
  /** Clearance kept between the chain and the colliders (≥ 0). */
  radius = 0;
  /** Where between the step's start (0) and end (1) the colliders are placed. */
  alpha = 1;
  /**
   * Per collider (by index), 1 to leave it out of this call, or null for none: a hand is not kept out of the
   * shield it holds.
   */
  skip: Uint8Array | null = null;
}

/** Colliders a chain's joints are pushed out of during the frame's sub-steps. */
export interface JointColliders {
  /**
   * Reads the component-space transforms of the bones the colliders hang on: this step's end; the last end becomes
   * its start.
   */
  update(pose: IKPose): void;
  /**
   * Pushes the chain's joints (3 numbers each at i*3 in `positions`, `count` joints) and the segments between
   * consecutive joints out of every collider placed at `step.alpha` in [0,1] between the step's start and end,
   * keeping `step.radius` clearance. True when something moved. Allocation-free.
   */
  resolveStep(positions: Float64Array, count: number, step: ColliderStep): boolean;
}
