import type { FBBIKSolver } from "./fbbik-solver.js";
import {
  FLAG,
  type IKSettingField,
  type IKSettingsGroup,
  NON_NEGATIVE,
  SIGNED_WEIGHT,
  WEIGHT,
  integerField,
} from "./ik-settings.js";

/** The effectors in FinalIK's order, as the keys of their saved settings. */
export const FBBIK_EFFECTOR_KEYS = [
  "body",
  "leftShoulder",
  "rightShoulder",
  "leftThigh",
  "rightThigh",
  "leftHand",
  "rightHand",
  "leftFoot",
  "rightFoot",
] as const;
/** The limb chains (left arm, right arm, left leg, right leg), as the keys of their saved settings. */
export const FBBIK_LIMB_KEYS = ["leftArm", "rightArm", "leftLeg", "rightLeg"] as const;

/** A push or reach force's shaping (`Smoothing`: None 0, Exponential 1, Cubic 2). */
const SMOOTHING = integerField(0, 2);

const SOLVER_FIELDS: Record<string, IKSettingField> = {
  ikPositionWeight: WEIGHT,
  iterations: integerField(0, 10),
  maxIterations: integerField(0, 30),
  iterationTolerance: NON_NEGATIVE,
  preserveBoneLengths: FLAG,
  animatedBendNormal: FLAG,
  spineStiffness: WEIGHT,
  pullBodyVertical: SIGNED_WEIGHT,
  pullBodyHorizontal: SIGNED_WEIGHT,
  fabrikPass: FLAG,
};
const EFFECTOR_FIELDS: Record<string, IKSettingField> = {
  positionWeight: WEIGHT,
  rotationWeight: WEIGHT,
  maintainRelativePositionWeight: WEIGHT,
  effectChildNodes: FLAG,
  fadeSeconds: NON_NEGATIVE,
};
const CHAIN_FIELDS: Record<string, IKSettingField> = {
  pull: WEIGHT,
  reach: WEIGHT,
  push: WEIGHT,
  pushParent: SIGNED_WEIGHT,
  reachSmoothing: SMOOTHING,
  pushSmoothing: SMOOTHING,
};
const BEND_FIELDS: Record<string, IKSettingField> = { weight: WEIGHT, naturalElbowWeight: WEIGHT };
const LIMB_MAPPING_FIELDS: Record<string, IKSettingField> = {
  weight: WEIGHT,
  maintainRotationWeight: WEIGHT,
  updatePlaneRotations: FLAG,
};

/**
 * Every setting of a FullBodyBipedIK, the one list `serialize` and `applySettings` walk: the component's
 * fades and FixTransforms, the solver's parameters, the body chain's pin, each effector's weights and fade, each
 * limb's pull, reach, push and bend constraint, and the mappings' weights (the head's only when the rig has one).
 * Not saved: `enabled` and `autoUpdate` (how the app runs it), targets and positions (the scene's), the pose.
 */
export function fullBodySettings(ik: {
  enableFadeSeconds: number;
  fixTransforms: boolean;
  readonly solver: FBBIKSolver;
}): IKSettingsGroup[] {
  const s = ik.solver;
  const groups: IKSettingsGroup[] = [
    { key: "", target: ik, fields: { enableFadeSeconds: NON_NEGATIVE, fixTransforms: FLAG } },
    { key: "solver", target: s, fields: SOLVER_FIELDS },
    { key: "bodyChain", target: s.bodyChain, fields: { pin: WEIGHT } },
  ];
  FBBIK_EFFECTOR_KEYS.forEach((key, i) => {
    groups.push({ key: `effectors.${key}`, target: s.effectors[i]!, fields: EFFECTOR_FIELDS });
  });
  FBBIK_LIMB_KEYS.forEach((key, i) => {
    const chain = s.limbChains[i]!;
    groups.push({ key: `chains.${key}`, target: chain, fields: CHAIN_FIELDS });
    groups.push({ key: `chains.${key}.bendConstraint`, target: chain.bendConstraint, fields: BEND_FIELDS });
  });
  groups.push({
    key: "mappings.spine",
    target: s.spineMapping,
    fields: { iterations: integerField(1, 3), twistWeight: WEIGHT },
  });
  if (s.headMapping !== null) {
    groups.push({ key: "mappings.head", target: s.headMapping, fields: { maintainRotationWeight: WEIGHT } });
  }
  FBBIK_LIMB_KEYS.forEach((key, i) => {
    groups.push({ key: `mappings.${key}`, target: s.limbMappings[i]!, fields: LIMB_MAPPING_FIELDS });
  });
  return groups;
}
