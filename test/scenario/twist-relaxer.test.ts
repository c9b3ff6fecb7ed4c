/**
 * TwistRelaxer on real models (Xbot, UAL, Mannequin; left- and right-handed scenes): the FBBIK turns the left hand
 * 90° and 150° about the forearm by its rotation effector, which twists the wrist alone; the relaxer on the forearm
 * (parent the upper arm, child the hand) with parentChildCrossfade 0.5 gives the forearm about half of that twist,
 * while the hand keeps its world rotation and position and the forearm its direction (to 1e-6). Weight 0 changes
 * nothing, bit for bit; ×0.01 and ×100 characters relax alike; a half turn and a zero-length bone give no NaN.
 */
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { IKUpdateOrder } from "../../src/babylon/scene-updater.js";
import { TwistRelaxer } from "../../src/babylon/twist-relaxer.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { height } from "../helpers/scene-probes.js";
import { axisOf, boneWorld, turnBetween, twistProbe, twistedArm } from "../helpers/twisted-hand.js";

const MODELS: ModelName[] = ["Xbot", "UAL", "Mannequin"];
const DEG = Math.PI / 180;

describe.each(MODELS)("TwistRelaxer on %s's left forearm", (name) => {
  for (const rightHanded of [false, true]) {
    for (const degrees of [90, 150]) {
      it.skipIf(!modelAvailable(name))(
        `${rightHanded ? "RH" : "LH"}, hand turned ${degrees}°: the forearm takes about half, the hand stays`,
        async () => {
          const m = await loadModel(name, { rightHanded, highPrecision: true });
          const arm = twistedArm(m);
          const relax = TwistRelaxer.create(m.scene, arm.forearm, { autoUpdate: false });
          arm.turn(degrees * DEG);
          for (let f = 0; f < 3; f++) m.scene.render();
          // before: the FBBIK's pose, the relaxer not run this frame
          const wristBefore = arm.twist(arm.forearm, arm.hand);
          const elbowBefore = arm.twist(arm.upper, arm.forearm);
          const hand = boneWorld(arm.hand);
          const axis = axisOf(arm.forearm, arm.hand);
          relax.update();
          const wristAfter = arm.twist(arm.forearm, arm.hand);
          const elbowAfter = arm.twist(arm.upper, arm.forearm);
          const handAfter = boneWorld(arm.hand);
          const drift = Vector3.Distance(hand.getTranslation(), handAfter.getTranslation()) / height(m);
          const turned = turnBetween(hand, handAfter);
          const swing = Math.acos(Math.min(1, Vector3.Dot(axis, axisOf(arm.forearm, arm.hand))));
          const total = wristBefore + elbowBefore;
          console.log(
            `${name} ${rightHanded ? "RH" : "LH"} ${degrees}°: wrist ${(wristBefore / DEG).toFixed(2)}° → ` +
              `${(wristAfter / DEG).toFixed(2)}°, elbow ${(elbowBefore / DEG).toFixed(2)}° → ` +
              `${(elbowAfter / DEG).toFixed(2)}°; hand drift ${drift.toExponential(2)} of the height, ` +
              `turn ${turned.toExponential(2)} rad; forearm swing ${swing.toExponential(2)} rad`,
          );
          // without the relaxer the wrist takes the whole twist
          expect(Math.abs(wristBefore)).toBeGreaterThan(0.8 * degrees * DEG);
          // the twist is spread: the forearm (about its upper arm) and the wrist each take about half
          expect(Math.abs(elbowAfter - total / 2)).toBeLessThan(0.5 * DEG);
          expect(Math.abs(wristAfter - total / 2)).toBeLessThan(0.5 * DEG);
          expect(drift).toBeLessThan(1e-6);
          expect(turned).toBeLessThan(1e-6);
          expect(swing).toBeLessThan(1e-6);
          m.dispose();
        },
      );
    }
  }
});

describe("TwistRelaxer on UAL (in the repository)", () => {
  it("weight 0 leaves every bone bit for bit as the FBBIK wrote it", async () => {
    const m = await loadModel("UAL");
    const arm = twistedArm(m);
    const relax = TwistRelaxer.create(m.scene, arm.forearm, { weight: 0 });
    arm.turn(120 * DEG);
    for (let f = 0; f < 3; f++) m.scene.render();
    const ik = arm.ik;
    const locals = () => m.skeleton.bones.map((b) => b.getTransformNode()!.rotationQuaternion!.asArray());
    const relaxed = locals();
    relax.dispose();
    ik.update();
    // relaxer off: the FBBIK's own pose of this frame, solved again from the same animated pose
    expect(locals()).toEqual(relaxed);
    m.dispose();
  });

  it("a character scaled ×0.01 and ×100 relaxes alike: the forearm's turn to 1e-9 rad", async () => {
    const turns: number[] = [];
    for (const s of [1, 0.01, 100]) {
      const m = await loadModel("UAL", { highPrecision: true });
      m.root.scaling.scaleInPlace(s);
      m.root.position.set(3 * s, 0, -2 * s);
      const arm = twistedArm(m);
      const relax = TwistRelaxer.create(m.scene, arm.forearm, { autoUpdate: false });
      arm.turn(90 * DEG);
      for (let f = 0; f < 3; f++) m.scene.render();
      const before = boneWorld(arm.forearm);
      relax.update();
      turns.push(turnBetween(before, boneWorld(arm.forearm)));
      m.dispose();
    }
    console.log(`forearm turn ×1, ×0.01, ×100: ${turns.map((t) => (t / DEG).toFixed(9)).join("°, ")}°`);
    expect(turns[0]).toBeGreaterThan(30 * DEG);
    expect(Math.abs(turns[1]! - turns[0]!)).toBeLessThan(1e-9);
    expect(Math.abs(turns[2]! - turns[0]!)).toBeLessThan(1e-9);
  });

  it("a half turn of the hand: finite bones, the hand kept; a zero-length bone throws at create", async () => {
    const m = await loadModel("UAL", { highPrecision: true });
    const arm = twistedArm(m);
    const relax = TwistRelaxer.create(m.scene, arm.forearm, { autoUpdate: false });
    arm.turn(Math.PI);
    for (let f = 0; f < 3; f++) m.scene.render();
    const hand = boneWorld(arm.hand);
    relax.update();
    const after = boneWorld(arm.hand);
    for (const b of [arm.forearm, arm.hand]) expect(boneWorld(b).asArray().every(Number.isFinite)).toBe(true);
    expect(turnBetween(hand, after)).toBeLessThan(1e-6);
    console.log(`half turn: the forearm turned ${(Math.abs(arm.twist(arm.upper, arm.forearm)) / DEG).toFixed(2)}°`);
    expect(Math.abs(arm.twist(arm.upper, arm.forearm))).toBeGreaterThan(80 * DEG);
    expect(relax.warningsRaised).toEqual([]);
    // the forearm's child given as the forearm itself: no length, no axis
    expect(() => TwistRelaxer.create(m.scene, arm.forearm, { child: arm.forearm })).toThrow(FBBIKError);
    m.dispose();
  });

  it("createForArms relaxes both forearms after the FBBIK, saves and loads its settings, goes with the IK", async () => {
    const m = await loadModel("UAL");
    const arm = twistedArm(m);
    const { left, right } = TwistRelaxer.createForArms(arm.ik, { parentChildCrossfade: 0.4 });
    expect(left.bones).toEqual([arm.upper, arm.forearm, arm.hand]);
    expect(right.bones[1]).toBe(arm.ik.references.rightForearm);
    expect(left.updateOrder).toBe(IKUpdateOrder.Twist);
    arm.turn(100 * DEG);
    for (let f = 0; f < 3; f++) m.scene.render();
    const elbow = arm.twist(arm.upper, arm.forearm);
    const wrist = arm.twist(arm.forearm, arm.hand);
    console.log(`createForArms, crossfade 0.4: elbow ${(elbow / DEG).toFixed(2)}°, wrist ${(wrist / DEG).toFixed(2)}°`);
    expect(Math.abs(elbow - 0.4 * (elbow + wrist))).toBeLessThan(0.5 * DEG);
    const saved = left.serialize();
    expect(saved.solver).toEqual({ weight: 1, parentChildCrossfade: 0.4, twistAngleOffset: 0 });
    right.applySettings({ solver: { parentChildCrossfade: 0.7 } });
    expect(right.solver.parentChildCrossfade).toBe(0.7);
    expect(left.warningsRaised).toEqual([]);
    arm.ik.dispose();
    expect(left.isDisposed && right.isDisposed).toBe(true);
    m.dispose();
  });
});

describe("TwistRelaxer after a LimbIK", () => {
  it("a LimbIK turning UAL's hand 90° about its bent forearm: the relaxed forearm takes half, the hand stays", async () => {
    // right-handed: no glTF mirror, so the decomposed world rotation is the one the hand takes
    const m = await loadModel("UAL", { highPrecision: true, rightHanded: true });
    const r = resolveBipedReferences(m.skeleton).references;
    const [upper, forearm, hand] = [r.leftUpperArm, r.leftForearm, r.leftHand];
    const limb = LimbIK.create(m.scene, upper, forearm, hand);
    const relax = TwistRelaxer.create(m.scene, forearm, { autoUpdate: false });
    // the arm bent first, the hand keeping its rest rotation
    limb.targetPosition.copyFrom(Vector3.Lerp(boneWorld(upper).getTranslation(), limb.targetPosition, 0.6));
    for (let f = 0; f < 3; f++) m.scene.render();
    const twist = twistProbe(upper, forearm, hand);
    const hand0 = boneWorld(hand);
    boneWorld(hand)
      .multiply(Matrix.RotationAxis(axisOf(forearm, hand), 90 * DEG))
      .decompose(undefined, limb.targetRotation);
    for (let f = 0; f < 3; f++) m.scene.render();
    const wristBefore = twist(forearm, hand);
    const elbowBefore = twist(upper, forearm);
    const before = boneWorld(hand);
    relax.update();
    const after = boneWorld(hand);
    const elbow = twist(upper, forearm);
    console.log(
      `LimbIK: wrist ${(wristBefore / DEG).toFixed(2)}° → ${(twist(forearm, hand) / DEG).toFixed(2)}°, ` +
        `elbow ${(elbowBefore / DEG).toFixed(2)}° → ${(elbow / DEG).toFixed(2)}°`,
    );
    expect(Math.abs(wristBefore)).toBeGreaterThan(80 * DEG);
    expect(Math.abs(elbow - (wristBefore + elbowBefore) / 2)).toBeLessThan(0.5 * DEG);
    expect(turnBetween(before, after)).toBeLessThan(1e-6);
    expect(Vector3.Distance(before.getTranslation(), after.getTranslation()) / height(m)).toBeLessThan(1e-6);
    expect(Vector3.Distance(hand0.getTranslation(), after.getTranslation()) / height(m)).toBeLessThan(1e-6);
    m.dispose();
  });
});
