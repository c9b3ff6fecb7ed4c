/**
 * The bones a biped solver is built on, as ids into an {@link IKPose} (engine-neutral counterpart of
 * FinalIK's BipedReferences). -1 marks an absent optional bone.
 */
export interface BipedBones {
  /** The character's root: its rotation gives the character's up (pull body) in component space. */
  root: number;
  /** Pelvis (hips). */
  pelvis: number;
  /** Spine bones from the pelvis up (pelvis excluded), 1..n bones. */
  spine: readonly number[];
  /** Head, or -1. */
  head: number;
  /** Left upper leg. */
  leftThigh: number;
  /** Left lower leg. */
  leftCalf: number;
  /** Left foot. */
  leftFoot: number;
  /** Right upper leg. */
  rightThigh: number;
  /** Right lower leg. */
  rightCalf: number;
  /** Right foot. */
  rightFoot: number;
  /** Left upper arm. */
  leftUpperArm: number;
  /** Left forearm. */
  leftForearm: number;
  /** Left hand. */
  leftHand: number;
  /** Right upper arm. */
  rightUpperArm: number;
  /** Right forearm. */
  rightForearm: number;
  /** Right hand. */
  rightHand: number;
}

/** The nine effectors, in FinalIK's order (the solver's effector array uses the same order). */
export enum FullBodyBipedEffector {
  /** The root node (body), carrying both thighs. */
  Body = 0,
  /** Left upper arm. */
  LeftShoulder = 1,
  /** Right upper arm. */
  RightShoulder = 2,
  /** Left thigh. */
  LeftThigh = 3,
  /** Right thigh. */
  RightThigh = 4,
  /** Left hand. */
  LeftHand = 5,
  /** Right hand. */
  RightHand = 6,
  /** Left foot. */
  LeftFoot = 7,
  /** Right foot. */
  RightFoot = 8,
}

/** The four limb chains (solver chain index = value + 1; chain 0 is the body). */
export enum FullBodyBipedChain {
  /** Left arm. */
  LeftArm = 0,
  /** Right arm. */
  RightArm = 1,
  /** Left leg. */
  LeftLeg = 2,
  /** Right leg. */
  RightLeg = 3,
}

/** The twelve limb bone keys of {@link BipedBones} (legs, then arms; first, middle, last bone of each). */
export const BIPED_LIMB_KEYS = [
  "leftThigh",
  "leftCalf",
  "leftFoot",
  "rightThigh",
  "rightCalf",
  "rightFoot",
  "leftUpperArm",
  "leftForearm",
  "leftHand",
  "rightUpperArm",
  "rightForearm",
  "rightHand",
] as const;

/** A limb bone key of {@link BipedBones}. */
export type BipedLimbKey = (typeof BIPED_LIMB_KEYS)[number];

/** The limb bones in chain order: [first, middle, last] for left arm, right arm, left leg, right leg. */
export function limbBones(b: BipedBones): [number, number, number][] {
  return [
    [b.leftUpperArm, b.leftForearm, b.leftHand],
    [b.rightUpperArm, b.rightForearm, b.rightHand],
    [b.leftThigh, b.leftCalf, b.leftFoot],
    [b.rightThigh, b.rightCalf, b.rightFoot],
  ];
}
