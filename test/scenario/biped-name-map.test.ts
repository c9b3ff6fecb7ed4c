/**
 * bipedNameMap: the pairs it makes between skeletons of different conventions (UAL's Rigify `DEF-` bones,
 * the Mannequin's KayKit names, Superhero's Unreal names), and a clip retargeted with it by Babylon's
 * AnimatorAvatar (Babylon 9; the Babylon 8 compatibility run has none, and skips that part): UAL's walk on
 * the other two turns their limbs as it turns UAL's, and FullBodyBipedIK on top still reaches.
 */
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { bipedNameMap, pairChains } from "../../src/babylon/biped-name-map.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { fingersOf } from "../../src/babylon/biped-digits.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, type ModelName, loadModel } from "../helpers/babylon-scene.js";
import { angleDegrees, limbAgreement, segmentDirection } from "../helpers/limb-agreement.js";
import { report } from "../helpers/modifier-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";
import { type HumanoidNames, type Side, humanoid } from "../helpers/synthetic-rigs.js";
import { biped, mixamo } from "../unit/detect/conventions.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** The pairs as `source → target` lines, sorted. */
const lines = (map: Map<string, string>): string[] => [...map].map(([a, b]) => `${a} → ${b}`).sort();

/**
 * A measure of how `hero`'s fingers follow UAL's under UAL's walk and a clip retargeted with a map: `worst`, the
 * largest angle between a finger segment (each finger's first two joints) of UAL and the same one of the hero;
 * `curl`, the most a hero's segment turned in its hand from the rest pose (degrees, over 60 frames). The segments
 * are the fingers as named now, so renaming the hero's fingers afterwards does not change what is compared. Null
 * without Babylon 9's AnimatorAvatar.
 */
async function fingerFollower(
  ual: LoadedModel,
  hero: LoadedModel,
): Promise<((name: string, map: Map<string, string>) => { worst: number; curl: number }) | null> {
  const avatars = await import("@babylonjs/core/Animations/animatorAvatar.js").catch(() => null);
  if (avatars === null) return null;
  const scene = ual.scene;
  hero.root.position.x += 1.5;
  const walk = scene.animationGroups.find((g) => g.name === "Walk_Loop")!;
  /** Each finger's first two joints, both hands, of a skeleton. */
  const segments = (skeleton: typeof ual.skeleton): [Bone, Bone][] => {
    const r = resolveBipedReferences(skeleton).references;
    return [r.leftHand, r.rightHand].flatMap((h) => fingersOf(h).map((f) => [f![0]!, f![1]!] as [Bone, Bone]));
  };
  const ualSegments = segments(ual.skeleton);
  const heroSegments = segments(hero.skeleton);
  /** A finger segment's direction in its hand's space: how it curls, whatever the arm does. */
  const inHand = (s: [Bone, Bone]): Vector3 => {
    const toHand = s[0].getParent()!.getTransformNode()!.computeWorldMatrix(true).clone().invert();
    return Vector3.TransformNormal(segmentDirection(s), toHand).normalize();
  };
  return (name, map) => {
    // AnimatorAvatar retargets from the source's pose as it stands: UAL at rest, not where an earlier run left it
    for (const g of scene.animationGroups) g.stop();
    ual.skeleton.returnToRest();
    hero.skeleton.returnToRest();
    // an avatar of the hero as it is named now
    const avatar = new avatars.AnimatorAvatar("hero", hero.root, false, false);
    avatar.showWarnings = false;
    const played = avatar.retargetAnimationGroup(walk, { animationGroupName: name, mapNodeNames: map });
    const rest = heroSegments.map(inHand);
    walk.start(true);
    played.start(true);
    let worst = 0;
    let curl = 0;
    for (let f = 0; f < 60; f++) {
      scene.render();
      const u = ualSegments.map(segmentDirection);
      heroSegments.forEach((s, i) => {
        worst = Math.max(worst, angleDegrees(u[i]!, segmentDirection(s)));
        curl = Math.max(curl, angleDegrees(rest[i]!, inHand(s)));
      });
    }
    played.dispose();
    return { worst, curl };
  };
}

/** A convention with each hand's fingers named `finger(side, k)` (k from 0), `count` of them, three bones and a tip. */
function withFingers(
  names: HumanoidNames,
  count: number,
  finger: (s: Side, k: number) => (phalanx: number | "Nub") => string,
): HumanoidNames {
  const fingers = (s: Side) =>
    Array.from({ length: count }, (_, k) => ([1, 2, 3, "Nub"] as const).map((p) => finger(s, k)(p)));
  return { ...names, side: (s) => ({ ...names.side(s), fingers: fingers(s) }) };
}

/** The synthetic humanoid (test/helpers/synthetic-rigs.ts) of `names` as a skeleton of plain Bones in `scene`. */
function skeletonOf(scene: Scene, names: HumanoidNames, armsFrom?: "neck"): Skeleton {
  const skeleton = new Skeleton(names.pelvis, names.pelvis, scene);
  const bones: Bone[] = [];
  const at: Vector3[] = [];
  // the template's positions are world positions at rest; the bones are not turned, so a local one is a difference
  for (const info of humanoid(names, { armsFrom })) {
    const parent = info.parent < 0 ? null : bones[info.parent]!;
    at.push(new Vector3(info.position.x, info.position.y, info.position.z));
    const local = at.at(-1)!.subtract(parent === null ? Vector3.Zero() : at[info.parent]!);
    bones.push(new Bone(info.name, skeleton, parent, Matrix.Translation(local.x, local.y, local.z)));
  }
  return skeleton;
}

describe("pairChains", () => {
  const pairs = (length: number, count: number): string[] => {
    const out: string[] = [];
    pairChains(length, count, (i, j) => out.push(`${i}-${j}`));
    return out;
  };

  it("keeps both ends and spreads the shorter chain along the longer one, each bone once", () => {
    expect(pairs(3, 3)).toEqual(["0-0", "1-1", "2-2"]);
    expect(pairs(5, 3)).toEqual(["0-0", "2-1", "4-2"]);
    expect(pairs(3, 5)).toEqual(["0-0", "1-2", "2-4"]);
    expect(pairs(4, 2)).toEqual(["0-0", "3-1"]);
    expect(pairs(2, 1)).toEqual(["0-0"]);
    expect(pairs(1, 3)).toEqual(["0-0"]);
    expect(pairs(0, 3)).toEqual([]);
  });
});

describe("bipedNameMap", () => {
  it("pairs UAL's Rigify bones with the Mannequin's and Superhero's by what they are", async () => {
    const ual = await loadModel("UAL");
    const mannequin = await loadModel("Mannequin", { scene: ual.scene });
    const hero = await loadModel("Superhero", { scene: ual.scene });
    open.push(hero, mannequin, ual);
    // the Mannequin has two spine bones, no neck, no clavicles
    expect(lines(bipedNameMap(ual.skeleton, mannequin.skeleton))).toEqual(
      [
        "DEF-hips → hips",
        "DEF-spine.001 → spine",
        "DEF-spine.003 → chest",
        "DEF-head → head",
        ...["L", "R"].flatMap((s) => {
          const k = s.toLowerCase();
          return [
            `DEF-upper_arm.${s} → upperarm.${k}`,
            `DEF-forearm.${s} → lowerarm.${k}`,
            `DEF-hand.${s} → wrist.${k}`,
            `DEF-thigh.${s} → upperleg.${k}`,
            `DEF-shin.${s} → lowerleg.${k}`,
            `DEF-foot.${s} → foot.${k}`,
            `DEF-toe.${s} → toes.${k}`,
          ];
        }),
      ].sort(),
    );
    const toHero = bipedNameMap(ual.skeleton, hero.skeleton);
    expect(toHero.get("DEF-shoulder.L")).toBe("clavicle_l");
    expect(toHero.get("DEF-upper_arm.R")).toBe("upperarm_r");
    // each foot's one child bone is its toe
    expect(toHero.get("DEF-toe.L")).toBe("ball_l");
    // each target bone is taken once
    expect(new Set(toHero.values()).size).toBe(toHero.size);
    const heroRefs = resolveBipedReferences(hero.skeleton).references;
    const ualRefs = resolveBipedReferences(ual.skeleton).references;
    const spine = (a: readonly Bone[]) => a.map((b) => b.getTransformNode()!.name);
    const spinePairs = spine(ualRefs.spine).filter((n) => toHero.has(n));
    // both ends of the spine kept
    expect(toHero.get(spine(ualRefs.spine)[0]!)).toBe(spine(heroRefs.spine)[0]);
    expect(toHero.get(spine(ualRefs.spine).at(-1)!)).toBe(spine(heroRefs.spine).at(-1));
    expect(spinePairs.length).toBe(Math.min(ualRefs.spine.length, heroRefs.spine.length));
  });

  it("pairs 3ds Max Biped's numbered fingers with Mixamo's named ones; a four-fingered hand has no little", () => {
    const engine = new NullEngine();
    const scene = new Scene(engine);
    try {
      const max = (count: number) =>
        skeletonOf(
          scene,
          withFingers(
            biped(),
            count,
            (s, k) => (p) => `Bip01 ${s} Finger${k}${p === 1 ? "" : p === "Nub" ? p : p - 1}`,
          ),
          "neck",
        );
      const mix = skeletonOf(scene, mixamo());
      const fingers = ["Thumb", "Index", "Middle", "Ring", "Pinky"];
      const fromMax = bipedNameMap(max(5), mix);
      for (const s of ["L", "R"] as const) {
        const side = s === "L" ? "Left" : "Right";
        fingers.forEach((f, k) => {
          expect(fromMax.get(`Bip01 ${s} Finger${k}`)).toBe(`mixamorig:${side}Hand${f}1`);
          expect(fromMax.get(`Bip01 ${s} Finger${k}2`)).toBe(`mixamorig:${side}Hand${f}3`);
        });
      }
      // Finger0…3 of a four-fingered Biped hand are the thumb to the ring finger: Mixamo's pinky takes nothing
      const fromMix = bipedNameMap(mix, max(4));
      expect(fromMix.get("mixamorig:LeftHandRing1")).toBe("Bip01 L Finger3");
      expect(fromMix.get("mixamorig:LeftHandThumb1")).toBe("Bip01 L Finger0");
      expect([...fromMix.keys()].some((k) => k.includes("Pinky"))).toBe(false);
    } finally {
      scene.dispose();
      engine.dispose();
    }
  });

  it("throws FullBodyBipedIK's error for a skeleton that is no biped", async () => {
    const ual = await loadModel("UAL");
    const robot = await loadModel("RobotExpressive", { scene: ual.scene });
    open.push(robot, ual);
    expect(() => bipedNameMap(ual.skeleton, robot.skeleton)).toThrow(/left foot/i);
  });

  it("pairs the fingers by name, three bones each, so UAL's walk curls Superhero's fingers as UAL's", async (ctx) => {
    const ual = await loadModel("UAL", { clips: (n) => n === "Walk_Loop" });
    const hero = await loadModel("Superhero", { scene: ual.scene, clips: () => false });
    open.push(hero, ual);
    const map = bipedNameMap(ual.skeleton, hero.skeleton);
    const fingerPairs = [...map].filter(([k]) => /f_|thumb/.test(k));
    // 5 fingers × 3 bones × 2 hands; Superhero's 4th bones are tip markers (`index_04_leaf_l`)
    expect(fingerPairs).toHaveLength(30);
    expect(map.get("DEF-f_index.01.L")).toBe("index_01_l");
    expect(map.get("DEF-thumb.03.R")).toBe("thumb_03_r");
    expect(fingerPairs.some(([, v]) => v.includes("leaf"))).toBe(false);
    const follow = await fingerFollower(ual, hero);
    if (follow === null) {
      ctx.skip();
      return;
    }
    const withoutFingers = new Map([...map].filter(([k]) => !/f_|thumb/.test(k)));
    const paired = follow("walk", map);
    const apart = follow("walk, no fingers", withoutFingers);
    report(
      "Superhero's fingers over UAL's walk: off UAL's, curl (°), paired; the same, not paired",
      paired.worst,
      paired.curl,
      apart.worst,
      apart.curl,
    );
    // measured: paired, within 3.2° of UAL's, curled 84° from the rest pose (UAL walks with fists); not paired,
    // they stay as they rest (0.0002°), up to 82° off UAL's
    expect(paired.curl).toBeGreaterThan(45);
    expect(paired.worst).toBeLessThan(8);
    expect(apart.curl).toBeLessThan(1e-3);
    expect(apart.worst).toBeGreaterThan(45);
  });

  it("pairs fingers whose names are numbers, in no order, by where they lie: they follow as named ones", async (ctx) => {
    const ual = await loadModel("UAL", { clips: (n) => n === "Walk_Loop" });
    const hero = await loadModel("Superhero", { scene: ual.scene, clips: () => false });
    open.push(hero, ual);
    const named = bipedNameMap(ual.skeleton, hero.skeleton);
    const follow = await fingerFollower(ual, hero);
    const byName = follow?.("walk, fingers by name", named);
    // each finger's bones and its tip become `finger_<n>_<phalanx>_<side>`, n shuffled against the fingers (no
    // convention counts so), the hand's children reversed: the names say which bones make a finger, nothing more
    const refs = resolveBipedReferences(hero.skeleton).references;
    const renamed = new Map<string, string>();
    for (const [hand, side] of [
      [refs.leftHand, "l"],
      [refs.rightHand, "r"],
    ] as const) {
      fingersOf(hand).forEach((finger, k) => {
        let phalanx = 1;
        for (let b: Bone | undefined = finger![0]; b !== undefined; b = b.getChildren()[0]) {
          const name = `finger_${[3, 0, 4, 1, 2][k]}_${phalanx++}_${side}`;
          renamed.set(b.getTransformNode()!.name, name);
          b.name = name;
          b.getTransformNode()!.name = name;
        }
      });
      hand.children.reverse();
    }
    const numbered = bipedNameMap(ual.skeleton, hero.skeleton);
    // the same pairs as by name, to the renamed bones
    const fingerPairs = [...named].filter(([k]) => /f_|thumb/.test(k));
    expect(fingerPairs).toHaveLength(30);
    for (const [from, to] of fingerPairs) expect(numbered.get(from)).toBe(renamed.get(to));
    if (follow === null || byName === undefined) {
      ctx.skip();
      return;
    }
    const byPlace = follow("walk, numbered fingers", numbered);
    report(
      "Superhero's fingers over UAL's walk: off UAL's, curl (°), named; the same, numbered",
      byName.worst,
      byName.curl,
      byPlace.worst,
      byPlace.curl,
    );
    // measured: as named, within 3.20° of UAL's, curled 83.9°; numbered, the same to 0.01° (unpaired, as they were:
    // 82° off, 0.0002° curled)
    expect(byName.worst).toBeLessThan(3.7);
    expect(byName.curl).toBeGreaterThan(75);
    expect(byPlace.worst).toBeLessThan(byName.worst + 0.5);
    expect(byPlace.curl).toBeGreaterThan(byName.curl - 0.5);
  });

  for (const name of ["Mannequin", "Superhero"] as const satisfies readonly ModelName[]) {
    it(`UAL's walk retargeted onto ${name} with it turns the limbs as on UAL; the IK still reaches`, async (ctx) => {
      const avatars = await import("@babylonjs/core/Animations/animatorAvatar.js").catch(() => null);
      if (avatars === null) {
        ctx.skip();
        return;
      }
      const ual = await loadModel("UAL", { clips: (n) => n === "Walk_Loop" });
      const other = await loadModel(name, { scene: ual.scene });
      open.push(other, ual);
      const scene = ual.scene;
      other.root.position.x += 1.5;
      const walk = scene.animationGroups.find((g) => g.name === "Walk_Loop")!;
      const avatar = new avatars.AnimatorAvatar(name, other.root);
      avatar.showWarnings = false;
      const retarget = (map?: Map<string, string>): AnimationGroup =>
        avatar.retargetAnimationGroup(walk, { animationGroupName: `walk on ${name}`, mapNodeNames: map });
      const unmapped = retarget().targetedAnimations.map((t) => (t.target as { name: string }).name);
      const played = retarget(bipedNameMap(ual.skeleton, other.skeleton));
      // without the map only the root's channels are found by name (both have a node called root)
      expect(unmapped.every((n) => n === "root")).toBe(true);
      expect(played.targetedAnimations.length).toBeGreaterThan(15 * 3);
      walk.start(true);
      played.start(true);
      const a = resolveBipedReferences(ual.skeleton).references;
      const b = resolveBipedReferences(other.skeleton).references;
      const { worst, swing } = limbAgreement(scene, a, b, 60);
      // the limbs swing with the walk, and point where UAL's do, within what the two rigs' rest poses differ by
      expect(swing).toBeGreaterThan(20);
      expect(worst).toBeLessThan(12);
      // FullBodyBipedIK on the retargeted character: the left hand on a target ahead of the shoulder, walking with it
      const ik = FullBodyBipedIK.create(scene, other.skeleton);
      const hand = ik.solver.leftHandEffector;
      hand.positionWeight = 1;
      const arm = Vector3.Distance(worldPos(b.leftUpperArm), worldPos(b.leftForearm));
      const ahead = new Vector3(0.2, -0.5, 1).normalize().scale(1.5 * arm);
      let reach = 0;
      const h = height(other);
      for (let f = 0; f < 30; f++) {
        hand.position.copyFrom(worldPos(b.leftUpperArm).add(ahead));
        scene.render();
        reach = Math.max(reach, Vector3.Distance(worldPos(b.leftHand), hand.position) / h);
      }
      expect(reach).toBeLessThan(1e-4);
      report(`${name}: limbs off UAL's (°), swing (°), hand off its target (h)`, worst, swing, reach);
    });
  }
});
