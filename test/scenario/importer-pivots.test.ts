/**
 * Assimp's FBX import puts three pivot nodes above every bone (`Bone_$AssimpFbx$_Translation` → `_PreRotation` →
 * `_Rotation`, at the bone's place); a glTF written from it keeps them as joints. They are passed over: the spine
 * and clavicles are the rig's own bones, so a shoulder effector moves the shoulder as on the rig without pivots.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { Random } from "../helpers/random.js";
import { characterSize, reachHandTargets } from "../robustness/common.js";
import { type BuiltRig, RigSpec, buildRig } from "../robustness/rig-builder.js";

const open: BuiltRig[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** The synthetic biped with Assimp's three pivots above each bone but the root. */
function withPivots(): RigSpec {
  const spec = RigSpec.biped();
  for (const name of spec.joints.slice(1).map((j) => j.name)) {
    for (const k of ["Translation", "PreRotation", "Rotation"]) spec.insertAbove(name, `${name}_$AssimpFbx$_${k}`, 1);
  }
  return spec;
}

/** How far the left upper arm follows a shoulder effector raised by 4 % of the height (1: all the way). */
function shoulderFollow(rig: BuiltRig, ik: FullBodyBipedIK): number {
  const arm = ik.references.leftUpperArm;
  rig.scene.render();
  const rest = rig.worldPos(arm);
  const lift = 0.04 * rig.height;
  const effector = ik.solver.leftShoulderEffector;
  effector.position.copyFrom(rest.add(new Vector3(0, lift, 0)));
  effector.positionWeight = 1;
  rig.scene.render();
  const moved = rig.worldPos(arm).y - rest.y;
  effector.positionWeight = 0;
  return moved / lift;
}

describe("importer pivot nodes", () => {
  for (const linked of [true, false]) {
    it(`Assimp's $AssimpFbx$ pivots are neither spine nor clavicle bones (${linked ? "linked" : "plain"})`, () => {
      const rig = buildRig(withPivots(), { linked, withMesh: true });
      open.push(rig);
      const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
      const r = ik.references;
      expect([r.pelvis, ...r.spine, r.head, r.leftClavicle, r.rightClavicle].map((b) => b?.name)).toEqual([
        "Hips",
        "Spine",
        "Chest",
        "Head",
        "Clavicle.L",
        "Clavicle.R",
      ]);
      // the pivots' zero length warned nine times
      expect(ik.warningsRaised.filter((w) => w.message.includes("AssimpFbx"))).toEqual([]);
      const reach = reachHandTargets(ik, () => rig.scene.render(), rig.worldPos, new Random(5), 8);
      expect(reach.finite).toBe(true);
      expect(reach.worst / characterSize(rig.skeleton, rig.worldPos)).toBeLessThan(1e-6);

      const plain = buildRig(RigSpec.biped(), { linked, withMesh: true });
      open.push(plain);
      const reference = shoulderFollow(plain, FullBodyBipedIK.create(plain.scene, plain.skeleton));
      expect(shoulderFollow(rig, ik)).toBeCloseTo(reference, 6);
    });
  }
});
