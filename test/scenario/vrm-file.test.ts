/**
 * A VRM 0.x avatar (a glTF binary with the VRM extension and VRoid's bone names, made from the committed
 * Mannequin: test/helpers/vrm-from-glb.ts) loads through Babylon's glTF loader as a `.vrm` does, the IK finds
 * its bones by their VRM names, and a hand reaches its target.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { reachLeftHand } from "../helpers/hand-reach.js";
import { mannequinAsVrm } from "../helpers/vrm-from-glb.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

describe("a VRM 0.x avatar", () => {
  for (const rightHanded of [false, true]) {
    it(`loads, the IK finds its bones by their VRM names, a hand reaches (${rightHanded ? "right" : "left"}-handed)`, async () => {
      const m = await loadModel("Mannequin", { rightHanded, glb: mannequinAsVrm });
      open.push(m);
      expect(m.scene.getTransformNodeByName("J_Bip_L_UpperArm")).not.toBeNull();
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const r = ik.references;
      const names = [r.pelvis, r.leftThigh, r.leftFoot, r.leftUpperArm, r.leftHand, r.rightHand, r.head].map(
        (b) => b?.name,
      );
      expect(names).toEqual([
        "J_Bip_C_Hips",
        "J_Bip_L_UpperLeg",
        "J_Bip_L_Foot",
        "J_Bip_L_UpperArm",
        "J_Bip_L_Hand",
        "J_Bip_R_Hand",
        "J_Bip_C_Head",
      ]);
      expect(reachLeftHand(m, ik).miss).toBeLessThan(1e-4);
    });
  }
});
