/**
 * Bone-name reading for biped detection, in the spirit of FinalIK's BipedNaming: a bone name is split
 * into a side (left/right), a role (upper arm, calf, …) and exclusion words (twist, end, IK, …).
 *
 * Everything here is a table, so a naming convention is supported by adding a row, not a branch:
 * - {@link SIDE_MARKERS}: how a name says "left" or "right", tried in order;
 * - {@link ROLE_ALIASES}: the words that end a bone's name per role, after the side marker and any
 *   prefix are gone; the longest matching alias wins ("LowerArm" is a forearm, not an "Arm");
 * - {@link EXCLUDED_WORDS}: whole words that make a bone a helper, never a biped bone;
 * - {@link DROPPED_SUFFIXES}: words some tools append after the role word (`lShldrBend`, `leg_L0_calf_jnt`), dropped;
 * - {@link DEFORM_PREFIXES}: first words that mark a bone's deforming copy, preferred over other copies;
 * - {@link SIDED_CENTRAL_ROLES}: the limb bone a central role's word names when a side marker is on it (`Hip_L`).
 *
 * Matching the *end* of the name is what makes prefixes free: `mixamorig:LeftArm`, `Character1_LeftArm`,
 * `Armature_LeftArm`, `Bip01 L UpperArm` and `J_Bip_L_UpperArm` all end with an upper-arm word once the
 * side marker is taken out. Names in Japanese (MikuMikuDance's `左腕`) are read by mmd-naming's tables instead; MMD's
 * English names by these, with its one-letter marks (`legD_L`, `shoulderP_L`) read by mmd-naming's letters.
 * @module
 */

import { MMD_DEFORM_SUFFIX, MMD_HELPER_SUFFIXES, isMmdName, parseMmdName } from "./mmd-naming.js";

/** What a bone can be, as far as its name tells. */
export type BoneRole =
  | "pelvis"
  | "spine"
  | "neck"
  | "head"
  | "clavicle"
  | "upperArm"
  | "forearm"
  | "hand"
  | "thigh"
  | "calf"
  | "foot"
  | "toe"
  | "finger"
  | "eye"
  | "jaw";

/** A side of the body. */
export type BoneSide = "left" | "right";

/**
 * Words that end a bone's name, per role (lower case, separators and trailing digits removed).
 * Covers Mixamo/HumanIK (`LeftUpLeg`, `LeftLeg`, `LeftShoulder`), Unreal (`thigh_l`, `calf_l`,
 * `lowerarm_l`, `ball_l`), Blender/Rigify (`upper_arm.L`, `shin.L`, `spine.001`), KayKit
 * (`upperleg.l`, `wrist.l`), VRM (`J_Bip_L_LowerArm`, `leftUpperLeg`, `upperChest`) and 3ds Max Biped
 * (`Bip01 L Forearm`, `Bip01 L Calf`), DAZ Genesis (`lShldr`, `lShin`, `l_upperarm`), MMD's English names (`waist`,
 * `groove`; its thigh `leg_L` reads as a calf here, detector-context's `thighsNamedLikeCalves` makes it the thigh),
 * Roblox R15 (`LowerTorso` the pelvis, below `UpperTorso`) and Sony mocopi (`l_up_arm` → `l_low_arm`).
 */
export const ROLE_ALIASES: Readonly<Record<BoneRole, readonly string[]>> = {
  pelvis: ["pelvis", "hips", "hip", "waist", "groove", "lowertorso"],
  spine: ["spine", "chest", "upperchest", "torso", "abdomen", "belly"],
  neck: ["neck"],
  head: ["head"],
  clavicle: ["clavicle", "shoulder", "collar", "collarbone"],
  upperArm: ["upperarm", "uparm", "arm", "bicep", "humerus", "shldr"],
  forearm: ["forearm", "lowerarm", "lowarm", "elbow"],
  hand: ["hand", "wrist", "palm"],
  thigh: ["thigh", "upleg", "upperleg", "femur"],
  calf: ["calf", "leg", "lowerleg", "shin", "knee"],
  foot: ["foot", "ankle"],
  toe: ["toe", "toes", "toebase", "ball"],
  finger: [
    "finger",
    "thumb",
    "index",
    "middle",
    "ring",
    "pinky",
    "little",
    "metacarpal",
    "proximal",
    "intermediate",
    "distal",
  ],
  eye: ["eye", "eyeball"],
  jaw: ["jaw"],
};

/** Roles that exist once, on the body's centre line: a side marker on such a name disqualifies it. */
export const CENTRAL_ROLES: ReadonlySet<BoneRole> = new Set<BoneRole>(["pelvis", "spine", "neck", "head", "jaw"]);

/**
 * The limb bone a central role's word names with a side marker on it, where that side's limb hangs below it
 * (detector-context's `limbRootsNamedLikeCentre`): AdvancedSkeleton's `Hip_L` and SMPL's `L_Hip` / `left_hip` are the
 * thighs above `Knee_L`; Rigify's `pelvis.L`, beside the thigh, stays nothing.
 */
export const SIDED_CENTRAL_ROLES: Readonly<Partial<Record<BoneRole, BoneRole>>> = { pelvis: "thigh" };

/**
 * Whole words (after splitting at separators, camelCase humps and digits) that mark a helper bone:
 * twist/roll segments, end markers, IK/FK controls, attachment points, importers' pivot nodes.
 */
export const EXCLUDED_WORDS: ReadonlySet<string> = new Set([
  "twist",
  "roll",
  "nub",
  "end",
  "leaf",
  "tip",
  "dummy",
  "ik",
  "fk",
  "mch",
  "pole",
  "target",
  "mesh",
  "helper",
  "corrective",
  "socket",
  "attach",
  "attachment",
  "weapon",
  "prop",
  // Assimp's FBX pivots above each bone (Hips_$AssimpFbx$_Translation, …_PreRotation, …_Rotation)
  "assimp",
  // MMD's waist cancel between the lower body and a thigh (`waist cancel_L`, `腰キャンセル左`)
  "cancel",
  // AdvancedSkeleton's twist joints in line (`HipPart1_L`, `ShoulderPart2_L`, `RootPart1_M`)
  "part",
]);

/**
 * Words some tools append after a bone's role word, dropped before the role is read: DAZ Genesis 3–8's deforming
 * `lShldrBend` (beside `lShldrTwist`), Auto-Rig Pro's `thigh_stretch.l`, mGear's joints (`arm_L0_upperarm_jnt`),
 * SMPL-X's eyes (`left_eye_smplhf`: the joints SMPL-H and the face model add, smplx's JOINT_NAMES).
 */
export const DROPPED_SUFFIXES: readonly string[] = ["bend", "stretch", "jnt", "smplhf"];

/**
 * First words that mark the deforming copy of a bone where a rig holds two (Rigify's `DEF-upper_arm.L` beside the
 * `ORG-upper_arm.L` its controls drive): the tie-break when no skinned mesh says which copy deforms.
 */
export const DEFORM_PREFIXES: ReadonlySet<string> = new Set(["def"]);

/**
 * Side markers, tried in order; the first that matches decides the side and is removed from the name
 * before the role is read. Each regular expression matches exactly the marker.
 */
export const SIDE_MARKERS: readonly { readonly pattern: RegExp; readonly side: BoneSide | null }[] = [
  // words: LeftArm, leftUpperArm, Character1_LeftUpLeg, HandRight
  { pattern: /left/i, side: "left" },
  { pattern: /right/i, side: "right" },
  // a lone letter between separators or at an end: hand.L, thigh_l, Bip01 L Thigh, J_Bip_L_Hand,
  // L_Hand, upper_arm.L.001, foot-L
  { pattern: /(?<=^|[\s._-])[Ll](?=$|[\s._\-\d])/, side: "left" },
  { pattern: /(?<=^|[\s._-])[Rr](?=$|[\s._\-\d])/, side: "right" },
  // camelCase: LHand, RUpperArm, lHand, rShin (DAZ), HandL, ArmR
  { pattern: /^L(?=[A-Z][a-z])/, side: "left" },
  { pattern: /^R(?=[A-Z][a-z])/, side: "right" },
  { pattern: /^l(?=[A-Z])/, side: "left" },
  { pattern: /^r(?=[A-Z])/, side: "right" },
  { pattern: /(?<=[a-z])L$/, side: "left" },
  { pattern: /(?<=[a-z])R$/, side: "right" },
  // Auto-Rig Pro's centre suffix: spine_01.x, head.x
  { pattern: /(?<=[._-])[xX]$/, side: null },
  // AdvancedSkeleton's centre suffix: Spine1_M, Head_M
  { pattern: /(?<=[._-])M$/, side: null },
];

/** What a bone's name says about it. */
export interface BoneNameInfo {
  /** The name as given. */
  readonly name: string;
  /** Side marker found in the name, or null. */
  readonly side: BoneSide | null;
  /** Role read from the name (null when none, or when the name is excluded or contradicts itself). */
  readonly role: BoneRole | null;
  /** The excluded word that disqualifies the bone (e.g. "twist"), or null. */
  readonly excludedBy: string | null;
  /** A role the name would have had, when a side marker on a central role cancelled it. */
  readonly ignoredRole: BoneRole | null;
  /**
   * The name marks a deforming copy: a first word such as `DEF-` (Rigify), or MMD's `D` after a leg bone's name
   * (`左足D`, the copy MMD weights the mesh to).
   */
  readonly deformPrefix: boolean;
}

/** Splits a name into lower-case words: at separators, camelCase humps and letter/digit boundaries. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([A-Za-z])(\d)/g, "$1 $2")
    .replace(/(\d)([A-Za-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** The role whose alias ends `core` with the longest match, or null. */
function roleOf(core: string): BoneRole | null {
  let best: BoneRole | null = null;
  let bestLength = 0;
  for (const role of Object.keys(ROLE_ALIASES) as BoneRole[]) {
    for (const alias of ROLE_ALIASES[role]) {
      if (alias.length > bestLength && core.endsWith(alias)) {
        best = role;
        bestLength = alias.length;
      }
    }
  }
  return best;
}

/** Roles whose bones MMD copies into a deforming `D` chain. */
const MMD_DEFORM_ROLES: ReadonlySet<BoneRole> = new Set<BoneRole>(["thigh", "calf", "foot", "toe"]);

/**
 * MMD's English names put one capital letter after the role's word where the Japanese ones do (`legD_L` for
 * `左足D`, `shoulderP_L` and `shoulderC_L` for `左肩P` and `左肩C`): what the letter makes of the bone, or null when
 * `rest` (the name without its side marker) does not end so.
 */
function mmdEnglishLetter(rest: string): { role: BoneRole | null; excludedBy: string | null; deform: boolean } | null {
  const words = nameWords(rest);
  const letter = words.length > 1 ? words[words.length - 1]!.toUpperCase() : "";
  if (letter.length !== 1) return null;
  const role = roleOf(words.slice(0, -1).join("").replace(/\d+$/, ""));
  if (role === null) return null;
  if (letter === MMD_DEFORM_SUFFIX && MMD_DEFORM_ROLES.has(role)) return { role, excludedBy: null, deform: true };
  const helper = MMD_HELPER_SUFFIXES[letter];
  return helper !== undefined && role === "clavicle" ? { role: null, excludedBy: helper, deform: false } : null;
}

/** Reads side, role and exclusion from a bone name (MMD's Japanese names by mmd-naming's tables). */
export function parseBoneName(name: string): BoneNameInfo {
  // namespaces (mixamorig:, mixamorig1:) and DAG paths (Armature|Hips) say nothing about the bone
  const base = name.slice(Math.max(name.lastIndexOf(":"), name.lastIndexOf("|")) + 1);
  if (isMmdName(base)) {
    const mmd = parseMmdName(base);
    return described(name, mmd.side, mmd.role, mmd.excludedBy, mmd.deform);
  }
  const baseWords = nameWords(base);
  const excludedBy = baseWords.find((w) => EXCLUDED_WORDS.has(w)) ?? null;
  const deformPrefix = baseWords.length > 1 && DEFORM_PREFIXES.has(baseWords[0]!);

  let side: BoneSide | null = null;
  let rest = base;
  for (const marker of SIDE_MARKERS) {
    const m = marker.pattern.exec(base);
    if (m !== null) {
      side = marker.side;
      rest = `${base.slice(0, m.index)} ${base.slice(m.index + m[0].length)}`;
      break;
    }
  }
  const lettered = excludedBy === null ? mmdEnglishLetter(rest) : null;
  if (lettered !== null) {
    return described(name, side, lettered.role, lettered.excludedBy, deformPrefix || lettered.deform);
  }
  const words = rest
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "")
    .replace(/\d+$/, "");
  const suffix = DROPPED_SUFFIXES.find((w) => words.length > w.length && words.endsWith(w));
  const core = suffix === undefined ? words : words.slice(0, -suffix.length).replace(/\d+$/, "");
  return described(name, side, excludedBy === null ? roleOf(core) : null, excludedBy, deformPrefix);
}

/** The name's info from what was read: a side marker on a central role cancels the role. */
function described(
  name: string,
  side: BoneSide | null,
  read: BoneRole | null,
  excludedBy: string | null,
  deformPrefix: boolean,
): BoneNameInfo {
  const contradicts = read !== null && side !== null && CENTRAL_ROLES.has(read);
  return {
    name,
    side,
    role: contradicts ? null : read,
    excludedBy,
    ignoredRole: contradicts ? read : null,
    deformPrefix,
  };
}

/** Words for a role in messages ("upper arm", "calf"). */
export const ROLE_WORDS: Readonly<Record<BoneRole, string>> = {
  pelvis: "pelvis",
  spine: "spine",
  neck: "neck",
  head: "head",
  clavicle: "clavicle",
  upperArm: "upper arm",
  forearm: "forearm",
  hand: "hand",
  thigh: "thigh",
  calf: "calf",
  foot: "foot",
  toe: "toe",
  finger: "finger",
  eye: "eye",
  jaw: "jaw",
};
