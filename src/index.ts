/**
 * babylon-fbbik: a FinalIK-style full-body biped IK for Babylon.js.
 *
 * Most users need only {@link FullBodyBipedIK}: `FullBodyBipedIK.create(scene, skeleton)` attaches the
 * solver to a loaded humanoid and solves every frame after the animations. Everything below it is public
 * too: the Babylon handles (effectors, chains, bend constraints), the rig adapter and reference detection,
 * the engine-neutral solver that works in component space, and the math it is written in.
 * @packageDocumentation
 */

export { FullBodyBipedIK } from "./babylon/full-body-biped-ik.js";
export type { FullBodyBipedIKOptions } from "./babylon/full-body-biped-ik.js";
export { FBBIKSolver, BabylonBipedSolver } from "./babylon/fbbik-solver.js";
export { IKLevelOfDetail } from "./babylon/lod/ik-level-of-detail.js";
export { SceneClock, sceneClock } from "./babylon/scene-time.js";
export { IKLevel } from "./babylon/lod/lod-character.js";
export type { IKLodView } from "./babylon/lod/lod-view.js";
export type { IKLevelChangedEvent } from "./babylon/lod/level-changed-event.js";
export { BabylonEffector } from "./babylon/babylon-effector.js";
export { BabylonChain, BabylonBendConstraint } from "./babylon/babylon-chain.js";
export { BabylonRig } from "./babylon/babylon-rig.js";
export type { BabylonRigOptions } from "./babylon/babylon-rig.js";
export type { MeshAdoption } from "./babylon/mesh-adoption.js";
export { ComponentSpace } from "./babylon/component-space.js";
export { RigDetachment } from "./babylon/rig-attachment.js";
export { FlatPose } from "./mapping/flat-pose.js";
export { resolveBipedReferences, readSkeletonInfo, referencedBones } from "./babylon/biped-references.js";
export { bipedNameMap, pairChains } from "./babylon/biped-name-map.js";
export { vrmHumanoidReferences } from "./babylon/vrm-references.js";
export { readVrmHumanoid } from "./mapping/vrm-humanoid.js";
export type { VrmHumanoid } from "./mapping/vrm-humanoid.js";
export { alignRestPose } from "./babylon/align-rest-pose.js";
export type { BipedNameMapOptions } from "./babylon/biped-name-map.js";
export type { BipedReferences, BipedReferencesInput, BoneReference, SkeletonInfo } from "./babylon/biped-references.js";
export { BipedMapping } from "./mapping/biped-mapping.js";
export type { BipedMappingOptions, FixedBone, RestorablePose } from "./mapping/biped-mapping.js";
export { BoneMap } from "./mapping/bone-map.js";
export type { MappingSolver } from "./mapping/bone-map.js";
export { IKMappingSpine } from "./mapping/mapping-spine.js";
export type { SpineNodes } from "./mapping/mapping-spine.js";
export { IKMappingLimb } from "./mapping/mapping-limb.js";
export { IKMappingBone } from "./mapping/mapping-bone.js";
export { planeRotation } from "./solver/plane.js";
export { Vec3, Quat, NumberRef, vec3, quat, direction } from "./math/index.js";
export type { ReadonlyVec3, ReadonlyQuat } from "./math/index.js";

export type { IKPose } from "./solver/pose.js";
export { IKNode } from "./solver/node.js";
export { Smoothing } from "./solver/smoothing.js";
export { FBIKChain, MAX_LIMB_LENGTH, solveLinearConstraint } from "./solver/chain.js";
export type { ChainSolver } from "./solver/chain.js";
export { ChildConstraint } from "./solver/child-constraint.js";
export { BendConstraint } from "./solver/bend-constraint.js";
export { IKSolverFullBody } from "./solver/full-body.js";
export type { IKSolverMapping, SolverWarning } from "./solver/full-body.js";
export { IKSolverFullBodyBiped, validateBipedBones, validateRootNode } from "./solver/full-body-biped.js";
export { FullBodyBipedChain, FullBodyBipedEffector, limbBones } from "./solver/biped-bones.js";
export type { BipedBones } from "./solver/biped-bones.js";
export { detectRootNodeBone } from "./solver/root-node.js";
export { FBBIKError } from "./solver/errors.js";
export { SolverObservable } from "./solver/observable.js";

export { IKEffector } from "./solver/effector.js";
export type { EffectorSolver } from "./solver/effector.js";

export { HierarchyPose } from "./mapping/hierarchy-pose.js";
export type { HierarchyBone } from "./mapping/hierarchy-pose.js";

export { detectBipedReferences, validateBipedReferences } from "./mapping/detection/detect-references.js";
export type {
  DetectedBipedReferences,
  DetectionOptions,
  DetectionResult,
  ReferenceValidation,
  RigBoneInfo,
} from "./mapping/detection/detect-references.js";
export { parseBoneName } from "./mapping/detection/bone-naming.js";
export type { BoneNameInfo, BoneRole, BoneSide } from "./mapping/detection/bone-naming.js";

// interaction system
export { InteractionSystem } from "./effectors/interaction/interaction-system.js";
export type { InteractionEventData, InteractionSystemOptions } from "./effectors/interaction/interaction-system.js";
export { InteractionEffector } from "./effectors/interaction/interaction-effector.js";
export type { InteractionChainWeights } from "./effectors/interaction/interaction-effector.js";
export { InteractionObject, parseEffector } from "./effectors/interaction/interaction-object.js";
export type {
  InteractionEvent,
  InteractionMultiplier,
  InteractionObjectOptions,
  InteractionTargetMetadata,
  InteractionWeightCurve,
} from "./effectors/interaction/interaction-object.js";
export { InteractionTarget } from "./effectors/interaction/interaction-target.js";
export type { InteractionTargetOptions } from "./effectors/interaction/interaction-target.js";
export { InteractionCurveType, INTERACTION_CURVE_TYPE_COUNT } from "./effectors/interaction/interaction-curves.js";
export { HandPoser } from "./effectors/interaction/hand-poser.js";
export { ClimbSequencer } from "./effectors/interaction/climb-sequencer.js";
export type { ClimbSequencerOptions, ClimbStep, ClimbStepEvent } from "./effectors/interaction/climb-sequencer.js";
// keyframed curves (interaction weights, hit reactions, recoil)
export { Curve, CurveIO } from "./math/curve.js";
export type { CurveKey } from "./math/curve.js";

// grounding
export {
  GrounderFBBIK,
  GrounderSpineEffector,
  GROUNDER_REFERENCE_HEIGHT,
} from "./effectors/grounding/grounder-fbbik.js";
export type { GrounderFBBIKOptions } from "./effectors/grounding/grounder-fbbik.js";
export type { GrounderOptions } from "./effectors/grounding/grounder-options.js";
export { GrounderIK } from "./effectors/grounding/grounder-ik.js";
export type { GrounderIKOptions, GrounderLeg } from "./effectors/grounding/grounder-ik.js";
export { GrounderQuadruped } from "./effectors/grounding/grounder-quadruped.js";
export type { GrounderQuadrupedOptions } from "./effectors/grounding/grounder-quadruped-options.js";
export { Grounding } from "./effectors/grounding/grounding.js";
export { GroundingLeg } from "./effectors/grounding/grounding-leg.js";
export { GroundingPelvis } from "./effectors/grounding/grounding-pelvis.js";
export { GroundingHit, GroundingQuality, lerpValue } from "./effectors/grounding/grounding-common.js";
export type { GroundingBody, GroundingRaycast, GroundingSphereCast } from "./effectors/grounding/grounding-common.js";
export { BabylonGroundRaycast } from "./effectors/grounding/babylon-ground-raycast.js";
export { StaticGroundRaycast } from "./effectors/grounding/static-ground-raycast.js";
export type { StaticGroundRaycastOptions } from "./effectors/grounding/static-ground-raycast.js";
export { MovingGroundRaycast } from "./effectors/grounding/moving-ground-raycast.js";
export type { MovingGroundRaycastOptions } from "./effectors/grounding/moving-ground-raycast.js";
export { nearestGroundRaycast } from "./effectors/grounding/nearest-ground-raycast.js";
export type { GroundPredicate } from "./effectors/grounding/babylon-ground-raycast.js";
export { HavokGroundRaycast } from "./effectors/grounding/havok-ground-raycast.js";
export type { HavokGroundRaycastOptions, PhysicsRaycaster } from "./effectors/grounding/havok-ground-raycast.js";

// offset modifiers
export {
  Amplifier,
  AmplifierBody,
  BodyTilt,
  CharacterFrame,
  EffectorOffset,
  HitBoneLink,
  HitEffectorLink,
  HitPoint,
  HitPointBone,
  HitPointEffector,
  HitReaction,
  Inertia,
  InertiaBody,
  MAX_MODIFIER_DELTA_TIME,
  OffsetLimits,
  OffsetModifier,
  OffsetPose,
  REFERENCE_HEAD_HEIGHT,
  Recoil,
  RecoilHandedness,
  RecoilOffset,
  measureCharacterScale,
  readCharacterFrame,
  worldDeltaToComponent,
} from "./effectors/modifiers/index.js";
export type {
  AmplifierBodyInit,
  AmplifierOptions,
  BodyTiltOptions,
  EffectorLink,
  EffectorLinkInit,
  EffectorOffsetOptions,
  HitPointBoneOptions,
  HitPointEffectorOptions,
  HitPointOptions,
  HitReactionOptions,
  InertiaBodyInit,
  InertiaOptions,
  MutableQuat,
  MutableVec3,
  OffsetModifierOptions,
  OffsetPoseEffectorLink,
  OffsetPoseEffectorLinkInit,
  RecoilOffsetInit,
  RecoilOptions,
} from "./effectors/modifiers/index.js";

// the IK family: the shared joint-solver frame, rotation limits, colliders and the engine-neutral solvers
export { IKSolverJoints, type IKSolverJointsOptions, type JointReach } from "./joints/ik-solver-joints.js";
export { JointBone } from "./joints/joint-bone.js";
export { ColliderStep, type JointColliders } from "./joints/joint-colliders.js";
export { type RotationLimit, type SingleAxisLimit, isSingleAxisLimit } from "./joints/limits/rotation-limit.js";
export { RotationLimitEuler } from "./joints/limits/rotation-limit-euler.js";
export { RotationLimitHinge } from "./joints/limits/rotation-limit-hinge.js";
export { kneeEulerLimit } from "./babylon/knee-limit.js";
export { jointDirection, jointDirectionToRef } from "./babylon/joint-direction.js";
export type { KneeLimitOptions } from "./babylon/knee-limit.js";
export { RotationLimitAngle } from "./joints/limits/rotation-limit-angle.js";
export { RotationLimitPolygonal } from "./joints/limits/rotation-limit-polygonal.js";
export { RotationLimitSpline } from "./joints/limits/rotation-limit-spline.js";
export { SphereCollider } from "./joints/colliders/sphere-collider.js";
export { CapsuleCollider } from "./joints/colliders/capsule-collider.js";
export type { Collider } from "./joints/colliders/collider.js";
export { ColliderSet } from "./joints/colliders/collider-set.js";
export { IKSolverCCD, type CCDLinkOrder } from "./ccd/ik-solver-ccd.js";
export { IKSolverFABRIK } from "./fabrik/ik-solver-fabrik.js";
export { IKSolverFABRIKRoot, FABRIKChain } from "./fabrik/ik-solver-fabrik-root.js";
export { IKSolverJacobian, type IKSolverJacobianOptions } from "./jacobian/ik-solver-jacobian.js";
export { JacobianEffector } from "./jacobian/jacobian-effector.js";
export type { JacobianJoint } from "./jacobian/jacobian-joint.js";
export { RigComponent, type RigComponentOptions, type IKTarget } from "./babylon/rig-component.js";
export type { NestedKinds, OptionKind, OptionKinds } from "./babylon/option-check.js";
export { IKUpdateOrder } from "./babylon/scene-updater.js";
export { InspectorSettings } from "./babylon/inspector-settings.js";
export type { InspectorSetting, InspectorHost } from "./babylon/inspector-settings.js";
export type { InspectorSettingsFile } from "./babylon/inspector-settings-file.js";
export {
  IK_SETTINGS_VERSION,
  type IKSettingsObject,
  type IKSettingValue,
  type IKSettingsGroup,
  type IKSettingField,
} from "./babylon/ik-settings.js";
export { ChainIK, CCDIK, FABRIK, FABRIKRoot, type ChainIKOptions, type FABRIKRootOptions } from "./babylon/chain-ik.js";
export {
  IKSolverLimb,
  type IKSolverLimbOptions,
  type LimbBendModifier,
  type LimbSkipReason,
} from "./limb/ik-solver-limb.js";
export { IKSolverAim, type AimBone, type IKSolverAimOptions, type AimSkipReason } from "./aim/ik-solver-aim.js";
export {
  IKSolverLookAt,
  type IKSolverLookAtOptions,
  type LookAtSkipReason,
  defaultSpineWeightCurve,
} from "./aim/ik-solver-look-at.js";
export { LimbIK, type LimbIKOptions } from "./babylon/limb-ik.js";
export { AimIK, type AimIKOptions } from "./babylon/aim-ik.js";
export { LookAtIK, type LookAtBones, type LookAtIKOptions } from "./babylon/look-at-ik.js";
export { PelvisConstraint } from "./limb/pelvis-constraint.js";
export { BipedPelvis, type BipedPelvisOptions } from "./babylon/biped-pelvis.js";
export { BipedIK, BIPED_IK_ORDER, type BipedIKOptions, type BipedIKSolvers } from "./babylon/biped-ik.js";
export { TwistRelaxerSolver, type TwistRestPose } from "./limb/twist-relaxer-solver.js";
export {
  TwistRelaxer,
  type TwistRelaxerOptions,
  type ArmTwistRelaxers,
} from "./babylon/twist-relaxer.js";
export { BoneCollider, type XYZ } from "./babylon/bone-collider.js";
export { BoneColliderSet } from "./babylon/bone-collider-set.js";
export {
  JacobianIK,
  JacobianIKEffector,
  type JacobianIKOptions,
  type JacobianIKEffectorOptions,
  type JacobianIKJoint,
} from "./babylon/jacobian-ik.js";
export { FBBIKColliders, type FBBIKCollidersOptions } from "./babylon/fbbik-colliders.js";
export {
  EffectorHandles,
  type EffectorHandle,
  type EffectorHandleAxes,
  type EffectorHandleKind,
  type EffectorHandlesOptions,
} from "./babylon/effector-handles.js";
export {
  FBBIKHeadEffector,
  HeadBendBone,
  type FBBIKHeadEffectorOptions,
} from "./effectors/head/fbbik-head-effector.js";
export { createTrackerTarget, type TrackerTargetOptions } from "./babylon/tracker-target.js";

// types that appear in the signatures above (so they can be named, and the reference docs can link them)
export type { P3 } from "./math/value.js";
export type { BendSolver } from "./solver/bend-constraint.js";
export { BoneMapStore, BONE_MAP_STRIDE } from "./mapping/bone-map.js";
export { EndRotationMemory } from "./mapping/end-rotation-memory.js";
export type { InteractionNotification } from "./effectors/interaction/interaction-system.js";
export type { OffsetBody } from "./effectors/modifiers/offset-modifier.js";
export { ModifierClock } from "./effectors/modifiers/offset-modifier.js";
export { Scalars } from "./effectors/modifiers/frame.js";
export { HEAD_SETTINGS } from "./effectors/head/head-effector-settings.js";
export type { HeadSettingHolder, HeadSettingName } from "./effectors/head/head-effector-settings.js";
