import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { height, worldPos } from "../helpers/scene-probes.js";

/**
 * A character under IKLevelOfDetail whose root hangs under a moving node allocates nothing a frame once warm: the
 * level of detail places its bounds through the moved world matrix each frame (Babylon's TransformCoordinatesToRef
 * there boxed three doubles in about one run in three, 48 B a frame). In a fresh module graph (vitest.config.ts, HEAP).
 */
it("the level of detail under a moving parent: 0 B a frame", async () => {
  const m = await loadModel("UAL", { clips: (c) => c === "Idle_Loop" });
  const scene = m.scene;
  const h = height(m);
  const holder = new TransformNode("holder", scene);
  m.root.parent = holder;
  const ik = FullBodyBipedIK.create(scene, m.skeleton);
  const lod = IKLevelOfDetail.for(scene);
  lod.budgetMs = Number.POSITIVE_INFINITY;
  scene.render();
  const hand = ik.solver.leftHandEffector;
  hand.positionWeight = 1;
  const reach = worldPos(ik.references.leftHand).add(new Vector3(0.1 * h, 0.3 * h, 0.1 * h));
  const wobble = Array.from({ length: 16 }, (_, i) => new Vector3(0, Math.sin(i), Math.cos(i)).scale(0.02 * h));
  const targets = wobble.map((w) => reach.add(w));
  const holders = wobble.map((w) => w.clone());
  const frame = (f: number): void => {
    hand.position.copyFrom(targets[f % 16]!);
    holder.position.copyFrom(holders[f % 16]!);
    renderWithoutDrawing(scene);
  };
  for (let f = 0; f < 120; f++) frame(f);
  // the level of detail looks at it (Full, in view) and the hand is on its target
  expect(lod.levelOf(ik)).toBe(IKLevel.Full);
  expect(Vector3.Distance(worldPos(ik.references.leftHand), targets[119 % 16]!) / h).toBeLessThan(1e-4);
  const least = bytesPerFrame(frame, 10_000);
  console.log(`lod under a moving parent: ${least.toFixed(2)} B a frame`);
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(least).toBeLessThan(1);
  m.dispose();
});
