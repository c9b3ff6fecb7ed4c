import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { moduleMatrix } from "../../babylon/module-matrix.js";
import { hasRotation, matrixEquals } from "../../babylon/world-matrix.js";
import {
  conjugateMultiplyQuaternionsToRef,
  multiplyQuaternionsToRef,
  rotationOfMatrix,
  transformCoordinatesToRef,
} from "./node-pose.js";

const inverse = moduleMatrix();
const nodeRotation = new Quaternion();

/**
 * The world pose an interrupted interaction blends from, carried by the node the effector was on (its previous
 * target): a hand handed from hold to hold on a moving deck leaves from where its hold is now, not from where it
 * was when the new interaction started (FinalIK's fixed world point; UAL climbing on an elevator: 4.2 % h off the
 * still deck's path, 4 fingers or toes in a rung). Without a node it stays a fixed world pose, as FinalIK's.
 */
export class CarriedPose {
  /** World position now. */
  readonly position = new Vector3();
  /** World rotation now (effector convention). */
  readonly rotation = new Quaternion();
  /** The node whose motion carries the pose, or null: a fixed world pose (also once the node is disposed). */
  node: TransformNode | null = null;
  private readonly startPosition = new Vector3();
  private readonly startRotation = new Quaternion();
  /** The node's world matrix when the pose was taken: while it has it, the pose is the one taken, bit for bit. */
  private readonly nodeAtStart = new Matrix();
  private readonly localPosition = new Vector3();
  private readonly localRotation = new Quaternion();

  /**
   * Takes the world pose, carried by `node` from its world matrix `nodeWorld` of the moment the pose was shown;
   * null, or a matrix without a usable rotation (scaled to 0, NaN), keeps it fixed in world space.
   */
  set(position: Vector3, rotation: Quaternion, node: TransformNode | null, nodeWorld: Matrix): void {
    this.position.copyFrom(position);
    this.rotation.copyFrom(rotation);
    this.startPosition.copyFrom(position);
    this.startRotation.copyFrom(rotation);
    this.node = node !== null && hasRotation(nodeWorld.m) ? node : null;
    if (this.node === null) return;
    this.nodeAtStart.copyFrom(nodeWorld);
    nodeWorld.invertToRef(inverse);
    transformCoordinatesToRef(position, inverse, this.localPosition);
    conjugateMultiplyQuaternionsToRef(rotationOfMatrix(nodeWorld, nodeRotation), rotation, this.localRotation);
  }

  /** Moves the pose with the node, whose world matrix is `nodeWorld` now (kept where it was when it has none). */
  carry(nodeWorld: Matrix): void {
    if (matrixEquals(nodeWorld.m, this.nodeAtStart.m)) {
      this.position.copyFrom(this.startPosition);
      this.rotation.copyFrom(this.startRotation);
      return;
    }
    if (!hasRotation(nodeWorld.m)) return;
    transformCoordinatesToRef(this.localPosition, nodeWorld, this.position);
    multiplyQuaternionsToRef(rotationOfMatrix(nodeWorld, nodeRotation), this.localRotation, this.rotation);
  }
}
