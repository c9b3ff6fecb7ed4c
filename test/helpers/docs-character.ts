/**
 * The characters the docs/API.md examples run on (test/scenario/docs-examples-run.test.ts): the bones the runs
 * name, by role, with each model's own bone names. UAL (Rigify names, CC0, in the repository) runs everywhere.
 */
import type { ModelName } from "./babylon-scene.js";

/** A side, as the runs name it. */
export type Side = "left" | "right";

/** The bones a run names: the biped references' vocabulary, the spine's three bones and the toes. */
export type BoneRole =
  | "hips"
  | "spine"
  | "spineMid"
  | "chest"
  | "neck"
  | "head"
  | `${Side}${"UpperArm" | "Forearm" | "Hand" | "Thigh" | "Calf" | "Foot" | "Toes"}`;

/** The fingers, thumb first, as the FABRIKRoot example takes them. */
export const FINGERS = ["thumb", "index", "middle", "ring", "pinky"] as const;

/** A character the examples run on. */
export interface DocsCharacter {
  model: ModelName;
  /** The bone name of a role. */
  bone(role: BoneRole): string;
  /** One finger's bone names, from its root (under the hand) to its last joint. */
  finger(side: Side, finger: (typeof FINGERS)[number]): string[];
  /** The eyes' bone names, or null when the model has none (the LookAtIK run adds two under the head). */
  eyes: { left: string; right: string } | null;
}

/** Rigify's deform bones: `DEF-upper_arm.L`; three bones per finger, the thumb's named `thumb.0n`. */
const UAL_BONES: Record<BoneRole, string> = {
  hips: "DEF-hips",
  spine: "DEF-spine.001",
  spineMid: "DEF-spine.002",
  chest: "DEF-spine.003",
  neck: "DEF-neck",
  head: "DEF-head",
  leftUpperArm: "DEF-upper_arm.L",
  leftForearm: "DEF-forearm.L",
  leftHand: "DEF-hand.L",
  leftThigh: "DEF-thigh.L",
  leftCalf: "DEF-shin.L",
  leftFoot: "DEF-foot.L",
  leftToes: "DEF-toe.L",
  rightUpperArm: "DEF-upper_arm.R",
  rightForearm: "DEF-forearm.R",
  rightHand: "DEF-hand.R",
  rightThigh: "DEF-thigh.R",
  rightCalf: "DEF-shin.R",
  rightFoot: "DEF-foot.R",
  rightToes: "DEF-toe.R",
};

/** Quaternius's Universal Animation Library character: no eyes, a T-pose whose limbs are not quite straight. */
export const UAL: DocsCharacter = {
  model: "UAL",
  bone: (role) => UAL_BONES[role],
  finger: (side, finger) => {
    const s = side === "left" ? "L" : "R";
    const stem = finger === "thumb" ? "thumb" : `f_${finger}`;
    return [1, 2, 3].map((k) => `DEF-${stem}.0${k}.${s}`);
  },
  eyes: null,
};
