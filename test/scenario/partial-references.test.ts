/**
 * References given for some bones only: what is left out is detected around them. A skeleton exported with two
 * full bipeds' worth of bones (Blender's default glTF export of a Rigify rig: the ORG- bones the controls drive
 * and the DEF- bones that deform, each a whole hierarchy) cannot be told apart by names; given the limbs of the one
 * that deforms, the pelvis, spine and head are found above those limbs, not in the other hierarchy.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { Random } from "../helpers/random.js";
import { characterSize, reachHandTargets } from "../robustness/common.js";
import { type BuiltRig, RigSpec, buildRig } from "../robustness/rig-builder.js";

const open: BuiltRig[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** The synthetic biped twice below one root: every bone as ORG-name and as DEF-name. */
function twoHierarchies(): RigSpec {
  const org = RigSpec.biped().renameAll((n) => (n === "Root" ? n : `ORG-${n}`));
  const def = RigSpec.biped().renameAll((n) => `DEF-${n}`);
  const offset = org.joints.length - 1;
  // DEF's root dropped: its children hang from the shared root
  for (const j of def.joints.slice(1)) org.joints.push({ ...j, parent: j.parent === 0 ? 0 : j.parent + offset });
  return org;
}

/** The twelve limb bones of the DEF hierarchy. */
const DEF_LIMBS = {
  leftThigh: "DEF-Thigh.L",
  leftCalf: "DEF-Calf.L",
  leftFoot: "DEF-Foot.L",
  rightThigh: "DEF-Thigh.R",
  rightCalf: "DEF-Calf.R",
  rightFoot: "DEF-Foot.R",
  leftUpperArm: "DEF-UpperArm.L",
  leftForearm: "DEF-Forearm.L",
  leftHand: "DEF-Hand.L",
  rightUpperArm: "DEF-UpperArm.R",
  rightForearm: "DEF-Forearm.R",
  rightHand: "DEF-Hand.R",
};

describe("references given for the limbs only", () => {
  for (const linked of [true, false]) {
    it(`the trunk is detected above the given limbs, not in another hierarchy (${linked ? "linked" : "plain"})`, () => {
      const rig = buildRig(twoHierarchies(), { linked, withMesh: true });
      open.push(rig);
      // names alone cannot choose between the two
      expect(() => FullBodyBipedIK.create(rig.scene, rig.skeleton)).toThrow(FBBIKError);
      const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton, { references: DEF_LIMBS });
      const r = ik.references;
      expect([r.pelvis, ...r.spine, r.head, r.leftClavicle, r.rightClavicle].map((b) => b?.name)).toEqual([
        "DEF-Hips",
        "DEF-Spine",
        "DEF-Chest",
        "DEF-Head",
        "DEF-Clavicle.L",
        "DEF-Clavicle.R",
      ]);
      // nothing warned of the hierarchy left aside
      expect(ik.warningsRaised.filter((w) => w.message.includes("ORG-"))).toEqual([]);
      const reach = reachHandTargets(ik, () => rig.scene.render(), rig.worldPos, new Random(3), 8);
      expect(reach.finite).toBe(true);
      expect(reach.worst / characterSize(rig.skeleton, rig.worldPos)).toBeLessThan(1e-6);
    });
  }
});
