/**
 * A MikuMikuDance (PMX) skeleton as a converted glTF/VRM carries it, for detection tests: the standard Japanese
 * bone names with the semi-standard helpers (全ての親 → センター → グルーブ → 腰; 上半身 and 下半身 side by side
 * under 腰; shoulder P/C bones, in-line arm and wrist twists, waist cancels, the D deform chain beside the plain
 * legs, full-width ＩＫ chains under the master, 先 tips, ダミー, 両目), 1.6 m tall, facing +Z, left at +X.
 */
import type { RigBoneInfo } from "../../src/mapping/detection/detect-references.js";
import { RigBuilder } from "./synthetic-rigs.js";

/** What {@link mmdRig} leaves out, to test detection without each helper. */
export interface MmdRigOptions {
  /** The D chains (左足D → 左ひざD → 左足首D → 左足先EX). Default true. */
  deform?: boolean;
  /** The ＩＫ chains (左足IK親 → 左足ＩＫ → 左つま先ＩＫ). Default true. */
  ik?: boolean;
  /** The bones whose mesh weights are known (`deforms`: true; every other bone false); unknown by default. */
  weighted?: readonly string[];
  /** The chain from 全ての親 down to 上半身 and 下半身, top first. Default センター, グルーブ, 腰. */
  trunk?: readonly string[];
  /** Renames every bone at the end (e.g. mmd-english's `mmdEnglishName`); the other options name bones in Japanese. */
  rename?: (japanese: string) => string;
}

/** The MMD skeleton (parent-first). */
export function mmdRig(options: MmdRigOptions = {}): RigBoneInfo[] {
  const b = new RigBuilder();
  b.add("全ての親", null, [0, 0, 0]);
  let waist = "全ての親";
  for (const [k, name] of (options.trunk ?? ["センター", "グルーブ", "腰"]).entries()) {
    b.add(name, waist, [0, 0.7 + 0.1 * k, -0.01 * k]);
    waist = name;
  }
  b.add("上半身", waist, [0, 0.95, 0]);
  b.add("上半身2", "上半身", [0, 1.1, 0]);
  b.add("首", "上半身2", [0, 1.32, 0]);
  b.add("頭", "首", [0, 1.4, 0.01]);
  b.add("頭先", "頭", [0, 1.6, 0.01]);
  b.add("両目", "頭", [0, 1.5, 0.08]);
  b.add("下半身", waist, [0, 0.95, 0]);
  for (const [s, x] of [
    ["左", 1],
    ["右", -1],
  ] as const) {
    b.add(`${s}目`, "頭", [0.03 * x, 1.48, 0.07]);
    b.add(`${s}肩P`, "上半身2", [0.03 * x, 1.3, 0]);
    b.add(`${s}肩`, `${s}肩P`, [0.03 * x, 1.3, 0]);
    b.add(`${s}肩C`, `${s}肩`, [0.14 * x, 1.28, -0.01]);
    b.add(`${s}腕`, `${s}肩C`, [0.14 * x, 1.28, -0.01]);
    b.add(`${s}腕捩`, `${s}腕`, [0.26 * x, 1.28, -0.02]);
    for (const k of ["1", "2", "3"]) b.add(`${s}腕捩${k}`, `${s}腕`, [(0.17 + 0.06 * Number(k)) * x, 1.28, -0.02]);
    b.add(`${s}ひじ`, `${s}腕捩`, [0.38 * x, 1.28, -0.04]);
    b.add(`${s}手捩`, `${s}ひじ`, [0.49 * x, 1.28, -0.03]);
    b.add(`${s}手首`, `${s}手捩`, [0.6 * x, 1.28, -0.02]);
    b.add(`${s}ダミー`, `${s}手首`, [0.64 * x, 1.26, -0.02]);
    const fingers = [
      ["親指", ["０", "１", "２"]],
      ["人指", ["１", "２", "３"]],
      ["中指", ["１", "２", "３"]],
      ["薬指", ["１", "２", "３"]],
      ["小指", ["１", "２", "３"]],
    ] as const;
    fingers.forEach(([finger, joints], f) => {
      let p = `${s}手首`;
      for (const [k, j] of [...joints, "先"].entries()) {
        const name = `${s}${finger}${j}`;
        b.add(name, p, [(0.63 + 0.025 * k) * x, 1.28 - (f === 0 ? 0.015 * k : 0), 0.03 - 0.015 * f]);
        p = name;
      }
    });
    b.add(`腰キャンセル${s}`, "下半身", [0.08 * x, 0.88, 0]);
    b.add(`${s}足`, `腰キャンセル${s}`, [0.08 * x, 0.88, 0]);
    b.add(`${s}ひざ`, `${s}足`, [0.08 * x, 0.48, 0.02]);
    b.add(`${s}足首`, `${s}ひざ`, [0.08 * x, 0.08, -0.01]);
    b.add(`${s}つま先`, `${s}足首`, [0.08 * x, 0.0, 0.1]);
    if (options.deform !== false) {
      b.add(`${s}足D`, `腰キャンセル${s}`, [0.08 * x, 0.88, 0]);
      b.add(`${s}ひざD`, `${s}足D`, [0.08 * x, 0.48, 0.02]);
      b.add(`${s}足首D`, `${s}ひざD`, [0.08 * x, 0.08, -0.01]);
      b.add(`${s}足先EX`, `${s}足首D`, [0.08 * x, 0.0, 0.1]);
    }
    if (options.ik !== false) {
      b.add(`${s}足IK親`, "全ての親", [0.08 * x, 0, -0.01]);
      b.add(`${s}足ＩＫ`, `${s}足IK親`, [0.08 * x, 0.08, -0.01]);
      b.add(`${s}つま先ＩＫ`, `${s}足ＩＫ`, [0.08 * x, 0.0, 0.1]);
    }
  }
  const weighted = options.weighted;
  if (weighted !== undefined) for (const bone of b.bones) bone.deforms = weighted.includes(bone.name);
  const rename = options.rename;
  if (rename !== undefined) for (const bone of b.bones) bone.name = rename(bone.name);
  return b.bones;
}
