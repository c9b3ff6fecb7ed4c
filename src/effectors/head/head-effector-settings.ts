/**
 * The options of {@link FBBIKHeadEffector} and the validation of its numeric settings (a non-finite value
 * keeps its last valid one, warned once, as the FBBIK's own settings do).
 * @module
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";

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
  weight?: number;
  positionWeight?: number;
  rotationWeight?: number;
  bodyWeight?: number;
  thighWeight?: number;
  bodyClampWeight?: number;
  headClampWeight?: number;
  bendWeight?: number;
  /** Bones bent toward the target's rotation, with weights. Default: the spine bones, weight 1. */
  bendBones?: readonly (Bone | { bone: Bone; weight?: number })[];
  CCDWeight?: number;
  roll?: number;
  damper?: number;
  /**
   * Bones of the CCD pass, from the root toward the head (spine and neck). Default: none, as in FinalIK: the
   * pass folds the spine toward the target (a head target straight below the head tilts the chest by tens of
   * degrees), which the body's move does more naturally for a standing VR user.
   */
  CCDBones?: readonly Bone[];
  postStretchWeight?: number;
  /** Longest stretch, world units. Default: 5 % of the character's height (the head's height over the feet). */
  maxStretch?: number;
  /** Bones moved by the stretch, from the root toward the head. Default: none (no stretch). */
  stretchBones?: readonly Bone[];
  handsPullBody?: boolean;
  fixHead?: boolean;
  /** Seconds of the ease when tracking is lost and comes back (0: none, FinalIK's). Default 0.3. */
  fadeSeconds?: number;
}

/** The numeric settings, in the order `HeadSettingValues` keeps their last valid values. */
export const HEAD_SETTINGS = [
  "weight",
  "positionWeight",
  "rotationWeight",
  "bodyWeight",
  "thighWeight",
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
