/**
 * fingersOf: the fingers of a hand told apart by their bones' names, for the conventions bipedNameMap pairs
 * (Rigify, Unreal with and without metacarpals, Mixamo's four-bone fingers, VRM 1.0's thumb metacarpal, 3ds Max
 * Biped's numbers), helpers and tip markers left out, and by where they lie when their names only number them
 * (left, right and mirrored hands, hands of four and three fingers); toeOf: a foot's one child.
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterAll, describe, expect, it } from "vitest";
import { fingersOf, toeOf } from "../../../src/babylon/biped-digits.js";

const engine = new NullEngine();
const scene = new Scene(engine);
afterAll(() => {
  scene.dispose();
  engine.dispose();
});

/** A bone (a hand, a foot) with a chain of bones under it per entry (names from the hand out). */
function rootWith(chains: string[][]): Bone {
  const skeleton = new Skeleton("rig", "rig", scene);
  const root = new Bone("hand", skeleton);
  for (const chain of chains) {
    let parent = root;
    for (const name of chain) parent = new Bone(name, skeleton, parent);
  }
  return root;
}

/** The fingers' bone names, thumb first (null: not found). */
const names = (h: Bone): (string[] | null)[] => fingersOf(h).map((f) => f?.map((b) => b.name) ?? null);

describe("fingersOf", () => {
  it("Rigify: three bones a finger, in whatever order the hand lists them", () => {
    const f = (n: string) => [1, 2, 3].map((i) => `DEF-${n}.0${i}.L`);
    expect(names(rootWith([f("f_pinky"), f("thumb"), f("f_middle"), f("f_index"), f("f_ring")]))).toEqual([
      f("thumb"),
      f("f_index"),
      f("f_middle"),
      f("f_ring"),
      f("f_pinky"),
    ]);
  });

  it("Mixamo and Unreal: a fourth bone (a tip) is left out; Unreal's metacarpals are passed over, not the thumb's", () => {
    const mixamo = (n: string) => [1, 2, 3, 4].map((i) => `mixamorig:LeftHand${n}${i}`);
    expect(
      names(rootWith([mixamo("Thumb"), mixamo("Index"), mixamo("Middle"), mixamo("Ring"), mixamo("Pinky")])),
    ).toEqual(["Thumb", "Index", "Middle", "Ring", "Pinky"].map((n) => mixamo(n).slice(0, 3)));
    const ue = (n: string) => [`${n}_01_l`, `${n}_02_l`, `${n}_03_l`, `${n}_04_leaf_l`];
    expect(
      names(
        rootWith([
          ue("thumb"),
          ["index_metacarpal_l", ...ue("index")],
          ["pinky_metacarpal_l", ...ue("pinky").slice(0, 3)],
        ]),
      ),
    ).toEqual([ue("thumb").slice(0, 3), ue("index").slice(0, 3), null, null, ue("pinky").slice(0, 3)]);
  });

  it("VRM 1.0: the thumb starts at its metacarpal; helpers, sockets and other names are no finger", () => {
    const vrm = (n: string, parts: string[]) => parts.map((p) => `left${n}${p}`);
    expect(
      names(
        rootWith([
          vrm("Thumb", ["Metacarpal", "Proximal", "Distal"]),
          vrm("Index", ["Proximal", "Intermediate", "Distal"]),
          vrm("Little", ["Proximal", "Intermediate", "Distal"]),
          ["hand_l_weapon_socket"],
          ["palm_twist_l"],
          ["ring_end_l"],
        ]),
      ),
    ).toEqual([
      vrm("Thumb", ["Metacarpal", "Proximal", "Distal"]),
      vrm("Index", ["Proximal", "Intermediate", "Distal"]),
      null,
      null,
      vrm("Little", ["Proximal", "Intermediate", "Distal"]),
    ]);
  });

  it("a hand without fingers (KayKit's wrist → hand) has none", () => {
    expect(names(rootWith([["hand.l"]]))).toEqual([null, null, null, null, null]);
  });
});

/** A finger of the hand built by {@link handWith}: where its first bone lies on the hand and which way it points. */
interface FingerShape {
  readonly at: Vector3;
  readonly toward: Vector3;
}

/**
 * A left hand's fingers at rest, in the hand's space, thumb first: the hand's length along +x, across it along +z
 * from the thumb's side, the palm's front toward −y; the thumb starts near the wrist and points out and forward.
 */
const LEFT_HAND: readonly FingerShape[] = [
  { at: new Vector3(0.025, -0.01, 0.03), toward: new Vector3(1, -0.4, 0.8) },
  { at: new Vector3(0.09, 0, 0.027), toward: new Vector3(1, 0, 0.05) },
  { at: new Vector3(0.095, 0, 0.008), toward: new Vector3(1, 0, 0) },
  { at: new Vector3(0.09, 0, -0.01), toward: new Vector3(1, 0, -0.05) },
  { at: new Vector3(0.08, 0, -0.027), toward: new Vector3(1, 0, -0.1) },
];

/**
 * A hand (a bone under an arm) with a finger per entry, listed in that order: three bones 0.03 apart named
 * `names[k](phalanx)` (1 to 3) and a tip marker, each finger at its shape turned by `turn` (a mirror when it
 * flips a side).
 */
function handWith(shapes: readonly FingerShape[], names: ((phalanx: number) => string)[], turn = Matrix.Identity()) {
  const skeleton = new Skeleton("rig", "rig", scene);
  const arm = new Bone("forearm", skeleton);
  const hand = new Bone("hand", skeleton, arm, Matrix.Translation(0.25, 0, 0));
  shapes.forEach((shape, k) => {
    const at = Vector3.TransformCoordinates(shape.at, turn);
    const step = Vector3.TransformNormal(shape.toward.normalizeToNew(), turn).scale(0.03);
    let parent = new Bone(names[k]!(1), skeleton, hand, Matrix.Translation(at.x, at.y, at.z));
    for (const phalanx of [2, 3])
      parent = new Bone(names[k]!(phalanx), skeleton, parent, Matrix.Translation(step.x, step.y, step.z));
    new Bone(`${names[k]!(3)}_end`, skeleton, parent, Matrix.Translation(step.x, step.y, step.z));
  });
  return hand;
}

/** Each finger of `hand` by the name of its first bone, thumb first (null: not found). */
const firsts = (hand: Bone): (string | null)[] => fingersOf(hand).map((f) => f?.[0]?.name ?? null);

/** The fingers lying as in {@link LEFT_HAND}, in the hand's child order `order` (each an index of LEFT_HAND). */
const shuffled = (order: readonly number[]): FingerShape[] => order.map((k) => LEFT_HAND[k]!);

describe("fingersOf, numbered names", () => {
  it("3ds Max Biped: the digit after Finger is the finger, 0 the thumb, a second digit the phalanx", () => {
    // every bone at the hand's origin: the names alone tell the fingers
    const skeleton = new Skeleton("rig", "rig", scene);
    const hand = new Bone("Bip01 L Hand", skeleton);
    for (const k of [3, 0, 4, 1, 2]) {
      let parent = new Bone(`Bip01 L Finger${k}`, skeleton, hand);
      for (const p of [1, 2]) parent = new Bone(`Bip01 L Finger${k}${p}`, skeleton, parent);
      new Bone(`Bip01 L Finger${k}Nub`, skeleton, parent);
    }
    expect(names(hand)).toEqual(
      [0, 1, 2, 3, 4].map((k) => [`Bip01 L Finger${k}`, `Bip01 L Finger${k}1`, `Bip01 L Finger${k}2`]),
    );
  });

  it("a number but no finger word: told by where each finger lies, whatever the numbers and child order", () => {
    // numbers from 0, from 1 and shuffled against the fingers; the child order shuffled too
    const order = [2, 4, 0, 3, 1];
    const numbered: ((k: number) => (p: number) => string)[] = [
      (k) => (p) => `finger_${k}.L.00${p}`,
      (k) => (p) => `Finger${k + 1}_L_${p}`,
      (k) => (p) => `hand.L.finger.${k + 1}.${p}`,
    ];
    for (const name of numbered) {
      const hand = handWith(
        shuffled(order),
        order.map((k) => name((k * 3) % 5)),
      );
      expect(firsts(hand)).toEqual([0, 1, 2, 3, 4].map((k) => name((k * 3) % 5)(1)));
    }
  });

  it("a thumb told by its word, the other fingers by a number counted from the index: the number is not trusted", () => {
    const order = [4, 1, 3, 0, 2];
    const label = (k: number) => (p: number) => (k === 0 ? `thumb_0${p}_l` : `finger_${5 - k}_0${p}_l`);
    const hand = handWith(shuffled(order), order.map(label));
    expect(firsts(hand)).toEqual(["thumb_01_l", "finger_4_01_l", "finger_3_01_l", "finger_2_01_l", "finger_1_01_l"]);
  });

  it("left and right hands, mirrored and turned, are told alike", () => {
    const order = [3, 1, 4, 0, 2];
    const label = (k: number) => (p: number) => `finger${k}_${p}`;
    const turns = [
      Matrix.Scaling(1, 1, -1), // a right hand: the left one mirrored across the body
      Matrix.Scaling(-1, 1, 1), // a mirrored (left-handed) scene: x flipped
      Matrix.Compose(Vector3.One(), Quaternion.FromEulerAngles(0.7, -2.1, 1.3), Vector3.Zero()),
      Matrix.Scaling(1, -1, 1).multiply(Matrix.RotationY(2.5)),
    ];
    for (const turn of turns) {
      const hand = handWith(shuffled(order), order.map(label), turn);
      expect(firsts(hand)).toEqual(["finger0_1", "finger1_1", "finger2_1", "finger3_1", "finger4_1"]);
    }
  });

  it("a hand of four or three fingers: the thumb, then index onward; no thumb lying apart, none told", () => {
    const label = (k: number) => (p: number) => `digit_finger_${k}_${p}`;
    const four = [2, 0, 3, 1];
    expect(firsts(handWith(shuffled(four), four.map(label)))).toEqual([...[0, 1, 2, 3].map((k) => label(k)(1)), null]);
    const three = [1, 2, 0];
    expect(firsts(handWith(shuffled(three), three.map(label)))).toEqual([
      label(0)(1),
      label(1)(1),
      label(2)(1),
      null,
      null,
    ]);
    // four fingers in a row, no thumb: none is told the thumb, so none is paired with one
    const row = [4, 2, 1, 3];
    expect(firsts(handWith(shuffled(row), row.map(label)))).toEqual([null, null, null, null, null]);
  });
});

describe("toeOf", () => {
  it("is a foot's one child bone; a foot with several children has none told", () => {
    expect(toeOf(rootWith([["ball_l"]]))?.name).toBe("ball_l");
    expect(toeOf(rootWith([["toe_big_l"], ["toe_small_l"]]))).toBeNull();
    expect(toeOf(rootWith([]))).toBeNull();
  });
});
