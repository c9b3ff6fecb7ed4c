/**
 * A frame of a FullBodyBipedIK turning a hand that keeps turning, with both forearms relaxed by
 * TwistRelaxer.createForArms, allocates nothing once warm. In a fresh module graph (vitest.config.ts, HEAP).
 */
import { Matrix } from "@babylonjs/core/Maths/math.vector.js";
import { expect, it } from "vitest";
import { TwistRelaxer } from "../../src/babylon/twist-relaxer.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { axisOf, boneWorld, twistedArm } from "../helpers/twisted-hand.js";

it("an FBBIK hand turning about its forearm, both forearms relaxed: 0 B a frame", async () => {
  const m = await loadModel("UAL");
  const arm = twistedArm(m);
  const { left, right } = TwistRelaxer.createForArms(arm.ik);
  const target = arm.ik.solver.leftHandEffector.target!;
  arm.ik.solver.leftHandEffector.rotationWeight = 1;
  // the hand's targets made beforehand, 16 turns between −150° and 150°: the frame itself builds nothing
  const hand = boneWorld(arm.hand);
  const axis = axisOf(arm.forearm, arm.hand);
  const turns = Array.from({ length: 16 }, (_, i) => {
    const t = hand.multiply(Matrix.RotationAxis(axis, 2.6 * Math.sin(i)));
    t.setTranslation(hand.getTranslation());
    return t;
  });
  const frame = (f: number): void => {
    target.freezeWorldMatrix(turns[f % 16]!);
    renderWithoutDrawing(m.scene);
  };
  const least = bytesPerFrame(frame, 10_000);
  console.log(`twist relaxer frame heap: ${least.toFixed(2)} B a frame`);
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(left.warningsRaised).toEqual([]);
  expect(right.warningsRaised).toEqual([]);
  expect(least).toBeLessThan(1);
  // and the relaxers did their work: the forearm took half of the last frame's twist
  const elbow = arm.twist(arm.upper, arm.forearm);
  const wrist = arm.twist(arm.forearm, arm.hand);
  expect(Math.abs(elbow - wrist)).toBeLessThan(1e-6);
  expect(Math.abs(elbow)).toBeGreaterThan(0.1);
  m.dispose();
});
