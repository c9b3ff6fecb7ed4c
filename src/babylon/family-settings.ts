/**
 * The saved settings of the IK family (LimbIK, CCDIK, FABRIK, FABRIKRoot, AimIK, LookAtIK, JacobianIK,
 * TwistRelaxer, BipedIK's pelvis): one list of fields per solver, walked both ways by `RigComponent.serialize` and
 * `applySettings`.
 * @module
 */
import type { IKSolverCCD } from "../ccd/ik-solver-ccd.js";
import type { IKSolverFABRIK } from "../fabrik/ik-solver-fabrik.js";
import type { IKSolverJoints } from "../joints/ik-solver-joints.js";
import { LIMB_BEND_MODIFIERS } from "../limb/ik-solver-limb.js";
import {
  FLAG,
  type IKSettingField,
  type IKSettingsGroup,
  NON_NEGATIVE,
  NUMBER,
  WEIGHT,
  choiceField,
  integerField,
  rangeField,
} from "./ik-settings.js";

/** Iterations, any count from 0. */
const ITERATIONS = integerField(0, Infinity);
/** FinalIK's clampSmoothing: how many times the clamp is smoothed, 0 to 2. */
const CLAMP_SMOOTHING = integerField(0, 2);

/** LimbIK's solver: its weights and bend modifier (saved as its name). */
export const LIMB_FIELDS: Readonly<Record<string, IKSettingField>> = {
  ikPositionWeight: WEIGHT,
  ikRotationWeight: WEIGHT,
  bendModifier: choiceField(LIMB_BEND_MODIFIERS),
  bendModifierWeight: WEIGHT,
  bendGoalWeight: WEIGHT,
  maintainRotationWeight: WEIGHT,
};

/** What every joint-chain solver (CCD, FABRIK) has; `tolerance` is the component's, in world units. */
const JOINTS_FIELDS: Readonly<Record<string, IKSettingField>> = {
  ikPositionWeight: WEIGHT,
  ikRotationWeight: WEIGHT,
  maxIterations: ITERATIONS,
  subSteps: integerField(1, Infinity),
  colliderRadius: NON_NEGATIVE,
  limitsAfterColliders: FLAG,
  collideInIterations: FLAG,
  useRotationLimits: FLAG,
};

/** CCDIK's solver: the joints' settings, MMD's angle cap (null: none) and link order, the optimized variant. */
export const CCD_FIELDS: Readonly<Record<string, IKSettingField>> = {
  ...JOINTS_FIELDS,
  maxAngle: { kind: "number", min: 0, unbounded: true },
  linkOrder: choiceField(["tipToRoot", "rootToTip"]),
  optimized: FLAG,
  toleranceRegion: NON_NEGATIVE,
  damping: rangeField(0, 1),
};

/** FABRIK's solver: the joints' settings and its own switches. */
export const FABRIK_FIELDS: Readonly<Record<string, IKSettingField>> = {
  ...JOINTS_FIELDS,
  limitedReach: FLAG,
  hingeRoll: FLAG,
  hingeSwivel: FLAG,
};

/** FABRIKRoot's solver (each chain's pull and FABRIK settings are saved under `chains.<i>`). */
export const FABRIK_ROOT_FIELDS: Readonly<Record<string, IKSettingField>> = {
  ikPositionWeight: WEIGHT,
  rootPin: WEIGHT,
  maxIterations: ITERATIONS,
};

/** AimIK's solver (its per-bone weights under `links.<i>`). */
export const AIM_FIELDS: Readonly<Record<string, IKSettingField>> = {
  ikPositionWeight: WEIGHT,
  poleWeight: WEIGHT,
  tolerance: NON_NEGATIVE,
  maxIterations: ITERATIONS,
  clampWeight: WEIGHT,
  clampSmoothing: CLAMP_SMOOTHING,
  useRotationLimits: FLAG,
};

/** LookAtIK's solver: the weights and clamps of the spine, the head and the eyes. */
export const LOOK_AT_FIELDS: Readonly<Record<string, IKSettingField>> = {
  ikPositionWeight: WEIGHT,
  bodyWeight: WEIGHT,
  headWeight: WEIGHT,
  eyesWeight: WEIGHT,
  clampWeight: WEIGHT,
  clampWeightHead: WEIGHT,
  clampWeightEyes: WEIGHT,
  clampSmoothing: CLAMP_SMOOTHING,
};

/** TwistRelaxer's solver: its weight, the parent–child cross-fade and the offset angle (radians). */
export const TWIST_RELAXER_FIELDS: Readonly<Record<string, IKSettingField>> = {
  weight: WEIGHT,
  parentChildCrossfade: WEIGHT,
  twistAngleOffset: NUMBER,
};

/** BipedIK's pelvis (BipedPelvis): the weights of its target position and rotation (offsets are runtime state). */
export const PELVIS_FIELDS: Readonly<Record<string, IKSettingField>> = {
  positionWeight: WEIGHT,
  rotationWeight: WEIGHT,
};

/** JacobianIK's solver. */
export const JACOBIAN_FIELDS: Readonly<Record<string, IKSettingField>> = {
  ikPositionWeight: WEIGHT,
  maxIterations: ITERATIONS,
  damping: NON_NEGATIVE,
  adaptiveDamping: FLAG,
  maxStep: NON_NEGATIVE,
};

/** A JacobianIK end effector's weights and priority. */
export const JACOBIAN_EFFECTOR_FIELDS: Readonly<Record<string, IKSettingField>> = {
  weight: NON_NEGATIVE,
  priority: NUMBER,
  rotationWeight: NON_NEGATIVE,
};

/** The component's own settings: the fade of `enabled` and FixTransforms (not `enabled`, the app's state). */
export const COMPONENT_FIELDS: Readonly<Record<string, IKSettingField>> = {
  enableFadeSeconds: NON_NEGATIVE,
  fixTransforms: FLAG,
};

/** A chain's per-bone weights, `<key>.<i>.weight` (a fixed-length list: one per bone, root first). */
export function linkWeightGroups(key: string, bones: readonly { weight: number }[]): IKSettingsGroup[] {
  return bones.map((bone, i) => ({ key: `${key}.${i}`, target: bone, fields: { weight: WEIGHT } }));
}

/** A joint-chain solver's settings under `key` and its bones' weights under `<key>.links`. */
export function jointsGroups(key: string, solver: IKSolverCCD | IKSolverFABRIK): IKSettingsGroup[] {
  const fields = "linkOrder" in solver ? CCD_FIELDS : FABRIK_FIELDS;
  return [{ key, target: solver, fields }, ...linkWeightGroups(`${key}.links`, (solver as IKSolverJoints).bones)];
}
