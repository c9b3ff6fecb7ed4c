/**
 * A real Rigify rig's hierarchy, as Blender's glTF exporter writes it (test/helpers/rigify-export.ts says where each
 * fact comes from), with a mesh weighted to the DEF- bones only, and what `FullBodyBipedIK.create` makes of it with
 * no references:
 * - "Deform Bones Only": every DEF- limb is a root bone of its own, so there is no body to attach them to, and
 *   create() says why;
 */
import { afterEach, describe, expect, it } from "vitest";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { rigifyDeformOnly, rigifyDeforms } from "../helpers/rigify-export.js";
import { type BuiltRig, type Placement, type RigSpec, buildRig, skinMeshTo } from "../robustness/rig-builder.js";

const open: BuiltRig[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** A glTF file in each kind of scene: right-handed, and left-handed under the loader's mirroring `__root__`. */
const SCENES: { name: string; rightHanded: boolean; placement?: Placement }[] = [
  { name: "right-handed scene", rightHanded: true },
  {
    name: "left-handed scene",
    rightHanded: false,
    placement: { rotation: Quaternion.RotationAxis(Vector3.Up(), Math.PI), scaling: new Vector3(1, 1, -1) },
  },
];

/** The rig built as glTF loads it, its mesh weighted to the DEF- bones (one vertex each) unless `skinned` is false. */
function load(spec: () => RigSpec, scene: (typeof SCENES)[number], skinned = true): BuiltRig {
  const rig = buildRig(spec(), { linked: true, rightHanded: scene.rightHanded, placement: scene.placement });
  open.push(rig);
  if (skinned) skinMeshTo(rig, (b) => rigifyDeforms(b.name));
  return rig;
}

describe("Rigify exported with Deform Bones Only", () => {
  for (const scene of SCENES) {
    it(`each DEF- limb is a root bone: create() throws, saying so and why (${scene.name})`, () => {
      const rig = load(rigifyDeformOnly, scene);
      const roots = rig.skeleton.bones.filter((b) => b.getParent() === null).map((b) => b.name);
      expect(roots).toEqual(expect.arrayContaining(["DEF-spine", "DEF-thigh.L", "DEF-upper_arm.R"]));
      let error: unknown;
      try {
        FullBodyBipedIK.create(rig.scene, rig.skeleton);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FBBIKError);
      const [problem] = (error as FBBIKError).problems;
      expect(problem).toContain("they are in separate hierarchies: DEF-thigh.L is a root bone");
      expect(problem).toContain("a Rigify rig exported with only its deform bones?");
    });
  }
});
