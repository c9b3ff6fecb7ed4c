/**
 * Automatic biped reference detection: the exact bones found on real models (Mixamo Xbot and Soldier
 * from the shared developer set; KayKit Mannequin, Quaternius Superhero and RobotExpressive committed in
 * test/assets/models), every supported naming convention on a synthetic humanoid, the topology fallback
 * with both facings, sides from names versus geometry, and the problems reported for duplicated,
 * missing and degenerate bones.
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type DetectedBipedReferences,
  type RigBoneInfo,
  detectBipedReferences,
  validateBipedReferences,
} from "../../../src/mapping/detection/detect-references.js";
import { parseBoneName } from "../../../src/mapping/detection/bone-naming.js";
import { REPO_MODELS, readGltfSkeleton, sharedModelsDir } from "../../helpers/gltf-skeleton.js";
import {
  type HumanoidNames,
  type HumanoidOptions,
  RigBuilder,
  detectedNames,
  expectedNames,
  faceMinusZ,
  humanoid,
  mirrorX,
  referenceNames,
  zUp,
} from "../../helpers/synthetic-rigs.js";
import {
  actorCore,
  advancedSkeleton,
  biped,
  blender,
  blenderDuplicate,
  mGear,
  characterCreatorUnprefixed,
  godotHumanoid,
  meshy,
  mocopi,
  moveOne,
  qualisys,
  robloxR15,
  smpl,
  tripoV2,
  humanIK,
  kayKit,
  lowercase,
  autoRigPro,
  characterCreator,
  daz2,
  daz8,
  daz9,
  makeHuman,
  meaningless,
  mmdEnglish,
  kneeCorrective,
  mixamo,
  rigifyDeform,
  rigifyMetarig,
  sideMarked,
  sketchfab,
  synty,
  unreal,
  xsens,
  vrm0,
  vrm1,
} from "./conventions.js";

const shared = sharedModelsDir();
const SHARED_MISSING = "../shared/assets/models (Mixamo test data, not committed to this repository) is absent";

/** Mixamo naming as in Xbot and Soldier (no eyes in Soldier). */
function mixamoExpected(eyes: boolean): Record<string, string | string[]> {
  const m = (n: string): string => `mixamorig:${n}`;
  return {
    pelvis: m("Hips"),
    spine: [m("Spine"), m("Spine1"), m("Spine2")],
    head: m("Head"),
    leftThigh: m("LeftUpLeg"),
    leftCalf: m("LeftLeg"),
    leftFoot: m("LeftFoot"),
    rightThigh: m("RightUpLeg"),
    rightCalf: m("RightLeg"),
    rightFoot: m("RightFoot"),
    leftUpperArm: m("LeftArm"),
    leftForearm: m("LeftForeArm"),
    leftHand: m("LeftHand"),
    rightUpperArm: m("RightArm"),
    rightForearm: m("RightForeArm"),
    rightHand: m("RightHand"),
    leftClavicle: m("LeftShoulder"),
    rightClavicle: m("RightShoulder"),
    eyes: eyes ? [m("LeftEye"), m("RightEye")] : [],
  };
}

const straightArmWarnings = (): string[] =>
  (["left", "right"] as const).map((s) => {
    const S = s === "left" ? "Left" : "Right";
    return (
      `the ${s} arm mixamorig:${S}Arm → mixamorig:${S}ForeArm → mixamorig:${S}Hand is straight in this pose (bent 0.00°): ` +
      "the solver cannot read which way the elbow bends and will assume it; set a bend goal if it bends the wrong way"
    );
  });

describe("real models", () => {
  const sharedTest = (title: string, file: string, check: (bones: RigBoneInfo[]) => void): void => {
    it(shared ? title : `${title} — SKIPPED: ${SHARED_MISSING}`, (ctx) => {
      if (shared === null) ctx.skip(SHARED_MISSING);
      check(readGltfSkeleton(resolve(shared!, file)));
    });
  };

  sharedTest(
    "Xbot (Mixamo, facing +Z): Hips, Spine..Spine2, the Shoulder bones as clavicles, both eyes",
    "Xbot.glb",
    (bones) => {
      const result = detectBipedReferences(bones);
      expect(result.problems).toEqual([]);
      expect(detectedNames(bones, result)).toEqual(mixamoExpected(true));
      expect(result.method).toBe("names");
      expect(result.warnings).toEqual(straightArmWarnings()); // exact T-pose: elbows at 0°
    },
  );

  sharedTest("Soldier (Mixamo, facing −Z, its Left* joints at −X): the names win", "Soldier.glb", (bones) => {
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(mixamoExpected(false));
    expect(result.method).toBe("names");
    // the left arm really is at −X in the scene, and the feet agree with the names: no mirroring warning
    expect(result.warnings).toEqual(straightArmWarnings());
  });

  it("Mannequin (KayKit, lowercase .l/.r): wrist.l is the hand, no clavicles, spine = spine, chest", () => {
    const bones = readGltfSkeleton(resolve(REPO_MODELS, "Mannequin.glb"));
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual({
      pelvis: "hips",
      spine: ["spine", "chest"],
      head: "head",
      leftThigh: "upperleg.l",
      leftCalf: "lowerleg.l",
      leftFoot: "foot.l",
      rightThigh: "upperleg.r",
      rightCalf: "lowerleg.r",
      rightFoot: "foot.r",
      leftUpperArm: "upperarm.l",
      leftForearm: "lowerarm.l",
      leftHand: "wrist.l",
      rightUpperArm: "upperarm.r",
      rightForearm: "lowerarm.r",
      rightHand: "wrist.r",
      leftClavicle: "-",
      rightClavicle: "-",
      eyes: [],
    });
    expect(result.method).toBe("names");
    expect(result.warnings).toEqual([]);
  });

  it("Superhero_Male_FullBody (Quaternius, Unreal-style): pelvis, spine_01..03, Head, clavicle_l/r", () => {
    const bones = readGltfSkeleton(resolve(REPO_MODELS, "Superhero_Male_FullBody.gltf"));
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual({
      pelvis: "pelvis",
      spine: ["spine_01", "spine_02", "spine_03"],
      head: "Head",
      leftThigh: "thigh_l",
      leftCalf: "calf_l",
      leftFoot: "foot_l",
      rightThigh: "thigh_r",
      rightCalf: "calf_r",
      rightFoot: "foot_r",
      leftUpperArm: "upperarm_l",
      leftForearm: "lowerarm_l",
      leftHand: "hand_l",
      rightUpperArm: "upperarm_r",
      rightForearm: "lowerarm_r",
      rightHand: "hand_r",
      leftClavicle: "clavicle_l",
      rightClavicle: "clavicle_r",
      eyes: [],
    });
    expect(result.method).toBe("names");
    expect(result.warnings).toEqual([]);
  });

  it("RobotExpressive: no references; the feet hang from the root and the hands are three palms, all said exactly", () => {
    const bones = readGltfSkeleton(resolve(REPO_MODELS, "RobotExpressive.glb"));
    const result = detectBipedReferences(bones);
    expect(result.references).toBeNull();
    expect(result.method).toBe("mixed");
    expect(result.problems).toEqual([
      "no left foot found: the left leg UpperLeg.L → LowerLeg.L has no foot below the calf; Foot.L hangs from Bone instead",
      "no right foot found: the right leg UpperLeg.R → LowerLeg.R has no foot below the calf; Foot.R hangs from Bone instead",
      "the left hand is ambiguous: UpperArm.L → LowerArm.L has 3 hand-like bones at the same depth below the forearm: Palm2.L, Palm1.L, Palm3.L (no single hand bone)",
      "the right hand is ambiguous: UpperArm.R → LowerArm.R has 3 hand-like bones at the same depth below the forearm: Palm2.R, Palm1.R, Palm3.R (no single hand bone)",
      "the hierarchy's shape does not give the missing limbs (left leg, right leg, left arm, right arm) either: no bone has two leg chains of at least 3 bones " +
        "running down and a spine with two arm chains of at least 3 bones reaching to opposite sides",
    ]);
    expect(result.warnings).toEqual([
      "no bone named like a pelvis is above both thighs and the arms (considered: Hips); the pelvis is their common ancestor Body.",
    ]);
    // what was found is kept for a user to complete by hand
    expect(referenceNames(bones, result.partial)).toEqual({
      pelvis: "Body",
      spine: ["Hips", "Abdomen", "Torso"],
      head: "Head",
      leftThigh: "UpperLeg.L",
      leftCalf: "LowerLeg.L",
      leftFoot: "-",
      rightThigh: "UpperLeg.R",
      rightCalf: "LowerLeg.R",
      rightFoot: "-",
      leftUpperArm: "UpperArm.L",
      leftForearm: "LowerArm.L",
      leftHand: "-",
      rightUpperArm: "UpperArm.R",
      rightForearm: "LowerArm.R",
      rightHand: "-",
      leftClavicle: "Shoulder.L",
      rightClavicle: "Shoulder.R",
      eyes: [],
    });
  });

  /** The model with every bone renamed Bone_<index>: only the hierarchy and positions are left. */
  const stripped = (bones: readonly RigBoneInfo[]): RigBoneInfo[] => bones.map((b, i) => ({ ...b, name: `Bone_${i}` }));
  const strippedCase = (file: string, dir: string | null): void => {
    const title = `${file} with every name replaced by Bone_<index>: the hierarchy alone finds the same bones (eyes need names)`;
    it(dir ? title : `${title} — SKIPPED: ${SHARED_MISSING}`, (ctx) => {
      if (dir === null) ctx.skip(SHARED_MISSING);
      const bones = readGltfSkeleton(resolve(dir!, file));
      const byNames = detectBipedReferences(bones).references!;
      const result = detectBipedReferences(stripped(bones));
      expect(result.problems).toEqual([]);
      expect(result.method).toBe("topology");
      expect(result.references).toEqual({ ...byNames, eyes: [] });
    });
  };
  strippedCase("Xbot.glb", shared);
  strippedCase("Soldier.glb", shared); // facing −Z: the sides come from its toes
  strippedCase("Mannequin.glb", REPO_MODELS);
  strippedCase("Superhero_Male_FullBody.gltf", REPO_MODELS);

  it("the glTF reader lists the joints parent-first in the root joint's parent frame", () => {
    const bones = readGltfSkeleton(resolve(REPO_MODELS, "Superhero_Male_FullBody.gltf"));
    expect(bones).toHaveLength(65);
    bones.forEach((b, i) => expect(b.parent).toBeLessThan(i));
    const at = (name: string): RigBoneInfo => bones.find((b) => b.name === name)!;
    expect(at("root").parent).toBe(-1);
    expect(at("pelvis").position.y).toBeCloseTo(0.949, 3);
    expect(at("hand_l").position.x).toBeCloseTo(0.706, 3);
    expect(at("ball_l").position.z).toBeCloseTo(0.055, 3);
  });
});

/** The warning for a pelvis no name says, found as the limbs' common ancestor (a bone named root). */
const ROOT_PELVIS = (name: string): string[] => [
  `no bone named like a pelvis is above both thighs and the arms (considered: (none)); the pelvis is their common ` +
    `ancestor ${name}.`,
];

/** `names` without clavicles, neck, toes or eyes. */
function noShouldersNeckToes(names: HumanoidNames): HumanoidNames {
  return {
    ...names,
    neck: undefined,
    side: (s) => ({ ...names.side(s), clavicle: undefined, toe: undefined, toeEnd: undefined, eye: undefined }),
  };
}

/** Mixamo-style `names` with a metacarpal before each finger and a weapon bone on the hand (sorted after the fingers). */
function withMetacarpalsAndProp(names: HumanoidNames): HumanoidNames {
  return {
    ...names,
    side: (s) => {
      const n = names.side(s);
      const meta = (chain: string[]): string[] => [chain[0]!.replace(/1$/, "0"), ...chain];
      return {
        ...n,
        fingers: [...(n.fingers ?? []).map(meta), [`${n.hand}Weapon`, `${n.hand}WeaponTip`, `${n.hand}WeaponEnd`]],
      };
    },
  };
}

describe("naming conventions", () => {
  const cases: [string, HumanoidNames, HumanoidOptions?, string[]?][] = [
    ["Mixamo (mixamorig:)", mixamo()],
    ["Mixamo (mixamorig1:)", mixamo("mixamorig1:")],
    ["Mixamo without a prefix", mixamo("")],
    ["Mixamo with an Armature_ prefix", mixamo("Armature_")],
    ["HumanIK (Character1_, roll bones in line)", humanIK(), { inlineTwist: true }],
    ["HumanIK (Character1_, roll bones as leaves)", humanIK()],
    ["Unreal mannequin (twist bones)", unreal()],
    ["Unreal mannequin, Armature_ prefix", unreal("Armature_")],
    ["Blender Title.L", blender(".")],
    ["Blender Title_L", blender("_")],
    ["Blender Title-L", blender("-")],
    ["Blender lowercase upperarm.l", lowercase(".")],
    ["Blender lowercase upperarm_l", lowercase("_")],
    ["KayKit (wrist.l → hand.l)", kayKit()],
    ["VRM 0.x J_Bip_*", vrm0()],
    ["VRM 1.0 camelCase (leftUpperArm)", vrm1(false)],
    ["Unity/VRM PascalCase (LeftUpperArm)", vrm1(true)],
    [
      "3ds Max Biped Bip01 (clavicles on the neck, thighs on the spine)",
      biped(),
      { armsFrom: "neck", thighsFrom: "spine" },
    ],
    ["3ds Max Biped Bip001 (thighs on the pelvis)", biped("Bip001"), { armsFrom: "neck" }],
    ["DAZ Genesis 8 (lShldrBend, Twist bones in line, hip → pelvis → thighs)", daz8(), { inlineTwist: true }],
    ["DAZ Genesis 2 (lShldr, lForeArm, abdomen2)", daz2()],
    ["DAZ Genesis 9 (l_upperarm, l_shin)", daz9()],
    ["Character Creator (CC_Base_L_Upperarm)", characterCreator()],
    ["MakeHuman (upperarm01.L → upperarm02.L in line, wrist.L)", makeHuman(), { inlineTwist: true }],
    ["Sketchfab re-export of Mixamo (mixamorig:LeftArm_08)", sketchfab(mixamo())],
    ["Sketchfab re-export of Unreal (upperarm_l_12)", sketchfab(unreal())],
    ["Synty (Clavicle_L → Shoulder_L → Elbow_L: the Shoulder is the upper arm)", synty()],
    ["Xsens MVN (spine L5, L3, T12, T8)", xsens()],
    ["side prefix L_/R_", sideMarked((b, s) => `${s}_${b}`)],
    ["side prefix l_/r_ lowercase", sideMarked((b, s) => `${s.toLowerCase()}_${b.toLowerCase()}`)],
    ["side suffix ' L' (space)", sideMarked((b, s) => `${b} ${s}`)],
    ["side camel prefix LUpperArm", sideMarked((b, s) => `${s}${b}`)],
    ["side camel suffix UpperArmL", sideMarked((b, s) => `${b}${s}`)],
    ["side word prefix Left_", sideMarked((b, s) => `${s === "L" ? "Left" : "Right"}_${b}`)],
    ["side word suffix _Right", sideMarked((b, s) => `${b}_${s === "L" ? "Left" : "Right"}`)],
    ["side infix _L_ with a prefix", sideMarked((b, s) => `Rig_${s}_${b}`)],
    ["MMD English (LeftLeg → LeftKnee → LeftAnkle: the thigh named like Mixamo's calf)", mmdEnglish()],
    ["MMD English in Blender (Leg.L → Knee.L → Ankle.L)", mmdEnglish(true)],
    ["Thigh_L → Leg_L with a Knee_L corrective leaf: Leg_L stays the calf", kneeCorrective()],
    ["Mixamo through three.js (mixamorigLeftArm: the colon dropped)", mixamo("mixamorig")],
    ["Mixamo through Blender (mixamorig_LeftArm)", mixamo("mixamorig_")],
    ["Mixamo joined into a Blender armature holding it (mixamorig:LeftArm.001)", blenderDuplicate(mixamo())],
    ["Mixamo without clavicles, neck, toes or eyes", noShouldersNeckToes(mixamo())],
    ["Mixamo with five spine bones", { ...mixamo(), spine: [0, 1, 2, 3, 4].map((i) => `Spine${i || ""}`) }],
    ["Mixamo with metacarpals (LeftHandIndex0) and a weapon bone on the hand", withMetacarpalsAndProp(mixamo())],
    ["Roblox R15 (Root → HumanoidRootNode → LowerTorso, LeftUpperArm → LeftLowerArm)", robloxR15()],
    ["Godot SkeletonProfileHumanoid (Root, LeftUpperArm, LeftThumbMetacarpal, LeftToes)", godotHumanoid()],
    ["Meshy (Hips → Spine02 → Spine01 → Spine → neck)", meshy()],
    ["Character Creator 4 unprefixed (Hip → Pelvis → L_Thigh; Tripo v1.0)", characterCreatorUnprefixed()],
    ["ActorCore / iClone (RL_BoneRoot → CC_Base_Hip)", actorCore()],
    ["Sony mocopi (l_up_arm → l_low_arm → l_hand, torso_1…7)", mocopi(), undefined, ROOT_PELVIS("root")],
    ["SMPL (L_Hip → L_Knee → L_Ankle, L_Collar → L_Shoulder → L_Elbow → L_Wrist)", smpl(false)],
    ["SMPL-X (left_hip → left_knee, left_collar → left_shoulder)", smpl(true)],
    ["Move.ai Move One (palm_01_L metacarpals named like hands, heel_02_L)", moveOne()],
    ["Qualisys (LeftForeArmRoll in line, LeftInHandIndex)", qualisys(), { inlineTwist: true }],
  ];

  it.each(cases)("%s: every reference by name", (_title, names, options, warnings = []) => {
    const bones = humanoid(names, options);
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(expectedNames(names, options));
    expect(result.method).toBe(warnings.length === 0 ? "names" : "mixed");
    expect(result.warnings).toEqual(warnings);
  });

  it("AdvancedSkeleton: Hip_L is the thigh, Shoulder_L the upper arm below Scapula_L, Head_M the head; Part joints passed over", () => {
    const names = advancedSkeleton();
    const options = { inlineTwist: true };
    const bones = humanoid(names, options);
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    // the spine's Part joints are twist joints as the limbs' are: the spine bones around them carry them
    expect(detectedNames(bones, result)).toEqual({ ...expectedNames(names, options), spine: ["Spine1_M", "Chest_M"] });
    expect(result.warnings).toEqual(ROOT_PELVIS("Root_M"));
  });

  it("mGear (arm_L0_upperarm_jnt): by names, the head neck_C0_head_jnt, not the jaw ending its single-child chain", () => {
    const names = mGear();
    const b = new RigBuilder();
    b.bones.push(...humanoid(names));
    // the face joints below the head, and Unreal-style IK joints on the root (Epic's mGear template)
    b.add("headBendNose_C0_0_jnt", "neck_C0_head_jnt", [0, 1.66, 0.1]);
    b.add("headBendJaw_C0_0_jnt", "headBendNose_C0_0_jnt", [0, 1.62, 0.05]);
    b.add("jaw_C0_0_jnt", "headBendJaw_C0_0_jnt", [0, 1.6, 0.09]);
    b.add("ik_foot_root_C0_0_jnt", "root_C0_0_jnt", [0, 0, 0]).add(
      "ik_foot_L0_0_jnt",
      "ik_foot_root_C0_0_jnt",
      [0.09, 0.08, 0],
    );
    b.add("ik_hand_root_C0_0_jnt", "root_C0_0_jnt", [0, 0, 0]).add(
      "ik_hand_R0_0_jnt",
      "ik_hand_root_C0_0_jnt",
      [-0.72, 1.44, -0.02],
    );
    const result = detectBipedReferences(b.bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(b.bones, result)).toEqual(expectedNames(names));
    expect(result.method).toBe("names");
    expect(result.warnings).toEqual([]);
  });

  it("SMPL-X: the eyes left_eye_smplhf / right_eye_smplhf are the eyes, the jaw beside them is not the head", () => {
    const names = smpl(true);
    const b = new RigBuilder();
    b.bones.push(...humanoid(names));
    // SMPL-X's jaw hangs from the head beside the eyes (its kinematic tree)
    b.add("jaw", "head", [0, 1.58, 0.06]);
    const result = detectBipedReferences(b.bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(b.bones, result)).toEqual(expectedNames(names));
    expect(detectedNames(b.bones, result).eyes).toEqual(["left_eye_smplhf", "right_eye_smplhf"]);
    expect(parseBoneName("left_eye_smplhf")).toMatchObject({ side: "left", role: "eye" });
  });

  it.each([
    [0, "pelvis"],
    [1, "pelvis"],
    [0, "spine"],
    [1, "spine"],
  ] as const)(
    "Tripo v2 (legs in limb row %s, thighs on the %s): limbs by shape, the head tripo::Head_1 above the neck Head_0",
    (row, thighsFrom) => {
      const names = tripoV2(row);
      const options = { thighsFrom };
      const bones = humanoid(names, options);
      const result = detectBipedReferences(bones);
      expect(result.problems).toEqual([]);
      const expected = expectedNames(names, options);
      // the thighs on Spine_0 make it the pelvis, the spine above it
      if (thighsFrom === "spine") Object.assign(expected, { pelvis: names.spine[0], spine: names.spine.slice(1) });
      expect(detectedNames(bones, result)).toEqual(expected);
      expect(result.method).toBe("topology");
      expect(result.warnings).toEqual([]);
    },
  );

  it("a head bone numbered in line is followed only from a numbered head: head → head.001 keeps head", () => {
    const names = mixamo("");
    const b = new RigBuilder();
    b.bones.push(...humanoid({ ...names, head: "head" }));
    b.add("head.001", "head", [0, 1.75, 0.01]);
    const result = detectBipedReferences(b.bones);
    expect(detectedNames(b.bones, result).head).toBe("head");
  });

  it("Roblox R6 (one bone per limb: Left Arm, Left Leg) is refused, naming the one-bone limbs", () => {
    const b = new RigBuilder();
    b.add("HumanoidRootPart", null, [0, 1, 0]).add("Torso", "HumanoidRootPart", [0, 1, 0]);
    b.add("Head", "Torso", [0, 1.5, 0]);
    for (const [s, x] of [
      ["Left", 0.2],
      ["Right", -0.2],
    ] as const) {
      b.add(`${s} Arm`, "Torso", [x, 1.4, 0]).add(`${s} Leg`, "Torso", [x / 2, 0.9, 0]);
    }
    const result = detectBipedReferences(b.bones);
    expect(result.references).toBeNull();
    expect(result.problems.slice(0, 3)).toEqual([
      "no left leg found by name: thigh-like bones: (none); calf-like bones: Left Leg (left), Right Leg (right); " +
        "foot-like bones: (none)",
      "no right leg found by name: thigh-like bones: (none); calf-like bones: Left Leg (left), Right Leg (right); " +
        "foot-like bones: (none)",
      "no left arm found by name: upper arm-like bones: Left Arm (left), Right Arm (right); forearm-like bones: (none); " +
        "hand-like bones: (none)",
    ]);
  });

  it.each([false, true])(
    "Auto-Rig Pro (twist bones in line: %s): every limb by name; the hips, root.x, as the limbs' common ancestor",
    (inlineTwist) => {
      const names = autoRigPro();
      const bones = humanoid(names, { inlineTwist });
      const result = detectBipedReferences(bones);
      expect(result.problems).toEqual([]);
      expect(detectedNames(bones, result)).toEqual(expectedNames(names));
      expect(result.warnings).toEqual([
        "no bone named like a pelvis is above both thighs and the arms (considered: (none)); the pelvis is their " +
          "common ancestor root.x.",
      ]);
    },
  );

  it("Unreal UE5 Manny's helpers are passed over: correctives (calf_knee_l is named like a calf), twistCor, IK bones", () => {
    const names = unreal();
    const b = new RigBuilder();
    b.bones.push(...humanoid(names));
    const near = (bone: string, dx = 0): [number, number, number] => {
      const p = b.bones[b.index(bone)]!.position;
      return [p.x + dx, p.y - 0.02, p.z + 0.01];
    };
    for (const s of ["l", "r"]) {
      for (const segment of ["clavicle", "upperarm", "lowerarm", "thigh", "calf"]) {
        const root = `${segment}_correctiveRoot_${s}`;
        b.add(root, `${segment}_${s}`, near(`${segment}_${s}`));
        for (const c of ["bck", "fwd", "in", "out", "knee", "kneeBack"])
          b.add(`${segment}_${c}_${s}`, root, near(root));
      }
      b.add(`upperarm_twistCor_01_${s}`, `upperarm_${s}`, near(`upperarm_${s}`, 0.05));
      b.add(`wrist_inner_${s}`, `hand_${s}`, near(`hand_${s}`));
      b.add(`spine_04_latissimus_${s}`, "spine_04", near("spine_04", 0.1));
    }
    b.add("ik_foot_root", "root", [0, 0, 0]).add("ik_foot_l", "ik_foot_root", near("foot_l"));
    b.add("ik_hand_root", "root", [0, 0, 0]).add("ik_hand_gun", "ik_hand_root", near("hand_r"));
    b.add("ik_hand_l", "ik_hand_gun", near("hand_l")).add("center_of_mass", "root", [0, 1, 0]);
    const result = detectBipedReferences(b.bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(b.bones, result)).toEqual(expectedNames(names));
    expect(result.warnings).toEqual([]);
  });

  it("VRoid's J_Sec_ chains (a skirt running down from the hips, hair, bust) and J_Adj_ bones are passed over", () => {
    const names = vrm0();
    const b = new RigBuilder();
    b.bones.push(...humanoid(names));
    for (let k = 0; k < 8; k++) {
      const a = (k / 8) * 2 * Math.PI;
      for (let j = 1; j <= 4; j++) {
        const r = 0.15 * (1 + 0.2 * j);
        const parent = j === 1 ? "J_Bip_C_Hips" : `J_Sec_Skirt${k}_0${j - 1}`;
        b.add(`J_Sec_Skirt${k}_0${j}`, parent, [r * Math.sin(a), 1 - 0.12 * j, r * Math.cos(a)]);
      }
    }
    for (let k = 0; k < 6; k++) {
      for (let j = 1; j <= 5; j++) {
        const parent = j === 1 ? "J_Bip_C_Head" : `J_Sec_Hair${j - 1}_0${k}`;
        b.add(`J_Sec_Hair${j}_0${k}`, parent, [0.08 * Math.sin(k), 1.7 - 0.1 * j, -0.08]);
      }
    }
    for (const [s, x] of [
      ["L", 0.08],
      ["R", -0.08],
    ] as const) {
      b.add(`J_Sec_${s}_Bust1`, "J_Bip_C_Chest", [x, 1.35, 0.1]).add(`J_Sec_${s}_Bust2`, `J_Sec_${s}_Bust1`, [
        x,
        1.33,
        0.15,
      ]);
    }
    const result = detectBipedReferences(b.bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(b.bones, result)).toEqual(expectedNames(names));
    expect(result.warnings).toEqual([]);
  });

  it("Rigify metarig: no pelvis or head names, so the pelvis is the thighs' and arms' common ancestor and the head the spine's end", () => {
    const names = rigifyMetarig();
    const bones = humanoid(names);
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(expectedNames(names));
    expect(result.method).toBe("mixed");
    expect(result.warnings).toEqual([
      "no bone named like a pelvis is above both thighs and the arms (considered: (none)); the pelvis is their common ancestor spine.",
      "no bone named like a head; the head is spine.006, the spine's continuation above the arms.",
    ]);
  });

  it("Rigify deform bones: the in-line .001 segments are passed over (upper_arm.L, not upper_arm.L.001)", () => {
    const names = rigifyDeform();
    const options = { inlineTwist: true };
    const bones = humanoid(names, options);
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(expectedNames(names, options));
    expect(result.method).toBe("mixed"); // DEF-spine is found as the pelvis by structure
  });

  describe("a Rigify export with every bone: the ORG- metarig copy and the DEF- deform copy, each a whole biped", () => {
    /** Both copies under one root, the DEF one with its in-line .001 segments; `deforms` as a skinned mesh says. */
    const rigifyExport = (deforms?: (name: string) => boolean): RigBoneInfo[] => {
      const org = humanoid(rigifyMetarig()).map((b) => ({ ...b, name: `ORG-${b.name}` }));
      const def = humanoid(rigifyDeform(), { inlineTwist: true });
      const root: RigBoneInfo = { name: "root", parent: -1, position: { x: 0, y: 0, z: 0 } };
      const shift = (list: RigBoneInfo[], by: number): RigBoneInfo[] =>
        list.map((b) => ({ ...b, parent: b.parent < 0 ? 0 : b.parent + by }));
      const all = [root, ...shift(org, 1), ...shift(def, 1 + org.length)];
      return deforms === undefined ? all : all.map((b) => ({ ...b, deforms: deforms(b.name) }));
    };
    const defExpected = expectedNames(rigifyDeform(), { inlineTwist: true });

    it("no mesh read: the DEF- names are taken, with one warning", () => {
      const bones = rigifyExport();
      const result = detectBipedReferences(bones);
      expect(result.problems).toEqual([]);
      expect(detectedNames(bones, result)).toEqual(defExpected);
      expect(result.warnings.filter((w) => w.includes("named twice"))).toEqual([
        "limbs are named twice (a Rigify export's ORG- and DEF- copies, MMD's legs and D legs?): the copies that are named to deform were taken.",
      ]);
    });

    it("skin weights on the DEF- bones: those are taken", () => {
      const bones = rigifyExport((n) => n.startsWith("DEF-"));
      const result = detectBipedReferences(bones);
      expect(detectedNames(bones, result)).toEqual(defExpected);
      expect(result.warnings.filter((w) => w.includes("named twice"))).toEqual([
        "limbs are named twice (a Rigify export's ORG- and DEF- copies, MMD's legs and D legs?): the copies that skin the mesh were taken.",
      ]);
    });

    it("skin weights decide over names: a mesh skinned to the ORG- bones takes those", () => {
      const bones = rigifyExport((n) => n.startsWith("ORG-"));
      const result = detectBipedReferences(bones);
      expect(result.problems).toEqual([]);
      const names = detectedNames(bones, result);
      for (const key of ["leftUpperArm", "leftForearm", "leftHand", "rightThigh", "rightCalf", "rightFoot"]) {
        expect(names[key], key).toBe(`ORG-${expectedNames(rigifyMetarig())[key]}`);
      }
      // the trunk is the one above the limbs taken
      expect(names.pelvis).toBe("ORG-spine");
    });

    it("neither weights nor names tell two copies apart: still the duplicates problem", () => {
      const bones = rigifyExport().map((b) => ({ ...b, name: b.name.replace(/^DEF-/, "COPY-") }));
      const result = detectBipedReferences(bones);
      expect(result.references).toBeNull();
      expect(result.problems.some((p) => p.startsWith("2 left arms found by name (duplicates)"))).toBe(true);
    });
  });

  it("Assimp's FBX pivots (Bone_$AssimpFbx$_Translation → _PreRotation → _Rotation above each bone) are passed over", () => {
    const plain = humanoid(mixamo());
    const bones: RigBoneInfo[] = [];
    const at: number[] = [];
    plain.forEach((b, i) => {
      let parent = b.parent < 0 ? -1 : at[b.parent]!;
      for (const k of b.parent < 0 ? [] : ["Translation", "PreRotation", "Rotation"]) {
        bones.push({ name: `${b.name}_$AssimpFbx$_${k}`, parent, position: b.position });
        parent = bones.length - 1;
      }
      bones.push({ ...b, parent });
      at[i] = bones.length - 1;
    });
    const result = detectBipedReferences(bones);
    // the pivots were spine bones (9 zero-length warnings) and the clavicles (the upper arms' _Rotation pivots)
    expect(result.warnings).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(expectedNames(mixamo()));
  });

  it("twist, roll, IK and end bones are never chosen (Unreal ik_* bones, twist leaves; HumanIK rolls in line)", () => {
    const bones = humanoid(unreal());
    const b = new RigBuilder();
    b.bones.push(...bones);
    b.add("ik_foot_root", "root", [0, 0, 0])
      .add("ik_foot_l", "ik_foot_root", [0.09, 0.08, 0])
      .add("ik_foot_r", "ik_foot_root", [-0.09, 0.08, 0])
      .add("ik_hand_root", "root", [0, 0, 0])
      .add("ik_hand_gun", "ik_hand_root", [-0.72, 1.44, -0.02])
      .add("ik_hand_l", "ik_hand_gun", [0.72, 1.44, -0.02])
      .add("ik_hand_r", "ik_hand_gun", [-0.72, 1.44, -0.02])
      .add("calf_knee_l", "calf_l", [0.09, 0.52, 0.06]) // UE5 corrective named like a calf
      .add("calf_correctiveRoot_l", "calf_l", [0.09, 0.52, 0.03]);
    const result = detectBipedReferences(b.bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(b.bones, result)).toEqual(expectedNames(unreal()));

    const rolls = humanoid(humanIK(), { inlineTwist: true });
    const names = detectedNames(rolls, detectBipedReferences(rolls));
    expect(names.leftForearm).toBe("Character1_LeftForeArm");
    expect(names.leftHand).toBe("Character1_LeftHand");
    expect(names.leftCalf).toBe("Character1_LeftLeg");
    // the limb chains have the roll bones between their references: still valid parent chains
    expect(validateBipedReferences(rolls, detectBipedReferences(rolls).references!).problems).toEqual([]);
  });

  it("reads side, role and exclusion from single names", () => {
    const read = (n: string): [string | null, string | null, string | null] => {
      const p = parseBoneName(n);
      return [p.side, p.role, p.excludedBy];
    };
    expect(read("mixamorig:LeftForeArm")).toEqual(["left", "forearm", null]);
    expect(read("mixamorig1:RightUpLeg")).toEqual(["right", "thigh", null]);
    expect(read("mixamorig:LeftLeg")).toEqual(["left", "calf", null]);
    expect(read("mixamorig:LeftArm")).toEqual(["left", "upperArm", null]);
    expect(read("mixamorig:LeftHandIndex1")).toEqual(["left", "finger", null]);
    expect(read("mixamorig:HeadTop_End")).toEqual([null, null, "end"]);
    expect(read("upperarm_twist_01_l")).toEqual(["left", null, "twist"]);
    expect(read("Bip01 L Forearm")).toEqual(["left", "forearm", null]);
    expect(read("Bip01 R Toe0Nub")).toEqual(["right", null, "nub"]);
    expect(read("Bip01")).toEqual([null, null, null]);
    expect(read("J_Bip_C_UpperChest")).toEqual([null, "spine", null]);
    expect(read("J_Bip_L_LowerArm")).toEqual(["left", "forearm", null]);
    expect(read("upper_arm.L.001")).toEqual(["left", "upperArm", null]);
    expect(read("spine.003")).toEqual([null, "spine", null]);
    expect(read("shin.R")).toEqual(["right", "calf", null]);
    expect(read("wrist.l")).toEqual(["left", "hand", null]);
    expect(read("ball_r")).toEqual(["right", "toe", null]);
    expect(read("leftUpperLeg")).toEqual(["left", "thigh", null]);
    expect(read("Character1_LeftForeArmRoll")).toEqual(["left", null, "roll"]);
    expect(read("ik_hand_l")).toEqual(["left", null, "ik"]);
    expect(read("LowerLeg.L_end")).toEqual(["left", null, "end"]);
    expect(read("LHand")).toEqual(["left", "hand", null]);
    expect(read("HandR")).toEqual(["right", "hand", null]);
    expect(read("lForearmBend")).toEqual(["left", "forearm", null]); // DAZ's deforming bone, beside lForearmTwist
    expect(read("lShldrBend")).toEqual(["left", "upperArm", null]);
    expect(read("lShldrTwist")).toEqual(["left", null, "twist"]);
    expect(read("thigh_stretch.l")).toEqual(["left", "thigh", null]); // Auto-Rig Pro
    expect(read("spine_01.x")).toEqual([null, "spine", null]);
    expect(read("head.x")).toEqual([null, "head", null]);
    expect(read("rShin")).toEqual(["right", "calf", null]);
    expect(parseBoneName("pelvis.L").role).toBeNull(); // Rigify's sided pelvis helpers are not the pelvis
    expect(parseBoneName("pelvis.L").ignoredRole).toBe("pelvis");
    expect(read("LowerTorso")).toEqual([null, "pelvis", null]); // Roblox R15
    expect(read("UpperTorso")).toEqual([null, "spine", null]);
    expect(read("l_low_arm")).toEqual(["left", "forearm", null]); // Sony mocopi
    expect(read("Head_M")).toEqual([null, "head", null]); // AdvancedSkeleton
    expect(read("HipPart1_L")).toEqual(["left", null, "part"]);
    // a sided hip is a thigh only above its side's calf (the hierarchy decides, in detection)
    expect(read("Hip_L")).toEqual(["left", null, null]);
    expect(read("arm_L0_upperarm_jnt")).toEqual(["left", "upperArm", null]); // mGear
    expect(read("neck_C0_head_jnt")).toEqual([null, "head", null]);
  });
});

/** The meaningless-name humanoid's expected references: anatomical sides, no eyes (nothing names them). */
function meaninglessExpected(names: HumanoidNames): Record<string, string | string[]> {
  return { ...expectedNames(names), eyes: [] };
}

describe("topology fallback (names that say nothing)", () => {
  it("facing +Z: pelvis, spine, clavicles, hands (where the fingers branch) and head from the hierarchy; left from the toes", () => {
    const names = meaningless();
    const bones = humanoid(names);
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(meaninglessExpected(names));
    expect(result.method).toBe("topology");
    expect(result.warnings).toEqual([]);
  });

  it("legs hanging from a bone below the pelvis (DAZ: hip → pelvis → thighs; the spine on the hip)", () => {
    const names = { ...meaningless(), thighRoot: "Bone_999" };
    const bones = humanoid(names);
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(meaninglessExpected(names));
    expect(result.method).toBe("topology");
  });

  it("extra chains (a tail, a cape, hair) do not pass for limbs", () => {
    const names = meaningless();
    const b = new RigBuilder(faceMinusZ);
    b.bones.push(...humanoid(names, { transform: faceMinusZ }));
    const chain = (prefix: string, parent: string, points: [number, number, number][]): void => {
      points.forEach((p, i) => b.add(`${prefix}${i}`, i === 0 ? parent : `${prefix}${i - 1}`, p));
    };
    chain("Tail", names.pelvis, [
      [0, 0.98, -0.1],
      [0, 0.85, -0.3],
      [0, 0.7, -0.45],
      [0, 0.55, -0.55],
    ]);
    chain("Cape", names.spine[2]!, [
      [0, 1.4, -0.12],
      [0, 1.1, -0.15],
      [0, 0.8, -0.18],
      [0, 0.5, -0.2],
    ]);
    chain("Hair", names.head!, [
      [0, 1.72, -0.08],
      [0, 1.6, -0.14],
      [0, 1.45, -0.16],
    ]);
    const result = detectBipedReferences(b.bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(b.bones, result)).toEqual(meaninglessExpected(names));
  });

  it("facing −Z: the anatomical left (now at −X) is still the left", () => {
    const names = meaningless();
    const bones = humanoid(names, { transform: faceMinusZ });
    expect(bones[expectedIndex(bones, names.side("L").hand)]!.position.x).toBeLessThan(0);
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(meaninglessExpected(names));
    expect(result.method).toBe("topology");
  });

  it("Z-up (rotated rig) facing −Y: sides from the toes in any frame", () => {
    const names = meaningless();
    const bones = humanoid(names, { transform: zUp });
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(meaninglessExpected(names));
  });

  it("no toes, facing −Z: forward from the bent knees", () => {
    const names = withoutToes(meaningless());
    const bones = humanoid(names, { transform: faceMinusZ });
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(meaninglessExpected(names));
  });

  it("no toes and straight knees: +X is taken as the left (glTF convention), with a warning", () => {
    const names = withoutToes(meaningless());
    const bones = humanoid(names, { straightLegs: true });
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(meaninglessExpected(names));
    expect(result.warnings).toContain(
      "Left and right: facing unknown (neither toes nor bent knees), so +X was taken as the character's left (glTF convention).",
    );
  });

  it("KayKit-like shape without clavicles or fingers, facing −Z: the hand is the bone after the forearm", () => {
    const kk = kayKit();
    let next = 0;
    const rename = new Map<string, string>();
    const id = (n: string | undefined): string | undefined => {
      if (n === undefined) return undefined;
      if (!rename.has(n)) rename.set(n, `Joint${next++}`);
      return rename.get(n)!;
    };
    const names: HumanoidNames = {
      root: id(kk.root),
      pelvis: id(kk.pelvis)!,
      spine: kk.spine.map((s) => id(s)!),
      head: id(kk.head),
      side: (s) => {
        const n = kk.side(s);
        return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, id(v as string)])) as unknown as ReturnType<
          HumanoidNames["side"]
        >;
      },
    };
    const bones = humanoid(names, { transform: faceMinusZ });
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(expectedNames(names));
    expect(result.method).toBe("topology");
  });

  it("a left-handed frame (Babylon scene space) with { leftHanded: true }", () => {
    const names = meaningless();
    const bones = humanoid(names, { transform: mirrorX }); // glTF +Z-facing rig after the handedness flip
    expect(detectedNames(bones, detectBipedReferences(bones, { leftHanded: true }))).toEqual(
      meaninglessExpected(names),
    );
    // read as right-handed, the same positions are a mirror image: the sides swap
    const asRight = detectedNames(bones, detectBipedReferences(bones));
    expect(asRight.leftHand).toBe(names.side("R").hand);
  });

  it("side markers on otherwise meaningless names win over geometry", () => {
    // facing −Z with no toes and straight knees: geometry alone would take +X (the anatomical right) as the left
    const base = withoutToes(meaningless());
    const names: HumanoidNames = { ...base, side: (s) => suffixAll(base.side(s), `.${s}`) };
    const bones = humanoid(names, { transform: faceMinusZ, straightLegs: true });
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(meaninglessExpected(names));
    expect(result.warnings.join("\n")).not.toMatch(/facing unknown/);
  });

  it("side markers that call both sides left are overridden by geometry, with a warning", () => {
    const base = meaningless();
    const names: HumanoidNames = { ...base, side: (s) => suffixAll(base.side(s), ".L") };
    const bones = humanoid(names, { transform: faceMinusZ });
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(meaninglessExpected(names));
    expect(result.warnings.some((w) => w.startsWith("the names in both legs say left"))).toBe(true);
    expect(result.warnings.some((w) => w.startsWith("the names in both arms say left"))).toBe(true);
  });
});

function expectedIndex(bones: readonly RigBoneInfo[], name: string): number {
  return bones.findIndex((b) => b.name === name);
}

function withoutToes(names: HumanoidNames): HumanoidNames {
  return { ...names, side: (s) => ({ ...names.side(s), toe: undefined, toeEnd: undefined }) };
}

function suffixAll<T extends object>(side: T, suffix: string): T {
  const map = (v: unknown): unknown => (typeof v === "string" ? v + suffix : Array.isArray(v) ? v.map(map) : v);
  return Object.fromEntries(Object.entries(side).map(([k, v]) => [k, map(v)])) as T;
}

describe("sides: names versus geometry", () => {
  it("Mixamo names on a rig facing −Z (like Soldier): the names win, and the feet agree", () => {
    const names = mixamo();
    const bones = humanoid(names, { transform: faceMinusZ });
    const result = detectBipedReferences(bones);
    expect(detectedNames(bones, result)).toEqual(expectedNames(names));
    expect(result.warnings).toEqual([]);
  });

  it("Mixamo names on a mirrored rig (left bones at −X, facing +Z): names kept, mirroring reported", () => {
    const names = mixamo();
    const bones = humanoid(names, { transform: mirrorX });
    const result = detectBipedReferences(bones);
    expect(detectedNames(bones, result)).toEqual(expectedNames(names));
    expect(result.warnings).toHaveLength(2);
    expect(result.warnings[0]).toMatch(
      /^the leg named left \(mixamorig:LeftUpLeg → mixamorig:LeftLeg → mixamorig:LeftFoot\) lies on the character's right as its toes tell it .*the skeleton may be mirrored, or its positions left-handed \(pass \{ leftHanded: true \} to detectBipedReferences\); the names were kept\.$/,
    );
    // with the handedness given (create() gives the scene's), the advice is about the character, naming create()'s option
    const given = detectBipedReferences(bones, { leftHanded: false }).warnings;
    expect(given[0]).toMatch(
      /the character is mirrored in its frame \(right-handed: .*\); the names were kept \(give the limbs in `references` to choose otherwise\)\.$/,
    );
    expect(given.join("\n")).not.toMatch(/leftHanded/);
    // the same positions declared left-handed are consistent: no warning
    expect(detectBipedReferences(bones, { leftHanded: true }).warnings).toEqual([]);
  });

  it("two arms both named .L (a copied arm not renamed): geometry decides, with a warning", () => {
    const base = blender(".");
    const names: HumanoidNames = {
      ...base,
      side: (s) => {
        const n = base.side(s);
        return s === "L"
          ? n
          : {
              ...n,
              clavicle: "Shoulder.L.001",
              upperArm: "UpperArm.L.001",
              forearm: "LowerArm.L.001",
              hand: "Hand.L.001",
            };
      },
    };
    const bones = humanoid(names, { transform: faceMinusZ });
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result)).toEqual(expectedNames(names));
    expect(result.method).toBe("mixed");
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(
      /^both arms are named left: UpperArm\.L → LowerArm\.L → Hand\.L and UpperArm\.L\.001 → LowerArm\.L\.001 → Hand\.L\.001; the sides were taken from their positions \(the toes point forward along/,
    );
  });
});

describe("problems", () => {
  it("duplicates: a second left arm named like the first is reported with both chains, and nothing is returned", () => {
    const b = new RigBuilder();
    b.bones.push(...humanoid(mixamo()));
    b.add("Backup_LeftArm", "mixamorig:Spine1", [0.17, 1.3, -0.1])
      .add("Backup_LeftForeArm", "Backup_LeftArm", [0.45, 1.3, -0.12])
      .add("Backup_LeftHand", "Backup_LeftForeArm", [0.72, 1.3, -0.1]);
    const result = detectBipedReferences(b.bones);
    expect(result.references).toBeNull();
    // the hierarchy's shape has an opinion, but it does not overrule names that contradict each other
    expect(result.problems).toEqual([
      "2 left arms found by name (duplicates): Backup_LeftArm → Backup_LeftForeArm → Backup_LeftHand and mixamorig:LeftArm → mixamorig:LeftForeArm → mixamorig:LeftHand; " +
        "the hierarchy's shape suggests mixamorig:LeftArm → mixamorig:LeftForeArm → mixamorig:LeftHand",
    ]);
    expect(referenceNames(b.bones, result.partial).rightHand).toBe("mixamorig:RightHand");
  });

  it("a missing forearm names the bones that bound it and the candidates considered", () => {
    const bones = withoutBone(humanoid(mixamo()), "mixamorig:LeftForeArm");
    const result = detectBipedReferences(bones);
    expect(result.references).toBeNull();
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(
      /^no left forearm found: candidates between mixamorig:LeftArm and mixamorig:LeftHand: \(none\); /,
    );
    // the hierarchy's guess (clavicle as upper arm) contradicts the names and is refused
    expect(result.problems[0]).toContain(
      "the hierarchy's shape suggests mixamorig:LeftShoulder → mixamorig:LeftArm → mixamorig:LeftHand, but mixamorig:LeftShoulder is named like a clavicle, not an upper arm",
    );
  });

  it("a forearm replaced by a twist bone: listed as ignored, and not taken from the hierarchy either", () => {
    const bones = humanoid(mixamo()).map((b) =>
      b.name === "mixamorig:LeftForeArm" ? { ...b, name: "mixamorig:LeftForeArmTwist" } : b,
    );
    const result = detectBipedReferences(bones);
    expect(result.references).toBeNull();
    expect(result.problems).toEqual([
      "no left forearm found: candidates between mixamorig:LeftArm and mixamorig:LeftHand: (none) (ignored: mixamorig:LeftForeArmTwist (twist)); " +
        "the hierarchy's shape suggests mixamorig:LeftArm → mixamorig:LeftForeArmTwist → mixamorig:LeftHand, but mixamorig:LeftForeArmTwist is a helper bone (twist)",
    ]);
  });

  it("an unnamed forearm between a named upper arm and hand is taken (mixed), with a warning", () => {
    const bones = humanoid(mixamo()).map((b) => (b.name === "mixamorig:LeftForeArm" ? { ...b, name: "Bone_17" } : b));
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(detectedNames(bones, result).leftForearm).toBe("Bone_17");
    expect(result.method).toBe("mixed");
    expect(result.warnings).toContain(
      "the left arm mixamorig:LeftArm → Bone_17 → mixamorig:LeftHand: the forearm is the only unnamed bone between the upper arm and the hand.",
    );
  });

  it("a whole limb missing lists the bones named for each of its roles", () => {
    const bones = withoutBones(humanoid(mixamo()), (name) => /LeftUpLeg|LeftLeg|LeftFoot|LeftToe/.test(name));
    const result = detectBipedReferences(bones);
    expect(result.references).toBeNull();
    expect(result.problems[0]).toBe(
      "no left leg found by name: thigh-like bones: mixamorig:RightUpLeg (right); calf-like bones: mixamorig:RightLeg (right); foot-like bones: mixamorig:RightFoot (right)",
    );
  });

  it("a RobotExpressive-like leg with a LowerLeg.L_end leaf: the end marker stands in for the foot, with a warning", () => {
    const bones = robotLike(true);
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    const names = detectedNames(bones, result);
    expect([names.leftThigh, names.leftCalf, names.leftFoot]).toEqual(["UpperLeg.L", "LowerLeg.L", "LowerLeg.L_end"]);
    expect(names.pelvis).toBe("Body");
    expect(result.method).toBe("mixed");
    expect(result.warnings).toContain(
      "the left leg UpperLeg.L → LowerLeg.L → LowerLeg.L_end: there is no foot bone below the calf, so its end marker LowerLeg.L_end stands in for the foot: " +
        "the IK places the calf's tip, but there is no foot rotation to drive (Foot.L hangs from Bone and will not follow the leg).",
    );
    // without the leaf the leg cannot be completed
    expect(detectBipedReferences(robotLike(false)).problems[0]).toBe(
      "no left foot found: the left leg UpperLeg.L → LowerLeg.L has no foot below the calf; Foot.L hangs from Bone instead",
    );
  });

  it("a zero-length forearm is a problem naming both bones", () => {
    const bones = humanoid(mixamo()).map((b) =>
      b.name === "mixamorig:LeftForeArm" ? { ...b, position: { x: 0.72, y: 1.44, z: -0.02 } } : b,
    );
    const result = detectBipedReferences(bones);
    expect(result.references).toBeNull();
    expect(result.problems).toEqual([
      "zero-length bone in the left arm: mixamorig:LeftForeArm and mixamorig:LeftHand are at the same position",
    ]);
  });

  it("a spine bone at the pelvis (VRM 0.x) is left out of the spine with a warning; alone it is a problem", () => {
    const names = vrm0();
    const first = names.spine[0]!;
    const atPelvis = (bones: ReturnType<typeof humanoid>) =>
      bones.map((b) => (b.name === first ? { ...b, position: { x: 0, y: 1.0, z: 0 } } : b));
    const bones = atPelvis(humanoid(names));
    const result = detectBipedReferences(bones);
    expect(result.problems).toEqual([]);
    expect(referenceNames(bones, result.references!).spine).toEqual(names.spine.slice(1));
    expect(result.warnings).toContain(
      `zero-length bone in the spine: ${first} is at the same position as ${names.pelvis}; it was left out of the spine (the IK leaves its rotation to the animation).`,
    );
    const single = { ...names, spine: [first] };
    const alone = detectBipedReferences(atPelvis(humanoid(single)));
    expect(alone.problems).toEqual([
      `zero-length bone in the spine: ${names.pelvis} and ${first} are at the same position`,
    ]);
  });

  it("bones not listed parent-first are refused", () => {
    const result = detectBipedReferences([
      { name: "a", parent: 1, position: { x: 0, y: 0, z: 0 } },
      { name: "b", parent: -1, position: { x: 0, y: 1, z: 0 } },
    ]);
    expect(result.problems).toEqual([
      "bone 0 (a) has parent 1: bones must be listed parent-first (parent index -1 or below the bone's own)",
    ]);
  });
});

/** RobotExpressive's layout: the feet and pole targets hang from the root; optionally the calves' _end leaves. */
function robotLike(withEnds: boolean): RigBoneInfo[] {
  const b = new RigBuilder();
  b.add("Bone", null, [0, 0, 0]).add("Foot.L", "Bone", [0.09, 0.08, 0.02]).add("Body", "Bone", [0, 1.02, 0]);
  b.add("Hips", "Body", [0, 1.0, 0]).add("Abdomen", "Hips", [0, 1.15, 0]).add("Torso", "Abdomen", [0, 1.3, 0]);
  b.add("Neck", "Torso", [0, 1.5, 0]).add("Head", "Neck", [0, 1.6, 0]);
  for (const s of ["L", "R"] as const) {
    const x = s === "L" ? 1 : -1;
    b.add(`Shoulder.${s}`, "Torso", [0.05 * x, 1.44, 0])
      .add(`UpperArm.${s}`, `Shoulder.${s}`, [0.17 * x, 1.44, -0.02])
      .add(`LowerArm.${s}`, `UpperArm.${s}`, [0.45 * x, 1.44, -0.05])
      .add(`Hand.${s}`, `LowerArm.${s}`, [0.72 * x, 1.44, -0.02]);
  }
  for (const s of ["L", "R"] as const) {
    const x = s === "L" ? 1 : -1;
    b.add(`UpperLeg.${s}`, "Body", [0.09 * x, 0.95, 0]).add(`LowerLeg.${s}`, `UpperLeg.${s}`, [0.09 * x, 0.52, 0.03]);
    if (withEnds) b.add(`LowerLeg.${s}_end`, `LowerLeg.${s}`, [0.09 * x, 0.08, 0]);
  }
  b.add("PoleTarget.L", "Bone", [0.1, 0.5, 0.6])
    .add("Foot.R", "Bone", [-0.09, 0.08, 0.02])
    .add("PoleTarget.R", "Bone", [-0.1, 0.5, 0.6]);
  return b.bones;
}

/** Removes the bones whose names match, re-parenting their children to the nearest kept ancestor. */
function withoutBones(bones: readonly RigBoneInfo[], drop: (name: string) => boolean): RigBoneInfo[] {
  const newIndex: number[] = [];
  const out: RigBoneInfo[] = [];
  const kept = (i: number): number => {
    for (let p = i; p >= 0; p = bones[p]!.parent) if (!drop(bones[p]!.name)) return newIndex[p]!;
    return -1;
  };
  bones.forEach((b, i) => {
    if (drop(b.name)) return;
    newIndex[i] = out.length;
    out.push({ ...b, parent: kept(b.parent) });
  });
  return out;
}

function withoutBone(bones: readonly RigBoneInfo[], name: string): RigBoneInfo[] {
  return withoutBones(bones, (n) => n === name);
}

describe("validateBipedReferences", () => {
  const bones = humanoid(mixamo());
  const refs = (): DetectedBipedReferences => detectBipedReferences(bones).references!;
  const at = (name: string): number => expectedIndex(bones, name);

  it("accepts the detected references (elbows and knees bent: no warnings)", () => {
    expect(validateBipedReferences(bones, refs())).toEqual({ problems: [], warnings: [] });
  });

  it("names every missing and duplicated bone", () => {
    const r = { ...refs(), leftFoot: -1, rightHand: refs().leftHand, spine: [] };
    expect(validateBipedReferences(bones, r).problems).toEqual([
      "leftFoot is missing",
      "there are no spine bones (at least one is needed between the pelvis and the arms)",
      "rightHand and leftHand are the same bone (mixamorig:LeftHand)",
    ]);
  });

  it("limbs and spine must be parent chains; thighs below the pelvis; clavicles between spine and arm", () => {
    const r = {
      ...refs(),
      leftForearm: at("mixamorig:LeftHand"),
      leftHand: at("mixamorig:LeftForeArm"),
      spine: [at("mixamorig:Spine1"), at("mixamorig:Spine"), at("mixamorig:Neck")],
      rightThigh: at("mixamorig:LeftToeBase"),
      leftClavicle: at("mixamorig:RightShoulder"),
      rightClavicle: -1,
    };
    expect(validateBipedReferences(bones, r).problems).toEqual([
      "the spine is not a parent chain: mixamorig:Spine (spine[1]) is not below mixamorig:Spine1",
      "the spine does not lead to the arms: leftUpperArm mixamorig:LeftArm is not below the last spine bone mixamorig:Neck",
      "the spine does not lead to the arms: rightUpperArm mixamorig:RightArm is not below the last spine bone mixamorig:Neck",
      "the left arm is not a parent chain: mixamorig:LeftForeArm is not below mixamorig:LeftHand",
      "the right leg is not a parent chain: mixamorig:RightLeg is not below mixamorig:LeftToeBase",
      "leftClavicle mixamorig:RightShoulder is not between the last spine bone mixamorig:Neck and the upper arm mixamorig:LeftArm",
    ]);
    const lowPelvis = {
      ...refs(),
      pelvis: at("mixamorig:Spine"),
      spine: [at("mixamorig:Spine1"), at("mixamorig:Spine2")],
    };
    expect(validateBipedReferences(bones, lowPelvis).problems).toEqual([
      "leftThigh mixamorig:LeftUpLeg is not below the pelvis mixamorig:Spine",
      "rightThigh mixamorig:RightUpLeg is not below the pelvis mixamorig:Spine",
    ]);
  });

  it("zero length is relative to the character's size (1e-6 ×)", () => {
    const scaled = (s: number, gap: number): RigBoneInfo[] =>
      bones.map((b) => {
        const p = b.name === "mixamorig:LeftForeArm" ? { x: 0.72 - gap, y: 1.44, z: -0.02 } : b.position;
        return { ...b, position: { x: p.x * s, y: p.y * s, z: p.z * s } };
      });
    // 1e-8 m in a 2 m character: zero; 1e-4 m: a (tiny) bone — at centimetre units (×100) alike
    for (const s of [1, 100]) {
      expect(validateBipedReferences(scaled(s, 1e-8), refs()).problems).toEqual([
        "zero-length bone in the left arm: mixamorig:LeftForeArm and mixamorig:LeftHand are at the same position",
      ]);
      expect(validateBipedReferences(scaled(s, 1e-4), refs()).problems).toEqual([]);
    }
  });

  it("warns about a straight limb", () => {
    const straight = bones.map((b) =>
      b.name === "mixamorig:RightLeg" ? { ...b, position: { x: -0.09, y: 0.52, z: 0 } } : b,
    );
    const rf = { ...refs(), rightFoot: at("mixamorig:RightFoot") };
    const straightFoot = straight.map((b) =>
      b.name === "mixamorig:RightFoot" ? { ...b, position: { x: -0.09, y: 0.08, z: 0 } } : b,
    );
    expect(validateBipedReferences(straightFoot, rf).warnings).toEqual([
      "the right leg mixamorig:RightUpLeg → mixamorig:RightLeg → mixamorig:RightFoot is straight in this pose (bent 0.00°): the solver cannot read which way the " +
        "knee bends and will assume it; set a bend goal if it bends the wrong way",
    ]);
  });
});
