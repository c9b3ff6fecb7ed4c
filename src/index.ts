/**
 * babylon-fbbik: a FinalIK-style full-body biped IK for Babylon.js.
 *
 * This entry point exposes the engine-neutral solver (component-space nodes, chains, effectors and
 * constraints) and the in-memory pose it runs on. The Babylon component that attaches the solver to a
 * loaded skeleton builds on these.
 * @packageDocumentation
 */
export { Vec3, Quat, vec3, quat, direction } from "./math/index.js";
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

export { IKEffector } from "./effectors/effector.js";
export type { EffectorSolver } from "./effectors/effector.js";

export { HierarchyPose } from "./mapping/hierarchy-pose.js";
export type { HierarchyBone } from "./mapping/hierarchy-pose.js";

export { detectBipedReferences, validateBipedReferences } from "./mapping/detect-references.js";
export type {
  DetectedBipedReferences,
  DetectionOptions,
  DetectionResult,
  ReferenceValidation,
  RigBoneInfo,
} from "./mapping/detect-references.js";
export { parseBoneName } from "./mapping/bone-naming.js";
export type { BoneNameInfo, BoneRole, BoneSide } from "./mapping/bone-naming.js";
