/**
 * The committed Mannequin (KayKit) made into a MikuMikuDance-style glTF, as MMD models converted to glTF/VRM come:
 * MMD's Japanese names, 上半身 and 下半身 side by side under 全ての親 → センター → グルーブ → 腰, waist cancels, a
 * neck, shoulder P/C bones around the clavicles, in-line arm and wrist twists (and 腕捩1–3 leaves), the D leg
 * chains the mesh is weighted to (their joints take the plain legs' weights), full-width ＩＫ chains under the
 * master, 先 tips, ダミー, 両目 and the eyes. Every bone keeps its place: inserted nodes have no rotation. The same
 * model with MMD's English names: {@link mannequinAsMmdEnglish}.
 */
import { editGlbNodes } from "./glb-nodes.js";
import { mmdEnglishName } from "./mmd-english.js";

/** Side letter of the Mannequin's names → MMD's side word and the sign of the side's x. */
const SIDES = [
  ["l", "左", 1],
  ["r", "右", -1],
] as const;

/** The references MMD detection should find (left side; the right mirrors it), by name. */
export const MMD_MANNEQUIN_REFERENCES = {
  pelvis: "腰",
  spine: ["上半身", "上半身2"],
  head: "頭",
  leftThigh: "左足D",
  leftCalf: "左ひざD",
  leftFoot: "左足首D",
  leftUpperArm: "左腕",
  leftForearm: "左ひじ",
  leftHand: "左手首",
  leftClavicle: "左肩",
  eyes: ["左目", "右目"],
};

/** Mannequin.glb's bytes as an MMD-named glTF (`loadModel`'s `glb`). */
export const mannequinAsMmd = (bytes: Uint8Array): Uint8Array =>
  editGlbNodes(bytes, (g) => {
    g.rename({ root: "全ての親", hips: "腰", spine: "上半身", chest: "上半身2", head: "頭" });
    for (const [l, s] of SIDES) {
      g.rename({
        [`upperarm.${l}`]: `${s}腕`,
        [`lowerarm.${l}`]: `${s}ひじ`,
        [`wrist.${l}`]: `${s}手首`,
        [`hand.${l}`]: `${s}中指１`,
        [`upperleg.${l}`]: `${s}足`,
        [`lowerleg.${l}`]: `${s}ひざ`,
        [`foot.${l}`]: `${s}足首`,
        [`toes.${l}`]: `${s}つま先`,
      });
    }
    g.insertAbove("腰", "センター");
    g.insertAbove("腰", "グルーブ");
    g.insertAbove("頭", "首", 0.3);
    g.add("頭先", "頭", [0, 0.3, 0]);
    g.add("両目", "頭", [0, 0.15, 0.1]);
    g.add("下半身", "腰");
    for (const [, s, x] of SIDES) {
      g.add(`${s}目`, "頭", [0.04 * x, 0.15, 0.1]);
      // the clavicle: 肩P on the chest, 肩 from 40 % of the way to the upper arm, 肩C (cancel) at the upper arm
      g.insertAbove(`${s}腕`, `${s}肩P`);
      g.insertAbove(`${s}腕`, `${s}肩`, 0.4);
      g.insertAbove(`${s}腕`, `${s}肩C`, 1);
      g.insertAbove(`${s}ひじ`, `${s}腕捩`, 0.5);
      for (const k of ["1", "2", "3"]) g.add(`${s}腕捩${k}`, `${s}腕`, [0, 0.06 * Number(k), 0]);
      g.insertAbove(`${s}手首`, `${s}手捩`, 0.5);
      g.add(`${s}ダミー`, `${s}手首`, [0, 0.05, 0]);
      g.add(`${s}中指先`, `${s}中指１`, [0, 0.04, 0]);
      g.reparent(`${s}足`, "下半身");
      g.insertAbove(`${s}足`, `腰キャンセル${s}`);
      const legs = [`${s}足`, `${s}ひざ`, `${s}足首`, `${s}つま先`];
      const deform = [`${s}足D`, `${s}ひざD`, `${s}足首D`, `${s}足先EX`];
      g.copyChain(legs, deform, `腰キャンセル${s}`);
      // the mesh is weighted to the D chain, as MMD's is
      legs.forEach((plain, k) => g.swapJoints(plain, deform[k]!));
      // IK targets under the master, at the ankle and the toe (the root's frame is the model's)
      g.add(`${s}足IK親`, "全ての親", [0.17 * x, 0, -0.02]);
      g.add(`${s}足ＩＫ`, `${s}足IK親`, [0, 0.15, 0]);
      g.add(`${s}つま先ＩＫ`, `${s}足ＩＫ`, [0, -0.12, 0.12]);
    }
  });

/** {@link mannequinAsMmd} with MMD's English names (`leg_L` → `knee_L` → `ankle_L`, `legD_L`, `shoulderP_L`). */
export const mannequinAsMmdEnglish = (bytes: Uint8Array): Uint8Array =>
  editGlbNodes(mannequinAsMmd(bytes), (g) => {
    for (const node of g.json.nodes) {
      if (node.name !== undefined && /[\u3040-\u30ff\u3400-\u9fff]/.test(node.name))
        node.name = mmdEnglishName(node.name);
    }
  });
