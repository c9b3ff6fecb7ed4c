/**
 * Every component's `create(scene, …)` takes the skeleton's scene: another scene, given by mistake (an app with
 * two scenes), throws an FBBIKError saying so, instead of being ignored (the family) or solving the IK on that
 * other scene's frames (FullBodyBipedIK), and nothing is attached to either scene.
 */
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { AimIK } from "../../src/babylon/aim-ik.js";
import { CCDIK, FABRIK, FABRIKRoot } from "../../src/babylon/chain-ik.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { JacobianIK } from "../../src/babylon/jacobian-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

describe("create(scene, …) takes the skeleton's scene", () => {
  it("throws an FBBIKError for another scene, for FullBodyBipedIK and each of the family", async () => {
    const m = await loadModel("UAL", { clips: () => false });
    open.push(m);
    const other = new Scene(m.scene.getEngine());
    const bone = (name: string) => m.skeleton.bones.find((b) => b.name === name)!;
    const [thigh, shin, foot] = ["DEF-thigh.L", "DEF-shin.L", "DEF-foot.L"].map(bone) as [never, never, never];
    const creates: [string, (scene: Scene) => { dispose(): void }][] = [
      ["FullBodyBipedIK", (s) => FullBodyBipedIK.create(s, m.skeleton)],
      ["CCDIK", (s) => CCDIK.create(s, [thigh, shin, foot])],
      ["FABRIK", (s) => FABRIK.create(s, [thigh, shin, foot])],
      ["FABRIKRoot", (s) => FABRIKRoot.create(s, thigh, [[shin, foot]])],
      ["LimbIK", (s) => LimbIK.create(s, thigh, shin, foot)],
      ["AimIK", (s) => AimIK.create(s, [thigh, shin, foot])],
      ["LookAtIK", (s) => LookAtIK.create(s, { head: bone("DEF-head") })],
      ["JacobianIK", (s) => JacobianIK.create(s, [thigh, shin, foot], { effectors: [{ bone: foot }] })],
    ];
    for (const [name, create] of creates) {
      let error: unknown = null;
      try {
        create(other).dispose();
      } catch (e) {
        error = e;
      }
      expect(error, name).toBeInstanceOf(FBBIKError);
      expect((error as FBBIKError).component, name).toBe(name);
      expect((error as FBBIKError).message, name).toContain("is not skeleton");
      // the skeleton's own scene still works: nothing was left attached by the refused call
      create(m.scene).dispose();
    }
    other.dispose();
  });
});
