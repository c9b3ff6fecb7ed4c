/**
 * A frame of BipedIK on plain Bones (RiggedFigure as `.babylon`: no linked nodes, its mesh scaled ×100), every part
 * weighted and every target moving, with its left forearm relaxed by a TwistRelaxer, allocates nothing once warm. In
 * a fresh module graph (vitest.config.ts, HEAP).
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { expect, it } from "vitest";
import { BipedIK } from "../../src/babylon/biped-ik.js";
import { TwistRelaxer } from "../../src/babylon/twist-relaxer.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { bonePos } from "../helpers/model-limbs.js";

it("BipedIK and a TwistRelaxer on RiggedFigure.babylon's plain Bones: 0 B a frame", async () => {
  const m = await loadModel("RiggedFigureBabylon");
  m.scene.render();
  const ik = BipedIK.create(m.scene, m.skeleton);
  const r = ik.references;
  const relax = TwistRelaxer.create(m.scene, r.leftForearm, { child: r.leftHand });
  const s = ik.solvers;
  const limbs = [s.leftFoot, s.rightFoot, s.leftHand, s.rightHand];
  const homes = limbs.map((l) => bonePos(m, l.bones[2]));
  const head = bonePos(m, r.head!);
  for (const l of limbs) {
    l.solver.ikPositionWeight = 1;
    l.solver.ikRotationWeight = 1;
  }
  s.spine.solver.ikPositionWeight = 0.5;
  s.aim.solver.ikPositionWeight = 1;
  s.lookAt.solver.ikPositionWeight = 1;
  s.pelvis.solver.positionWeight = 0.5;
  // the targets made beforehand, 16 steps of a circle: the frame itself builds nothing
  const steps = Array.from({ length: 16 }, (_, i) => {
    const a = (i / 16) * 2 * Math.PI;
    const offset = new Vector3(0.05 * Math.cos(a), 0.05 * Math.sin(a), 0.03);
    return {
      limbs: homes.map((home) => home.add(offset)),
      turn: Quaternion.RotationAxis(Vector3.Right(), 1.2 * Math.sin(a)),
      spine: head.add(offset).add(new Vector3(0, -0.3, 0)),
      aim: head.add(offset).add(new Vector3(0, 0, -2)),
      look: head.add(offset).add(new Vector3(0, 0, -1)),
      pelvis: homes[0]!.add(offset).add(new Vector3(0, 0.5, 0)),
    };
  });
  const frame = (f: number): void => {
    const step = steps[f % 16]!;
    // a loop, not forEach: its closure would be the frame's only allocation
    for (let i = 0; i < 4; i++) {
      limbs[i]!.targetPosition.copyFrom(step.limbs[i]!);
      limbs[i]!.targetRotation.copyFrom(step.turn);
    }
    s.spine.targetPosition.copyFrom(step.spine);
    s.aim.targetPosition.copyFrom(step.aim);
    s.lookAt.targetPosition.copyFrom(step.look);
    s.pelvis.targetPosition.copyFrom(step.pelvis);
    renderWithoutDrawing(m.scene);
  };
  const least = bytesPerFrame(frame, 10_000);
  console.log(`BipedIK + TwistRelaxer on plain Bones: ${least.toFixed(2)} B a frame`);
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  for (const part of [...ik.parts, relax]) expect(part.warningsRaised).toEqual([]);
  expect(least).toBeLessThan(1);
  ik.dispose();
  relax.dispose();
  m.dispose();
});
