/**
 * Reading the solver's nodes through the component (FinalIK's GetNode): node counts per chain, the bone
 * each node stands for, and where the last solve put each node in world space, on the Mannequin in both
 * handednesses with the character moved, turned and scaled.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

for (const rightHanded of [false, true]) {
  describe(`solver nodes (${rightHanded ? "right" : "left"}-handed)`, () => {
    it("counts, bone names and world positions of every node match the bones the solve wrote", async () => {
      const m = await loadModel("Mannequin", { rightHanded });
      open.push(m);
      m.root.position.set(2, 0.5, -1);
      m.root.rotationQuaternion = null;
      m.root.rotation.set(0, 1.1, 0);
      m.root.scaling.scaleInPlace(3);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const s = ik.solver;
      const r = ik.references;
      const h = height(m);
      s.leftHandEffector.position.copyFrom(worldPos(r.leftHand).add(new Vector3(0.05, 0.1, 0.08).scale(h)));
      s.leftHandEffector.positionWeight = 1;
      s.rightFootEffector.position.copyFrom(worldPos(r.rightFoot).add(new Vector3(0, 0.08, 0.05).scale(h)));
      s.rightFootEffector.positionWeight = 1;
      m.scene.render();

      expect(s.chainCount).toBe(5);
      expect([0, 1, 2, 3, 4].map((c) => s.getNodeCount(c))).toEqual([1, 3, 3, 3, 3]);
      const limbs = [
        [r.leftUpperArm, r.leftForearm, r.leftHand],
        [r.rightUpperArm, r.rightForearm, r.rightHand],
        [r.leftThigh, r.leftCalf, r.leftFoot],
        [r.rightThigh, r.rightCalf, r.rightFoot],
      ];
      const out = new Vector3();
      limbs.forEach((bones, i) => {
        bones.forEach((bone, j) => {
          expect(s.getNodeBoneName(i + 1, j)).toBe(bone.name);
          // the mapping puts limb bones on their nodes: the node's world position is the bone's
          expect(Vector3.Distance(s.getNodeWorldPosition(i + 1, j, out), worldPos(bone))).toBeLessThan(1e-3 * h);
        });
      });
      // the solved hand and foot nodes are on their targets
      expect(Vector3.Distance(s.getNodeWorldPosition(1, 2, out), s.leftHandEffector.position)).toBeLessThan(1e-3 * h);
      expect(Vector3.Distance(s.getNodeWorldPosition(4, 2, out), s.rightFootEffector.position)).toBeLessThan(1e-3 * h);
      expect(s.getNode(1, 2)).toBe(s.inner.chains[1]!.nodes[2]);
      expect(s.getNodeWorldPosition(1, 2, out)).toBe(out);
    });

    it("names the chain or node that does not exist", async () => {
      const m = await loadModel("Mannequin", { rightHanded });
      open.push(m);
      const s = FullBodyBipedIK.create(m.scene, m.skeleton).solver;
      expect(() => s.getNode(5, 0)).toThrow(/no chain 5/);
      expect(() => s.getNode(0, 1)).toThrow(/no node 1/);
      expect(() => s.getNodeCount(-1)).toThrow(/no chain -1/);
    });
  });
}
