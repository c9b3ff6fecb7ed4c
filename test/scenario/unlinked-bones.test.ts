/**
 * Bones unlinked from their TransformNodes (`bone.linkTransformNode(null)`, as Babylon's Physics v2 `Ragdoll` does
 * to every bone): the IK reads and writes the nodes, which nothing shows then. It is skipped with one warning, not
 * disposed, and solves again once the bones are linked back.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { height, nodePos, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

describe("bones unlinked from their nodes", () => {
  for (const kind of ["FullBodyBipedIK", "LimbIK"] as const) {
    it(`${kind} is skipped with one warning while unlinked and solves again once linked back`, async () => {
      const m = await loadModel("Mannequin");
      open.push(m);
      m.scene.render();
      const h = height(m);
      const fbbik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const r = fbbik.references;
      const hand = r.leftHand.getTransformNode()!;
      const target = new TransformNode("target", m.scene);
      target.position.copyFrom(worldPos(r.leftHand).add(new Vector3(0.05 * h, 0.12 * h, 0.08 * h)));
      const warnings: string[] = [];
      let disposed = false;
      if (kind === "FullBodyBipedIK") {
        fbbik.solver.leftHandEffector.target = target;
        fbbik.solver.leftHandEffector.positionWeight = 1;
        fbbik.onWarningObservable.add((w) => warnings.push(w.cause));
        fbbik.onDisposeObservable.add(() => (disposed = true));
      } else {
        fbbik.dispose();
        const limb = LimbIK.create(m.scene, r.leftUpperArm, r.leftForearm, r.leftHand, { target });
        limb.onWarningObservable.add((w) => warnings.push(w.cause));
        limb.onDisposeObservable.add(() => (disposed = true));
      }
      const gap = (): number => Vector3.Distance(nodePos(hand), target.position) / h;
      m.scene.render();
      expect(gap()).toBeLessThan(1e-4);

      const nodes = m.skeleton.bones.map((b) => b.getTransformNode());
      for (const b of m.skeleton.bones) b.linkTransformNode(null);
      target.position.addInPlace(new Vector3(0, -0.1 * h, 0));
      for (let f = 0; f < 5; f++) m.scene.render();
      // while unlinked nothing is solved: the hand's node stays where it was (solving, it followed the target)
      expect(gap()).toBeGreaterThan(0.09);
      expect(warnings.filter((w) => w === "detached:unlinked")).toEqual(["detached:unlinked"]);
      expect(disposed).toBe(false);

      m.skeleton.bones.forEach((b, i) => nodes[i] && b.linkTransformNode(nodes[i]));
      m.scene.render();
      expect(gap()).toBeLessThan(1e-4);
      expect(warnings.filter((w) => w === "detached:unlinked").length).toBe(1);
    });
  }
});
