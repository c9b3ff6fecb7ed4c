/**
 * Naming conventions for the synthetic humanoid (see test/helpers/synthetic-rigs.ts), written the way
 * each tool exports them.
 */
import type { HumanoidNames, Side, SideNames } from "../../helpers/synthetic-rigs.js";

const word = (s: Side): string => (s === "L" ? "Left" : "Right");

/** Mixamo (and HumanIK without roll bones), with a namespace/prefix. */
export function mixamo(prefix = "mixamorig:"): HumanoidNames {
  return {
    pelvis: `${prefix}Hips`,
    spine: [`${prefix}Spine`, `${prefix}Spine1`, `${prefix}Spine2`],
    neck: [`${prefix}Neck`],
    head: `${prefix}Head`,
    headEnd: `${prefix}HeadTop_End`,
    side: (s) => {
      const p = prefix + word(s);
      return {
        clavicle: `${p}Shoulder`,
        upperArm: `${p}Arm`,
        forearm: `${p}ForeArm`,
        hand: `${p}Hand`,
        fingers: ["Thumb", "Index", "Middle", "Ring", "Pinky"].map((f) => [1, 2, 3, 4].map((k) => `${p}Hand${f}${k}`)),
        thigh: `${p}UpLeg`,
        calf: `${p}Leg`,
        foot: `${p}Foot`,
        toe: `${p}ToeBase`,
        toeEnd: `${p}Toe_End`,
        eye: `${p}Eye`,
      };
    },
  };
}

/** Autodesk HumanIK (MotionBuilder/Maya): Character1_ prefix, roll bones on every limb segment. */
export function humanIK(prefix = "Character1_"): HumanoidNames {
  return {
    root: `${prefix}Reference`,
    pelvis: `${prefix}Hips`,
    spine: [`${prefix}Spine`, `${prefix}Spine1`, `${prefix}Spine2`],
    neck: [`${prefix}Neck`],
    head: `${prefix}Head`,
    side: (s) => {
      const p = prefix + word(s);
      return {
        clavicle: `${p}Shoulder`,
        upperArm: `${p}Arm`,
        upperTwist: `${p}ArmRoll`,
        forearm: `${p}ForeArm`,
        foreTwist: `${p}ForeArmRoll`,
        hand: `${p}Hand`,
        fingers: [[`${p}HandThumb1`, `${p}HandThumb2`, `${p}HandThumb3`]],
        thigh: `${p}UpLeg`,
        thighTwist: `${p}UpLegRoll`,
        calf: `${p}Leg`,
        calfTwist: `${p}LegRoll`,
        foot: `${p}Foot`,
        toe: `${p}ToeBase`,
      };
    },
  };
}

/** Unreal Engine mannequin (UE4/UE5 body bones; twist bones as leaf children). */
export function unreal(prefix = ""): HumanoidNames {
  return {
    root: `${prefix}root`,
    pelvis: `${prefix}pelvis`,
    spine: [1, 2, 3, 4, 5].map((i) => `${prefix}spine_0${i}`),
    neck: [`${prefix}neck_01`, `${prefix}neck_02`],
    head: `${prefix}head`,
    side: (s) => {
      const l = s === "L" ? "l" : "r";
      const n = (base: string): string => `${prefix}${base}_${l}`;
      return {
        clavicle: n("clavicle"),
        upperArm: n("upperarm"),
        upperTwist: n("upperarm_twist_01"),
        forearm: n("lowerarm"),
        foreTwist: n("lowerarm_twist_01"),
        hand: n("hand"),
        fingers: ["thumb", "index", "middle"].map((f) => [1, 2, 3].map((k) => n(`${f}_0${k}`))),
        thigh: n("thigh"),
        thighTwist: n("thigh_twist_01"),
        calf: n("calf"),
        calfTwist: n("calf_twist_01"),
        foot: n("foot"),
        toe: n("ball"),
      };
    },
  };
}

/** Blender "Title.L" style with a chosen separator before the side letter (glTF exports of simple rigs). */
export function blender(sep: "." | "_" | "-"): HumanoidNames {
  return {
    pelvis: "Hips",
    spine: ["Spine", "Chest"],
    neck: ["Neck"],
    head: "Head",
    side: (s) => {
      const n = (base: string): string => `${base}${sep}${s}`;
      return {
        clavicle: n("Shoulder"),
        upperArm: n("UpperArm"),
        forearm: n("LowerArm"),
        hand: n("Hand"),
        thigh: n("UpperLeg"),
        calf: n("LowerLeg"),
        foot: n("Foot"),
        toe: n("Toes"),
      };
    },
  };
}

/** Rigify metarig: spine.001…, shoulder/upper_arm/forearm/hand, thigh/shin/foot/toe; no pelvis or head names. */
export function rigifyMetarig(): HumanoidNames {
  return {
    pelvis: "spine",
    spine: ["spine.001", "spine.002", "spine.003"],
    neck: ["spine.004", "spine.005"],
    head: "spine.006",
    side: (s) => {
      const n = (base: string): string => `${base}.${s}`;
      return {
        clavicle: n("shoulder"),
        upperArm: n("upper_arm"),
        forearm: n("forearm"),
        hand: n("hand"),
        fingers: [["thumb.01", "thumb.02", "thumb.03"].map(n), ["f_index.01", "f_index.02", "f_index.03"].map(n)],
        thigh: n("thigh"),
        calf: n("shin"),
        foot: n("foot"),
        toe: n("toe"),
      };
    },
  };
}

/** Rigify deform bones: every limb segment split in two (`.001` in-line segments), DEF- prefix. */
export function rigifyDeform(): HumanoidNames {
  return {
    pelvis: "DEF-spine",
    spine: ["DEF-spine.001", "DEF-spine.002", "DEF-spine.003"],
    neck: ["DEF-spine.004", "DEF-spine.005"],
    head: "DEF-spine.006",
    side: (s) => {
      const n = (base: string): string => `DEF-${base}.${s}`;
      return {
        clavicle: n("shoulder"),
        upperArm: n("upper_arm"),
        upperTwist: `${n("upper_arm")}.001`,
        forearm: n("forearm"),
        foreTwist: `${n("forearm")}.001`,
        hand: n("hand"),
        thigh: n("thigh"),
        thighTwist: `${n("thigh")}.001`,
        calf: n("shin"),
        calfTwist: `${n("shin")}.001`,
        foot: n("foot"),
        toe: n("toe"),
      };
    },
  };
}

/** KayKit (Mannequin / Rig_Medium): lowercase, `.l/.r`, wrist.l is the hand joint and hand.l its child. */
export function kayKit(): HumanoidNames {
  return {
    root: "root",
    pelvis: "hips",
    spine: ["spine", "chest"],
    head: "head",
    side: (s) => {
      const n = (base: string): string => `${base}.${s.toLowerCase()}`;
      return {
        upperArm: n("upperarm"),
        forearm: n("lowerarm"),
        hand: n("wrist"),
        handEnd: n("hand"),
        thigh: n("upperleg"),
        calf: n("lowerleg"),
        foot: n("foot"),
        toe: n("toes"),
      };
    },
  };
}

/** Blender lowercase `upperarm.l`, `upperleg.l` with `_l` style or `.l`. */
export function lowercase(sep: "." | "_"): HumanoidNames {
  return {
    pelvis: "hips",
    spine: ["spine", "chest"],
    neck: ["neck"],
    head: "head",
    side: (s) => {
      const n = (base: string): string => `${base}${sep}${s.toLowerCase()}`;
      return {
        clavicle: n("shoulder"),
        upperArm: n("upperarm"),
        forearm: n("lowerarm"),
        hand: n("hand"),
        thigh: n("upperleg"),
        calf: n("lowerleg"),
        foot: n("foot"),
        toe: n("toe"),
      };
    },
  };
}

/** VRM 0.x (J_Bip_*), with a face eye adjuster. */
export function vrm0(): HumanoidNames {
  return {
    root: "Root",
    pelvis: "J_Bip_C_Hips",
    spine: ["J_Bip_C_Spine", "J_Bip_C_Chest", "J_Bip_C_UpperChest"],
    neck: ["J_Bip_C_Neck"],
    head: "J_Bip_C_Head",
    side: (s) => {
      const n = (base: string): string => `J_Bip_${s}_${base}`;
      return {
        clavicle: n("Shoulder"),
        upperArm: n("UpperArm"),
        forearm: n("LowerArm"),
        hand: n("Hand"),
        fingers: [
          [n("Thumb1"), n("Thumb2"), n("Thumb3")],
          [n("Index1"), n("Index2"), n("Index3")],
        ],
        thigh: n("UpperLeg"),
        calf: n("LowerLeg"),
        foot: n("Foot"),
        toe: n("ToeBase"),
        eye: `J_Adj_${s}_FaceEye`,
      };
    },
  };
}

/** VRM 1.0 / Unity humanoid bone names, camelCase (`leftUpperArm`) or PascalCase (`LeftUpperArm`). */
export function vrm1(pascal: boolean): HumanoidNames {
  const c = (name: string): string => (pascal ? name[0]!.toUpperCase() + name.slice(1) : name);
  return {
    pelvis: c("hips"),
    spine: [c("spine"), c("chest"), c("upperChest")],
    neck: [c("neck")],
    head: c("head"),
    side: (s) => {
      const n = (base: string): string => c(`${s === "L" ? "left" : "right"}${base}`);
      return {
        clavicle: n("Shoulder"),
        upperArm: n("UpperArm"),
        forearm: n("LowerArm"),
        hand: n("Hand"),
        fingers: [[n("ThumbMetacarpal"), n("ThumbProximal"), n("ThumbDistal")]],
        thigh: n("UpperLeg"),
        calf: n("LowerLeg"),
        foot: n("Foot"),
        toe: n("Toes"),
        eye: n("Eye"),
      };
    },
  };
}

/** 3ds Max Biped (`Bip01 L UpperArm`; `Bip01` is the root above the pelvis; Nub end markers). */
export function biped(prefix = "Bip01"): HumanoidNames {
  return {
    root: prefix,
    pelvis: `${prefix} Pelvis`,
    spine: [`${prefix} Spine`, `${prefix} Spine1`, `${prefix} Spine2`],
    neck: [`${prefix} Neck`],
    head: `${prefix} Head`,
    headEnd: `${prefix} HeadNub`,
    side: (s) => {
      const n = (base: string): string => `${prefix} ${s} ${base}`;
      return {
        clavicle: n("Clavicle"),
        upperArm: n("UpperArm"),
        forearm: n("Forearm"),
        foreTwist: n("ForeTwist"),
        hand: n("Hand"),
        fingers: [
          [n("Finger0"), n("Finger01"), n("Finger0Nub")],
          [n("Finger1"), n("Finger11"), n("Finger1Nub")],
        ],
        thigh: n("Thigh"),
        calf: n("Calf"),
        foot: n("Foot"),
        toe: n("Toe0"),
        toeEnd: n("Toe0Nub"),
      };
    },
  };
}

/**
 * DAZ Genesis 3 and 8: side letters in front (`lShldrBend`), deforming "Bend" bones with "Twist" helpers in line
 * below them, and a `pelvis` between the `hip` and the thighs (the spine hangs from the hip).
 */
export function daz8(): HumanoidNames {
  return {
    root: "Genesis8Female",
    pelvis: "hip",
    thighRoot: "pelvis",
    spine: ["abdomenLower", "abdomenUpper", "chestLower", "chestUpper"],
    neck: ["neckLower", "neckUpper"],
    head: "head",
    side: (s) => {
      const n = (base: string): string => `${s.toLowerCase()}${base}`;
      return {
        clavicle: n("Collar"),
        upperArm: n("ShldrBend"),
        upperTwist: n("ShldrTwist"),
        forearm: n("ForearmBend"),
        foreTwist: n("ForearmTwist"),
        hand: n("Hand"),
        fingers: [
          [n("Thumb1"), n("Thumb2"), n("Thumb3")],
          [n("Carpal1"), n("Index1"), n("Index2"), n("Index3")],
          [n("Carpal2"), n("Mid1"), n("Mid2"), n("Mid3")],
        ],
        thigh: n("ThighBend"),
        thighTwist: n("ThighTwist"),
        calf: n("Shin"),
        foot: n("Foot"),
        toe: n("Toe"),
        eye: n("Eye"),
      };
    },
  };
}

/** DAZ Genesis 1 and 2: `lShldr`, `lForeArm`, `lThigh`, `lShin`; `abdomen`, `abdomen2`, `chest`. */
export function daz2(): HumanoidNames {
  return {
    pelvis: "hip",
    thighRoot: "pelvis",
    spine: ["abdomen", "abdomen2", "chest"],
    neck: ["neck"],
    head: "head",
    side: (s) => {
      const n = (base: string): string => `${s.toLowerCase()}${base}`;
      return {
        clavicle: n("Collar"),
        upperArm: n("Shldr"),
        forearm: n("ForeArm"),
        hand: n("Hand"),
        thigh: n("Thigh"),
        calf: n("Shin"),
        foot: n("Foot"),
        toe: n("Toe"),
      };
    },
  };
}

/** DAZ Genesis 9: `l_upperarm`, `l_shin`, `spine1`…`spine4`, twist bones beside the limbs. */
export function daz9(): HumanoidNames {
  return {
    root: "Genesis9",
    pelvis: "hip",
    thighRoot: "pelvis",
    spine: ["spine1", "spine2", "spine3", "spine4"],
    neck: ["neck1", "neck2"],
    head: "head",
    side: (s) => {
      const n = (base: string): string => `${s.toLowerCase()}_${base}`;
      return {
        clavicle: n("shoulder"),
        upperArm: n("upperarm"),
        upperTwist: n("upperarm_twist1"),
        forearm: n("forearm"),
        foreTwist: n("forearm_twist1"),
        hand: n("hand"),
        thigh: n("thigh"),
        thighTwist: n("thigh_twist1"),
        calf: n("shin"),
        foot: n("foot"),
        toe: n("toes"),
        eye: n("eye"),
      };
    },
  };
}

/**
 * Reallusion Character Creator / iClone (`CC_Base_L_Upperarm`, twist bones beside the limbs; the thighs on
 * `CC_Base_Pelvis` below `CC_Base_Hip`, the neck bones named `NeckTwist`).
 */
export function characterCreator(): HumanoidNames {
  return {
    root: "CC_Base_BoneRoot",
    pelvis: "CC_Base_Hip",
    thighRoot: "CC_Base_Pelvis",
    spine: ["CC_Base_Waist", "CC_Base_Spine01", "CC_Base_Spine02"],
    neck: ["CC_Base_NeckTwist01", "CC_Base_NeckTwist02"],
    head: "CC_Base_Head",
    side: (s) => {
      const n = (base: string): string => `CC_Base_${s}_${base}`;
      return {
        clavicle: n("Clavicle"),
        upperArm: n("Upperarm"),
        upperTwist: n("UpperarmTwist01"),
        forearm: n("Forearm"),
        foreTwist: n("ForearmTwist01"),
        hand: n("Hand"),
        thigh: n("Thigh"),
        thighTwist: n("ThighTwist01"),
        calf: n("Calf"),
        calfTwist: n("CalfTwist01"),
        foot: n("Foot"),
        toe: n("ToeBase"),
      };
    },
  };
}

/** MakeHuman's default skeleton (`upperarm01.L` → `upperarm02.L` in line, `wrist.L`, `spine05`…`spine01`). */
export function makeHuman(): HumanoidNames {
  return {
    root: "root",
    pelvis: "pelvis",
    spine: ["spine05", "spine04", "spine03", "spine02", "spine01"],
    neck: ["neck01", "neck02", "neck03"],
    head: "head",
    side: (s) => {
      const n = (base: string): string => `${base}.${s}`;
      return {
        clavicle: n("clavicle"),
        upperArm: n("upperarm01"),
        upperTwist: n("upperarm02"),
        forearm: n("lowerarm01"),
        foreTwist: n("lowerarm02"),
        hand: n("wrist"),
        thigh: n("upperleg01"),
        thighTwist: n("upperleg02"),
        calf: n("lowerleg01"),
        calfTwist: n("lowerleg02"),
        foot: n("foot"),
        toe: n("toe1-1"),
      };
    },
  };
}

/** `names` with every bone renamed by `rename`, called in file order (root, trunk, then the left and right side). */
export function renamed(names: HumanoidNames, rename: (name: string) => string): HumanoidNames {
  const opt = (name: string | undefined): string | undefined => (name === undefined ? undefined : rename(name));
  const sides = new Map<Side, SideNames>();
  const out: HumanoidNames = {
    top: opt(names.top),
    root: opt(names.root),
    pelvis: rename(names.pelvis),
    thighRoot: opt(names.thighRoot),
    spine: names.spine.map(rename),
    neck: names.neck?.map(rename),
    head: opt(names.head),
    headEnd: opt(names.headEnd),
    side: (s) => sides.get(s)!,
  };
  for (const s of ["L", "R"] as const) {
    const n = names.side(s);
    const side: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(n))
      side[k] = Array.isArray(v) ? v.map((c: string[]) => c.map(rename)) : rename(v);
    sides.set(s, side as unknown as SideNames);
  }
  return out;
}

/** Sketchfab's re-export: every node's name gets `_NN` appended, numbered in file order. */
export function sketchfab(names: HumanoidNames): HumanoidNames {
  let next = 0;
  return renamed(names, (name) => `${name}_${String(next++).padStart(2, "0")}`);
}

/**
 * Blender Auto-Rig Pro's export: `.x` on centre bones, the hips called `root.x`, limb segments `*_stretch.l` with
 * `*_twist.l` helpers.
 */
export function autoRigPro(): HumanoidNames {
  return {
    pelvis: "root.x",
    spine: ["spine_01.x", "spine_02.x", "spine_03.x"],
    neck: ["neck.x"],
    head: "head.x",
    side: (s) => {
      const n = (base: string): string => `${base}.${s.toLowerCase()}`;
      return {
        clavicle: n("shoulder"),
        upperArm: n("arm_stretch"),
        upperTwist: n("arm_twist"),
        forearm: n("forearm_stretch"),
        foreTwist: n("forearm_twist"),
        hand: n("hand"),
        fingers: [
          [n("thumb1"), n("thumb2"), n("thumb3")],
          [n("index1"), n("index2"), n("index3")],
        ],
        thigh: n("thigh_stretch"),
        thighTwist: n("thigh_twist"),
        calf: n("leg_stretch"),
        calfTwist: n("leg_twist"),
        foot: n("foot"),
        toe: n("toes_01"),
      };
    },
  };
}

/** Synty POLYGON characters: `Shoulder_L` is the upper arm, below `Clavicle_L`; `Ankle_L` the foot. */
export function synty(): HumanoidNames {
  return {
    root: "Root",
    pelvis: "Hips",
    spine: ["Spine_01", "Spine_02", "Spine_03"],
    neck: ["Neck"],
    head: "Head",
    side: (s) => {
      const n = (base: string): string => `${base}_${s}`;
      return {
        clavicle: n("Clavicle"),
        upperArm: n("Shoulder"),
        forearm: n("Elbow"),
        hand: n("Hand"),
        thigh: n("UpperLeg"),
        calf: n("LowerLeg"),
        foot: n("Ankle"),
        toe: n("Ball"),
        toeEnd: n("Toes"),
      };
    },
  };
}

/** Xsens MVN: a spine named for its vertebrae (`L5`, `L3`, `T12`, `T8`), limbs in words. */
export function xsens(): HumanoidNames {
  return {
    pelvis: "Pelvis",
    spine: ["L5", "L3", "T12", "T8"],
    neck: ["Neck"],
    head: "Head",
    side: (s) => {
      const n = (base: string): string => `${s === "L" ? "Left" : "Right"}${base}`;
      return {
        clavicle: n("Shoulder"),
        upperArm: n("UpperArm"),
        forearm: n("ForeArm"),
        hand: n("Hand"),
        thigh: n("UpperLeg"),
        calf: n("LowerLeg"),
        foot: n("Foot"),
        toe: n("Toe"),
      };
    },
  };
}

/** Generic side markers on otherwise plain names. */
export function sideMarked(mark: (base: string, s: Side) => string): HumanoidNames {
  return {
    pelvis: "Pelvis",
    spine: ["Spine1", "Spine2"],
    neck: ["Neck"],
    head: "Head",
    side: (s): SideNames => {
      const n = (base: string): string => mark(base, s);
      return {
        clavicle: n("Clavicle"),
        upperArm: n("UpperArm"),
        forearm: n("Forearm"),
        hand: n("Hand"),
        thigh: n("Thigh"),
        calf: n("Calf"),
        foot: n("Foot"),
        toe: n("Toe"),
      };
    },
  };
}

/** Names that say nothing (Bone_000…): every bone numbered, same numbers on both sides' slots. */
export function meaningless(): HumanoidNames {
  let next = 0;
  const id = (): string => `Bone_${String(next++).padStart(3, "0")}`;
  const central = { pelvis: id(), spine: [id(), id(), id()], neck: [id()], head: id(), headEnd: id() };
  const sides = new Map<Side, SideNames>();
  for (const s of ["L", "R"] as const) {
    sides.set(s, {
      eye: id(),
      clavicle: id(),
      upperArm: id(),
      forearm: id(),
      hand: id(),
      fingers: [
        [id(), id(), id()],
        [id(), id(), id()],
        [id(), id(), id()],
      ],
      thigh: id(),
      calf: id(),
      foot: id(),
      toe: id(),
      toeEnd: id(),
    });
  }
  return { ...central, side: (s) => sides.get(s)! };
}

/**
 * MikuMikuDance's English names as converters write them without the waist and its helpers: `Waist` →
 * `UpperBody`/`LowerBody`, `LeftLeg` → `LeftKnee` → `LeftAnkle` (the thigh named like Mixamo's calf) and
 * `LeftShoulder` → `LeftArm` → `LeftElbow` → `LeftWrist`; `sep` "" or "." for Blender's translation (`Leg.L`).
 */
export function mmdEnglish(blenderSides = false): HumanoidNames {
  return {
    root: "ParentNode",
    pelvis: "Waist",
    spine: ["UpperBody", "UpperBody2"],
    neck: ["Neck"],
    head: "Head",
    thighRoot: "LowerBody",
    side: (s) => {
      const n = (base: string): string => (blenderSides ? `${base}.${s}` : `${s === "L" ? "Left" : "Right"}${base}`);
      return {
        clavicle: n("Shoulder"),
        upperArm: n("Arm"),
        forearm: n("Elbow"),
        hand: n("Wrist"),
        thigh: n("Leg"),
        calf: n("Knee"),
        foot: n("Ankle"),
        toe: n("Toe"),
        eye: n("Eye"),
      };
    },
  };
}

/** `Thigh_L` → `Leg_L` → `Foot_L` with a `Knee_L` corrective hanging from the calf: a thigh by name keeps `Leg_L` the calf. */
export function kneeCorrective(): HumanoidNames {
  const names = sideMarked((base, s) => `${base}_${s}`);
  return { ...names, side: (s) => ({ ...names.side(s), calf: `Leg_${s}`, calfTwist: `Knee_${s}` }) };
}

/**
 * Roblox R15, as a skinned avatar's joints: `Root` → `HumanoidRootNode` → `LowerTorso` (the pelvis) → `UpperTorso`;
 * `LeftUpperArm` → `LeftLowerArm` → `LeftHand` on the upper torso, `LeftUpperLeg` → `LeftLowerLeg` → `LeftFoot` on the
 * lower one; no clavicles, neck or toes. Names: Roblox's `BodyPartR15` enum (create.roblox.com/docs/reference/engine/
 * enums/BodyPartR15); `Root` and `HumanoidRootNode` from public R15 tooling's joint lists (R15_STANDARD_JOINT_NAMES).
 */
export function robloxR15(): HumanoidNames {
  return {
    top: "Root",
    root: "HumanoidRootNode",
    pelvis: "LowerTorso",
    spine: ["UpperTorso"],
    head: "Head",
    side: (s) => {
      const n = (base: string): string => `${word(s)}${base}`;
      return {
        upperArm: n("UpperArm"),
        forearm: n("LowerArm"),
        hand: n("Hand"),
        thigh: n("UpperLeg"),
        calf: n("LowerLeg"),
        foot: n("Foot"),
      };
    },
  };
}

/**
 * Godot's SkeletonProfileHumanoid (docs.godotengine.org, class_skeletonprofilehumanoid): `Root` → `Hips`, `Spine` →
 * `Chest` → `UpperChest`, `LeftUpperArm` → `LeftLowerArm`, `LeftToes`, fingers `LeftThumbMetacarpal` … `LeftIndexDistal`.
 */
export function godotHumanoid(): HumanoidNames {
  const names = vrm1(true);
  return {
    ...names,
    root: "Root",
    side: (s) => ({
      ...names.side(s),
      fingers: [
        ["ThumbMetacarpal", "ThumbProximal", "ThumbDistal"].map((f) => `${word(s)}${f}`),
        ["IndexProximal", "IndexIntermediate", "IndexDistal"].map((f) => `${word(s)}${f}`),
      ],
    }),
  };
}

/**
 * Meshy's auto-rig: Mixamo's limb names without a prefix, the spine numbered from the chest down (`Hips` → `Spine02`
 * → `Spine01` → `Spine`), a lowercase `neck`, `head_end`. Names and hierarchy from public projects' bone dumps of
 * Meshy rigs (Unity/Godot paths `Hips/Spine02/Spine01/Spine/neck/Head/head_end`, 24 bones).
 */
export function meshy(): HumanoidNames {
  const names = mixamo("");
  return {
    ...names,
    spine: ["Spine02", "Spine01", "Spine"],
    neck: ["neck"],
    headEnd: "head_end",
    side: (s) => ({ ...names.side(s), fingers: undefined, toeEnd: undefined, eye: undefined }),
  };
}

/**
 * Character Creator 4's names without the `CC_Base_` prefix (`Hip` → `Pelvis` → `L_Thigh`, `L_Upperarm`), as in Epic's
 * IK Rig auto-characterizer template "Reallusion Character Creator 4" (TLLRN_IKRigAutoCharacterizer.cpp) and, per a
 * public Tripo client (its `LEGACY_BIPED_PAIRED_BONES`), Tripo's v1.0 biped rig.
 */
export function characterCreatorUnprefixed(): HumanoidNames {
  const cc = characterCreator();
  const strip = (name: string): string => name.replace("CC_Base_", "");
  return {
    root: "BoneRoot",
    pelvis: strip(cc.pelvis),
    thighRoot: strip(cc.thighRoot!),
    spine: cc.spine.map(strip),
    neck: cc.neck!.map(strip),
    head: strip(cc.head!),
    side: (s) => {
      const n = cc.side(s);
      return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, strip(v as string)])) as unknown as SideNames;
    },
  };
}

/** ActorCore / iClone exports: Character Creator's `CC_Base_` bones under `RL_BoneRoot` (Reallusion's tools' scripts). */
export function actorCore(): HumanoidNames {
  return { ...characterCreator(), root: "RL_BoneRoot" };
}

/**
 * Sony mocopi: `root` is the pelvis (the thighs and `torso_1` hang from it), `torso_1` … `torso_7`, `l_up_arm` →
 * `l_low_arm` → `l_hand`, `l_up_leg` → `l_low_leg` → `l_foot` → `l_toes`, `_End` leaves. Epic's IK Rig template
 * "Sony Mocopi" (TLLRN_IKRigAutoCharacterizer.cpp).
 */
export function mocopi(): HumanoidNames {
  return {
    pelvis: "root",
    spine: [1, 2, 3, 4, 5, 6, 7].map((i) => `torso_${i}`),
    neck: ["neck_1", "neck_2"],
    head: "head",
    headEnd: "head_End",
    side: (s) => {
      const n = (base: string): string => `${s.toLowerCase()}_${base}`;
      return {
        clavicle: n("shoulder"),
        upperArm: n("up_arm"),
        forearm: n("low_arm"),
        hand: n("hand"),
        handEnd: n("hand_End"),
        thigh: n("up_leg"),
        calf: n("low_leg"),
        foot: n("foot"),
        toe: n("toes"),
        toeEnd: n("toes_End"),
      };
    },
  };
}

/**
 * Maya AdvancedSkeleton: `_M` on centre bones, `Root_M` the pelvis, the thigh `Hip_L` above `Knee_L` → `Ankle_L`, the
 * clavicle `Scapula_L` above the upper arm `Shoulder_L` → `Elbow_L` → `Wrist_L`, and twist joints `HipPart1_L`,
 * `ShoulderPart1_L`, `RootPart1_M` in line. Epic's IK Rig template "Advanced Skeleton"
 * (TLLRN_IKRigAutoCharacterizer.cpp); use with `inlineTwist`.
 */
export function advancedSkeleton(): HumanoidNames {
  return {
    pelvis: "Root_M",
    spine: ["RootPart1_M", "Spine1_M", "Spine1Part1_M", "Chest_M"],
    neck: ["Neck_M", "NeckPart1_M"],
    head: "Head_M",
    side: (s) => {
      const n = (base: string): string => `${base}_${s}`;
      return {
        clavicle: n("Scapula"),
        upperArm: n("Shoulder"),
        upperTwist: n("ShoulderPart1"),
        forearm: n("Elbow"),
        foreTwist: n("ElbowPart1"),
        hand: n("Wrist"),
        fingers: [[n("MiddleFinger1"), n("MiddleFinger2"), n("MiddleFinger3")]],
        thigh: n("Hip"),
        thighTwist: n("HipPart1"),
        calf: n("Knee"),
        foot: n("Ankle"),
        toe: n("Toes"),
      };
    },
  };
}

/**
 * SMPL's joints (`L_Hip` → `L_Knee` → `L_Ankle` → `L_Foot`, `L_Collar` → `L_Shoulder` → `L_Elbow` → `L_Wrist` →
 * `L_Hand`) or SMPL-X's (`left_hip`, `left_collar`, …): the thigh named for the hip joint, the upper arm for the
 * shoulder; SMPL-X's eyes `left_eye_smplhf` on the head (beside its `jaw`). Names: SMPL_JOINT_NAMES /
 * SMPLX_JOINT_NAMES in zhuoyue725/torch-mesh-isect utils/SMPLX2SMPL.py (smplx's JOINT_NAMES[:55]); the hierarchy is
 * SMPL's kinematic tree.
 */
export function smpl(x: boolean): HumanoidNames {
  const c = (name: string): string => (x ? name.toLowerCase() : name);
  return {
    pelvis: c("Pelvis"),
    spine: ["Spine1", "Spine2", "Spine3"].map(c),
    neck: [c("Neck")],
    head: c("Head"),
    side: (s) => {
      const n = (base: string): string =>
        x ? `${s === "L" ? "left" : "right"}_${base.toLowerCase()}` : `${s}_${base}`;
      return {
        clavicle: n("Collar"),
        upperArm: n("Shoulder"),
        forearm: n("Elbow"),
        hand: n("Wrist"),
        handEnd: x ? undefined : n("Hand"),
        thigh: n("Hip"),
        calf: n("Knee"),
        foot: n("Ankle"),
        toe: n("Foot"),
        eye: x ? `${s === "L" ? "left" : "right"}_eye_smplhf` : undefined,
      };
    },
  };
}

/**
 * Move.ai (Move One): Mixamo's names under `Root`, `palm_01_L` … metacarpals between the hand and the fingers (named
 * like a hand), `heel_02_L` beside the toes. Epic's IK Rig template "Move One" (TLLRN_IKRigAutoCharacterizer.cpp).
 */
export function moveOne(): HumanoidNames {
  const names = mixamo("");
  return {
    ...names,
    root: "Root",
    spine: ["Spine", "Spine1"],
    headEnd: "Head_end",
    side: (s) => ({
      ...names.side(s),
      fingers: [
        [`palm_01_${s}`, `${word(s)}HandIndex1`, `${word(s)}HandIndex2`, `${word(s)}HandIndex3`],
        [`palm_02_${s}`, `${word(s)}HandMiddle1`, `${word(s)}HandMiddle2`, `${word(s)}HandMiddle3`],
      ],
      toeEnd: `heel_02_${s}`,
      eye: undefined,
    }),
  };
}

/**
 * Qualisys: Mixamo's names under `Reference`, `LeftForeArmRoll` in line before the hand, `LeftInHandIndex` metacarpals,
 * `_end` leaves. Epic's IK Rig template "Qualisys" (TLLRN_IKRigAutoCharacterizer.cpp); use with `inlineTwist`.
 */
export function qualisys(): HumanoidNames {
  const names = mixamo("");
  return {
    ...names,
    root: "Reference",
    headEnd: "Head_end",
    side: (s) => ({
      ...names.side(s),
      foreTwist: `${word(s)}ForeArmRoll`,
      handEnd: `${word(s)}Hand_end`,
      fingers: [[`${word(s)}InHandIndex`, `${word(s)}HandIndex1`, `${word(s)}HandIndex2`, `${word(s)}HandIndex3`]],
      toeEnd: `${word(s)}ToeBase_end`,
      eye: undefined,
    }),
  };
}

/** Every name with `.001` appended, as Blender renames the bones of a rig joined into an armature holding them. */
export function blenderDuplicate(names: HumanoidNames): HumanoidNames {
  return renamed(names, (name) => `${name}.001`);
}

/**
 * mGear (Maya): `_jnt` on every joint, `C0` centre and `L0` side components (`arm_L0_upperarm_jnt`,
 * `leg_L0_thigh_jnt`, `spine_C0_pelvis_jnt`, `neck_C0_head_jnt`, `shoulder_L0_0_jnt` the clavicle, `foot_L0_ball_jnt`).
 * Epic's IK Rig template "mGear" (TLLRN_IKRigAutoCharacterizer.cpp).
 */
export function mGear(): HumanoidNames {
  return {
    root: "root_C0_0_jnt",
    pelvis: "spine_C0_pelvis_jnt",
    spine: [1, 2, 3, 4, 5].map((i) => `spine_C0_0${i}_jnt`),
    neck: ["neck_C0_01_jnt", "neck_C0_02_jnt"],
    head: "neck_C0_head_jnt",
    side: (s) => {
      const n = (part: string, base: string): string => `${part}_${s}0_${base}_jnt`;
      return {
        clavicle: n("shoulder", "0"),
        upperArm: n("arm", "upperarm"),
        forearm: n("arm", "lowerarm"),
        hand: n("arm", "hand"),
        fingers: [
          [n("thumb", "0"), n("thumb", "1"), n("thumb", "2")],
          [n("meta", "0"), n("finger", "0"), n("finger", "1"), n("finger", "2")],
        ],
        thigh: n("leg", "thigh"),
        calf: n("leg", "calf"),
        foot: n("leg", "foot"),
        toe: n("foot", "ball"),
      };
    },
  };
}

/**
 * Tripo's v2.x auto-rig: `tripo::Root`, `tripo::Spine_0` … , `tripo::Head_0` (the neck) → `tripo::Head_1` (the head),
 * and limbs named only by a row, a side and a depth, `tripo::<row>_<Left|Right>_Limb_<n>`: a leg `Limb_0` … `Limb_3`
 * (thigh, calf, foot, toe), an arm whose `Limb_2` is the hand. Which row holds the legs varies between rigs (row 0 the
 * legs in one, the arms in another), so nothing in the names tells an arm from a leg. Sources: public Tripo clients'
 * validators ("v2.x rigs use tripo::<row>_<side>_Limb_<n> chains", `^tripo::0_(Left|Right)_Limb_[0-3]$` "four-bone
 * leg chains"), a three.js skeleton profile "hero-v5r-tripo-v25" (neck `tripo::Head_0`, head `tripo::Head_1`, legs
 * `Limb_0` … `Limb_3` thigh to toe) and a character sheet naming the right hand `tripo::0_Right_Limb_2`; the canine
 * profile there hangs the rear legs from `tripo::Root`, as this does (`{ thighsFrom: "spine" }`: from `Spine_0`).
 */
export function tripoV2(legRow: 0 | 1): HumanoidNames {
  const armRow = 1 - legRow;
  return {
    pelvis: "tripo::Root",
    spine: [0, 1, 2, 3].map((i) => `tripo::Spine_${i}`),
    neck: ["tripo::Head_0"],
    head: "tripo::Head_1",
    side: (s) => {
      const arm = (i: number): string => `tripo::${armRow}_${word(s)}_Limb_${i}`;
      const leg = (i: number): string => `tripo::${legRow}_${word(s)}_Limb_${i}`;
      return {
        upperArm: arm(0),
        forearm: arm(1),
        hand: arm(2),
        handEnd: arm(3),
        thigh: leg(0),
        calf: leg(1),
        foot: leg(2),
        toe: leg(3),
      };
    },
  };
}
