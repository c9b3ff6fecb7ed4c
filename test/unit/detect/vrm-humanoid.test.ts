/**
 * Reading a VRM humanoid map from glTF JSON, engine-free: VRM 0.x and 1.0, the references it gives, and which
 * skeleton bone a glTF node became (by its skin joint, else by name).
 */
import { describe, expect, it } from "vitest";
import { gltfNodeBones, readVrmHumanoid, vrmReferenceNodes } from "../../../src/mapping/vrm-humanoid.js";
import { FBBIKError } from "../../../src/solver/errors.js";

/** A full humanoid: VRM bone → node index (node i named `n<i>`). */
const BONES = [
  "hips",
  "spine",
  "chest",
  "upperChest",
  "neck",
  "head",
  "leftEye",
  "rightEye",
  "leftShoulder",
  "leftUpperArm",
  "leftLowerArm",
  "leftHand",
  "rightUpperArm",
  "rightLowerArm",
  "rightHand",
  "leftUpperLeg",
  "leftLowerLeg",
  "leftFoot",
  "rightUpperLeg",
  "rightLowerLeg",
  "rightFoot",
  "leftToes",
  "leftThumbProximal",
];
const nodes = BONES.map((_, i) => ({ name: `n${i}` }));

describe("readVrmHumanoid and vrmReferenceNodes", () => {
  it("VRM 0.x: a list of { bone, node }; -1 is a bone left out; the references in order", () => {
    const humanBones = BONES.map((bone, node) => ({ bone, node: bone === "chest" ? -1 : node }));
    const humanoid = readVrmHumanoid({ nodes, extensions: { VRM: { humanoid: { humanBones } } } });
    expect(humanoid.version).toBe("0.x");
    expect(humanoid.bones.has("chest")).toBe(false);
    const refs = vrmReferenceNodes(humanoid);
    expect(refs.spine).toEqual([
      { bone: "spine", node: 1 },
      { bone: "upperChest", node: 3 },
    ]);
    expect(refs.eyes.map((e) => e.node)).toEqual([6, 7]);
    const single = Object.fromEntries(refs.single.map((s) => [s.key, s.node]));
    expect(single).toMatchObject({ pelvis: 0, head: 5, leftClavicle: 8, leftForearm: 10, rightFoot: 20 });
    // no right shoulder in the map: left to FinalIK's rule
    expect(single.rightClavicle).toBeUndefined();
  });

  it("VRM 1.0: { hips: { node } }, read first when a file has both", () => {
    const v1 = Object.fromEntries(BONES.map((bone, node) => [bone, { node }]));
    const humanoid = readVrmHumanoid({
      nodes,
      extensions: { VRMC_vrm: { humanoid: { humanBones: v1 } }, VRM: { humanoid: { humanBones: [] } } },
    });
    expect(humanoid.version).toBe("1.0");
    expect(humanoid.bones.get("leftThumbProximal")).toBe(22);
  });

  it("no humanoid, or one without the hips and a hand: FBBIKErrors", () => {
    expect(() => readVrmHumanoid({ nodes })).toThrow(FBBIKError);
    const v1 = Object.fromEntries(
      BONES.filter((b) => b !== "hips" && b !== "rightHand").map((bone) => [bone, { node: 0 }]),
    );
    const humanoid = readVrmHumanoid({ nodes, extensions: { VRMC_vrm: { humanoid: { humanBones: v1 } } } });
    expect(() => vrmReferenceNodes(humanoid)).toThrow("the VRM 1.0 humanoid does not map hips, rightHand");
  });
});

describe("gltfNodeBones", () => {
  // nodes 0..3: a root, two arms named alike, a helper that is no joint; the skin lists 2, 1, 0
  const json = {
    nodes: [{ name: "root" }, { name: "Arm" }, { name: "Arm" }, {}, { name: "Arm" }],
    skins: [{ joints: [4] }, { joints: [2, 1, 0] }],
  };
  const bones = [
    { name: "root", jointIndex: 2 },
    { name: "Arm", jointIndex: 1 },
    { name: "Arm", jointIndex: 0 },
    { name: "joint3", jointIndex: -1 },
  ];

  it("the skin whose joints name the bones links nodes to bones by joint index, whatever the names", () => {
    const boneOf = gltfNodeBones(json, bones);
    expect([0, 1, 2].map(boneOf)).toEqual([0, 1, 2]);
  });

  it("a node that is no joint is found by name (`joint<i>` for a nameless one); shared or absent names are told", () => {
    const boneOf = gltfNodeBones(json, bones);
    expect(boneOf(3)).toBe(3);
    expect(boneOf(4)).toBe(
      'node 4 ("Arm") shares its name with 2 bones of the skeleton, and is not a joint of its skin to tell them apart',
    );
    const noSkin = gltfNodeBones({ nodes: json.nodes }, bones);
    expect(noSkin(0)).toBe(0);
    expect(gltfNodeBones({ nodes: [...json.nodes, { name: "Leg" }] }, bones)(5)).toBe(
      'node 5 ("Leg") is not a bone of the skeleton',
    );
  });
});
