import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { moduleMatrix } from "../../babylon/module-matrix.js";
import { hasRotation, matrixEquals } from "../../babylon/world-matrix.js";
import {
  conjugateMultiplyQuaternionsToRef,
  multiplyQuaternionsToRef,
  rotationOfMatrix,
  transformCoordinatesToRef,
} from "./node-pose.js";

const inverse = moduleMatrix();
const carrierRotation = new Quaternion();

/**
 * An effector's world pose carried by what placed it there (its target's node, or the character for a picked-up
 * object's pose): where an interrupted interaction blends from, and where a stopped one leaves the effector while
 * the weights return to their defaults. A hand handed from hold to hold on a moving deck leaves from where its hold
 * is now, not from where it was when the new interaction started (FinalIK's fixed world point; UAL climbing on an
 * elevator: 4.2 % h off the still deck's path, 4 fingers or toes in a rung). Without a carrier it stays a fixed
 * world pose, as FinalIK's.
 */
export class CarriedPose {
  /** World position now. */
  readonly position = new Vector3();
  /** World rotation now (effector convention). */
  readonly rotation = new Quaternion();
  /** True while a carrier moves the pose (see {@link carry}); false: a fixed world pose. */
  carrying = false;
  private readonly startPosition = new Vector3();
  private readonly startRotation = new Quaternion();
  /** The carrier's world matrix when the pose was taken: while it has it, the pose is the one taken, bit for bit. */
  private readonly carrierAtStart = new Matrix();
  private readonly localPosition = new Vector3();
  private readonly localRotation = new Quaternion();

  /**
   * Takes the world pose, carried from `carrierWorld`, its carrier's world matrix of the moment the pose was shown;
   * null, or a matrix without a usable rotation (scaled to 0, NaN), keeps it fixed in world space.
   */
  set(position: Vector3, rotation: Quaternion, carrierWorld: Matrix | null): void {
    this.position.copyFrom(position);
    this.rotation.copyFrom(rotation);
    this.startPosition.copyFrom(position);
    this.startRotation.copyFrom(rotation);
    this.carrying = carrierWorld !== null && hasRotation(carrierWorld.m);
    if (carrierWorld === null || !this.carrying) return;
    this.carrierAtStart.copyFrom(carrierWorld);
    carrierWorld.invertToRef(inverse);
    transformCoordinatesToRef(position, inverse, this.localPosition);
    conjugateMultiplyQuaternionsToRef(rotationOfMatrix(carrierWorld, carrierRotation), rotation, this.localRotation);
  }

  /** Moves the pose with its carrier, whose world matrix is `carrierWorld` now (kept where it was when it has none). */
  carry(carrierWorld: Matrix): void {
    if (matrixEquals(carrierWorld.m, this.carrierAtStart.m)) {
      this.position.copyFrom(this.startPosition);
      this.rotation.copyFrom(this.startRotation);
      return;
    }
    if (!hasRotation(carrierWorld.m)) return;
    transformCoordinatesToRef(this.localPosition, carrierWorld, this.position);
    multiplyQuaternionsToRef(rotationOfMatrix(carrierWorld, carrierRotation), this.localRotation, this.rotation);
  }
}
