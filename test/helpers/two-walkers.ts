/**
 * Two UAL characters walking side by side in one scene (Walk_Loop, in step), each with a FullBodyBipedIK: the
 * setting of the tests of hands between characters (hand in hand, a box carried together).
 */
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "./babylon-scene.js";
import { height, nodePos } from "./scene-probes.js";

/** The two walkers: B on A's right, A's right hand and B's left hand toward each other. */
export interface TwoWalkers {
  a: LoadedModel;
  b: LoadedModel;
  scene: Scene;
  /** A's height, for tolerances. */
  h: number;
  ikA: FullBodyBipedIK;
  ikB: FullBodyBipedIK;
  /** A's right, horizontal, unit. */
  side: Vector3;
  aHand: TransformNode;
  bHand: TransformNode;
}

/**
 * Loads both (pushed on `open` for disposal), B 0.45 of the height on A's right, both walking; `bFirst`: B's IK
 * created before A's. Nothing rendered yet.
 */
export async function twoWalkers(open: LoadedModel[], bFirst = false): Promise<TwoWalkers> {
  const walk = (n: string) => n === "Walk_Loop";
  const a = await loadModel("UAL", { clips: walk });
  open.push(a);
  const b = await loadModel("UAL", { clips: walk, scene: a.scene });
  const scene = a.scene;
  const h = height(a);
  const first = FullBodyBipedIK.create(scene, (bFirst ? b : a).skeleton);
  const second = FullBodyBipedIK.create(scene, (bFirst ? a : b).skeleton);
  const [ikA, ikB] = bFirst ? [second, first] : [first, second];
  const r = ikA.references;
  const side = nodePos(r.rightUpperArm.getTransformNode()!).subtract(nodePos(r.leftUpperArm.getTransformNode()!));
  side.y = 0;
  side.normalize();
  b.root.position.addInPlace(side.scale(0.45 * h));
  for (const m of [a, b]) m.container.animationGroups.find((g) => g.name === "Walk_Loop")!.start(true);
  const aHand = r.rightHand.getTransformNode()!;
  const bHand = ikB.references.leftHand.getTransformNode()!;
  return { a, b, scene, h, ikA, ikB, side, aHand, bHand };
}
