/**
 * The rotation-limit contract shared by every joint solver (CCD, FABRIK, limb, aim, Jacobian).
 * @module
 */
import type { Quat, ReadonlyQuat } from "../../math/quat.js";
import type { Vec3 } from "../../math/vec3.js";

/** A joint's rotation limit, applied to its local rotation relative to its default (rest) local rotation. */
export interface RotationLimit {
  /** Clamps `local` (the joint's local rotation) in place to the limit; true when it changed it. */
  apply(local: Quat): boolean;
  /**
   * Sets the rest local rotation the limit is relative to (called once at setup; FinalIK's
   * SetDefaultLocalRotation).
   */
  setDefaultLocalRotation(rest: ReadonlyQuat): void;
}

/**
 * Optional extension of {@link RotationLimit} for limits that leave the joint one axis to turn about (a hinge,
 * an MMD knee). Solvers that know it turn such a joint about that axis directly (MMD's plane solve) instead of
 * turning freely and letting the limit project the turn, which converges in far fewer iterations.
 */
export interface SingleAxisLimit extends RotationLimit {
  /**
   * Writes into `out` the unit axis in the joint's own frame (in component space it is the joint's rotation
   * applied to it, whatever the angle) and returns true; false when the limit leaves more than one axis free.
   */
  singleAxis(out: Vec3): boolean;
}

/** True when `limit` also implements {@link SingleAxisLimit}. */
export function isSingleAxisLimit(limit: RotationLimit): limit is SingleAxisLimit {
  return typeof (limit as Partial<SingleAxisLimit>).singleAxis === "function";
}
