/**
 * The hand poser inside an interaction: on rigs with finger bones (Superhero, Xbot) the fingers turn
 * toward the target's pose by the PoserWeight curve and come back after; on the Mannequin (no fingers)
 * nothing under the hand moves.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { Curve } from "../../src/math/curve.js";
import { HandPoser } from "../../src/effectors/interaction/hand-poser.js";
import { InteractionCurveType } from "../../src/effectors/interaction/interaction-curves.js";
import { InteractionObject } from "../../src/effectors/interaction/interaction-object.js";
import { InteractionSystem } from "../../src/effectors/interaction/interaction-system.js";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones.js";
import { type LoadedModel, type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** Angle between two rotations (radians). */
function angle(a: Quaternion, b: Quaternion): number {
  const d = Math.abs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w) / (a.length() * b.length());
  return 2 * Math.acos(Math.min(1, d));
}

async function setup(name: ModelName, capture = true) {
  const m = await loadModel(name);
  open.push(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  const system = new InteractionSystem(ik);
  const r = ik.references;
  const hand = r.leftHand.getTransformNode()!;
  // the grip: in front of the left shoulder, with a hand pose captured from the rig and bent
  const shoulder = worldPos(r.leftUpperArm);
  const handPos = worldPos(r.leftHand);
  const object = new TransformNode("mug", m.scene);
  object.position.copyFrom(shoulder.add(handPos.subtract(shoulder).scale(0.6)));
  const grip = new TransformNode("grip", m.scene);
  grip.parent = object;
  grip.rotationQuaternion = Quaternion.Identity();
  if (capture) HandPoser.capturePose(hand, "grip pose", grip);
  const poserWeight = new Curve([
    { time: 0, value: 0, outTangent: 0 },
    { time: 0.5, value: 1, inTangent: 0, outTangent: 0 },
    { time: 1, value: 1, inTangent: 0, outTangent: 0 },
    { time: 1.4, value: 0, inTangent: 0 },
  ]);
  const interaction = new InteractionObject(object, {
    weightCurves: [
      {
        type: InteractionCurveType.PositionWeight,
        curve: new Curve([
          { time: 0, value: 1 },
          { time: 1.4, value: 1 },
        ]),
      },
      { type: InteractionCurveType.PoserWeight, curve: poserWeight },
    ],
  });
  interaction.createTarget(FullBodyBipedEffector.LeftHand, grip);
  return { m, ik, system, hand, grip, interaction, poserWeight };
}

describe("hand poser", () => {
  for (const name of ["Superhero", "Xbot"] as ModelName[]) {
    const available = modelAvailable(name);
    const title = available
      ? `${name}: the fingers turn toward the target pose by the PoserWeight curve and return after`
      : `${name} (skipped: ../shared/assets/models/${name}.glb is not on this machine)`;
    it.skipIf(!available)(title, async () => {
      const { m, system, hand, grip, interaction, poserWeight } = await setup(name);
      const poser = system.getPoser(FullBodyBipedEffector.LeftHand)!;
      expect(poser).not.toBeNull();
      expect(poser.bones.length).toBeGreaterThanOrEqual(15);
      const rest = poser.bones.map((b) => b.rotationQuaternion!.clone());
      // curl every finger joint of the pose by 50° about its local X
      const poseNodes = grip.getDescendants(false) as TransformNode[];
      for (const n of poseNodes)
        if (n.name !== "grip pose")
          n.rotationQuaternion = n.rotationQuaternion!.multiply(Quaternion.RotationAxis(Vector3.Right(), 0.87));
      const targets = poser.bones.map((b) => poseNodes.find((n) => n.name === b.name)!.rotationQuaternion!.clone());
      system.startInteraction(FullBodyBipedEffector.LeftHand, interaction, false);
      expect(poser.matchedCount).toBe(poser.bones.length);
      const ie = system.getInteractionEffector(FullBodyBipedEffector.LeftHand);
      let worst = 0;
      let sampled = 0;
      let peak = 0;
      for (let f = 0; f < 120 && ie.inInteraction; f++) {
        m.scene.render();
        if (!ie.inInteraction) break;
        const w = poserWeight.evaluate(ie.timer) * ie.weight;
        expect(poser.weight).toBeCloseTo(w, 12);
        peak = Math.max(peak, w);
        poser.bones.forEach((b, i) => {
          const expected = Quaternion.Slerp(rest[i]!, targets[i]!, w);
          worst = Math.max(worst, angle(b.rotationQuaternion!, expected));
        });
        sampled++;
      }
      console.log(
        `${name}: ${poser.bones.length} finger bones, worst deviation from slerp(rest, pose, weight) ${worst.toExponential(2)} rad over ${sampled} frames`,
      );
      expect(peak).toBe(1);
      expect(worst).toBeLessThan(1e-6);
      // at full weight the fingers were in the pose; after the end they return to the animation (here: rest)
      for (let f = 0; f < 70; f++) m.scene.render();
      expect(poser.weight).toBe(0);
      poser.bones.forEach((b, i) => expect(angle(b.rotationQuaternion!, rest[i]!)).toBeLessThan(1e-6));
      void hand;
    });
  }

  it("Superhero: the IK's master weight scales the finger pose, as the effectors' weights: none at 0", async () => {
    const turns: number[] = [];
    for (const master of [1, 0.5, 0]) {
      const { m, ik, system, grip, interaction, poserWeight } = await setup("Superhero");
      const poser = system.getPoser(FullBodyBipedEffector.LeftHand)!;
      const rest = poser.bones.map((b) => b.rotationQuaternion!.clone());
      for (const n of grip.getDescendants(false) as TransformNode[])
        if (n.name !== "grip pose")
          n.rotationQuaternion = n.rotationQuaternion!.multiply(Quaternion.RotationAxis(Vector3.Right(), 0.87));
      ik.solver.ikPositionWeight = master;
      system.startInteraction(FullBodyBipedEffector.LeftHand, interaction, false);
      const ie = system.getInteractionEffector(FullBodyBipedEffector.LeftHand);
      // to the curve's hold at 1 (0.5–1 s)
      while (ie.timer < 0.7) m.scene.render();
      expect(poser.weight).toBeCloseTo(poserWeight.evaluate(ie.timer) * ie.weight * master, 12);
      turns.push(Math.max(...poser.bones.map((b, i) => angle(b.rotationQuaternion!, rest[i]!))));
    }
    const [full, half, none] = turns as [number, number, number];
    console.log(`finger pose at master weight 1, 0.5, 0: largest finger turn ${turns.map((t) => t.toFixed(4))} rad`);
    expect(full).toBeGreaterThan(0.8);
    // a slerp by the weight: half the angle at 0.5 (before: the whole pose at every master weight, 0 included)
    expect(Math.abs(half / full - 0.5)).toBeLessThan(0.01);
    // the fingers as the animation left them (the angle's float noise aside)
    expect(none).toBeLessThan(1e-6);
  });

  it("Superhero: a PoserWeight curve with no finger pose under the target warns once, saying how to make one", async () => {
    // the fingers used to keep their animation without a word: a newcomer's grip did not close
    const LH = FullBodyBipedEffector.LeftHand;
    const bare = await setup("Superhero", false);
    bare.system.startInteraction(LH, bare.interaction, false);
    for (let f = 0; f < 10; f++) bare.m.scene.render();
    bare.system.startInteraction(LH, bare.interaction, true);
    const causes = bare.ik.warningsRaised.map((w) => w.cause).filter((c) => c.endsWith(":hand-pose"));
    expect(causes).toEqual(["interaction:grip:hand-pose"]);
    const message = bare.ik.warningsRaised.find((w) => w.cause === "interaction:grip:hand-pose")!.message;
    expect(message).toContain("HandPoser.capturePose");
    const posed = await setup("Superhero", true);
    posed.system.startInteraction(LH, posed.interaction, false);
    expect(posed.ik.warningsRaised.map((w) => w.cause)).not.toContain("interaction:grip:hand-pose");
  });

  it("Superhero cloned with instantiateModelsToScene (nodes renamed): a pose named like its finger bones still curls every finger", async () => {
    const { m, grip } = await setup("Superhero");
    const clone = m.container.instantiateModelsToScene();
    const twin = FullBodyBipedIK.create(m.scene, clone.skeletons[0]!);
    const system = new InteractionSystem(twin);
    const poser = system.getPoser(FullBodyBipedEffector.LeftHand)!;
    expect(poser.bones[0]!.name.startsWith("Clone of ")).toBe(true);
    const poseNodes = grip.getDescendants(false) as TransformNode[];
    for (const n of poseNodes)
      if (n.name !== "grip pose")
        n.rotationQuaternion = n.rotationQuaternion!.multiply(Quaternion.RotationAxis(Vector3.Right(), 0.87));
    const rest = poser.bones.map((b) => b.rotationQuaternion!.clone());
    const object = new InteractionObject(grip.parent as TransformNode, {
      weightCurves: [{ type: InteractionCurveType.PoserWeight, curve: Curve.constant(1) }],
      events: [{ time: 0.6, pause: true }],
    });
    object.createTarget(FullBodyBipedEffector.LeftHand, grip);
    system.startInteraction(FullBodyBipedEffector.LeftHand, object, false);
    // measured: 20 of 20 (0 when matched by node names only)
    expect(poser.matchedCount).toBe(poser.bones.length);
    for (let f = 0; f < 40; f++) m.scene.render();
    // the fade-in (0.3 s) is over, the pause holds: every finger is in the pose, 0.87 rad from where it was
    expect(poser.weight).toBe(1);
    poser.bones.forEach((b, i) => expect(angle(b.rotationQuaternion!, rest[i]!)).toBeGreaterThan(0.8));
  });

  it("Mannequin has no finger bones: a finger pose changes nothing under the hand", async () => {
    const { m, ik, system, hand, grip, interaction } = await setup("Mannequin", false);
    const poser = system.getPoser(FullBodyBipedEffector.LeftHand);
    // its only bone under the hand bone is the hand's tip, hand.l
    expect(poser?.bones.map((b) => b.name) ?? []).toEqual(["hand.l"]);
    // a Superhero-style finger pose under the grip, which no Mannequin bone matches
    const fake = new TransformNode("index_01_l", m.scene);
    fake.parent = grip;
    fake.rotationQuaternion = Quaternion.RotationAxis(Vector3.Right(), 1);
    const below = hand.getDescendants(false) as TransformNode[];
    const before = below.map((n) => n.rotationQuaternion?.clone() ?? null);
    system.startInteraction(FullBodyBipedEffector.LeftHand, interaction, false);
    expect(poser?.matchedCount ?? 0).toBe(0);
    for (let f = 0; f < 40; f++) m.scene.render();
    below.forEach((n, i) => {
      if (before[i] !== null) expect(n.rotationQuaternion!.equals(before[i]!)).toBe(true);
    });
    expect(ik.solver.leftHandEffector.positionWeight).toBe(1);
  });
});
