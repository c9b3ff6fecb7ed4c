/**
 * MikuMikuDance's English bone names, as PMX files carry them beside the Japanese ones and converters export them:
 * `左足` → `leg_L` (the thigh), `左ひざ` → `knee_L`, `左足D` → `legD_L`, `左肩P` → `shoulderP_L`, `腰キャンセル左` →
 * `waist cancel_L`, `頭先` → `head tip`. For detection tests: the same rigs as test/helpers/mmd-rig.ts and
 * mmd-mannequin.ts, named in English.
 */

/** Japanese name cores (side, digits and 先 taken off) → English. */
const CORES: Readonly<Record<string, string>> = {
  全ての親: "master",
  センター: "center",
  グルーブ: "groove",
  腰: "waist",
  上半身: "upper body",
  下半身: "lower body",
  首: "neck",
  頭: "head",
  両目: "eyes",
  目: "eye",
  肩P: "shoulderP",
  肩: "shoulder",
  肩C: "shoulderC",
  腕: "arm",
  腕捩: "arm twist",
  ひじ: "elbow",
  手捩: "wrist twist",
  手首: "wrist",
  ダミー: "dummy",
  親指: "thumb",
  人指: "fore",
  中指: "middle",
  薬指: "third",
  小指: "little",
  腰キャンセル: "waist cancel",
  足: "leg",
  ひざ: "knee",
  足首: "ankle",
  つま先: "toe",
  足D: "legD",
  ひざD: "kneeD",
  足首D: "ankleD",
  足先EX: "toeEX",
  足IK親: "leg IKP",
  足IK: "leg IK",
  つま先IK: "toe IK",
};

/**
 * The English name of an MMD bone named in Japanese: the side as `_L`/`_R` at the end, digits kept, `先` as ` tip`.
 * `deformSide` "before" spells the D legs `leg_L_D` (another converter's way) instead of `legD_L`.
 */
export function mmdEnglishName(japanese: string, deformSide: "after" | "before" = "after"): string {
  let core = japanese.normalize("NFKC");
  const side = /^([左右])|([左右])$/.exec(core);
  if (side !== null) core = core.slice(0, side.index) + core.slice(side.index + 1);
  const letter = side === null ? "" : (side[1] ?? side[2]) === "左" ? "L" : "R";
  let english = CORES[core];
  if (english === undefined) {
    const [, stem, digits, tip] = /^(.*?)(\d*)(先?)$/.exec(core)!;
    const word = CORES[stem!];
    if (word === undefined) throw new Error(`no English name for ${japanese}`);
    english = `${word}${digits}${tip === "" ? "" : " tip"}`;
  }
  if (letter === "") return english;
  const deform = /^(leg|knee|ankle)D$/.exec(english);
  return deform !== null && deformSide === "before" ? `${deform[1]}_${letter}_D` : `${english}_${letter}`;
}
