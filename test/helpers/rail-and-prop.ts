/**
 * A walking character's left hand held on a world rail, then on a prop it carries: what the root motion tests
 * (qa33, qa34) ask of the IK on a node moved during the frame.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { nodePos, worldPos } from "./scene-probes.js";

/**
 * Renders `railFrames` with the left hand effector on a world point 0.05 h above the hand, then `propFrames` with
 * it on a prop parented to `node` there (its target): the hand's worst distance from each (÷ h) and how far `node`
 * went during the prop's frames (÷ h).
 */
export function holdRailThenProp(
  ik: FullBodyBipedIK,
  node: TransformNode,
  h: number,
  railFrames: number,
  propFrames: number,
): { onRail: number; onProp: number; walked: number } {
  const scene = node.getScene();
  const hand = ik.solver.leftHandEffector;
  hand.positionWeight = 1;
  const bone = ik.references.leftHand;
  const rail = worldPos(bone).add(new Vector3(0, 0.05 * h, 0));
  hand.position.copyFrom(rail);
  let onRail = 0;
  for (let f = 0; f < railFrames; f++) {
    scene.render();
    onRail = Math.max(onRail, Vector3.Distance(worldPos(bone), rail) / h);
  }
  // a prop the character carries: a child of the node, the effector's target
  const prop = new TransformNode("prop", scene);
  prop.parent = node;
  prop.setAbsolutePosition(worldPos(bone).add(new Vector3(0, 0.05 * h, 0)));
  hand.target = prop;
  const from = nodePos(node);
  let onProp = 0;
  for (let f = 0; f < propFrames; f++) {
    scene.render();
    onProp = Math.max(onProp, Vector3.Distance(worldPos(bone), nodePos(prop)) / h);
  }
  return { onRail, onProp, walked: Vector3.Distance(nodePos(node), from) / h };
}
