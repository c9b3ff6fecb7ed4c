/**
 * Several IK components on one character (the UAL model), in IKUpdateOrder: FullBodyBipedIK (a hand on a target), then
 * LookAtIK (the head on a point), then a CCDIK on the other arm. Each does its job on top of the ones before
 * (the FBBIK's hand stays where the FBBIK alone puts it),
 * nothing accumulates from frame to frame (FixTransforms run in reverse), and disposing them, in any order,
 * leaves the bones exactly as the animation put them.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { CCDIK } from "../../src/babylon/chain-ik.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { loadModel, proceduralIdle } from "../helpers/babylon-scene.js";

describe("FullBodyBipedIK, LookAtIK and CCDIK on one character (UAL)", () => {
  it("each reaches its target, no drift over 300 frames, dispose restores the animated pose", async () => {
    const model = await loadModel("UAL");
    const { scene, skeleton } = model;
    const refs = resolveBipedReferences(skeleton).references;
    const named = {
      Spine: refs.spine[0]!,
      Spine1: refs.spine[1]!,
      Spine2: refs.spine[refs.spine.length - 1]!,
      LeftArm: refs.leftUpperArm,
      LeftHand: refs.leftHand,
      RightArm: refs.rightUpperArm,
      RightForeArm: refs.rightForearm,
      RightHand: refs.rightHand,
      Head: refs.head!,
    };
    const bone = (n: keyof typeof named) => named[n];
    const node = (n: keyof typeof named) => named[n].getTransformNode()!;
    const idle = proceduralIdle(scene, [node("Spine"), node("Spine1"), node("LeftArm"), node("RightArm")]);
    idle.start(true);
    idle.pause();
    idle.goToFrame(20);
    scene.render();
    const animated = skeleton.bones.map((b) => b.getTransformNode()?.rotationQuaternion?.clone() ?? null);
    const positions = () => skeleton.bones.map((b) => b.getTransformNode()?.position.clone() ?? null);
    const animatedPositions = positions();

    const chest = node("Spine2");
    chest.computeWorldMatrix(true);
    // targets near where the hands hang in the T-pose: reachable whichever way the character faces
    const leftHand = node("LeftHand");
    leftHand.computeWorldMatrix(true);
    const front = leftHand.absolutePosition.add(new Vector3(0, -0.2, 0.15));
    const ik = FullBodyBipedIK.create(scene, skeleton);
    ik.solver.leftHandEffector.position.copyFrom(front);
    ik.solver.leftHandEffector.positionWeight = 1;
    // the FBBIK's hand alone first: the components solved after it must not move it
    for (let f = 0; f < 3; f++) scene.render();
    const handNode = node("LeftHand");
    const fbbikHand = handNode.computeWorldMatrix(true).getTranslation();
    const look = LookAtIK.create(scene, { head: bone("Head") }, { forward: new Vector3(0, 0, 1) });
    look.solver.clampWeightHead = 0;
    look.solver.headWeight = 1;
    look.targetPosition.copyFrom(chest.absolutePosition.add(new Vector3(-1, 0.5, 2)));
    const arm = CCDIK.create(scene, [bone("RightArm"), bone("RightForeArm"), bone("RightHand")], { maxIterations: 50 });
    const rightHand = node("RightHand");
    rightHand.computeWorldMatrix(true);
    // within reach: 80 % of the way from the shoulder to the T-pose hand, then down and aside
    const shoulder = node("RightArm").computeWorldMatrix(true).getTranslation();
    const reach = rightHand.absolutePosition.subtract(shoulder).scale(0.8);
    arm.targetPosition.copyFrom(shoulder.add(reach).add(new Vector3(0, -0.15, 0.1)));

    const snapshot = () => skeleton.bones.map((b) => b.getTransformNode()?.rotationQuaternion?.asArray() ?? null);
    let atFrame10: (number[] | null)[] = [];
    for (let f = 0; f < 300; f++) {
      scene.render();
      if (f === 10) atFrame10 = snapshot();
    }
    // the same pose every frame: nothing accumulates
    expect(snapshot()).toEqual(atFrame10);
    expect(Vector3.Distance(handNode.computeWorldMatrix(true).getTranslation(), fbbikHand)).toBeLessThan(1e-9);
    const rhand = node("RightHand");
    rhand.computeWorldMatrix(true);
    expect(Vector3.Distance(rhand.absolutePosition, arm.targetPosition)).toBeLessThan(0.002);
    // (the arms are straight in the T-pose: the FBBIK's setup may warn about that, and only that)
    expect(ik.warningsRaised.every((w) => w.cause.startsWith("straight-limb"))).toBe(true);
    expect([...look.warningsRaised, ...arm.warningsRaised].map((w) => w.message)).toEqual([]);

    look.dispose();
    ik.dispose();
    arm.dispose();
    skeleton.bones.forEach((b, i) => {
      const q = b.getTransformNode()?.rotationQuaternion;
      if (q) expect(q.asArray()).toEqual(animated[i]!.asArray());
      const p = b.getTransformNode()?.position;
      if (p) expect(p.asArray()).toEqual(animatedPositions[i]!.asArray());
    });
    model.dispose();
  });
});
