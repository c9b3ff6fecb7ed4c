/**
 * The channels an interaction drives over time (FinalIK's InteractionObject.WeightCurve.Type).
 */

/** What a weight curve of an {@link InteractionObject} drives. */
export enum InteractionCurveType {
  /** The effector's positionWeight. */
  PositionWeight = 0,
  /** The effector's rotationWeight. */
  RotationWeight = 1,
  /** Offset of the effector's position along the offset space's X axis (world units). */
  PositionOffsetX = 2,
  /** Offset along the offset space's Y axis. */
  PositionOffsetY = 3,
  /** Offset along the offset space's Z axis. */
  PositionOffsetZ = 4,
  /** The limb chain's pull. */
  Pull = 5,
  /** The limb chain's reach. */
  Reach = 6,
  /** After the solve, the bone is rotated toward the effector's rotation by this weight (squared). */
  RotateBoneWeight = 7,
  /** The limb chain's push. */
  Push = 8,
  /** The limb chain's pushParent. */
  PushParent = 9,
  /** The weight of the hand poser (fingers toward the target's pose). */
  PoserWeight = 10,
  /** The limb's bend constraint weight (bend goal / direction). */
  BendGoalWeight = 11,
}

/** Number of {@link InteractionCurveType} values. */
export const INTERACTION_CURVE_TYPE_COUNT = 12;

/** True for the three position-offset channels (additive, not weights). */
export function isOffsetChannel(type: InteractionCurveType): boolean {
  return (
    type === InteractionCurveType.PositionOffsetX ||
    type === InteractionCurveType.PositionOffsetY ||
    type === InteractionCurveType.PositionOffsetZ
  );
}
