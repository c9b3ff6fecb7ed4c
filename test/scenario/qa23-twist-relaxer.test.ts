/**
 * TwistRelaxer on the characters its own tests never used (QA round 23): Soldier, Superhero, RiggedFigure, a VRM 0.x
 * avatar and Xbot scaled ×0.01 and ×100, in left- and right-handed scenes, behind an FBBIK turning the left hand 90°
 * and 150° about the bent forearm: the forearm takes half of the twist, the hand keeps its place and rotation; a hand
 * swept from −175° to 175° turns the relaxed forearm smoothly. Behind BipedIK's hand (a LimbIK), also on RiggedFigure
 * as `.babylon` (plain Bones): the same half, and weight 0 leaves the pose bit for bit. With an FBBIK and a LookAtIK on
 * one character (a BipedIK there is refused), the relaxers solve last and split the twist alike. RobotExpressive's
 * forearm (three palms) asks for its child.
 */
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { BipedIK } from "../../src/babylon/biped-ik.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { IKUpdateOrder } from "../../src/babylon/scene-updater.js";
import { TwistRelaxer } from "../../src/babylon/twist-relaxer.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type ModelName, modelAvailable } from "../helpers/babylon-scene.js";
import {
  type CharacterCase,
  characterCase,
  loadCase,
  loadCaseModel,
  vrmAndScaledXbot,
} from "../helpers/character-cases.js";
import { boneMatrix, bonePos, poseSnapshot } from "../helpers/model-limbs.js";
import { report } from "../helpers/modifier-scene.js";
import { axisOf, boneWorld, turnBetween, twistProbe, twistedArm } from "../helpers/twisted-hand.js";

const DEG = Math.PI / 180;

/** The glTF cases (linked nodes: the FBBIK's helper reads them); RiggedFigure as `.babylon` joins the LimbIK ones. */
const GLTF: CharacterCase[] = [false, true].flatMap((rightHanded) => [
  ...(["Soldier", "Superhero", "RiggedFigure"] as ModelName[]).map((name) => characterCase(name, rightHanded)),
  ...vrmAndScaledXbot(rightHanded),
]);
const ALL = [...GLTF, ...[false, true].map((rightHanded) => characterCase("RiggedFigureBabylon", rightHanded))];

describe.each(GLTF)("TwistRelaxer behind an FBBIK on $label", (c) => {
  it.skipIf(!modelAvailable(c.name))(
    "the forearm takes half of a 90° and a 150° turn; a sweep of ±175° turns it smoothly",
    async () => {
      const { m, h } = await loadCase(c, true);
      const arm = twistedArm(m);
      const relax = TwistRelaxer.create(m.scene, arm.forearm, { autoUpdate: false });
      for (const degrees of [90, 150]) {
        arm.turn(degrees * DEG);
        for (let f = 0; f < 3; f++) m.scene.render();
        const total = arm.twist(arm.forearm, arm.hand) + arm.twist(arm.upper, arm.forearm);
        const hand = boneWorld(arm.hand);
        const axis = axisOf(arm.forearm, arm.hand);
        relax.update();
        const elbow = arm.twist(arm.upper, arm.forearm);
        const wrist = arm.twist(arm.forearm, arm.hand);
        const after = boneWorld(arm.hand);
        const drift = Vector3.Distance(hand.getTranslation(), after.getTranslation()) / h;
        const swing = Math.acos(Math.min(1, Vector3.Dot(axis, axisOf(arm.forearm, arm.hand))));
        report(
          `${c.label} ${degrees}°: elbow, wrist (°); hand drift (× h), turn, forearm swing (rad)`,
          elbow / DEG,
          wrist / DEG,
          drift,
          turnBetween(hand, after),
          swing,
        );
        // measured: 45.00°/75.00° each; drift ≤ 7.2e-8 h, turn ≤ 5.9e-7 rad, swing ≤ 4.6e-7 rad
        expect(Math.abs(total)).toBeGreaterThan((degrees - 1) * DEG);
        expect(Math.abs(elbow - total / 2)).toBeLessThan(0.5 * DEG);
        expect(Math.abs(wrist - total / 2)).toBeLessThan(0.5 * DEG);
        expect(drift).toBeLessThan(1e-6);
        expect(turnBetween(hand, after)).toBeLessThan(1e-6);
        expect(swing).toBeLessThan(1e-6);
      }
      relax.dispose();
      const auto = TwistRelaxer.create(m.scene, arm.forearm);
      // the hand swept in 5° steps: the forearm follows by half of each (2.5°), no jump
      let previous = Number.NaN;
      let worstStep = 0;
      for (let degrees = -175; degrees <= 175; degrees += 5) {
        arm.turn(degrees * DEG);
        for (let f = 0; f < 2; f++) m.scene.render();
        const elbow = arm.twist(arm.upper, arm.forearm);
        if (!Number.isNaN(previous)) worstStep = Math.max(worstStep, Math.abs(elbow - previous));
        previous = elbow;
      }
      report(`${c.label} sweep: the forearm's largest step (°)`, worstStep / DEG);
      expect(worstStep).toBeLessThan(2.6 * DEG);
      expect(auto.warningsRaised).toEqual([]);
    },
  );

  it.skipIf(!modelAvailable(c.name))(
    "a hand turned past the half turn, and back and forth across it, does not flip the forearm",
    async () => {
      const { m } = await loadCase(c, true);
      const arm = twistedArm(m);
      TwistRelaxer.create(m.scene, arm.forearm);
      // up past the half turn and back (5° steps), to and fro across it (6°), on down
      const path: number[] = [];
      for (let d = 150; d <= 215; d += 5) path.push(d);
      for (let d = 210; d >= 180; d -= 5) path.push(d);
      for (let k = 0; k < 6; k++) path.push(k % 2 === 0 ? 177 : 183);
      for (let d = 175; d >= 150; d -= 5) path.push(d);
      let previous = Number.NaN;
      let worstStep = 0;
      for (const degrees of path) {
        arm.turn(degrees * DEG);
        for (let f = 0; f < 2; f++) m.scene.render();
        // the forearm's twist unwrapped against the last frame's (it may pass a half turn)
        const elbow = arm.twist(arm.upper, arm.forearm);
        if (!Number.isNaN(previous)) {
          const step = Math.abs(elbow - previous);
          worstStep = Math.max(worstStep, Math.min(step, 2 * Math.PI - step));
        }
        previous = elbow;
      }
      report(`${c.label} across the half turn: the forearm's largest step (°)`, worstStep / DEG);
      // half the hand's largest step (183° → 175°: 4.00°); main flipped 177–178° at each crossing of the half turn
      expect(worstStep).toBeLessThan(4.1 * DEG);
    },
  );
});

describe.each(ALL)("TwistRelaxer behind BipedIK's hand on $label", (c) => {
  it.skipIf(!modelAvailable(c.name))("the forearm takes half; weight 0 leaves the pose bit for bit", async () => {
    const { m, h } = await loadCase(c, true);
    const ik = BipedIK.create(m.scene, m.skeleton);
    const r = ik.references;
    const [upper, forearm, hand] = [r.leftUpperArm, r.leftForearm, r.leftHand];
    const limb = ik.solvers.leftHand;
    // the arm bent first, the hand keeping its rest rotation
    limb.targetPosition.copyFrom(Vector3.Lerp(bonePos(m, upper), bonePos(m, hand), 0.6));
    limb.solver.ikPositionWeight = 1;
    for (let f = 0; f < 3; f++) m.scene.render();
    const twist = twistProbe(upper, forearm, hand, (b) => boneMatrix(m, b));
    const axis0 = boneMatrix(m, hand).getTranslation().subtract(boneMatrix(m, forearm).getTranslation()).normalize();
    const hand0 = boneMatrix(m, hand);
    const relax = TwistRelaxer.create(m.scene, forearm, { autoUpdate: false });
    for (const degrees of [90, -120]) {
      hand0.multiply(Matrix.RotationAxis(axis0, degrees * DEG)).decompose(undefined, limb.targetRotation);
      limb.solver.ikRotationWeight = 1;
      for (let f = 0; f < 3; f++) m.scene.render();
      const total = twist(forearm, hand) + twist(upper, forearm);
      const before = boneMatrix(m, hand);
      relax.update();
      const after = boneMatrix(m, hand);
      const elbow = twist(upper, forearm);
      const drift = Vector3.Distance(before.getTranslation(), after.getTranslation()) / h;
      report(
        `${c.label} LimbIK ${degrees}°: elbow (°), hand turn (rad), drift (× h)`,
        elbow / DEG,
        turnBetween(before, after),
        drift,
      );
      // measured: half exactly; turn ≤ 6.6e-7 rad and drift ≤ 5.9e-8 h (glTF), 8.7e-6 and 8.3e-6 (.babylon)
      expect(Math.abs(total - degrees * DEG)).toBeLessThan(1 * DEG);
      expect(Math.abs(elbow - total / 2)).toBeLessThan(0.5 * DEG);
      expect(turnBetween(before, after)).toBeLessThan(2e-5);
      expect(drift).toBeLessThan(2e-5);
    }
    relax.dispose();
    const idle = TwistRelaxer.create(m.scene, forearm, { weight: 0 });
    m.scene.render();
    const relaxed = poseSnapshot(m);
    idle.dispose();
    ik.update();
    // relaxer gone: BipedIK's own pose of this frame, solved again from the same animated pose
    expect(poseSnapshot(m)).toEqual(relaxed);
  });
});

describe("TwistRelaxer with an FBBIK and a LookAtIK on one character", () => {
  // a BipedIK's look-at part alone: a BipedIK beside an FBBIK is refused (body-solver.ts)
  for (const name of ["Soldier", "Superhero", "RiggedFigure"] as ModelName[]) {
    it.skipIf(!modelAvailable(name))(`${name}: the relaxers solve last and split the FBBIK's twist`, async () => {
      const { m, h } = await loadCase(characterCase(name, false), true);
      const r = resolveBipedReferences(m.skeleton).references;
      const look = LookAtIK.create(
        m.scene,
        { spine: r.spine, head: r.head, eyes: r.eyes },
        { updateOrder: IKUpdateOrder.Biped },
      );
      // off while the arm is set up, as BipedIK's parts start
      look.solver.ikPositionWeight = 0;
      const arm = twistedArm(m);
      const { left } = TwistRelaxer.createForArms(arm.ik);
      // the head turns after the FBBIK (IKUpdateOrder.Biped, as BipedIK's), its body left still: the FBBIK's hand stays put
      look.solver.ikPositionWeight = 1;
      look.solver.bodyWeight = 0;
      look.targetPosition.copyFrom(bonePos(m, r.head!).add(new Vector3(h, 0, h)));
      const head = r.head!;
      const headBefore = boneMatrix(m, head);
      for (const degrees of [90, 150]) {
        arm.turn(degrees * DEG);
        for (let f = 0; f < 3; f++) m.scene.render();
        const elbow = arm.twist(arm.upper, arm.forearm);
        const wrist = arm.twist(arm.forearm, arm.hand);
        const target = arm.ik.solver.leftHandEffector.target!.getWorldMatrix().getTranslation();
        const miss = Vector3.Distance(boneWorld(arm.hand).getTranslation(), target) / h;
        report(
          `${name} FBBIK + LookAtIK ${degrees}°: elbow, wrist (°), hand to target (× h)`,
          elbow / DEG,
          wrist / DEG,
          miss,
        );
        expect(Math.abs(elbow - degrees * DEG * 0.5)).toBeLessThan(0.5 * DEG);
        expect(Math.abs(wrist - degrees * DEG * 0.5)).toBeLessThan(0.5 * DEG);
        expect(miss).toBeLessThan(1e-5);
      }
      expect(left.updateOrder).toBeGreaterThan(look.updateOrder);
      expect(turnBetween(headBefore, boneMatrix(m, head))).toBeGreaterThan(0.1);
      expect(left.warningsRaised).toEqual([]);
      look.dispose();
      arm.ik.dispose();
    });
  }
});

describe("TwistRelaxer on RobotExpressive (three palms under each forearm)", () => {
  it("asks for the child, then relaxes between the upper arm and the middle palm", async () => {
    const m = await loadCaseModel(characterCase("RobotExpressive", false));
    const bone = (n: string) => m.skeleton.bones.find((b) => b.name === n)!;
    expect(() => TwistRelaxer.create(m.scene, bone("LowerArm.L"))).toThrow(FBBIKError);
    expect(() => TwistRelaxer.create(m.scene, bone("LowerArm.L"))).toThrow(/"LowerArm.L" has no single main child/);
    const relax = TwistRelaxer.create(m.scene, bone("LowerArm.L"), { child: bone("Palm2.L") });
    expect(relax.bones.map((b) => b.name)).toEqual(["UpperArm.L", "LowerArm.L", "Palm2.L"]);
    // the palm turned about the forearm by hand: the relaxer gives the forearm half of it, the palm stays
    m.scene.render();
    const palm = bone("Palm2.L").getTransformNode()!;
    const axis = axisOf(bone("LowerArm.L"), bone("Palm2.L"));
    const turned = boneWorld(bone("Palm2.L")).multiply(Matrix.RotationAxis(axis, 60 * DEG));
    const parentWorld = boneWorld(bone("LowerArm.L"));
    const local = turned.multiply(parentWorld.clone().invert());
    palm.rotationQuaternion = Quaternion.FromRotationMatrix(local.getRotationMatrix());
    const before = boneWorld(bone("Palm2.L"));
    relax.update();
    expect(turnBetween(before, boneWorld(bone("Palm2.L")))).toBeLessThan(1e-5);
    expect(turnBetween(parentWorld, boneWorld(bone("LowerArm.L")))).toBeGreaterThan(0.3);
  });
});
