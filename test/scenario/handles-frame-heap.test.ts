/**
 * EffectorHandles' frame allocates nothing once warm: the handles ride on the solved pose (onPostUpdate), keep
 * their size on screen (the layer's onBeforeRender) and show their weights, with one handle dragged around. In a
 * fresh module graph (vitest.config.ts, HEAP): garbage left by earlier files would count as this one's.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { expect, it } from "vitest";
import { EffectorHandles } from "../../src/babylon/effector-handles.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { nodePos, worldPos } from "../helpers/scene-probes.js";

it("handles riding, one moved (weighted), resized for the camera: 0 B a frame", async () => {
  const m = await loadModel("Mannequin");
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const handles = EffectorHandles.create(ik);
  m.scene.render();
  const hand = handles.find("left hand");
  handles.select(hand);
  handles.grab("position");
  // Babylon's gizmos allocate on their own while on a handle (Gizmo._update: about 2 KB a frame, measured here)
  handles.select(null);
  const layer = handles.utilityLayer.utilityLayerScene;
  // the places made beforehand: a double handed to Babylon's setters may be boxed
  const grip = worldPos(ik.references.leftHand);
  const places = Array.from({ length: 16 }, (_, i) => grip.add(new Vector3(0, Math.sin(i), Math.cos(i)).scale(0.1)));
  const frame = (f: number): void => {
    hand.mesh.position.copyFrom(places[f % 16]!);
    renderWithoutDrawing(m.scene);
    // what the layer's render runs before drawing its scene
    layer.onBeforeRenderObservable.notifyObservers(layer);
  };
  frame(0);
  // the frame does what it says: the hand follows its handle, the right foot's handle rides on its bone
  expect(Vector3.Distance(worldPos(ik.references.leftHand), places[0]!)).toBeLessThan(0.02);
  expect(Vector3.Distance(nodePos(handles.find("right foot").mesh), worldPos(ik.references.rightFoot))).toBeLessThan(
    1e-4,
  );
  expect(hand.mesh.scaling.x).toBeGreaterThan(0);
  const least = bytesPerFrame(frame, 10_000);
  console.log(`handles frame heap: ${least.toFixed(2)} B a frame`);
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(least).toBeLessThan(1);
  m.dispose();
});
