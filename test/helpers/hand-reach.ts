/**
 * The reach the VRM and MMD file tests solve: the left hand's target raised toward its shoulder (reachable
 * whichever way the scene's handedness turns the character), full weight, three frames.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import type { LoadedModel } from "./babylon-scene.js";
import { height, worldPos } from "./scene-probes.js";

/** Solves the reach on `m`; returns the target's position and how far the hand ended from it (share of h). */
export function reachLeftHand(m: LoadedModel, ik: FullBodyBipedIK): { target: Vector3; miss: number } {
  const r = ik.references;
  m.scene.render();
  const h = height(m);
  const target = new TransformNode("target", m.scene);
  const hand = worldPos(r.leftHand);
  target.position.copyFrom(Vector3.Lerp(hand, worldPos(r.leftUpperArm), 0.3).add(new Vector3(0, 0.05 * h, 0)));
  ik.solver.leftHandEffector.target = target;
  ik.solver.leftHandEffector.positionWeight = 1;
  for (let i = 0; i < 3; i++) m.scene.render();
  return { target: target.position.clone(), miss: Vector3.Distance(worldPos(r.leftHand), target.position) / h };
}
