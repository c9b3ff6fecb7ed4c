/**
 * The rig adapter's per-frame shortcuts on a real model (Mannequin, NullEngine), both handednesses:
 * component space read from Babylon's cached world matrix only when it is current (a character moved in
 * place within the same render id is still seen; an unmoved one leaves Babylon's update ids alone), the
 * lazily updated component-space pose (always exact when read), and the detachment check.
 */
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { RigDetachment } from "../../src/babylon/rig-attachment.js";
import { currentWorldMatrix } from "../../src/babylon/world-matrix.js";
import { Quat, multiply, rotateVector } from "../../src/math/quat.js";
import { Vec3, add, sub } from "../../src/math/vec3.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

async function load(rightHanded: boolean): Promise<LoadedModel> {
  const m = await loadModel("Mannequin", { rightHanded });
  open.push(m);
  return m;
}

/** What `render()` does first for the IK: a new frame id (so a second update is not a same-frame repeat). */
function nextFrame(m: LoadedModel): void {
  (m.scene as unknown as { _frameId: number })._frameId++;
}

for (const rightHanded of [false, true]) {
  describe(`rig frame (${rightHanded ? "right" : "left"}-handed)`, () => {
    it("currentWorldMatrix equals a forced computation, also after an ancestor moved in place within the render id", async () => {
      const m = await load(rightHanded);
      m.scene.render();
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const node = ik.rig.componentRoot!;
      const expectSame = () => {
        const got = currentWorldMatrix(node).clone();
        const forced = node.computeWorldMatrix(true).clone();
        for (let i = 0; i < 16; i++) expect(got.m[i]).toBe(forced.m[i]);
      };
      expectSame();
      // computed in this render id, then the top node moves in place: the cache is stale and must not be used
      node.computeWorldMatrix();
      m.root.position.x += 1.5;
      m.root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.7);
      expectSame();
      m.root.scaling.setAll(2);
      expectSame();
      // frozen: Babylon's frozen matrix is the answer
      m.root.computeWorldMatrix(true);
      m.root.freezeWorldMatrix(Matrix.Translation(3, 0, 1));
      expectSame();
    });

    it("an unmoved character root keeps Babylon's update ids (nothing recomputed because of the IK's read)", async () => {
      const m = await load(rightHanded);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      ik.solver.leftHandEffector.positionWeight = 1;
      m.scene.render();
      m.scene.render();
      const root = ik.rig.characterRoot!;
      const component = ik.rig.componentRoot!;
      const ids = [root._childUpdateId, component._childUpdateId];
      for (let i = 0; i < 3; i++) {
        ik.solver.leftHandEffector.position.y += 0.01;
        m.scene.render();
      }
      expect([root._childUpdateId, component._childUpdateId]).toEqual(ids);
    });

    it("a character under a level node is rooted at its own __root__: turned 180° there, a raised foot's knee still bends forward", async () => {
      const m = await load(rightHanded);
      const level = new TransformNode("level", m.scene);
      m.root.parent = level;
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      // the level is not the character: the grounder's ground, the modifiers' root space and the LOD's centre hang on it
      expect(ik.references.root === m.root).toBe(true);
      const r = ik.references;
      m.root.rotate(Vector3.Up(), Math.PI);
      m.scene.render();
      const foot = worldPos(r.leftFoot);
      const forward = worldPos(r.leftFoot.children[0]!).subtract(foot);
      forward.y = 0;
      forward.normalize();
      ik.solver.leftFootEffector.position.copyFrom(foot).addInPlaceFromFloats(0, 0.15, 0);
      ik.solver.leftFootEffector.positionWeight = 1;
      m.scene.render();
      const hip = worldPos(r.leftThigh);
      const knee = worldPos(r.leftCalf).subtract(hip.add(worldPos(r.leftFoot)).scale(0.5));
      // measured: 0.136 m in front of the hip–ankle line (0.147 m behind it when rooted at the level)
      expect(Vector3.Dot(knee, forward)).toBeGreaterThan(0.05);
    });

    it("a clone renamed either way is rooted at its __root__, not at the rotated armature node under it", async () => {
      const m = await load(rightHanded);
      for (const rename of [(n: string) => `clone_${n}`, (n: string) => `${n}#1`]) {
        const twin = m.container.instantiateModelsToScene(rename, false, { doNotInstantiate: true });
        const ik = FullBodyBipedIK.create(m.scene, twin.skeletons[0]!);
        // measured: "Rig_Medium#1" (the glTF's armature node, without __root__'s handedness turn) before
        expect(ik.references.root?.name).toBe(rename("__root__"));
        ik.dispose();
        twin.dispose();
      }
    });

    it("follows a character moved in place between two updates without a render", async () => {
      const m = await load(rightHanded);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      m.scene.render();
      const hand = ik.references.leftHand;
      const e = ik.solver.leftHandEffector;
      e.positionWeight = 1;
      const target = worldPos(hand).add(new Vector3(0.05, -0.1, 0.05));
      e.position.copyFrom(target);
      nextFrame(m);
      ik._beforeAnimations(); // the same input pose each time (the model has no clip)
      ik.update();
      const solved = worldPos(hand);
      expect(Vector3.Distance(solved, target)).toBeLessThan(0.05);
      // move the character in place (same render id) with its target: the hand moves with them exactly
      const delta = new Vector3(0.3, 0.1, -0.2);
      m.root.computeWorldMatrix();
      m.root.position.addInPlace(delta);
      e.position.copyFrom(target.add(delta));
      nextFrame(m);
      ik._beforeAnimations(); // the same input pose each time (the model has no clip)
      ik.update();
      expect(Vector3.Distance(worldPos(hand), solved.add(delta))).toBeLessThan(1e-4);
      // turned in place: the hand keeps its place relative to the root
      const local = Vector3.TransformCoordinates(solved.add(delta), Matrix.Invert(m.root.computeWorldMatrix(true)));
      const localTarget = Vector3.TransformCoordinates(
        target.add(delta),
        Matrix.Invert(m.root.computeWorldMatrix(true)),
      );
      m.root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.5).multiply(
        m.root.rotationQuaternion ?? Quaternion.Identity(),
      );
      const turned = m.root.computeWorldMatrix(true).clone();
      m.root.computeWorldMatrix(); // cached in this render id; the next change is in place
      m.root.position.x -= 0.4;
      const world = turned.clone();
      world.setTranslationFromFloats(turned.m[12]! - 0.4, turned.m[13]!, turned.m[14]!);
      e.position.copyFrom(Vector3.TransformCoordinates(localTarget, world));
      nextFrame(m);
      ik._beforeAnimations(); // the same input pose each time (the model has no clip)
      ik.update();
      expect(Vector3.Distance(worldPos(hand), Vector3.TransformCoordinates(local, world))).toBeLessThan(1e-4);
    });

    it("an effector target follows its parent moved in place within the render id; an unmoved one is not recomputed", async () => {
      const m = await load(rightHanded);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      m.scene.render();
      const hand = ik.references.leftHand;
      const holder = new TransformNode("holder", m.scene);
      const target = new TransformNode("target", m.scene);
      target.parent = holder;
      target.position.copyFrom(worldPos(hand).add(new Vector3(0.03, -0.08, 0.04)));
      const e = ik.solver.leftHandEffector;
      e.target = target;
      e.positionWeight = 1;
      m.scene.render();
      const first = worldPos(hand);
      const id = target._childUpdateId;
      m.scene.render();
      expect(target._childUpdateId).toBe(id);
      // cached in this render id, then the parent moves in place: the IK must see the new place
      target.computeWorldMatrix();
      holder.position.y += 0.05;
      nextFrame(m);
      ik._beforeAnimations();
      ik.update();
      // (the hand follows the 5 cm within the solver's accuracy; a stale target would leave it in place)
      expect(worldPos(hand).y - first.y).toBeGreaterThan(0.045);
      expect(worldPos(hand).y - first.y).toBeLessThan(0.055);
    });

    it("the component-space pose read through the rig is exact after solving, and a bone's lazily recomputed pose after setRotation", async () => {
      const m = await load(rightHanded);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      ik.solver.leftHandEffector.positionWeight = 1;
      ik.solver.leftHandEffector.position.y -= 0.15;
      ik.solver.rightFootEffector.positionWeight = 1;
      ik.solver.rightFootEffector.position.x += 0.1;
      m.scene.render();
      const rig = ik.rig;
      const rotation = new Quaternion();
      // positions and world rotations (Babylon's convention: X and Z axes match the node's, Y is flipped
      // under a mirror) of every rig bone against Babylon's
      const check = (): void => {
        for (let id = 1; id < rig.count; id++) {
          const bone = rig.bones[id];
          if (bone === null || bone === undefined) continue;
          const world = rig.componentToWorldPoint(rig.getPosition(id, new Vec3()), new Vector3());
          expect(Vector3.Distance(world, worldPos(bone))).toBeLessThan(1e-5);
          rig.componentToWorldRotation(rig.getRotation(id, new Quat()), rotation);
          const node = bone.getTransformNode()!;
          const w = node.computeWorldMatrix(true).m;
          const x = new Vector3(w[0]!, w[1]!, w[2]!).normalize();
          const z = new Vector3(w[8]!, w[9]!, w[10]!).normalize();
          expect(Vector3.Dot(Vector3.Right().applyRotationQuaternion(rotation), x)).toBeGreaterThan(1 - 1e-9);
          expect(Vector3.Dot(Vector3.Forward().applyRotationQuaternion(rotation), z)).toBeGreaterThan(1 - 1e-9);
        }
      };
      check();
      // a post-solve change through the rig: the hand, read first (no view flushes the rig), is recomputed
      // on its own, and equals the turn applied about the upper arm; the write carries it to Babylon
      const arm = rig.idOf(ik.references.leftUpperArm);
      const hand = rig.idOf(ik.references.leftHand);
      const armPos = rig.getPosition(arm, new Vec3());
      const hand0 = rig.getPosition(hand, new Vec3());
      const handRot0 = rig.getRotation(hand, new Quat());
      const turn = new Quat(0, Math.sin(0.2), 0, Math.cos(0.2));
      rig.setRotation(arm, multiply(new Quat(), turn, rig.getRotation(arm, new Quat())));
      const expectedHand = add(new Vec3(), armPos, rotateVector(new Vec3(), turn, sub(new Vec3(), hand0, armPos)));
      const expectedRot = multiply(new Quat(), turn, handRot0);
      const lazyHand = rig.getPosition(hand, new Vec3());
      const lazyRot = rig.getRotation(hand, new Quat());
      const size = Math.hypot(hand0.x - armPos.x, hand0.y - armPos.y, hand0.z - armPos.z);
      expect(
        Math.hypot(lazyHand.x - expectedHand.x, lazyHand.y - expectedHand.y, lazyHand.z - expectedHand.z),
      ).toBeLessThan(1e-9 * size);
      expect(
        Math.abs(
          lazyRot.x * expectedRot.x + lazyRot.y * expectedRot.y + lazyRot.z * expectedRot.z + lazyRot.w * expectedRot.w,
        ),
      ).toBeGreaterThan(1 - 1e-12);
      expect(Math.hypot(lazyHand.x - hand0.x, lazyHand.y - hand0.y, lazyHand.z - hand0.z)).toBeGreaterThan(1e-3 * size);
      // the views agree with the lazy reads
      const view = rig.positions[hand]!;
      expect([view.x, view.y, view.z]).toEqual([lazyHand.x, lazyHand.y, lazyHand.z]);
      rig.write();
      check();
    });

    it("detachment follows the skeleton out of and back into the scene, at another index", async () => {
      const m = await load(rightHanded);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      expect(ik.rig.detachment()).toBe(RigDetachment.Attached);
      m.scene.removeSkeleton(m.skeleton);
      expect(ik.rig.detachment()).toBe(RigDetachment.SkeletonRemoved);
      // back, behind another skeleton: found again at its new index
      const other = m.container.instantiateModelsToScene((n) => `other_${n}`, false, { doNotInstantiate: true });
      m.scene.addSkeleton(m.skeleton);
      expect(m.scene.skeletons.indexOf(m.skeleton)).toBeGreaterThan(m.scene.skeletons.indexOf(other.skeletons[0]!));
      expect(ik.rig.detachment()).toBe(RigDetachment.Attached);
      m.scene.removeSkeleton(other.skeletons[0]!);
      expect(ik.rig.detachment()).toBe(RigDetachment.Attached);
    });

    it("detachment sees a disposed node; dispose removes the rig's node observers", async () => {
      const m = await load(rightHanded);
      const nodes = m.skeleton.bones.map((b) => b.getTransformNode()!);
      const before = nodes.map((n) => n.onDisposeObservable.observers.length);
      const other = FullBodyBipedIK.create(m.scene, m.skeleton);
      other.dispose();
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      // validate() builds a rig it throws away: it must leave nothing on the nodes
      FullBodyBipedIK.validate(m.skeleton);
      const hand = ik.references.leftHand.getTransformNode()!;
      expect(ik.rig.detachment()).toBe(RigDetachment.Attached);
      hand.dispose();
      expect(ik.rig.detachment()).toBe(RigDetachment.NodeDisposed);
      ik.dispose();
      // Babylon removes observers on a later tick
      await new Promise((r) => setTimeout(r, 0));
      nodes.forEach((n, i) => {
        if (n !== hand) expect(n.onDisposeObservable.observers.length).toBe(before[i]);
      });
    });
  });
}
