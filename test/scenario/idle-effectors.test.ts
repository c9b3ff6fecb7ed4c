/**
 * Idle effectors and bend constraints skip their world-to-component conversion (weights exactly 0, no
 * offset, no goal). Whatever changed while they were idle must count the frame they become active:
 * position, rotation and bend direction set during idle frames, and a character moved meanwhile.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** The world X and Z axes of a bone (the axes a rotation in Babylon's convention gives it under a mirror too). */
function axes(n: { computeWorldMatrix(force: boolean): { m: ArrayLike<number> } }): [Vector3, Vector3] {
  const m = n.computeWorldMatrix(true).m;
  return [new Vector3(m[0]!, m[1]!, m[2]!).normalize(), new Vector3(m[8]!, m[9]!, m[10]!).normalize()];
}

for (const rightHanded of [false, true]) {
  describe(`idle effectors (${rightHanded ? "right" : "left"}-handed)`, () => {
    it("an effector idle for frames, moved with its character meanwhile, reaches its current target and rotation the frame it gets weight", async () => {
      const m = await loadModel("Mannequin", { rightHanded });
      open.push(m);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const r = ik.references;
      const h = height(m);
      const e = ik.solver.leftHandEffector;
      for (let i = 0; i < 3; i++) m.scene.render();
      // where the character will stand: moved and turned
      const position0 = m.root.position.clone();
      const rotation0 = (m.root.rotationQuaternion ?? Quaternion.Identity()).clone();
      const moveAndTurn = (): void => {
        m.root.position.copyFrom(position0.add(new Vector3(0.7, 0.2, -0.4)));
        m.root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.8).multiply(rotation0);
      };
      moveAndTurn();
      m.scene.render();
      // a target reachable from there: a third of the way from the hand to the shoulder, raised
      const hand = worldPos(r.leftHand);
      const target = hand.add(worldPos(r.leftUpperArm).subtract(hand).scale(0.35)).add(new Vector3(0, 0.05 * h, 0));
      const wanted = Quaternion.RotationYawPitchRoll(0.4, -0.3, 0.9);
      // back where it was; the world target is set now, while the effector is idle
      m.root.position.copyFrom(position0);
      m.root.rotationQuaternion = rotation0.clone();
      m.scene.render();
      e.position.copyFrom(target);
      e.rotation.copyFrom(wanted);
      for (let i = 0; i < 3; i++) m.scene.render();
      // unchanged by the idle effector: nothing was solved toward the target
      expect(Vector3.Distance(worldPos(r.leftHand), target)).toBeGreaterThan(0.05 * h);
      // the character moves while the effector stays idle, then the weights are raised
      moveAndTurn();
      m.scene.render();
      e.positionWeight = 1;
      e.rotationWeight = 1;
      m.scene.render();
      // the world target, converted with this frame's component space (not the one it was set in)
      expect(Vector3.Distance(worldPos(r.leftHand), target)).toBeLessThan(1e-3 * h);
      // the hand's world X and Z axes are the rotation's (Babylon's convention: a mirror above the
      // character flips Y only)
      const [x, z] = axes(r.leftHand.getTransformNode()!);
      const wx = Vector3.Right().applyRotationQuaternion(wanted);
      const wz = Vector3.Forward().applyRotationQuaternion(wanted);
      expect(Vector3.Dot(x, wx)).toBeGreaterThan(0.999);
      expect(Vector3.Dot(z, wz)).toBeGreaterThan(0.999);
    });

    it("a bend direction set while its weight is 0 turns the elbow the frame the weight is raised", async () => {
      const m = await loadModel("Mannequin", { rightHanded });
      open.push(m);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const r = ik.references;
      const h = height(m);
      const hand = ik.solver.leftHandEffector;
      const bend = ik.solver.leftArmChain.bendConstraint;
      // a hand target that bends the elbow, then the bend direction chosen while its weight is 0
      hand.position.copyFrom(
        worldPos(r.leftUpperArm).add(worldPos(r.leftHand).subtract(worldPos(r.leftUpperArm)).scale(0.6)),
      );
      hand.positionWeight = 1;
      m.scene.render();
      const shoulder = worldPos(r.leftUpperArm);
      const axis = hand.position.subtract(shoulder).normalize();
      const elbowBefore = worldPos(r.leftForearm).subtract(shoulder);
      // the side the elbow does not point to now: opposite its current offset from the limb axis
      const side = elbowBefore
        .subtract(axis.scale(Vector3.Dot(elbowBefore, axis)))
        .normalize()
        .scale(-1);
      bend.direction.copyFrom(side);
      m.scene.render();
      m.scene.render();
      const idleElbow = worldPos(r.leftForearm).subtract(shoulder);
      expect(Vector3.Dot(idleElbow.subtract(axis.scale(Vector3.Dot(idleElbow, axis))).normalize(), side)).toBeLessThan(
        0,
      );
      bend.weight = 1;
      m.scene.render();
      const elbow = worldPos(r.leftForearm).subtract(shoulder);
      const off = elbow.subtract(axis.scale(Vector3.Dot(elbow, axis)));
      expect(off.length()).toBeGreaterThan(0.01 * h);
      expect(Vector3.Dot(off.normalize(), side)).toBeGreaterThan(0.99);
    });
  });
}
