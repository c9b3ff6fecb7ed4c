/**
 * A skeleton holding two full bipeds' worth of bones (Blender's default glTF export of a Rigify rig: the ORG- bones
 * the controls drive and the DEF- bones that deform, each a whole hierarchy). Detection takes the copy whose bones
 * the mesh is skinned to, else the one named DEF-; given the limbs of either, the pelvis, spine and head are found
 * above those limbs, not in the other hierarchy.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { BIPED_LIMB_KEYS } from "../../src/solver/biped-bones.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { Random } from "../helpers/random.js";
import { characterSize, reachHandTargets } from "../robustness/common.js";
import { type BuiltRig, RigSpec, buildRig, skinMeshTo } from "../robustness/rig-builder.js";

const open: BuiltRig[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** The synthetic biped twice below one root: every bone as `first`-name and as `second`-name. */
function twoHierarchies(first = "ORG-", second = "DEF-"): RigSpec {
  const org = RigSpec.biped().renameAll((n) => (n === "Root" ? n : `${first}${n}`));
  const def = RigSpec.biped().renameAll((n) => `${second}${n}`);
  const offset = org.joints.length - 1;
  // DEF's root dropped: its children hang from the shared root
  for (const j of def.joints.slice(1)) org.joints.push({ ...j, parent: j.parent === 0 ? 0 : j.parent + offset });
  return org;
}

/** The twelve limb bones of the hierarchy named with `prefix`. */
const limbsOf = (prefix: string): Record<string, string> => ({
  leftThigh: `${prefix}Thigh.L`,
  leftCalf: `${prefix}Calf.L`,
  leftFoot: `${prefix}Foot.L`,
  rightThigh: `${prefix}Thigh.R`,
  rightCalf: `${prefix}Calf.R`,
  rightFoot: `${prefix}Foot.R`,
  leftUpperArm: `${prefix}UpperArm.L`,
  leftForearm: `${prefix}Forearm.L`,
  leftHand: `${prefix}Hand.L`,
  rightUpperArm: `${prefix}UpperArm.R`,
  rightForearm: `${prefix}Forearm.R`,
  rightHand: `${prefix}Hand.R`,
});

/** The trunk's bone names: pelvis, spine, head, clavicles. */
const trunkNames = (ik: FullBodyBipedIK): (string | undefined)[] => {
  const r = ik.references;
  return [r.pelvis, ...r.spine, r.head, r.leftClavicle, r.rightClavicle].map((b) => b?.name);
};
const trunkOf = (prefix: string): string[] =>
  ["Hips", "Spine", "Chest", "Head", "Clavicle.L", "Clavicle.R"].map((n) => prefix + n);

describe("two copies of the biped in one skeleton", () => {
  for (const linked of [true, false]) {
    const kind = linked ? "linked" : "plain";
    it(`the copy named DEF- is taken when nothing is skinned (${kind})`, () => {
      const rig = buildRig(twoHierarchies(), { linked, withMesh: true });
      open.push(rig);
      const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
      expect(trunkNames(ik)).toEqual(trunkOf("DEF-"));
      expect(ik.references.leftHand.name).toBe("DEF-Hand.L");
      expect(ik.warningsRaised.filter((w) => w.message.includes("named twice")).length).toBe(1);
    });

    it(`the copy the mesh is skinned to is taken, whatever the names (${kind})`, () => {
      const rig = buildRig(twoHierarchies("A-", "B-"), { linked, withMesh: true });
      open.push(rig);
      // names alone cannot choose between the two
      expect(() => FullBodyBipedIK.create(rig.scene, rig.skeleton)).toThrow(FBBIKError);
      skinMeshTo(rig, (b) => b.name.startsWith("B-"));
      const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
      expect(trunkNames(ik)).toEqual(trunkOf("B-"));
      expect(BIPED_LIMB_KEYS.map((k) => ik.references[k].name)).toEqual(BIPED_LIMB_KEYS.map((k) => limbsOf("B-")[k]));
      const reach = reachHandTargets(ik, () => rig.scene.render(), rig.worldPos, new Random(3), 8);
      expect(reach.finite).toBe(true);
      expect(reach.worst / characterSize(rig.skeleton, rig.worldPos)).toBeLessThan(1e-6);
    });

    it(`the trunk is detected above given limbs, not in the other hierarchy (${kind})`, () => {
      const rig = buildRig(twoHierarchies(), { linked, withMesh: true });
      open.push(rig);
      // the ORG- limbs given: detection's DEF- trunk would not lead to them
      const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton, { references: limbsOf("ORG-") });
      expect(trunkNames(ik)).toEqual(trunkOf("ORG-"));
      // nothing warned of the hierarchy left aside
      expect(ik.warningsRaised.filter((w) => w.message.includes("DEF-"))).toEqual([]);
      const reach = reachHandTargets(ik, () => rig.scene.render(), rig.worldPos, new Random(3), 8);
      expect(reach.finite).toBe(true);
      expect(reach.worst / characterSize(rig.skeleton, rig.worldPos)).toBeLessThan(1e-6);
    });
  }
});
