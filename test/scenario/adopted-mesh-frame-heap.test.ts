/**
 * A frame of a bone-only rig that moved to the clothes after its mesh was disposed allocates nothing once warm:
 * RiggedFigure.babylon's body disposed while clothes skinned by the skeleton stay, moved under a node of their own;
 * its FullBodyBipedIK reaching for moving targets, grounded by GrounderFBBIK on a bobbing deck and a LimbIK on the
 * other arm, following the clothes (qa30-adopted-mesh-followers), each frame's look for baked vertex animation
 * included. In a fresh module graph (vitest.config.ts, HEAP). No level of detail here: with its node under a moved
 * parent (the clothes', as any character's under one), IKLevelOfDetail's frame allocated 48 B in 2 of 10 runs with or
 * without a mesh disposed, an open matter of its own.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { MovingGroundRaycast } from "../../src/effectors/grounding/moving-ground-raycast.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";

/** `n` points on a circle of radius `r` about `c` in its horizontal plane, lifted by `lift` on odd ones. */
function ring(c: Vector3, r: number, n: number, lift = 0): Vector3[] {
  return Array.from(
    { length: n },
    (_, i) =>
      new Vector3(
        c.x + r * Math.cos((2 * Math.PI * i) / n),
        c.y + (i % 2) * lift,
        c.z + r * Math.sin((2 * Math.PI * i) / n),
      ),
  );
}

it("a .babylon rig moved to the clothes, with a grounder and a LimbIK: 0 B a frame", async () => {
  const m = await loadModel("RiggedFigureBabylon");
  const body = m.scene.meshes.find((x) => x.skeleton === m.skeleton) as Mesh;
  const ys = m.skeleton.bones.map((b) => b.getAbsolutePosition(body).y);
  const h = Math.max(...ys) - Math.min(...ys);
  const holder = new TransformNode("holder", m.scene);
  const clothes = body.clone("clothes", holder)!;
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const r = ik.references;
  const deck = CreateBox("deck", { width: 4 * h, depth: 4 * h, height: 0.1 * h }, m.scene) as Mesh;
  deck.position.y = -0.05 * h;
  const grounder = GrounderFBBIK.create(ik, { raycast: MovingGroundRaycast.fromMeshes([deck]).raycast });
  const limb = LimbIK.create(m.scene, r.rightUpperArm, r.rightForearm, r.rightHand);
  renderWithoutDrawing(m.scene);
  body.dispose();
  holder.position.set(0.3 * h, 0, 0.2 * h);
  clothes.computeWorldMatrix(true);
  m.skeleton.computeAbsoluteMatrices(true);
  // the targets made beforehand, where the clothes show the hands: the frame itself builds nothing
  const hand = ik.solver.leftHandEffector;
  hand.positionWeight = 1;
  const reaches = ring(r.leftHand.getAbsolutePosition(clothes).add(new Vector3(0, 0.1 * h, 0.05 * h)), 0.05 * h, 32);
  const grips = ring(r.rightHand.getAbsolutePosition(clothes).add(new Vector3(0, 0.1 * h, 0.05 * h)), 0.05 * h, 32);
  const decks = ring(deck.position.clone(), 0, 32, 0.02 * h);
  const frame = (f: number): void => {
    hand.position.copyFrom(reaches[f % 32]!);
    limb.targetPosition.copyFrom(grips[f % 32]!);
    deck.position.copyFrom(decks[f % 32]!);
    renderWithoutDrawing(m.scene);
  };
  const least = bytesPerFrame(frame, 10_000);
  process.stderr.write(`adopted-mesh frame heap: ${least.toFixed(2)} B a frame\n`);
  if (least >= 1) process.stderr.write(`${await whereFramesAllocate(frame)}\n`);
  // the frame measured is the adopted rig's, everything on it still running
  expect(ik.rig.meshesAdopted).toBe(1);
  expect(ik.rig.componentRoot).toBe(clothes);
  expect(grounder.root).toBe(clothes);
  expect(ik.isDisposed || limb.isDisposed).toBe(false);
  expect(ik.warningsRaised).toEqual([]);
  expect(limb.warningsRaised).toEqual([]);
  expect(least).toBeLessThan(1);
  m.dispose();
});
