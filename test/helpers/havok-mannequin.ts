/** The Mannequin standing in a Havok world, for the grounder's Havok scenario tests. */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import "@babylonjs/core/Physics/joinedPhysicsEngineComponent.js";
import { HavokPlugin } from "@babylonjs/core/Physics/v2/Plugins/havokPlugin.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "./babylon-scene.js";
import { height } from "./scene-probes.js";

/** The Mannequin with its IK and a Havok world on `engine` (loadHavok's), rendered once; h its height. */
export async function mannequinOnHavok(
  engine: unknown,
): Promise<{ m: LoadedModel; ik: FullBodyBipedIK; plugin: HavokPlugin; h: number }> {
  const m = await loadModel("Mannequin");
  const plugin = new HavokPlugin(false, engine);
  m.scene.enablePhysics(new Vector3(0, -9.81, 0), plugin);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  return { m, ik, plugin, h: height(m) };
}
