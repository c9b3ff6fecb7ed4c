/**
 * An MMD-named glTF (the committed Mannequin with MikuMikuDance's Japanese bone names and helpers, its mesh weighted
 * to the D legs: test/helpers/mmd-mannequin.ts) loads through Babylon's glTF loader, FullBodyBipedIK finds MMD's
 * references by name (the pelvis 腰 above both 上半身 and 下半身, the D legs the skin is weighted to, the clavicle
 * 左肩 past its C bone), and a hand reaches its target; the same with MMD's English names (`leg_L` → `knee_L`, `legD_L`).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { BipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { reachLeftHand } from "../helpers/hand-reach.js";
import { MMD_MANNEQUIN_REFERENCES } from "../helpers/mmd-mannequin.js";
import { mannequinAsMmd, mannequinAsMmdEnglish } from "../helpers/mmd-mannequin.js";
import { mmdEnglishName } from "../helpers/mmd-english.js";

const open: LoadedModel[] = [];
const mmdName = (japanese: string, language: "Japanese" | "English"): string =>
  language === "Japanese" ? japanese : mmdEnglishName(japanese);
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** The references by name, the right side's mirrored from the left's. */
function names(r: BipedReferences): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [key, value] of Object.entries(r)) {
    if (key === "root") continue;
    out[key] = Array.isArray(value) ? value.map((b) => b.name) : (value?.name ?? undefined);
  }
  return out;
}

describe("an MMD-named glTF (Mannequin with MMD's bones)", () => {
  const left = MMD_MANNEQUIN_REFERENCES;
  const expected: Record<string, string | string[]> = { ...left };
  for (const [key, value] of Object.entries(left)) {
    if (key.startsWith("left")) expected[key.replace("left", "right")] = (value as string).replace("左", "右");
  }

  const inEnglish = (r: Record<string, string | string[]>): Record<string, string | string[]> =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [k, Array.isArray(v) ? v.map((n) => mmdEnglishName(n)) : mmdEnglishName(v)]),
    );
  const languages = [
    ["Japanese", mannequinAsMmd, expected],
    ["English", mannequinAsMmdEnglish, inEnglish(expected)],
  ] as const;
  for (const [language, glb, references] of languages) {
    for (const rightHanded of [false, true]) {
      const handed = rightHanded ? "right" : "left";
      it(`its references are found by MMD's ${language} names, a hand reaches (${handed}-handed)`, async () => {
        const m = await loadModel("Mannequin", { rightHanded, glb });
        open.push(m);
        expect(m.skeleton.bones.some((b) => b.name === mmdName("左つま先ＩＫ", language))).toBe(true);
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
        expect(names(ik.references)).toEqual(references);
        // the plain legs are passed over because the mesh is weighted to the D ones
        expect(ik.warningsRaised.map((w) => w.message)).toEqual([
          "limbs are named twice (a Rigify export's ORG- and DEF- copies, MMD's legs and D legs?): the copies that " +
            "skin the mesh were taken.",
        ]);
        expect(reachLeftHand(m, ik).miss).toBeLessThan(1e-4);
      });
    }
  }
});
