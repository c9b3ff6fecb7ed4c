/**
 * Bad rigs: each either works (hands reach reachable targets within 1 % of the character's size, every
 * bone finite) or throws an FBBIKError naming the problem and the bones considered, attaching nothing.
 * Synthetic rigs are built twice: as TransformNodes linked to bones (as glTF loads) and as plain Bones.
 * Every row is checked against docs/ROBUSTNESS.md (section "rigs").
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK, type FullBodyBipedIKOptions } from "../../src/babylon/full-body-biped-ik.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type LoadedModel, MODELS, type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { Random } from "../helpers/random.js";
import { boneWorldPosition, bonesFinite, characterSize, reachHandTargets } from "./common.js";
import { ReportSection, bound, staleMessage } from "./report.js";
import { type BuiltRig, type Placement, RigSpec, buildRig } from "./rig-builder.js";

const report = new ReportSection("rigs");
const TARGETS = 8;
const open: { dispose(): void }[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

type Build = "linked" | "plain";
interface Works {
  /** Each must match one warning raised at create. */
  warnings?: RegExp[];
  /** Words for the table about what the warnings say. */
  warned?: string;
  /** Extra checks; returns words for the table. */
  extra?: (ik: FullBodyBipedIK, rig: BuiltRig, size: number) => string;
}
interface Throws {
  /** Each must match the error's message (the problem and the bones considered). */
  throws: RegExp[];
}
interface RigCase {
  what: string;
  spec: () => RigSpec;
  /** The armature node (linked) or the skinned mesh (plain bones) is placed so. */
  placement?: Placement;
  builds?: Build[];
  /** Changes the built rig before the IK is created. */
  after?: (rig: BuiltRig) => void;
  /** Built in a left-handed scene (default right-handed: the synthetic biped's data is glTF's convention). */
  leftHandedScene?: boolean;
  options?: FullBodyBipedIKOptions;
  expect: Works | Throws;
}

const biped = (o?: Parameters<typeof RigSpec.biped>[0]) => RigSpec.biped(o);
const at = (s: RigSpec, name: string): Vector3 => s.joints[s.index(name)]!.position.clone();
const rot = (axis: Vector3, angle: number) => Quaternion.RotationAxis(axis, angle);

/** Which side of the limb line (first → last bone) the middle bone lies on, along `dir`. */
function bendAlong(worldPos: (b: Bone) => Vector3, bones: [Bone, Bone, Bone], dir: Vector3): number {
  const [a, b, c] = bones.map(worldPos) as [Vector3, Vector3, Vector3];
  const axis = c.subtract(a).normalize();
  const ab = b.subtract(a);
  const off = ab.subtract(axis.scale(Vector3.Dot(ab, axis)));
  return Vector3.Dot(off, dir);
}

/**
 * From the rest pose: brings the hands 40 % of the way to the chest and lifts the feet by 15 % of the
 * size, then says how far elbows and knees moved along the character's forward (from the heels to the
 * toes, square to the pelvis → head line), over the size.
 */
function bendDirections(
  ik: FullBodyBipedIK,
  render: () => void,
  worldPos: (b: Bone) => Vector3,
  size: number,
): { elbows: number[]; knees: number[] } {
  const r = ik.references;
  for (const e of ik.solver.effectors) e.positionWeight = 0;
  render();
  const up = worldPos(r.head ?? r.spine[r.spine.length - 1]!)
    .subtract(worldPos(r.pelvis))
    .normalize();
  const toe = r.leftFoot.children[0]!;
  const heelToe = worldPos(toe).subtract(worldPos(r.leftFoot));
  const forward = heelToe.subtract(up.scale(Vector3.Dot(heelToe, up))).normalize();
  const chest = worldPos(r.spine[r.spine.length - 1]!);
  for (const [e, hand] of [
    [ik.solver.leftHandEffector, r.leftHand],
    [ik.solver.rightHandEffector, r.rightHand],
  ] as const) {
    e.position.copyFrom(Vector3.Lerp(worldPos(hand), chest, 0.4));
    e.positionWeight = 1;
  }
  for (const [e, foot] of [
    [ik.solver.leftFootEffector, r.leftFoot],
    [ik.solver.rightFootEffector, r.rightFoot],
  ] as const) {
    e.position.copyFrom(worldPos(foot).add(up.scale(0.15 * size)));
    e.positionWeight = 1;
  }
  render();
  const out = {
    elbows: [
      bendAlong(worldPos, [r.leftUpperArm, r.leftForearm, r.leftHand], forward),
      bendAlong(worldPos, [r.rightUpperArm, r.rightForearm, r.rightHand], forward),
    ].map((x) => x / size),
    knees: [
      bendAlong(worldPos, [r.leftThigh, r.leftCalf, r.leftFoot], forward),
      bendAlong(worldPos, [r.rightThigh, r.rightCalf, r.rightFoot], forward),
    ].map((x) => x / size),
  };
  for (const e of ik.solver.effectors) e.positionWeight = 0;
  render();
  return out;
}

/** Short words for the warnings raised at create. */
function warningWords(ik: FullBodyBipedIK): string {
  const words = new Set<string>();
  for (const w of ik.warningsRaised) {
    const m = /(left|right) (arm|leg) .*straight|The (left|right) (arm|leg) is completely straight/i.exec(w.message);
    words.add(m ? `${m[1] ?? m[3]} ${m[2] ?? m[4]} straight at attach`.toLowerCase() : w.cause);
  }
  return words.size === 0 ? "no warnings" : `warns: ${[...words].join(", ")}`;
}

const side = (xs: number[], pos: string, neg: string): string => {
  if (xs.every((x) => x > 0.01)) return pos;
  if (xs.every((x) => x < -0.01)) return neg;
  return "mixed";
};

const CASES: RigCase[] = [
  { what: "well-formed synthetic biped (control)", spec: () => biped(), expect: {} },
  // --- missing bones
  {
    what: "no head bone (neck kept)",
    spec: () => biped().remove("Head", "HeadTop"),
    expect: { warnings: [/no bone named like a head; the head is Neck/], warned: "the neck is taken as the head" },
  },
  {
    what: "no head and no neck",
    spec: () => biped().remove("Neck", "Head", "HeadTop"),
    expect: { warnings: [/no head found above Chest/], warned: "no head: head mapping off" },
    // the head mapping is absent: nothing to keep
  },
  { what: "no neck (head on the chest)", spec: () => biped().remove("Neck"), expect: {} },
  {
    what: "no clavicles (upper arms on the chest)",
    spec: () => biped().remove("Clavicle.L", "Clavicle.R"),
    expect: {},
  },
  {
    what: "no feet (legs end at the calves)",
    spec: () => biped().removeSubtree("Foot.L").removeSubtree("Foot.R"),
    expect: { throws: [/no left foot found/, /Thigh\.L → Calf\.L/, /no right foot found/, /Thigh\.R → Calf\.R/] },
  },
  {
    what: "no feet, toes on the calves",
    spec: () => biped().remove("Foot.L", "Foot.R"),
    expect: { throws: [/no left foot found/, /Toe\.L \(named like a toe\)/, /no right foot found/] },
  },
  {
    what: "no hands (arms end at the forearms)",
    spec: () => biped().removeSubtree("Hand.L").removeSubtree("Hand.R"),
    expect: { throws: [/no left hand found/, /UpperArm\.L → Forearm\.L/, /no right hand found/] },
  },
  {
    what: "no thigh on the left (calf on the hips)",
    spec: () => biped().remove("Thigh.L"),
    expect: { throws: [/left leg|left thigh/, /Calf\.L/] },
  },
  {
    what: "no spine bones (arms on the hips)",
    spec: () => biped().remove("Spine", "Chest"),
    expect: { throws: [/no spine found/, /Hips/] },
  },
  // --- spine length
  { what: "a single spine bone", spec: () => biped().remove("Chest"), expect: {} },
  {
    what: "ten spine bones",
    spec: () => {
      const s = biped();
      for (let i = 1; i <= 8; i++) s.insertAbove("Chest", `Spine${i}`, 0.5);
      return s;
    },
    expect: { extra: (ik) => `spine of ${ik.references.spine.length} bones` },
  },
  // --- extra bones in the limbs
  {
    what: "twist bones in line (upper arm → twist → forearm → twist → hand)",
    spec: () =>
      biped()
        .insertAbove("Forearm.L", "UpperArmTwist.L")
        .insertAbove("Forearm.R", "UpperArmTwist.R")
        .insertAbove("Hand.L", "ForearmTwist.L")
        .insertAbove("Hand.R", "ForearmTwist.R"),
    expect: {
      extra: (ik) =>
        `arm ${[ik.references.leftUpperArm, ik.references.leftForearm, ik.references.leftHand].map((b) => b.name).join(" → ")}`,
    },
  },
  {
    what: "twist bones as leaves of the upper arms and thighs",
    spec: () =>
      biped()
        .addLeaf("UpperArm.L", "UpperArmTwist.L")
        .addLeaf("UpperArm.R", "UpperArmTwist.R")
        .addLeaf("Thigh.L", "ThighTwist.L")
        .addLeaf("Thigh.R", "ThighTwist.R"),
    expect: {},
  },
  {
    what: "unnamed extra bones in the limbs (Bone.001 before each hand and foot, two in the left upper arm)",
    spec: () =>
      biped()
        .insertAbove("Hand.L", "Bone.001")
        .insertAbove("Hand.R", "Bone.002")
        .insertAbove("Foot.L", "Bone.003")
        .insertAbove("Foot.R", "Bone.004")
        .insertAbove("Forearm.L", "Bone.005", 0.3)
        .insertAbove("Forearm.L", "Bone.006", 0.6),
    expect: {
      extra: (ik) =>
        `leg ${[ik.references.leftThigh, ik.references.leftCalf, ik.references.leftFoot].map((b) => b.name).join(" → ")}`,
    },
  },
  // --- names
  {
    what: "duplicate names on unrelated bones (both fingers named Finger)",
    spec: () => biped().rename("Finger.L", "Finger").rename("Finger.R", "Finger"),
    expect: {},
  },
  {
    what: "duplicate limb names (the right hand also named Hand.L)",
    spec: () => biped().rename("Hand.R", "Hand.L"),
    expect: {
      warnings: [/right arm UpperArm\.R → Forearm\.R → Hand\.L was found from the hierarchy's shape/],
      warned: "the right hand is taken from the hierarchy",
    },
  },
  {
    what: "every bone named Bone",
    spec: () => biped().renameAll(() => "Bone"),
    expect: { extra: () => "detected from the hierarchy's shape" },
  },
  {
    what: "a reference given by a name several bones share",
    spec: () => biped().rename("Finger.L", "Finger").rename("Finger.R", "Finger"),
    options: { references: { leftHand: "Finger" } },
    expect: { throws: [/leftHand: 2 bones are named "Finger"/, /below Hand\.L/, /below Hand\.R/] },
  },
  {
    what: "the root node given by a name several bones share",
    spec: () => biped().renameAll(() => "Bone"),
    options: { rootNode: "Bone" },
    expect: { throws: [/rootNode: \d+ bones are named "Bone"/, /pass the Bone itself/] },
  },
  // --- zero lengths
  {
    what: "zero-length upper arm (forearm at the shoulder)",
    spec: () => {
      const s = biped();
      return s.moveTo("Forearm.L", at(s, "UpperArm.L"));
    },
    expect: { throws: [/zero-length bone in the left arm/, /UpperArm\.L and Forearm\.L/] },
  },
  {
    what: "zero-length calf (foot at the knee)",
    spec: () => {
      const s = biped();
      return s.moveTo("Foot.R", at(s, "Calf.R"));
    },
    expect: { throws: [/zero-length bone in the right leg/, /Calf\.R and Foot\.R/] },
  },
  {
    what: "zero-length first spine bone (VRM 0.x: tummy at the pelvis)",
    spec: () => {
      const s = biped()
        .rename("Hips", "pelvis_Armature")
        .rename("Spine", "tummy_Armature")
        .rename("Chest", "chest_Armature");
      return s.moveTo("tummy_Armature", at(s, "pelvis_Armature"));
    },
    expect: {
      warnings: [
        /zero-length bone in the spine: tummy_Armature is at the same position as pelvis_Armature; it was left out of the spine/,
      ],
      warned: "the zero-length spine bone is left out of the spine",
      extra: (ik) => `spine ${ik.references.spine.map((b) => b.name).join(", ")}`,
    },
  },
  {
    what: "zero-length bone outside the biped (toe at the ankle)",
    spec: () => {
      const s = biped();
      return s.moveTo("Toe.L", at(s, "Foot.L"));
    },
    expect: {},
  },
  {
    what: "zero-length clavicle (upper arm at the clavicle)",
    spec: () => {
      const s = biped();
      return s.moveTo("UpperArm.L", at(s, "Clavicle.L"));
    },
    expect: {},
  },
  // --- poses at attach
  {
    what: "T-pose with locked elbows and knees (limbs perfectly straight)",
    spec: () => biped({ elbowBend: 0, kneeBend: 0 }),
    builds: ["linked", "plain"],
    expect: {
      warnings: [
        /The left arm is completely straight/,
        /The right arm is completely straight/,
        /The left leg is completely straight/,
        /The right leg is completely straight/,
      ],
      warned: "each straight limb warned",
      extra: (ik, rig, size) => {
        const d = bendDirections(ik, () => rig.scene.render(), rig.worldPos, size);
        expect(side(d.elbows, "forward", "back")).toBe("back");
        expect(side(d.knees, "forward", "back")).toBe("forward");
        return "from the default bend directions: elbows bend back, knees forward";
      },
    },
  },
  {
    what: "knees bent backward (inverted) at attach",
    spec: () => biped({ kneeBend: -20 }),
    expect: {
      extra: (ik, rig, size) => {
        const d = bendDirections(ik, () => rig.scene.render(), rig.worldPos, size);
        // a knee driven by its foot effector is kept on its natural side whatever the attach pose
        expect(side(d.knees, "forward", "backward")).toBe("forward");
        return `knees bend ${side(d.knees, "forward", "backward")} when the feet are driven: the natural-side limit turns the attach pose's inverted bend`;
      },
    },
  },
  {
    what: "elbows bent forward (inverted) at attach",
    spec: () => biped({ elbowBend: -20 }),
    expect: {
      extra: (ik, rig, size) => {
        const d = bendDirections(ik, () => rig.scene.render(), rig.worldPos, size);
        // a hand driven by its effector keeps the elbow on its natural side whatever the attach pose
        expect(side(d.elbows, "forward", "back")).toBe("back");
        return `elbows bend ${side(d.elbows, "forward", "back")} when the hands are driven: the natural-side limit turns the attach pose's inverted bend`;
      },
    },
  },
  // --- placement
  {
    what: "non-uniform scale (1, 1.5, 0.7) on the armature / mesh",
    spec: () => biped(),
    placement: { scaling: new Vector3(1, 1.5, 0.7) },
    expect: {},
  },
  {
    what: "non-uniform scale (1, 1.5, 0.7) on a turned armature / mesh",
    spec: () => biped(),
    placement: { scaling: new Vector3(1, 1.5, 0.7), rotation: rot(Vector3.Up(), 0.6), position: new Vector3(3, 0, -2) },
    expect: {},
  },
  {
    what: "facing −Z: armature / mesh turned 180°",
    spec: () => biped(),
    placement: { rotation: rot(Vector3.Up(), Math.PI) },
    expect: {},
  },
  { what: "facing −Z in the bone data", spec: () => biped().transform(rot(Vector3.Up(), Math.PI)), expect: {} },
  {
    what: "Z-up export (up +Z, facing −Y) stood up by an armature rotated −90° about X",
    spec: () => biped().transform(rot(Vector3.Right(), Math.PI / 2)),
    placement: { rotation: rot(Vector3.Right(), -Math.PI / 2) },
    expect: {},
  },
  {
    what: "Z-up export left lying face down (no armature rotation)",
    spec: () => biped().transform(rot(Vector3.Right(), Math.PI / 2)),
    expect: {},
  },
  {
    what: "lying on its back (up −Z, facing +Y)",
    spec: () => biped().transform(rot(Vector3.Right(), -Math.PI / 2)),
    expect: {},
  },
  {
    what: "Mixamo-like: bone data in centimetres, Z-up, under an armature ×0.01 rotated −90° about X",
    spec: () => biped().transform(rot(Vector3.Right(), Math.PI / 2), 100),
    placement: { rotation: rot(Vector3.Right(), -Math.PI / 2), scaling: new Vector3(0.01, 0.01, 0.01) },
    expect: {},
  },
  {
    what: "tiny: 0.01 m tall in the bone data",
    spec: () => biped().transform(Quaternion.Identity(), 0.01 / 1.75),
    expect: {},
  },
  {
    what: "huge: 100 m tall in the bone data",
    spec: () => biped().transform(Quaternion.Identity(), 100 / 1.75),
    expect: {},
  },
  {
    what: "tiny: 0.01 m tall by the armature / mesh scale",
    spec: () => biped(),
    placement: { scaling: new Vector3(1, 1, 1).scale(0.01 / 1.75) },
    expect: {},
  },
  {
    what: "huge: 100 m tall by the armature / mesh scale",
    spec: () => biped(),
    placement: { scaling: new Vector3(1, 1, 1).scale(100 / 1.75) },
    expect: {},
  },
  {
    what: "mirrored armature / mesh (scale −1 on X)",
    spec: () => biped(),
    placement: { scaling: new Vector3(-1, 1, 1) },
    expect: {
      warnings: [
        /the arm named left \(UpperArm\.L → Forearm\.L → Hand\.L\) lies on the character's right .*the character is mirrored in its frame \(left-handed: .*\); the names were kept \(give the limbs in `references` to choose otherwise\)/,
      ],
      warned: "the character is mirrored; the names are kept",
    },
  },
  {
    what: "the same data in a left-handed scene (without glTF's mirroring root: the character's mirror image)",
    spec: () => biped(),
    leftHandedScene: true,
    expect: {
      warnings: [
        /the leg named left \(Thigh\.L → Calf\.L → Foot\.L\) lies on the character's right .*the character is mirrored in its frame \(left-handed: .*\); the names were kept/,
      ],
      warned: "the character is mirrored; the names are kept",
    },
  },
  {
    what: "the same data in a left-handed scene under a glTF-like mirroring root (scale −1 on Z, turned 180°)",
    spec: () => biped(),
    leftHandedScene: true,
    placement: { scaling: new Vector3(1, 1, -1), rotation: rot(Vector3.Up(), Math.PI) },
    expect: {},
  },
  // (rows added later go last: each row's random targets are seeded by its index)
  {
    what: "zero-length spine bone below the chest (spine at the chest)",
    spec: () => {
      const s = biped();
      return s.moveTo("Spine", at(s, "Chest"));
    },
    expect: {
      warnings: [/zero-length bone in the spine: Spine is at the same position as Chest; it was left out of the spine/],
      warned: "the zero-length spine bone is left out of the spine",
      extra: (ik) => `spine ${ik.references.spine.map((b) => b.name).join(", ")}`,
    },
  },
  {
    what: "zero-length spine bone given in references (spine at the hips)",
    spec: () => {
      const s = biped();
      return s.moveTo("Spine", at(s, "Hips"));
    },
    options: { references: { spine: ["Spine", "Chest"] } },
    expect: {
      warnings: [/zero-length bone in the spine: Spine is at the same position as Hips; it was left out of the spine/],
      warned: "the zero-length spine bone is left out of the spine",
      extra: (ik) => `spine ${ik.references.spine.map((b) => b.name).join(", ")}`,
    },
  },
  {
    what: "a NaN rotation on the root bone",
    spec: () => biped(),
    after: (rig) => setRootLocal(rig, "rotation"),
    expect: { throws: [/bone 0 \(Root\) has no finite rotation/] },
  },
  {
    what: "a NaN position on the root bone",
    spec: () => biped(),
    after: (rig) => setRootLocal(rig, "position"),
    expect: { throws: [/bone 0 \(Root\) has no finite position/] },
  },
  {
    what: "zero-length spine: the only spine bone at the hips",
    spec: () => {
      const s = biped().remove("Spine");
      return s.moveTo("Chest", at(s, "Hips"));
    },
    expect: { throws: [/zero-length bone in the spine/, /Hips and Chest/] },
  },
  {
    what: "DAZ Genesis 8 (hip → pelvis → lThighBend → lThighTwist → lShin; lShldrBend → lShldrTwist → lForearmBend → lForearmTwist → lHand)",
    spec: () => {
      const s = biped().remove("HeadTop").insertAbove("Thigh.L", "pelvis", 0.2).reparent("Thigh.R", "pelvis");
      s.rename("Root", "Genesis8Female").rename("Hips", "hip").rename("Spine", "abdomenLower");
      s.insertAbove("Chest", "abdomenUpper").rename("Chest", "chestUpper").rename("Neck", "neckLower");
      s.rename("Head", "head");
      for (const side of ["L", "R"] as const) {
        const d = (base: string): string => `${side.toLowerCase()}${base}`;
        s.insertAbove(`Calf.${side}`, d("ThighTwist")).insertAbove(`Forearm.${side}`, d("ShldrTwist"));
        s.insertAbove(`Hand.${side}`, d("ForearmTwist"));
        const names: [string, string][] = [
          ["Thigh", "ThighBend"],
          ["Calf", "Shin"],
          ["Foot", "Foot"],
          ["Toe", "Toe"],
          ["Clavicle", "Collar"],
          ["UpperArm", "ShldrBend"],
          ["Forearm", "ForearmBend"],
          ["Hand", "Hand"],
          ["Finger", "Mid1"],
        ];
        for (const [from, to] of names) s.rename(`${from}.${side}`, d(to));
      }
      return s;
    },
    expect: { extra: thighsBelowPelvis },
  },
  {
    what: "Character Creator (CC_Base_Hip → CC_Base_Pelvis → thighs; the neck bones named CC_Base_NeckTwist01, 02)",
    spec: () => {
      const s = biped().remove("HeadTop").insertAbove("Thigh.L", "CC_Base_Pelvis", 0.2);
      s.reparent("Thigh.R", "CC_Base_Pelvis").insertAbove("Head", "CC_Base_NeckTwist02");
      s.rename("Root", "CC_Base_BoneRoot").rename("Hips", "CC_Base_Hip").rename("Spine", "CC_Base_Waist");
      s.rename("Chest", "CC_Base_Spine02").rename("Neck", "CC_Base_NeckTwist01").rename("Head", "CC_Base_Head");
      for (const side of ["L", "R"] as const) {
        s.addLeaf(`UpperArm.${side}`, `CC_Base_${side}_UpperarmTwist01`);
        s.addLeaf(`Thigh.${side}`, `CC_Base_${side}_ThighTwist01`);
        const names: [string, string][] = [
          ["Thigh", "Thigh"],
          ["Calf", "Calf"],
          ["Foot", "Foot"],
          ["Toe", "ToeBase"],
          ["Clavicle", "Clavicle"],
          ["UpperArm", "Upperarm"],
          ["Forearm", "Forearm"],
          ["Hand", "Hand"],
          ["Finger", "Mid1"],
        ];
        for (const [from, to] of names) s.rename(`${from}.${side}`, `CC_Base_${side}_${to}`);
      }
      return s;
    },
    expect: {
      extra: (ik, rig, size) => {
        const spine = ik.references.spine.map((b) => b.name).join(", ");
        return `spine ${spine}, head ${ik.references.head?.name}; ${thighsBelowPelvis(ik, rig, size)}`;
      },
    },
  },
];

/** With the thighs one bone below the pelvis: a foot raised and forward still reaches its target. */
function thighsBelowPelvis(ik: FullBodyBipedIK, rig: BuiltRig, size: number): string {
  const r = ik.references;
  const foot = ik.solver.leftFootEffector;
  const target = rig.worldPos(r.leftFoot).add(new Vector3(0, 0.1 * size, 0.1 * size));
  foot.position.copyFrom(target);
  foot.positionWeight = 1;
  rig.scene.render();
  const off = Vector3.Distance(rig.worldPos(r.leftFoot), target) / size;
  foot.positionWeight = 0;
  expect(off).toBeLessThan(0.01);
  const chains = [r.leftUpperArm, r.leftForearm, r.leftHand, r.leftThigh, r.leftCalf, r.leftFoot];
  return `pelvis ${r.pelvis.name}; ${chains.map((b) => b.name).join(", ")}; a raised foot within ${bound(off)}`;
}

/** Puts a NaN into the root bone's local rotation or position (its linked node's, or the plain Bone's). */
function setRootLocal(rig: BuiltRig, what: "rotation" | "position"): void {
  const bone = rig.skeleton.bones.find((b) => b.name === "Root")!;
  const node = bone.getTransformNode();
  if (what === "rotation") {
    const q = new Quaternion(Number.NaN, 0, 0, 1);
    if (node !== null) node.rotationQuaternion = q;
    else bone.setRotationQuaternion(q);
  } else if (node !== null) {
    node.position.x = Number.NaN;
  } else {
    bone.position = new Vector3(Number.NaN, 0, 0);
  }
}

const BUILD_WORDS: Record<Build, string> = { linked: "TransformNodes linked to bones", plain: "plain Bones" };

describe("synthetic bad rigs, as linked TransformNodes and as plain Bones", () => {
  CASES.forEach((c, index) => {
    it(c.what, () => {
      const builds = c.builds ?? (["linked", "plain"] as Build[]);
      const outcomes: string[] = [];
      let worst = 0;
      for (const build of builds) {
        const spec = c.spec();
        const rig = buildRig(spec, {
          linked: build === "linked",
          placement: c.placement,
          withMesh: build === "plain" && c.placement !== undefined,
          rightHanded: c.leftHandedScene !== true,
        });
        c.after?.(rig);
        open.push(rig);
        const validation = FullBodyBipedIK.validate(rig.skeleton, c.options);
        let ik: FullBodyBipedIK | null = null;
        let error: unknown = null;
        try {
          ik = FullBodyBipedIK.create(rig.scene, rig.skeleton, c.options);
        } catch (e) {
          error = e;
        }
        if ("throws" in c.expect) {
          expect(error, `${BUILD_WORDS[build]}: expected an FBBIKError`).toBeInstanceOf(FBBIKError);
          const message = (error as FBBIKError).message;
          for (const re of c.expect.throws) expect(message, BUILD_WORDS[build]).toMatch(re);
          // nothing half-built: no scene observers; validate says the same
          expect(rig.scene.onBeforeRenderTargetsRenderObservable.observers.length).toBe(0);
          expect(rig.scene.onBeforeAnimationsObservable.observers.length).toBe(0);
          expect(validation.problems).toEqual([...(error as FBBIKError).problems]);
          const first = (error as FBBIKError).problems[0]!;
          outcomes.push(
            `throws FBBIKError: "${first.length > 150 ? `${first.slice(0, 150)}…` : first}"${(error as FBBIKError).problems.length > 1 ? ` (+${(error as FBBIKError).problems.length - 1} more)` : ""}`,
          );
          continue;
        }
        if (error !== null) throw error;
        const works = c.expect;
        const warnings = ik!.warningsRaised.map((w) => w.message);
        for (const re of works.warnings ?? [])
          expect(
            warnings.some((w) => re.test(w)),
            `${BUILD_WORDS[build]}: a warning matching ${re} in:\n${warnings.join("\n")}`,
          ).toBe(true);
        if (works.warnings === undefined) expect(warnings, BUILD_WORDS[build]).toEqual([]);
        expect(validation.problems).toEqual([]);
        rig.scene.render();
        const size = characterSize(rig.skeleton, rig.worldPos);
        const { worst: w, finite } = reachHandTargets(
          ik!,
          () => rig.scene.render(),
          rig.worldPos,
          new Random(100 + index),
          TARGETS,
        );
        expect(finite, BUILD_WORDS[build]).toBe(true);
        expect(w / size, BUILD_WORDS[build]).toBeLessThan(0.01);
        worst = Math.max(worst, w / size);
        const extra = works.extra?.(ik!, rig, size);
        expect(bonesFinite(rig.skeleton)).toBe(true);
        const text = [`works${works.warnings ? `, warns (${works.warned ?? "see the test"})` : ""}`, extra]
          .filter(Boolean)
          .join("; ");
        outcomes.push(text);
        ik!.dispose();
      }
      const same = outcomes.every((o) => o === outcomes[0]);
      const outcome = same ? outcomes[0]! : builds.map((b, i) => `${BUILD_WORDS[b]}: ${outcomes[i]}`).join(" / ");
      const works = !("throws" in c.expect);
      report.add({
        what: c.what,
        cases: works ? `${builds.length} × ${TARGETS} targets` : builds.length,
        outcome: works ? `${outcome}; hands reach within ${bound(worst)} of the size, bones finite` : outcome,
      });
    });
  });
});

/** Real models: what they are, and what the table says about them. */
const MODELS_FILE = Object.fromEntries(Object.entries(MODELS).map(([k, v]) => [k, v.file])) as Record<
  ModelName,
  string
>;
const MODEL_CASES: { model: ModelName; what: string; transform?: (m: LoadedModel) => void; throws?: RegExp[] }[] = [
  { model: "Mannequin", what: "Mannequin (glTF, CC0)" },
  { model: "Superhero", what: "Superhero (glTF, Unreal naming, clavicles)" },
  { model: "Xbot", what: "Xbot (Mixamo: armature ×0.01 and rotated)" },
  { model: "Soldier", what: "Soldier (Mixamo, faces −Z)" },
  {
    model: "Mannequin",
    what: "Mannequin turned to lie on its back",
    transform: (m) => {
      m.root.rotationQuaternion = rot(Vector3.Right(), -Math.PI / 2).multiply(
        m.root.rotationQuaternion ?? Quaternion.Identity(),
      );
    },
  },
  {
    model: "Xbot",
    what: "Xbot scaled to 0.01 m tall",
    transform: (m) => m.root.scaling.scaleInPlace(0.01 / 1.8),
  },
  {
    model: "Soldier",
    what: "Soldier scaled to 100 m tall and moved 1 km away",
    transform: (m) => {
      m.root.scaling.scaleInPlace(100 / 1.8);
      m.root.position.set(1000, 0, -1000);
    },
  },
  { model: "RobotExpressive", what: "RobotExpressive (feet hang off the root)", throws: [/left foot/i, /Foot\.L/] },
];

describe("real models", () => {
  MODEL_CASES.forEach((c, index) => {
    const available = modelAvailable(c.model);
    const what = `${c.what}, left- and right-handed scenes`;
    it(
      available ? what : `${what} (skipped: ../shared/assets/models/${MODELS_FILE[c.model]} is not on this machine)`,
      async (ctx) => {
        if (!available) {
          report.skip(what);
          ctx.skip();
          return;
        }
        const outcomes: string[] = [];
        let worst = 0;
        for (const rightHanded of [false, true]) {
          const m = await loadModel(c.model, { rightHanded });
          open.push(m);
          c.transform?.(m);
          let ik: FullBodyBipedIK | null = null;
          let error: unknown = null;
          try {
            ik = FullBodyBipedIK.create(m.scene, m.skeleton);
          } catch (e) {
            error = e;
          }
          if (c.throws !== undefined) {
            expect(error).toBeInstanceOf(FBBIKError);
            for (const re of c.throws) expect((error as Error).message).toMatch(re);
            expect(m.scene.onBeforeRenderTargetsRenderObservable.observers.length).toBe(0);
            outcomes.push(`throws FBBIKError: "${(error as FBBIKError).problems[0]!.slice(0, 150)}…"`);
            continue;
          }
          if (error !== null) throw error;
          m.scene.render();
          const worldPos = (b: Bone) => boneWorldPosition(b);
          const size = characterSize(m.skeleton, worldPos);
          const { worst: w, finite } = reachHandTargets(
            ik!,
            () => m.scene.render(),
            worldPos,
            new Random(500 + index),
            TARGETS,
          );
          expect(finite).toBe(true);
          expect(w / size).toBeLessThan(0.01);
          worst = Math.max(worst, w / size);
          const d = bendDirections(ik!, () => m.scene.render(), worldPos, size);
          expect(side(d.elbows, "forward", "back")).toBe("back");
          expect(side(d.knees, "forward", "back")).toBe("forward");
          outcomes.push(`works (${warningWords(ik!)}); elbows bend back, knees forward`);
        }
        expect(outcomes[0]).toBe(outcomes[1]);
        report.add({
          what,
          cases: c.throws ? 2 : `2 × ${TARGETS} targets`,
          outcome: c.throws
            ? outcomes[0]!
            : `${outcomes[0]}; hands reach within ${bound(worst)} of the size, bones finite`,
        });
      },
    );
  });
});

describe("docs/ROBUSTNESS.md", () => {
  it('section "rigs" matches what these tests measured', () => {
    const differences = report.check();
    expect(differences, staleMessage("rigs", differences)).toEqual([]);
  });
});

afterAll(() => {
  while (open.length > 0) open.pop()!.dispose();
});
