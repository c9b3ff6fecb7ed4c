/**
 * MikuMikuDance's standard Japanese bone names (test/helpers/mmd-rig.ts: a PMX skeleton with the semi-standard
 * helpers): each name read alone, and whole rigs detected by name: the pelvis is the deepest of センター, グルーブ and
 * 腰 (上半身 and 下半身 are siblings under it), the legs are the D chain unless skin weights say the plain one, and
 * shoulder P/C, twist, cancel, ＩＫ, tip and dummy bones are passed over. The same rigs with MMD's English names
 * (`leg_L` → `knee_L` → `ankle_L`, `legD_L`, `shoulderP_L`) are detected alike.
 */
import { describe, expect, it } from "vitest";
import { parseBoneName } from "../../../src/mapping/detection/bone-naming.js";
import { detectBipedReferences } from "../../../src/mapping/detection/detect-references.js";
import { mmdEnglishName } from "../../helpers/mmd-english.js";
import { mmdRig } from "../../helpers/mmd-rig.js";
import { detectedNames } from "../../helpers/synthetic-rigs.js";

/** The references of an MMD rig by name: `legs` "" for the plain chain, "D" for the deform chain. */
function expected(pelvis: string, legs: "" | "D") {
  const side = (s: "左" | "右", l: "left" | "right") => ({
    [`${l}Thigh`]: `${s}足${legs}`,
    [`${l}Calf`]: `${s}ひざ${legs}`,
    [`${l}Foot`]: `${s}足首${legs}`,
    [`${l}UpperArm`]: `${s}腕`,
    [`${l}Forearm`]: `${s}ひじ`,
    [`${l}Hand`]: `${s}手首`,
    [`${l}Clavicle`]: `${s}肩`,
  });
  return {
    pelvis,
    spine: ["上半身", "上半身2"],
    head: "頭",
    ...side("左", "left"),
    ...side("右", "right"),
    eyes: ["左目", "右目"],
  };
}

const twice = (how: string): string =>
  `limbs are named twice (a Rigify export's ORG- and DEF- copies, MMD's legs and D legs?): the copies that ${how} ` +
  "were taken.";

describe("MMD's Japanese bone names", () => {
  it.each([
    ["左足", "left", "thigh", null],
    ["右ひざ", "right", "calf", null],
    ["左足首", "left", "foot", null],
    ["左つま先", "left", "toe", null],
    ["左足先EX", "left", "toe", null],
    ["左足D", "left", "thigh", null],
    ["センター", null, "pelvis", null],
    ["グルーブ", null, "pelvis", null],
    ["腰", null, "pelvis", null],
    ["下半身", null, null, null],
    ["上半身", null, "spine", null],
    ["上半身2", null, "spine", null],
    ["首", null, "neck", null],
    ["頭", null, "head", null],
    ["左肩", "left", "clavicle", null],
    ["左肩P", "left", null, "shoulder P"],
    ["左肩C", "left", null, "shoulder C"],
    ["右腕", "right", "upperArm", null],
    ["左腕捩", "left", null, "twist"],
    ["左腕捩1", "left", null, "twist"],
    ["左ひじ", "left", "forearm", null],
    ["左手捩", "left", null, "twist"],
    ["左手首", "left", "hand", null],
    ["左親指０", "left", "finger", null],
    ["左人指３", "left", "finger", null],
    ["左人指先", "left", null, "tip"],
    ["頭先", null, null, "tip"],
    ["左足ＩＫ", "left", null, "IK"],
    ["左つま先ＩＫ", "left", null, "IK"],
    ["右足IK親", "right", null, "IK"],
    ["腰キャンセル左", "left", null, "cancel"],
    ["左ダミー", "left", null, "dummy"],
    ["両目", null, null, "both eyes"],
    ["左目", "left", "eye", null],
    ["全ての親", null, null, null],
  ])("%s: side %s, role %s, helper %s", (name, side, role, excludedBy) => {
    const info = parseBoneName(name);
    expect([info.side, info.role, info.excludedBy]).toEqual([side, role, excludedBy]);
    expect(info.deformPrefix).toBe(/D$/.test(name));
  });

  it("a PMX rig with every helper: names give it all; the legs are the D chain the mesh is weighted to in MMD", () => {
    const bones = mmdRig();
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(expected("腰", "D"));
    expect(result.method).toBe("names");
    expect(result.warnings).toEqual([twice("are named to deform")]);
  });

  it("skin weights decide between the plain and the D legs", () => {
    const plain = mmdRig({ weighted: ["左足", "左ひざ", "左足首", "右足", "右ひざ", "右足首", "左腕", "右腕"] });
    expect(detectedNames(plain, detectBipedReferences(plain))).toEqual(expected("腰", ""));
    const deform = mmdRig({ weighted: ["左足D", "左ひざD", "左足首D", "右足D", "右ひざD", "右足首D", "左腕", "右腕"] });
    const result = detectBipedReferences(deform);
    expect(detectedNames(deform, result)).toEqual(expected("腰", "D"));
    expect(result.warnings).toEqual([twice("skin the mesh")]);
  });

  it("without D or ＩＫ chains: the plain legs, no warnings", () => {
    const bones = mmdRig({ deform: false, ik: false });
    const result = detectBipedReferences(bones);
    expect(detectedNames(bones, result)).toEqual(expected("腰", ""));
    expect(result.warnings).toEqual([]);
  });

  it.each([
    [["センター", "グルーブ"], "グルーブ"],
    [["センター"], "センター"],
    [["グルーブ", "腰"], "腰"],
  ])("上半身 and 下半身 under %j: the pelvis is %s, the deepest bone both hang from", (trunk, pelvis) => {
    const bones = mmdRig({ trunk, deform: false });
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(expected(pelvis, ""));
  });
});

describe("MMD's English names", () => {
  /** {@link expected}'s references in English. */
  const english = (pelvis: string, legs: "" | "D", rename = (n: string) => mmdEnglishName(n)) => {
    const out: Record<string, string | string[]> = {};
    for (const [key, value] of Object.entries(expected(pelvis, legs)))
      out[key] = Array.isArray(value) ? value.map(rename) : rename(value);
    return out;
  };

  it.each([
    // alone, leg_L reads as Mixamo's calf (`LeftLeg`): the knee below makes it the thigh (detection, below)
    ["legD_L", "left", "calf", null, true],
    ["leg_R_D", "right", "calf", null, true],
    ["kneeD_L", "left", "calf", null, true],
    ["ankleD_R", "right", "foot", null, true],
    ["wristD_L", "left", null, null, false],
    ["shoulderP_L", "left", null, "shoulder P", false],
    ["shoulderC_R", "right", null, "shoulder C", false],
    ["waist cancel_L", "left", null, "cancel", false],
    ["waist", null, "pelvis", null, false],
    ["groove", null, "pelvis", null, false],
    ["arm twist1_L", "left", null, "twist", false],
    ["leg IK_L", "left", null, "ik", false],
    ["head tip", null, null, "tip", false],
  ])("%s: side %s, role %s, helper %s, deform copy %s", (name, side, role, excludedBy, deform) => {
    const info = parseBoneName(name);
    expect([info.side, info.role, info.excludedBy, info.deformPrefix]).toEqual([side, role, excludedBy, deform]);
  });

  it.each([
    ["legD_L", "after"],
    ["leg_L_D", "before"],
  ] as const)("a PMX rig with every helper, D legs spelt %s: the D legs, shoulders past their P/C bones", (_, at) => {
    const rename = (n: string) => mmdEnglishName(n, at);
    const bones = mmdRig({ rename });
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(english("腰", "D", rename));
    expect(result.method).toBe("names");
    expect(result.warnings).toEqual([twice("are named to deform")]);
  });

  it("skin weights decide between the plain and the D legs", () => {
    const rename = (n: string) => mmdEnglishName(n);
    const legs = ["左足", "左ひざ", "左足首", "右足", "右ひざ", "右足首"];
    const plain = mmdRig({ rename, weighted: [...legs, "左腕", "右腕"] });
    expect(detectedNames(plain, detectBipedReferences(plain))).toEqual(english("腰", ""));
    const deform = mmdRig({ rename, weighted: [...legs.map((l) => `${l}D`), "左腕", "右腕"] });
    expect(detectedNames(deform, detectBipedReferences(deform))).toEqual(english("腰", "D"));
  });

  it.each([
    [["センター", "グルーブ"], "グルーブ"],
    [["グルーブ", "腰"], "腰"],
  ])("without D or ＩＫ chains, the trunk %j: the plain legs, the pelvis %s, no warnings", (trunk, pelvis) => {
    const bones = mmdRig({ trunk, deform: false, ik: false, rename: (n) => mmdEnglishName(n) });
    const result = detectBipedReferences(bones);
    expect(detectedNames(bones, result)).toEqual(english(pelvis, ""));
    expect(result.warnings).toEqual([]);
  });
});
