/**
 * The options of {@link FBBIKHeadEffector} and the validation of its numeric settings (a non-finite value
 * keeps its last valid one, warned once, as the FBBIK's own settings do).
 * @module
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { linkWeightGroups } from "../../babylon/family-settings.js";
import {
  FLAG,
  type IKSettingField,
  type IKSettingsGroup,
  NON_NEGATIVE,
  WEIGHT,
  rangeField,
} from "../../babylon/ik-settings.js";
import { type OptionKinds, eachOf } from "../../babylon/option-check.js";

/** A spine bone bent toward the head target's rotation, with its share (FinalIK's BendBone). */
export class HeadBendBone {
  /** The bone (one the IK's rig holds: a referenced bone or an ancestor of one). */
  readonly bone: Bone;
  /** [0, 1] Multiplier of the bone's share of the bend. Default 1. */
  weight: number;

  /** Links `bone` with `weight` (default 1). */
  constructor(bone: Bone, weight = 1) {
    this.bone = bone;
    this.weight = weight;
  }
}

/** Options of {@link FBBIKHeadEffector.create}; every number defaults as on the class. */
export interface FBBIKHeadEffectorOptions {
  /** The node the head follows (a VR headset), or null to use `position`/`rotation`. */
  target?: TransformNode | null;
  /** World target position when there is no `target`. Default: the head bone's position at creation. */
  position?: Vector3;
  /** World target rotation when there is no `target`. Default: the head bone's rotation at creation. */
  rotation?: Quaternion;
  /** Start enabled. Default true. */
  enabled?: boolean;
  /** Seconds `enabled` takes to fade out or in (default 0: at once): {@link FBBIKHeadEffector.enableFadeSeconds}. */
  enableFadeSeconds?: number;
  /** [0, 1] Master weight of everything the effector does. Default 1. */
  weight?: number;
  /** [0, 1] How much the head goes to the target's position. Default 1. */
  positionWeight?: number;
  /** [0, 1] How much the head turns to the target's rotation after the solve. Default 1. */
  rotationWeight?: number;
  /** [0, 1] How much the body (root node) follows the head's offset; the rest is a lean. Default 0.8. */
  bodyWeight?: number;
  /** [0, 1] How much the thighs follow the torso's move. Default 0.8. */
  thighWeight?: number;
  /**
   * [0, 170] Degrees: the least angle between thigh and shin a crouch under the headset folds a knee to; lower, the
   * torso is lifted instead (the head stops descending). 0: no limit (FinalIK's: the legs fold flat and flip).
   * Default 30.
   */
  minKneeAngle?: number;
  /** [0, 1] Clamp of the spine bend's rotation (0 free, 0.5 up to 90°, 1 none). Default 0.5. */
  bodyClampWeight?: number;
  /** [0, 1] Clamp of the head's turn after the solve (0 free, 0.5 up to 90°, 1 none). Default 0.5. */
  headClampWeight?: number;
  /** [0, 1] Master weight of the spine bend toward the target's rotation. Default 1. */
  bendWeight?: number;
  /** Bones bent toward the target's rotation, with weights. Default: the spine bones, weight 1. */
  bendBones?: readonly (Bone | { bone: Bone; weight?: number })[];
  /** [0, 1] Master weight of the CCD pass over `CCDBones` (none by default). Default 1. */
  CCDWeight?: number;
  /** [0, 1] 0: CCD bones nearer the head turn less; 1: every bone turns fully. Default 0. */
  roll?: number;
  /** [0, 1000] Degrees: a CCD angle a is damped by (damper − a)/damper (≤ 0: no damping). Default 500. */
  damper?: number;
  /**
   * Bones of the CCD pass, from the root toward the head (spine and neck). Default: none, as in FinalIK: the
   * pass folds the spine toward the target (a head target straight below the head tilts the chest by tens of
   * degrees), which the body's move does more naturally for a standing VR user.
   */
  CCDBones?: readonly Bone[];
  /** [0, 1] How much of the head's remaining error the stretch bones take. Default 1. */
  postStretchWeight?: number;
  /** Longest stretch, world units. Default: 5 % of the character's height (the head's height over the feet). */
  maxStretch?: number;
  /** Bones moved by the stretch, from the root toward the head. Default: none (no stretch). */
  stretchBones?: readonly Bone[];
  /**
   * Out-of-reach hand targets drag the torso and the head toward them (default true, as in FinalIK): a controller
   * held above what the avatar can reach lifts the whole body, pinned feet included. False: the hand stops short
   * and the body stays on its feet and under the headset.
   */
  handsPullBody?: boolean;
  /** Put the head bone on the target's position after the solve, whatever the neck's length. Default false. */
  fixHead?: boolean;
  /** Seconds of the ease when tracking is lost and comes back (0: none, FinalIK's). Default 0.3. */
  fadeSeconds?: number;
}

/** The kinds of a {@link FBBIKHeadEffectorOptions.bendBones} entry given as an object, for the check at create. */
const BEND_BONE_INIT_KINDS: OptionKinds<Exclude<NonNullable<FBBIKHeadEffectorOptions["bendBones"]>[number], Bone>> = {
  bone: "object",
  weight: "number",
};

/** The kinds of {@link FBBIKHeadEffectorOptions}, for the check at create. */
export const HEAD_EFFECTOR_OPTION_KINDS: OptionKinds<FBBIKHeadEffectorOptions> = {
  target: "object|null",
  position: "object",
  rotation: "object",
  enabled: "boolean",
  enableFadeSeconds: "number",
  weight: "number",
  positionWeight: "number",
  rotationWeight: "number",
  bodyWeight: "number",
  thighWeight: "number",
  minKneeAngle: "number",
  bodyClampWeight: "number",
  headClampWeight: "number",
  bendWeight: "number",
  bendBones: eachOf(BEND_BONE_INIT_KINDS),
  CCDWeight: "number",
  roll: "number",
  damper: "number",
  CCDBones: "array",
  postStretchWeight: "number",
  maxStretch: "number",
  stretchBones: "array",
  handsPullBody: "boolean",
  fixHead: "boolean",
  fadeSeconds: "number",
};

/** The numeric settings, in the order `HeadSettingValues` keeps their last valid values. */
export const HEAD_SETTINGS = [
  "weight",
  "positionWeight",
  "rotationWeight",
  "bodyWeight",
  "thighWeight",
  "minKneeAngle",
  "bodyClampWeight",
  "headClampWeight",
  "bendWeight",
  "CCDWeight",
  "roll",
  "damper",
  "postStretchWeight",
  "maxStretch",
  "fadeSeconds",
] as const;

/** The saved settings: the numeric ones with their ranges, the switches and the fade of `enabled`. */
const HEAD_FIELDS: Readonly<
  Record<HeadSettingName | "handsPullBody" | "fixHead" | "enableFadeSeconds", IKSettingField>
> = {
  weight: WEIGHT,
  positionWeight: WEIGHT,
  rotationWeight: WEIGHT,
  bodyWeight: WEIGHT,
  thighWeight: WEIGHT,
  minKneeAngle: rangeField(0, 170),
  bodyClampWeight: WEIGHT,
  headClampWeight: WEIGHT,
  bendWeight: WEIGHT,
  CCDWeight: WEIGHT,
  roll: WEIGHT,
  damper: { kind: "number", max: 1000 },
  postStretchWeight: WEIGHT,
  maxStretch: NON_NEGATIVE,
  fadeSeconds: NON_NEGATIVE,
  handsPullBody: FLAG,
  fixHead: FLAG,
  enableFadeSeconds: NON_NEGATIVE,
};

/**
 * Every setting of a head effector, the one list its `serialize` and `applySettings` walk: its weights, clamps,
 * stretch and fades, then each bend bone's weight by index (`bendBones.<i>.weight`). The bone lists themselves
 * (bend, CCD and stretch bones) are the rig's, chosen at create: not saved.
 */
export function headEffectorSettings(head: { readonly bendBones: readonly HeadBendBone[] }): IKSettingsGroup[] {
  return [{ key: "", target: head, fields: HEAD_FIELDS }, ...linkWeightGroups("bendBones", head.bendBones)];
}

/** A numeric setting's name. */
export type HeadSettingName = (typeof HEAD_SETTINGS)[number];

/** What validation reads and writes: the settings as fields. */
export type HeadSettingHolder = Record<HeadSettingName, number>;

/** The last valid value of each numeric setting. */
export class HeadSettingValues {
  private readonly valid = new Float64Array(HEAD_SETTINGS.length);

  /** Starts from the holder's current values (non-finite ones become 0). */
  constructor(holder: HeadSettingHolder) {
    for (let i = 0; i < HEAD_SETTINGS.length; i++) {
      const v = holder[HEAD_SETTINGS[i]!];
      this.valid[i] = Number.isFinite(v) ? v : 0;
    }
  }

  /**
   * Keeps each finite setting as the last valid one; a non-finite one gets its last valid value back
   * (written into the holder), reported through `warn` once per setting by the caller's warning channel.
   * The holder calls it when one of its settings is not finite (a keyed read of a double field boxes it).
   */
  validate(holder: HeadSettingHolder, warn: (cause: string, message: string) => void): void {
    const valid = this.valid;
    for (let i = 0; i < HEAD_SETTINGS.length; i++) {
      const name = HEAD_SETTINGS[i]!;
      const v = holder[name];
      if (Number.isFinite(v)) valid[i] = v;
      else {
        warn(
          `headEffector:${name}`,
          `FBBIKHeadEffector: ${name} is ${String(v)} (not finite); its last valid value ${valid[i]} is kept.`,
        );
        holder[name] = valid[i]!;
      }
    }
  }
}
