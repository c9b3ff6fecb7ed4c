/**
 * fingersOf: the fingers of a hand told apart by their bones' names, for the conventions bipedNameMap pairs
 * (Rigify, Unreal with and without metacarpals, Mixamo's four-bone fingers, VRM 1.0's thumb metacarpal), helpers
 * and tip markers left out; toeOf: a foot's one child.
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
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

describe("toeOf", () => {
  it("is a foot's one child bone; a foot with several children has none told", () => {
    expect(toeOf(rootWith([["ball_l"]]))?.name).toBe("ball_l");
    expect(toeOf(rootWith([["toe_big_l"], ["toe_small_l"]]))).toBeNull();
    expect(toeOf(rootWith([]))).toBeNull();
  });
});
