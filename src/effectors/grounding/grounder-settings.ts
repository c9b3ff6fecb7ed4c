/**
 * The saved settings of the grounders ({@link GrounderFBBIK}, {@link GrounderIK}): one list of fields for each
 * grounder and one for their {@link Grounding} solver, walked both ways by `serialize` and `applySettings`.
 * @module
 */
import {
  FLAG,
  type IKSettingField,
  type IKSettingsGroup,
  NON_NEGATIVE,
  NUMBER,
  WEIGHT,
  integerField,
  rangeField,
} from "../../babylon/ik-settings.js";
import type { Grounding } from "./grounding.js";

/**
 * The grounder's own settings (not `enabled`, the app's state; not `spine`, a list of effectors the app builds,
 * nor `root` and `height`, the character's).
 */
const GROUNDER_FIELDS: Readonly<Record<string, IKSettingField>> = {
  weight: WEIGHT,
  enableFadeSeconds: NON_NEGATIVE,
  spineBend: NUMBER,
  spineSpeed: NON_NEGATIVE,
};

/**
 * The grounding solver's settings: quality (`GroundingQuality`: Fastest 0, Simple 1, Best 2), lengths in world
 * units as set, speeds, weights. Not `lengthUnit` (the character's size at create) nor the per-frame
 * `lengthScale`, `deltaTime` and `frameTime`.
 */
const GROUNDING_FIELDS: Readonly<Record<string, IKSettingField>> = {
  quality: integerField(0, 2),
  maxStep: NON_NEGATIVE,
  heightOffset: NUMBER,
  footSpeed: NON_NEGATIVE,
  footRadius: NON_NEGATIVE,
  footCenterOffset: NUMBER,
  prediction: NON_NEGATIVE,
  footRotationWeight: WEIGHT,
  footRotationSpeed: NON_NEGATIVE,
  maxFootRotationAngle: rangeField(0, 90),
  rotateSolver: FLAG,
  pelvisSpeed: NON_NEGATIVE,
  pelvisDamper: WEIGHT,
  lowerPelvisWeight: NON_NEGATIVE,
  liftPelvisWeight: NON_NEGATIVE,
  pelvisReachWeight: WEIGHT,
  rootSphereCastRadius: NON_NEGATIVE,
  overstepFallsDown: FLAG,
  sphereProbeRays: integerField(3, 32),
};

/** GrounderIK's own settings: its weight and the root's turn (not `characterRoot`, `root` or `legs`: the rig's). */
const GROUNDER_IK_FIELDS: Readonly<Record<string, IKSettingField>> = {
  weight: WEIGHT,
  enableFadeSeconds: NON_NEGATIVE,
  rootRotationWeight: WEIGHT,
  rootRotationSpeed: NON_NEGATIVE,
  maxRootRotationAngle: rangeField(0, 90),
};

/** Every setting of a GrounderIK, the one list its `serialize` and `applySettings` walk. */
export function grounderIKSettings(grounder: { readonly solver: Grounding }): IKSettingsGroup[] {
  return [
    { key: "", target: grounder, fields: GROUNDER_IK_FIELDS },
    { key: "solver", target: grounder.solver, fields: GROUNDING_FIELDS },
  ];
}

/** Every setting of a GrounderFBBIK, the one list its `serialize` and `applySettings` walk. */
export function grounderSettings(grounder: { readonly solver: Grounding }): IKSettingsGroup[] {
  return [
    { key: "", target: grounder, fields: GROUNDER_FIELDS },
    { key: "solver", target: grounder.solver, fields: GROUNDING_FIELDS },
  ];
}

/**
 * GrounderQuadruped's own settings: its weight, the body's pitch, the limits of the pelvis's and the chest's moves
 * and the head (not `characterRoot`, `root`, `head` or the legs: the rig's).
 */
const GROUNDER_QUADRUPED_FIELDS: Readonly<Record<string, IKSettingField>> = {
  weight: WEIGHT,
  enableFadeSeconds: NON_NEGATIVE,
  rootRotationWeight: WEIGHT,
  minRootRotation: rangeField(-90, 0),
  maxRootRotation: rangeField(0, 90),
  rootRotationSpeed: NON_NEGATIVE,
  maxLegOffset: NON_NEGATIVE,
  maxForeLegOffset: NON_NEGATIVE,
  maintainHeadRotationWeight: WEIGHT,
};

/** Every setting of a GrounderQuadruped (and its two groundings), the one list `serialize` and `applySettings` walk. */
export function grounderQuadrupedSettings(grounder: {
  readonly solver: Grounding;
  readonly forelegSolver: Grounding;
}): IKSettingsGroup[] {
  return [
    { key: "", target: grounder, fields: GROUNDER_QUADRUPED_FIELDS },
    { key: "solver", target: grounder.solver, fields: GROUNDING_FIELDS },
    { key: "forelegSolver", target: grounder.forelegSolver, fields: GROUNDING_FIELDS },
  ];
}
