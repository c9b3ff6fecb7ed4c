/**
 * Fading `enabled` allocates nothing once warm: a FullBodyBipedIK and a LimbIK switched off and on over
 * enableFadeSeconds, through whole fades, reversals mid-fade and the frames settled between. In a fresh module
 * graph (vitest.config.ts, HEAP): garbage left by earlier files would be collected during the loop and counted
 * as this one's.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { expect, it } from "vitest";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { height, worldPos } from "../helpers/scene-probes.js";

it("an FBBIK and a LimbIK fading off and on, reversed mid-fade: 0 B a frame", async () => {
  const m = await loadModel("Mannequin");
  const twin = m.container.instantiateModelsToScene((n) => `twin_${n}`, false, { doNotInstantiate: true });
  const h = height(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton, { enableFadeSeconds: 0.3 });
  const hand = ik.solver.leftHandEffector;
  hand.position.copyFrom(worldPos(hand.bone!).add(new Vector3(0.1, 0.15, 0.1).scale(h)));
  hand.positionWeight = 1;
  // the LimbIK on a second character (one FBBIK per skeleton writes all its limbs)
  const r = resolveBipedReferences(twin.skeletons[0]!).references;
  const arm = LimbIK.create(m.scene, r.rightUpperArm, r.rightForearm, r.rightHand, { enableFadeSeconds: 0.3 });
  arm.targetPosition.copyFrom(worldPos(r.rightHand).add(new Vector3(0, 0.2, 0.1).scale(h)));
  // a real frame first: the scene's delta time (16 ms, constant) that the fades step by
  m.scene.render();
  // 0.3 s is 19 frames of 16 ms: off at 0, reversed at 8 and 12, on at 40 (whole), settled between
  const frame = (f: number): void => {
    const k = f % 80;
    if (k === 0 || k === 8 || k === 12 || k === 40) {
      ik.enabled = !ik.enabled;
      arm.enabled = !arm.enabled;
    }
    renderWithoutDrawing(m.scene);
  };
  // the schedule goes through every state: fading (both ways, reversed), settled on, settled off
  const seen = new Set<string>();
  for (let f = 0; f < 80; f++) {
    frame(f);
    seen.add(`${ik.enabled}/${ik.isFading}/${arm.enabled}/${arm.isFading}`);
  }
  expect([...seen].sort()).toEqual([
    "false/false/false/false",
    "false/true/false/true",
    "true/false/true/false",
    "true/true/true/true",
  ]);
  const least = bytesPerFrame(frame, 10_000);
  console.log(`enable fade frame heap: ${least.toFixed(2)} B a frame`);
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(ik.warningsRaised.filter((w) => !w.cause.startsWith("straight"))).toEqual([]);
  expect(least).toBeLessThan(1);
  m.dispose();
});
