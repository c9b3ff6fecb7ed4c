/** UAL holding the first frame of its Idle_Loop (playing on from there) with a FullBodyBipedIK: the QA scenes' start. */
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "./babylon-scene.js";

/** Loads UAL idling into `open` (the test file disposes it) and attaches the IK. */
export async function idlingUal(open: LoadedModel[]): Promise<{ m: LoadedModel; ik: FullBodyBipedIK }> {
  const m = await loadModel("UAL", { clips: (c) => c === "Idle_Loop" });
  open.push(m);
  const idle = m.container.animationGroups[0]!;
  idle.start(true);
  idle.goToFrame(idle.from);
  return { m, ik: FullBodyBipedIK.create(m.scene, m.skeleton) };
}
