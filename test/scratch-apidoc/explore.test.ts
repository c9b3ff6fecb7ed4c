import { it } from "vitest";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { FullBodyBipedIK, FBBIKError } from "../../src/index.js";
import { loadModel } from "../helpers/babylon-scene.js";

it("explore", async () => {
  for (const name of ["Mannequin", "Superhero", "Xbot", "Soldier"] as const) {
    for (const rh of [false, true]) {
      const m = await loadModel(name, { rightHanded: rh });
      const seen: string[] = [];
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      ik.onWarningObservable.add((w) => seen.push(w.cause));
      console.log(name, rh, "raised at create:", ik.warningsRaised.map((w) => w.cause + ": " + w.message), "root", ik.rootNode.name, "refs.root", ik.references.root, "rig charRoot", ik.rig.characterRoot?.name, "mirrored", ik.rig.mirrored);
      const e = ik.solver.leftHandEffector;
      e.positionWeight = NaN;
      m.scene.render(); m.scene.render();
      e.positionWeight = 0;
      e.positionOffset.addInPlace(new Vector3(0, 0.1, 0));
      m.scene.render();
      console.log("offset after solve", e.positionOffset.toString(), "seen", seen);
      console.log("dir", ik.solver.leftLegChain.bendConstraint.direction.toString(), ik.solver.leftArmChain.bendConstraint.direction.toString());
      m.dispose();
    }
  }
  const m = await loadModel("RobotExpressive");
  try { FullBodyBipedIK.create(m.scene, m.skeleton); } catch (e) { console.log((e as FBBIKError).name, (e as Error).message, (e as FBBIKError).problems.length); }
});
