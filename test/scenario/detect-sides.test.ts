/**
 * Left and right are judged in the frame the scene shows the character in: a .babylon file (left-handed
 * data, no mirroring root) in a left-handed scene and a glTF file (right-handed data under the loader's
 * mirroring `__root__`) in either scene are correct characters, so detection neither warns that their left
 * limbs lie on their right nor swaps the limbs it sides by position. Khronos's RiggedFigure, committed in
 * both formats; its names (arm_joint_L_1…) carry sides but no roles, so it is renamed here to test both
 * the names' and the positions' paths.
 */
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/component/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** RiggedFigure's bones by role, on each side. */
const ROLES: Record<string, string> = {
  torso_joint_1: "Hips",
  torso_joint_2: "Spine",
  torso_joint_3: "Chest",
  neck_joint_1: "Neck",
  neck_joint_2: "Head",
  arm_joint_X_1: "UpperArm",
  arm_joint_X_2: "ForeArm",
  arm_joint_X_3: "Hand",
  leg_joint_X_1: "UpLeg",
  leg_joint_X_2: "Leg",
  leg_joint_X_3: "Foot",
  leg_joint_X_5: "ToeBase",
};

/** Renames the bones Mixamo's way ("LeftUpperArm"), or without sides ("UpperArm") when `sided` is false. */
function rename(skeleton: Skeleton, sided: boolean): Map<string, string> {
  const original = new Map<string, string>();
  for (const b of skeleton.bones) {
    const m = /_(L|R)_/.exec(b.name);
    const role = ROLES[b.name.replace(/_(L|R)_/, "_X_")];
    if (role === undefined) continue;
    const name = m !== null && sided ? `${m[1] === "L" ? "Left" : "Right"}${role}` : role;
    original.set(name + (m !== null && !sided ? `:${m[1]}` : ""), b.name);
    b.name = name;
  }
  return original;
}

const CASES = [
  { model: "RiggedFigureBabylon", rightHanded: false, mirrored: false, what: ".babylon in a left-handed scene" },
  { model: "RiggedFigureBabylon", rightHanded: true, mirrored: true, what: ".babylon in a right-handed scene (its mirror image)" },
  { model: "RiggedFigure", rightHanded: false, mirrored: false, what: "glTF in a left-handed scene" },
  { model: "RiggedFigure", rightHanded: true, mirrored: false, what: "glTF in a right-handed scene" },
] as const;

describe("RiggedFigure: sides judged in the scene's frame", () => {
  it.each(CASES)("$what: its own names are found, without warnings", async (c) => {
    const m = await loadModel(c.model, { rightHanded: c.rightHanded });
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    expect(ik.references.leftHand.name).toBe("arm_joint_L_3");
    expect(ik.references.rightFoot.name).toBe("leg_joint_R_3");
    expect(ik.warningsRaised.map((w) => w.message)).toEqual([]);
    ik.dispose();
  });

  it.each(CASES)("$what: names with sides are kept; only a mirrored character is reported, naming a real option", async (c) => {
    const m = await loadModel(c.model, { rightHanded: c.rightHanded });
    open.push(m);
    rename(m.skeleton, true);
    const { problems, warnings } = FullBodyBipedIK.validate(m.skeleton);
    expect(problems).toEqual([]);
    const sideWarnings = warnings.filter((w) => /lies on the character's right/.test(w));
    if (c.mirrored) {
      expect(sideWarnings.length).toBe(2);
      for (const w of sideWarnings) expect(w).toMatch(/the character is mirrored in its frame \(right-handed: .*\); the names were kept \(give the limbs in `references` to choose otherwise\)/);
    } else {
      expect(warnings).toEqual([]);
    }
    // create() and validate() have no leftHanded option: no advice may name it
    expect(warnings.join("\n")).not.toMatch(/leftHanded/);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    expect(ik.references.leftHand.name).toBe("LeftHand");
    expect(ik.references.leftThigh.name).toBe("LeftUpLeg");
    ik.dispose();
  });

  it.each(CASES)("$what: limbs without sides in their names are sided as the scene shows them", async (c) => {
    const m = await loadModel(c.model, { rightHanded: c.rightHanded });
    open.push(m);
    const bonesBefore = new Map(m.skeleton.bones.map((b) => [b, b.name]));
    rename(m.skeleton, false);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const was = (b: { name: string } | null): string | undefined => bonesBefore.get(b as never);
    // a mirrored character's bones named L are on its right as rendered
    const left = c.mirrored ? "R" : "L";
    const right = c.mirrored ? "L" : "R";
    expect(was(ik.references.leftHand)).toBe(`arm_joint_${left}_3`);
    expect(was(ik.references.rightHand)).toBe(`arm_joint_${right}_3`);
    expect(was(ik.references.leftFoot)).toBe(`leg_joint_${left}_3`);
    expect(was(ik.references.rightFoot)).toBe(`leg_joint_${right}_3`);
    ik.dispose();
  });
});
