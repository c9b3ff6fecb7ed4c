import type { Quat, ReadonlyQuat } from "../math/quat.js";
import type { ReadonlyVec3, Vec3 } from "../math/vec3.js";

/**
 * The animated pose as the solver sees it: component-space position and rotation of the referenced
 * bones, addressed by integer bone ids. Component space is the frame of the skeleton root's parent,
 * so scale, root motion and handedness mirroring above it never reach the solver.
 *
 * The solver reads every referenced bone once per frame and writes only through `setRotation`
 * (LimitBend un-inverting an elbow or knee). The mapping stage writes the solved pose back through the
 * same interface. Implementations keep descendants consistent: changing a bone moves its children.
 */
export interface IKPose {
  /** Writes the component-space position of `bone` into `out` and returns `out`. */
  getPosition(bone: number, out: Vec3): Vec3;
  /** Writes the component-space rotation of `bone` into `out` and returns `out`. */
  getRotation(bone: number, out: Quat): Quat;
  /** Sets the component-space rotation of `bone`; its descendants follow rigidly. */
  setRotation(bone: number, rotation: ReadonlyQuat): void;
  /** Sets the component-space position of `bone`; its descendants follow rigidly. */
  setPosition(bone: number, position: ReadonlyVec3): void;
  /**
   * Optional: true when `bone` does not follow its ancestors' rotations rigidly (a non-uniform scale above
   * it shears it, as a Babylon skeleton's can). The limb mapping then aims the limb's bones at their solved
   * nodes after placing them. Rigid when absent.
   */
  isSheared?(bone: number): boolean;
  /**
   * @internal Optional flat storage of the component-space rotations (4 per bone) and positions (3 per bone),
   * current for a bone after {@link bringUpToDate}: for a rarely taken path that must read the pose without calling
   * {@link getRotation} (LimitBend's clamp: bend-constraint.ts).
   */
  readonly componentRotations?: Float64Array;
  /** @internal See {@link componentRotations}. */
  readonly componentPositions?: Float64Array;
  /** @internal Brings `bone`'s component-space pose (and its stale ancestors') up to date in the flat storage. */
  bringUpToDate?(bone: number): void;
}
