/**
 * MikuMikuDance's standard Japanese bone names (PMX models, and the glTF/VRM files converted from them), read
 * into the side, role and helper mark that bone-naming's `parseBoneName` gives other conventions. Tables again:
 * - {@link MMD_ROLES}: a name's core (side, digits and `D` taken off) → its role; the core must match whole, so
 *   `左腕捩` (arm twist) is no upper arm and `左足首` (ankle) no thigh;
 * - {@link MMD_HELPERS}: marks anywhere in a name that make a bone a helper (`左足ＩＫ`, `左腕捩1`, `腰キャンセル左`);
 * - {@link MMD_HELPER_SUFFIXES}: one letter after a role's word that makes it a helper (`左肩P`, `左肩C`).
 *
 * Three choices, each because of how MMD rigs are built:
 * - センター, グルーブ and 腰 all read as the pelvis: detection takes the deepest of them above both thighs and
 *   the arms (FinalIK: the spine and the thighs must hang from the pelvis). 下半身 (lower body) reads as nothing:
 *   it is 上半身's (the spine's) sibling, so it cannot be the pelvis; it stays between the pelvis and the thighs.
 * - `D` after a leg bone (`左足D` → `左ひざD` → `左足首D`) marks the deforming copy: MMD weights the mesh to the D
 *   chain and turns it from the plain chain by "append rotation", which glTF cannot carry, so in a converted file
 *   only the D chain moves the skin. Detection takes the copy skin weights name, else the D one.
 * - `先` ends a tip bone (`頭先`, `左人指先`), except in the toe's own names (`左つま先`, `左足先EX`).
 * @module
 */
import type { BoneRole, BoneSide } from "./bone-naming.js";

/** Kana or CJK ideographs: the name is read as MMD's. */
const JAPANESE = /[\u3040-\u30ff\u3400-\u9fff]/;

/** A name's core (after NFKC: full-width Latin letters and digits made ASCII) → the role it names. */
export const MMD_ROLES: Readonly<Record<string, BoneRole>> = {
  センター: "pelvis",
  グルーブ: "pelvis",
  腰: "pelvis",
  上半身: "spine",
  首: "neck",
  頭: "head",
  あご: "jaw",
  肩: "clavicle",
  腕: "upperArm",
  ひじ: "forearm",
  肘: "forearm",
  手首: "hand",
  足: "thigh",
  ひざ: "calf",
  膝: "calf",
  足首: "foot",
  つま先: "toe",
  足先EX: "toe",
  親指: "finger",
  人指: "finger",
  人差指: "finger",
  中指: "finger",
  薬指: "finger",
  小指: "finger",
  目: "eye",
};

/** Marks of helper bones anywhere in a name (after NFKC), with the word messages call them by. */
export const MMD_HELPERS: readonly (readonly [mark: string, word: string])[] = [
  ["IK", "IK"],
  ["捩", "twist"],
  ["捻", "twist"],
  ["キャンセル", "cancel"],
  ["ダミー", "dummy"],
  ["両目", "both eyes"],
];

/**
 * A letter after a role's word that makes the bone a helper: MMD's shoulder P (parent) and C (cancel) bones, in
 * Japanese (`左肩P`) and in MMD's English names (`shoulderP_L`).
 */
export const MMD_HELPER_SUFFIXES: Readonly<Record<string, string>> = { P: "shoulder P", C: "shoulder C" };

/** The letter after a leg bone's name that marks MMD's deforming copy (`左足D`, and `legD_L` in English). */
export const MMD_DEFORM_SUFFIX = "D";

/** What {@link parseMmdName} reads from a name. */
export interface MmdNameInfo {
  side: BoneSide | null;
  role: BoneRole | null;
  excludedBy: string | null;
  /** The name ends with MMD's `D` (the deforming copy of a leg bone). */
  deform: boolean;
}

/** The name is written in MMD's Japanese convention (it holds kana or kanji). */
export const isMmdName = (name: string): boolean => JAPANESE.test(name);

/** Reads side, role, helper mark and the `D` deform mark from an MMD bone name. */
export function parseMmdName(name: string): MmdNameInfo {
  let core = name.normalize("NFKC").trim();
  let side: BoneSide | null = null;
  // 左腕, or at the end as in 腰キャンセル左
  const marker = /^([左右])|([左右])$/.exec(core);
  if (marker !== null) {
    side = (marker[1] ?? marker[2]) === "左" ? "left" : "right";
    core = core.slice(0, marker.index) + core.slice(marker.index + 1);
  }
  const upper = core.toUpperCase();
  const helper = MMD_HELPERS.find(([mark]) => upper.includes(mark));
  if (helper !== undefined) return { side, role: null, excludedBy: helper[1], deform: false };
  core = core.replace(/\d+$/, "");
  const deform = core.length > 1 && core.endsWith(MMD_DEFORM_SUFFIX) && MMD_ROLES[core.slice(0, -1)] !== undefined;
  if (deform) core = core.slice(0, -1);
  const role = MMD_ROLES[core] ?? null;
  if (role !== null) return { side, role, excludedBy: null, deform };
  const suffix = MMD_HELPER_SUFFIXES[core.slice(-1)];
  if (suffix !== undefined && MMD_ROLES[core.slice(0, -1)] !== undefined) {
    return { side, role: null, excludedBy: suffix, deform: false };
  }
  return { side, role: null, excludedBy: core.length > 1 && core.endsWith("先") ? "tip" : null, deform: false };
}
