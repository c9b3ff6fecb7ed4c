/**
 * `createTrackerTarget`: a target under a tracker whose axes are not the bone's (a headset, a controller, a
 * camera) turns the bone by the tracker's turns, not to the tracker's axes. UAL's head bone is rolled 177° from
 * the world's axes, so a headset node taken as it is turns the head by about that much.
 */
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { createTrackerTarget } from "../../src/babylon/tracker-target.js";
import { FBBIKHeadEffector } from "../../src/effectors/head/fbbik-head-effector.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { angleDeg, worldRotation } from "../helpers/docs-runs-biped.js";
import { height, nodePos, worldPos } from "../helpers/scene-probes.js";

describe("createTrackerTarget", () => {
  it("a headset with the world's axes: taken as the head's target it turns the head over; under it, the head keeps its turn and follows the headset's", async () => {
    const m = await loadModel("UAL");
    try {
      const h = height(m);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const headNode = ik.references.head!.getTransformNode()!;
      const rest = worldRotation(headNode);
      const headset = new TransformNode("headset", m.scene);
      headset.position.copyFrom(worldPos(ik.references.head!).add(new Vector3(0, 0.06 * h, 0.05 * h)));
      headset.rotationQuaternion = Quaternion.Identity();
      // made before the IK acts: it takes the head's pose as shown when it is called
      const underHeadset = createTrackerTarget(headset, ik.references.head!);
      const head = FBBIKHeadEffector.create(ik, { target: headset, headClampWeight: 0 });
      for (let f = 0; f < 5; f++) m.scene.render();
      const overturned = angleDeg(worldRotation(headNode), rest);

      head.target = underHeadset;
      head.fadeSeconds = 0;
      for (let f = 0; f < 5; f++) m.scene.render();
      const kept = angleDeg(worldRotation(headNode), rest);
      // the headset turns 30° about the world's up and goes down a tenth of the height
      const before = worldPos(ik.references.head!);
      const turn = Quaternion.RotationAxis(Vector3.Up(), Math.PI / 6);
      headset.rotationQuaternion = turn.clone();
      headset.position.y -= 0.1 * h;
      for (let f = 0; f < 5; f++) m.scene.render();
      const turned = angleDeg(worldRotation(headNode), turn.multiply(rest));
      const target = nodePos(head.target);
      const placed = Vector3.Distance(worldPos(ik.references.head!), target) / h;
      console.log(
        `UAL: the headset as the target turned the head ${overturned.toFixed(1)}°; under createTrackerTarget ` +
          `${kept.toFixed(3)}°, then ${turned.toFixed(3)}° off the headset's 30° turn, ${placed.toExponential(2)} h ` +
          `off its target (the head went ${((before.y - worldPos(ik.references.head!).y) / h).toFixed(3)} h down)`,
      );
      expect(overturned, "the trap: a tracker's axes taken as the head's").toBeGreaterThan(150);
      expect(kept).toBeLessThan(0.5);
      expect(turned).toBeLessThan(0.5);
      expect(placed).toBeLessThan(0.01);
    } finally {
      m.dispose();
    }
  });

  it('under a camera, on its origin (`position: "tracker"`): the hand takes the camera\'s place and keeps its own turn', async () => {
    const m = await loadModel("UAL");
    try {
      const h = height(m);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const handNode = ik.references.leftHand.getTransformNode()!;
      const rest = worldRotation(handNode);
      const camera = new FreeCamera(
        "controller",
        worldPos(ik.references.leftHand).add(new Vector3(0, 0.05 * h, 0.08 * h)),
        m.scene,
      );
      camera.rotation.set(0.4, -0.7, 0.2);
      const target = createTrackerTarget(camera, ik.references.leftHand, { position: "tracker" });
      expect(target.parent).toBe(camera);
      const hand = ik.solver.leftHandEffector;
      hand.target = target;
      hand.positionWeight = 1;
      hand.rotationWeight = 1;
      for (let f = 0; f < 5; f++) m.scene.render();
      const placed = Vector3.Distance(worldPos(ik.references.leftHand), camera.globalPosition) / h;
      const kept = angleDeg(worldRotation(handNode), rest);
      console.log(
        `UAL, under a camera: the hand ${placed.toExponential(2)} h off the camera, ${kept.toFixed(3)}° off its own turn`,
      );
      expect(placed).toBeLessThan(1e-3);
      expect(kept).toBeLessThan(0.5);
    } finally {
      m.dispose();
    }
  });

  it("a plain Bone (RiggedFigure.babylon, the bone in its skinned mesh's space): the target is where the bone is, turned as it is", async () => {
    const m = await loadModel("RiggedFigureBabylon");
    try {
      const bone = m.skeleton.bones.find((b) => b.name === "arm_joint_L_3")!;
      const mesh = m.scene.meshes.find((x) => x.skeleton === m.skeleton)!;
      const tracker = new TransformNode("tracker", m.scene);
      tracker.position.set(0.3, 1.2, -0.4);
      tracker.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.5, -0.3, 1.1);
      const target = createTrackerTarget(tracker, bone);
      m.skeleton.computeAbsoluteMatrices(true);
      const world = bone.getAbsoluteMatrix().multiply(mesh.computeWorldMatrix(true));
      const rotation = new Quaternion();
      world.decompose(undefined, rotation);
      const ys = m.skeleton.bones.map((b) => b.getAbsoluteMatrix().multiply(mesh.getWorldMatrix()).getTranslation().y);
      const h = Math.max(...ys) - Math.min(...ys);
      const off = Vector3.Distance(nodePos(target), world.getTranslation());
      const turn = angleDeg(worldRotation(target), rotation);
      console.log(
        `RiggedFigure.babylon: the target ${off.toExponential(2)} off the bone, ${turn.toExponential(2)}° off its turn`,
      );
      expect(off / h).toBeLessThan(1e-6);
      // its sheared 4-decimal matrices: Babylon's decompose and the Z/Y-axes rotation differ by a few thousandths
      expect(turn).toBeLessThan(0.01);
    } finally {
      m.dispose();
    }
  });
});
