/**
 * A frame of several IKs of the family in one scene allocates nothing once warm: a rider's FullBodyBipedIK with
 * a hand on a rein its mount holds, the mount's LookAtIK and LimbIK moving that hand (so every IK looks for the
 * IKs it hangs from: babylon/solve-order.ts). In a fresh module graph (vitest.config.ts, HEAP): garbage left by
 * earlier files would be collected during the loop and counted as this one's.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { expect, it } from "vitest";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { worldPos } from "../helpers/scene-probes.js";

it("a rider's hand on a rein held by its mount's LimbIK, under the mount's LookAtIK: 0 B a frame", async () => {
  const m = await loadModel("Mannequin");
  const twin = m.container.instantiateModelsToScene((n) => `rider_${n}`, false, { doNotInstantiate: true });
  const rider = FullBodyBipedIK.create(m.scene, twin.skeletons[0]!);
  const r = resolveBipedReferences(m.skeleton).references;
  LookAtIK.create(m.scene, { spine: r.spine, head: r.head! });
  const arm = LimbIK.create(m.scene, r.rightUpperArm, r.rightForearm, r.rightHand);
  m.scene.render();
  const rein = new TransformNode("rein", m.scene);
  rein.parent = r.rightHand.getTransformNode()!;
  const rr = rider.references;
  rein.setAbsolutePosition(Vector3.Lerp(worldPos(rr.rightHand), worldPos(rr.rightUpperArm), 0.3));
  rider.solver.rightHandEffector.target = rein;
  rider.solver.rightHandEffector.positionWeight = 1;
  // the places made beforehand: a double handed to Babylon's setters may be boxed
  const grip = worldPos(r.rightHand);
  const places = Array.from({ length: 16 }, (_, i) => grip.add(new Vector3(0, Math.sin(i), Math.cos(i)).scale(0.05)));
  const frame = (f: number): void => {
    arm.targetPosition.copyFrom(places[f % 16]!);
    renderWithoutDrawing(m.scene);
  };
  const least = bytesPerFrame(frame, 10_000);
  // the rider's effector wrote its target's rotation through Quaternion.set, which V8 did not inline in this
  // scene: four boxed doubles, 64 B a frame
  console.log(`family frame heap: ${least.toFixed(2)} B a frame`);
  // printed with the failure (npm test prints a failing test's output): where the bytes come from
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(least).toBeLessThan(1);
  m.dispose();
});
