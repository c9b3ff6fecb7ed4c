import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { IKLevel } from "./lod-character.js";

/**
 * What an {@link IKLevelOfDetail} sees of one character this frame, read-only (from
 * `IKLevelOfDetail.viewOf(ik)`). Live: the controller updates it every frame; copy what you keep.
 */
export interface IKLodView {
  /** The level the IK runs at, or fades out toward (Off). */
  readonly level: IKLevel;
  /** The level the view asks for (distance, screen size, frustum), before the budget. */
  readonly natural: IKLevel;
  /** The level after the budget. */
  readonly target: IKLevel;
  /**
   * Projected height as a fraction of the viewport's height, where the level comes from: the character's place or,
   * with instances of its skinned meshes drawn (`createInstance`), the instance that asks the highest level. 0 when
   * the camera draws nothing of it (its `layerMask`, or Babylon's mesh LOD past a null level there and at each
   * instance).
   */
  readonly size: number;
  /**
   * Distance from the camera to the bounds' centre of that place, world units; when the camera draws nothing of the
   * character (size 0), to its own place, as for one out of view.
   */
  readonly distance: number;
  /** Inside the camera's frustum (with hysteresis). */
  readonly visible: boolean;
  /** False when the user excluded the character (`setManaged(ik, false)`): it stays Full. */
  readonly managed: boolean;
  /** The bones' bounds centre in world space. */
  readonly centre: Readonly<Vector3>;
  /** The node whose world matrix places the character, or null (always Full). */
  readonly node: TransformNode | null;
  /** The bones' largest extent (measured when the character joined) at its root node's scale now, world units. */
  readonly height: number;
}
