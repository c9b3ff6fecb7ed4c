/**
 * A real Rigify rig's hierarchy, as Blender's glTF exporter writes it both ways (test/helpers/rigify-export.ts says
 * where each fact comes from), with a mesh weighted to the DEF- bones only, and what `FullBodyBipedIK.create` makes of
 * it with no references:
 * - "Deform Bones Only": every DEF- limb is a root bone of its own, so there is no body to attach them to, and
 *   create() says why;
 * - every bone: the DEF- limbs are taken (the `.001` segments passed over), hanging from the ORG- trunk the IK drives;
 *   the hands and feet reach, the arms follow the IK's chest, but the DEF- spine hangs from `root` and stays
 *   behind, which create() warns of.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { rigifyAllBones, rigifyDeformOnly, rigifyDeforms, rigifyGameRig } from "../helpers/rigify-export.js";
import { Random } from "../helpers/random.js";
import { reachHandTargets } from "../robustness/common.js";
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

const boneNamed = (rig: BuiltRig, name: string): Bone => rig.skeleton.bones.find((b) => b.name === name)!;

/** Distance of `p` from the segment a–b. */
function offSegment(p: Vector3, a: Vector3, b: Vector3): number {
  const ab = b.subtract(a);
  const t = Math.min(1, Math.max(0, Vector3.Dot(p.subtract(a), ab) / ab.lengthSquared()));
  return Vector3.Distance(p, a.add(ab.scale(t)));
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

describe("Rigify exported with every bone (root, ORG-, DEF-, MCH-, controls)", () => {
  for (const scene of SCENES) {
    it(`the DEF- limbs without their .001 segments, the ORG- trunk, and a warning for the DEF- spine (${scene.name})`, () => {
      const rig = load(rigifyAllBones, scene);
      const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
      const r = ik.references;
      const names = (bones: (Bone | null)[]): (string | undefined)[] => bones.map((b) => b?.name);
      expect(names([r.leftUpperArm, r.leftForearm, r.leftHand, r.rightThigh, r.rightCalf, r.rightFoot])).toEqual([
        "DEF-upper_arm.L",
        "DEF-forearm.L",
        "DEF-hand.L",
        "DEF-thigh.R",
        "DEF-shin.R",
        "DEF-foot.R",
      ]);
      expect(names([r.pelvis, ...r.spine, r.head, r.leftClavicle])).toEqual([
        "ORG-spine",
        "ORG-spine.001",
        "ORG-spine.002",
        "ORG-spine.003",
        "ORG-spine.006",
        "ORG-shoulder.L",
      ]);
      const leftBehind = ik.warningsRaised.filter((w) => w.message.includes("do not follow the IK"));
      expect(leftBehind.length).toBe(1);
      expect(leftBehind[0]!.message).toMatch(
        /^7 bones that move the mesh are not below the pelvis ORG-spine and do not follow the IK \(DEF-spine, /,
      );
      expect(leftBehind[0]!.message).toContain("This is a Rigify rig exported with every bone");
    });

    it(`hands and feet reach; the DEF- limbs follow the IK's trunk, the DEF- spine stays behind (${scene.name})`, () => {
      const rig = load(rigifyAllBones, scene);
      const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
      const height = rig.height;
      const at = (name: string): Vector3 => rig.worldPos(boneNamed(rig, name));
      /** Where bone `b` is in bone `frame`'s own frame: what the skin between them sees. */
      const seen = (frame: string, b: string): Vector3 => {
        const p = at(b);
        const world = boneNamed(rig, frame).getTransformNode()!.computeWorldMatrix(true);
        return Vector3.TransformCoordinates(p, Matrix.Invert(world));
      };
      // skin neighbours: each DEF- bone that hangs from the ORG- trunk, beside the IK's trunk bone and the DEF- one
      const neighbours = [
        ["DEF-thigh.L", "ORG-spine", "DEF-spine"],
        ["DEF-shoulder.L", "ORG-spine.003", "DEF-spine.003"],
        ["DEF-breast.R", "ORG-spine.003", "DEF-spine.003"],
      ] as const;
      rig.scene.render();
      const rest = neighbours.map(([b, ikTrunk, defTrunk]) => [seen(ikTrunk, b), seen(defTrunk, b)] as const);
      const s = ik.solver;
      const ends = [
        [s.leftHandEffector, "DEF-hand.L", new Vector3(0.05, -0.1, 0.2)],
        [s.rightHandEffector, "DEF-hand.R", new Vector3(-0.05, 0.1, 0.15)],
        [s.leftFootEffector, "DEF-foot.L", new Vector3(0, 0.1, 0.1)],
        [s.rightFootEffector, "DEF-foot.R", new Vector3(0, 0.02, -0.1)],
      ] as const;
      const targets = ends.map(([e, bone, offset]) => {
        const target = at(bone).add(offset);
        e.position.copyFrom(target);
        e.positionWeight = 1;
        return target;
      });
      s.bodyEffector.positionOffset.y = -0.1;
      rig.scene.render();
      // measured: 2e-6 to 1.1e-5 % of the height
      ends.forEach(([, bone], i) => {
        expect(Vector3.Distance(at(bone), targets[i]!) / height, bone).toBeLessThan(1e-6);
      });
      neighbours.forEach(([b, ikTrunk, defTrunk], i) => {
        // the DEF- limbs, shoulders and breasts hang from the ORG- trunk the IK moves: they stay on it (to float32)
        expect(seen(ikTrunk, b).subtract(rest[i]![0]).length() / height, `${b} on ${ikTrunk}`).toBeLessThan(1e-6);
        // the DEF- trunk, under root, stays behind: the skin between tears (measured 5.7 to 10 cm)
        expect(seen(defTrunk, b).subtract(rest[i]![1]).length(), `${b} on ${defTrunk}`).toBeGreaterThan(0.05);
      });
      // the .001 segments ride along in line, carried by the segment above (no twist shared out)
      for (const [upper, mid, lower] of [
        ["DEF-upper_arm.L", "DEF-upper_arm.L.001", "DEF-forearm.L"],
        ["DEF-forearm.L", "DEF-forearm.L.001", "DEF-hand.L"],
        ["DEF-thigh.R", "DEF-thigh.R.001", "DEF-shin.R"],
        ["DEF-shin.R", "DEF-shin.R.001", "DEF-foot.R"],
      ] as const) {
        expect(offSegment(at(mid), at(upper), at(lower)) / height, mid).toBeLessThan(1e-6);
      }
    });
  }

  it("no mesh read: the DEF- names pick the limbs; with no skin to tear, nothing is warned", () => {
    const rig = load(rigifyAllBones, SCENES[0]!, false);
    const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
    expect(ik.references.leftForearm.name).toBe("DEF-forearm.L");
    expect(ik.warningsRaised.filter((w) => w.message.includes("do not follow the IK"))).toEqual([]);
  });
});

describe("Rigify's deform bones in one hierarchy (a game rig), exported with Deform Bones Only", () => {
  for (const scene of SCENES) {
    it(`an ordinary biped: the DEF- trunk, no warning of bones left behind, the hands reach (${scene.name})`, () => {
      const rig = load(rigifyGameRig, scene);
      const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
      const r = ik.references;
      expect([r.pelvis, ...r.spine, r.head, r.leftClavicle, r.leftForearm, r.rightCalf].map((b) => b?.name)).toEqual([
        "DEF-spine",
        "DEF-spine.001",
        "DEF-spine.002",
        "DEF-spine.003",
        "DEF-spine.006",
        "DEF-shoulder.L",
        "DEF-forearm.L",
        "DEF-shin.R",
      ]);
      expect(ik.warningsRaised.filter((w) => w.message.includes("do not follow the IK"))).toEqual([]);
      const reach = reachHandTargets(ik, () => rig.scene.render(), rig.worldPos, new Random(5), 8);
      expect(reach.finite).toBe(true);
      expect(reach.worst / rig.height).toBeLessThan(1e-6);
    });
  }
});
