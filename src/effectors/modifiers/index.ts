/**
 * FinalIK's offset modifiers: components that add to effector offsets every frame before the IK reads the
 * skeleton (hit reactions, recoil, inertia, amplification, body tilt, fixed offsets).
 * @module
 */
export { CharacterFrame, readCharacterFrame, worldDeltaToComponent } from "./frame.js";
export type { MutableQuat, MutableVec3 } from "./frame.js";
export {
  OffsetModifier,
  OffsetLimits,
  MAX_MODIFIER_DELTA_TIME,
  REFERENCE_HEAD_HEIGHT,
  measureCharacterScale,
} from "./offset-modifier.js";
export type { EffectorLink, EffectorLinkInit, OffsetModifierOptions } from "./offset-modifier.js";
export { OffsetPose } from "./offset-pose.js";
export type { OffsetPoseEffectorLink, OffsetPoseEffectorLinkInit } from "./offset-pose.js";
export { EffectorOffset } from "./effector-offset.js";
export type { EffectorOffsetOptions } from "./effector-offset.js";
export { HitReaction, HitPoint, HitPointEffector, HitPointBone, HitEffectorLink, HitBoneLink } from "./hit-reaction.js";
export type {
  HitReactionOptions,
  HitPointOptions,
  HitPointEffectorOptions,
  HitPointBoneOptions,
} from "./hit-reaction.js";
export { Recoil, RecoilOffset, RecoilHandedness } from "./recoil.js";
export type { RecoilOptions, RecoilOffsetInit } from "./recoil.js";
export { Inertia, InertiaBody } from "./inertia.js";
export type { InertiaOptions, InertiaBodyInit } from "./inertia.js";
export { Amplifier, AmplifierBody } from "./amplifier.js";
export type { AmplifierOptions, AmplifierBodyInit } from "./amplifier.js";
export { BodyTilt } from "./body-tilt.js";
export type { BodyTiltOptions } from "./body-tilt.js";
