import { InspectableType } from "@babylonjs/core/Misc/iInspectable.js";
import { FBBIK_EFFECTOR_KEYS, FBBIK_LIMB_KEYS } from "./fbbik-settings.js";
import type { FBBIKSolver } from "./fbbik-solver.js";
import { type InspectorSetting, secondsSetting, weightSetting } from "./inspector-settings.js";

/** "leftShoulder" → "left shoulder": the Inspector's label of a saved settings key. */
const label = (key: string): string => key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
/** The effectors in FinalIK's order, as property-name keys and labels. */
const EFFECTORS = FBBIK_EFFECTOR_KEYS.map((key) => [key, label(key)] as const);
/** The limb chains (left arm, right arm, left leg, right leg), as keys and labels. */
const CHAINS = FBBIK_LIMB_KEYS.map((key) => [key, label(key)] as const);

/**
 * FullBodyBipedIK's main settings for Babylon's Inspector: enabled and its fade, the master weight, the
 * iterations, each effector's position and rotation weight and `fadeSeconds`, each limb chain's pull and reach.
 */
export function fullBodyInspectorSettings(ik: {
  enabled: boolean;
  enableFadeSeconds: number;
  readonly solver: FBBIKSolver;
}): InspectorSetting[] {
  const s = ik.solver;
  const list: InspectorSetting[] = [
    {
      name: "enabled",
      label: "IK enabled",
      type: InspectableType.Checkbox,
      get: () => ik.enabled,
      set: (v) => {
        ik.enabled = Boolean(v);
      },
    },
    secondsSetting(
      "enableFadeSeconds",
      "IK enable fade (s)",
      () => ik.enableFadeSeconds,
      (v) => {
        ik.enableFadeSeconds = v;
      },
    ),
    weightSetting(
      "ikPositionWeight",
      "IK weight",
      () => s.ikPositionWeight,
      (v) => {
        s.ikPositionWeight = v;
      },
    ),
    {
      name: "iterations",
      label: "IK iterations",
      type: InspectableType.Slider,
      min: 0,
      max: 10,
      step: 1,
      get: () => s.iterations,
      set: (v) => {
        s.iterations = Math.round(Number(v));
      },
    },
  ];
  EFFECTORS.forEach(([key, label], i) => {
    const e = s.effectors[i]!;
    list.push(
      weightSetting(
        `${key}PositionWeight`,
        `IK ${label} position`,
        () => e.positionWeight,
        (v) => {
          e.positionWeight = v;
        },
      ),
      weightSetting(
        `${key}RotationWeight`,
        `IK ${label} rotation`,
        () => e.rotationWeight,
        (v) => {
          e.rotationWeight = v;
        },
      ),
      secondsSetting(
        `${key}FadeSeconds`,
        `IK ${label} fade (s)`,
        () => e.fadeSeconds,
        (v) => {
          e.fadeSeconds = v;
        },
      ),
    );
  });
  CHAINS.forEach(([key, label], i) => {
    const c = s.limbChains[i]!;
    list.push(
      weightSetting(
        `${key}Pull`,
        `IK ${label} pull`,
        () => c.pull,
        (v) => {
          c.pull = v;
        },
      ),
      weightSetting(
        `${key}Reach`,
        `IK ${label} reach`,
        () => c.reach,
        (v) => {
          c.reach = v;
        },
      ),
    );
  });
  return list;
}
