/**
 * Left and right are judged in the frame the scene shows the character in: a .babylon file (left-handed
 * data, no mirroring root) in a left-handed scene and a glTF file (right-handed data under the loader's
 * mirroring `__root__`) in either scene are correct characters, so detection neither warns that their left
 * limbs lie on their right nor swaps the limbs it sides by position. Khronos's RiggedFigure, committed in
 * both formats; its names (arm_joint_L_1…) carry sides but no roles, so it is renamed here to test both
 * the names' and the positions' paths.
 */
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { RigSpec, buildRig } from "../robustness/rig-builder.js";

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
  {
    model: "RiggedFigureBabylon",
    rightHanded: true,
    mirrored: true,
    what: ".babylon in a right-handed scene (its mirror image)",
  },
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

  it.each(CASES)(
    "$what: names with sides are kept; only a mirrored character is reported, naming a real option",
    async (c) => {
      const m = await loadModel(c.model, { rightHanded: c.rightHanded });
      open.push(m);
      rename(m.skeleton, true);
      const { problems, warnings } = FullBodyBipedIK.validate(m.skeleton);
      expect(problems).toEqual([]);
      const sideWarnings = warnings.filter((w) => /lies on the character's right/.test(w));
      if (c.mirrored) {
        expect(sideWarnings.length).toBe(2);
        for (const w of sideWarnings)
          expect(w).toMatch(
            /the character is mirrored in its frame \(right-handed: .*\); the names were kept \(give the limbs in `references` to choose otherwise\)/,
          );
      } else {
        expect(warnings).toEqual([]);
      }
      // create() and validate() have no leftHanded option: no advice may name it
      expect(warnings.join("\n")).not.toMatch(/leftHanded/);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      expect(ik.references.leftHand.name).toBe("LeftHand");
      expect(ik.references.leftThigh.name).toBe("LeftUpLeg");
      ik.dispose();
    },
  );

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

describe("straight limbs without toes: the default bend side in the scene's frame", () => {
  /** The synthetic biped with straight limbs and no toes, as a .babylon exporter writes it: Z mirrored (facing −Z, left at +X). */
  function leftHandedData(): RigSpec {
    const spec = RigSpec.biped({ elbowBend: 0, kneeBend: 0 }).removeSubtree("Toe.L").removeSubtree("Toe.R");
    for (const j of spec.joints) {
      j.position.z = -j.position.z;
      j.rotation = new Quaternion(-j.rotation.x, -j.rotation.y, j.rotation.z, j.rotation.w);
    }
    return spec;
  }

  it.each([
    { what: "left-handed data in a left-handed scene (facing −Z)", mirror: true, rightHanded: false, forward: -1 },
    { what: "right-handed data in a right-handed scene (facing +Z)", mirror: false, rightHanded: true, forward: 1 },
  ])("$what: elbows bend back, knees forward", ({ mirror, rightHanded, forward }) => {
    for (const linked of [true, false]) {
      const spec = mirror
        ? leftHandedData()
        : RigSpec.biped({ elbowBend: 0, kneeBend: 0 }).removeSubtree("Toe.L").removeSubtree("Toe.R");
      const rig = buildRig(spec, { linked, rightHanded });
      open.push({ dispose: () => rig.dispose() } as LoadedModel);
      const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
      rig.scene.render();
      const r = ik.references;
      const chest = rig.worldPos(r.spine[r.spine.length - 1]!);
      // hands 40 % of the way to the chest, feet lifted by 10 % of the height
      for (const [e, hand] of [
        [ik.solver.leftHandEffector, r.leftHand],
        [ik.solver.rightHandEffector, r.rightHand],
      ] as const) {
        e.position.copyFrom(Vector3.Lerp(rig.worldPos(hand), chest, 0.4));
        e.positionWeight = 1;
      }
      for (const [e, foot] of [
        [ik.solver.leftFootEffector, r.leftFoot],
        [ik.solver.rightFootEffector, r.rightFoot],
      ] as const) {
        e.position.copyFrom(rig.worldPos(foot).add(new Vector3(0, 0.1 * rig.height, 0)));
        e.positionWeight = 1;
      }
      rig.scene.render();
      // how far each middle joint lies off its limb line along the character's forward (world ±Z)
      const along = (a: typeof r.leftThigh, b: typeof r.leftThigh, c: typeof r.leftThigh): number => {
        const [pa, pb, pc] = [a, b, c].map((x) => rig.worldPos(x));
        const axis = pc!.subtract(pa!).normalize();
        const ab = pb!.subtract(pa!);
        return (ab.subtract(axis.scale(Vector3.Dot(ab, axis))).z * forward) / rig.height;
      };
      const where = linked ? "linked" : "plain";
      expect(along(r.leftUpperArm, r.leftForearm, r.leftHand), `${where}: left elbow`).toBeLessThan(-0.01);
      expect(along(r.rightUpperArm, r.rightForearm, r.rightHand), `${where}: right elbow`).toBeLessThan(-0.01);
      expect(along(r.leftThigh, r.leftCalf, r.leftFoot), `${where}: left knee`).toBeGreaterThan(0.01);
      expect(along(r.rightThigh, r.rightCalf, r.rightFoot), `${where}: right knee`).toBeGreaterThan(0.01);
      ik.dispose();
    }
  });
});
