/**
 * The docs' `vrAvatar` hands (docs/API.md, FBBIKHeadEffector): each hand effector on a tracker target following its
 * controller, position weight 1, the given rotation weight, fading over 0.3 s.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { createTrackerTarget } from "../../src/babylon/tracker-target.js";

/** Puts the left and right hand effectors on `controllers` ([left, right]); returns their tracker targets. */
export function driveHands(ik: FullBodyBipedIK, controllers: TransformNode[], rotationWeight: number): TransformNode[] {
  const s = ik.solver;
  const hands = [s.leftHandEffector, s.rightHandEffector];
  const handBones: Bone[] = [ik.references.leftHand, ik.references.rightHand];
  const targets: TransformNode[] = [];
  for (let i = 0; i < 2; i++) {
    const t = createTrackerTarget(controllers[i]!, handBones[i]!, { position: "tracker" });
    targets.push(t);
    hands[i]!.target = t;
    hands[i]!.positionWeight = 1;
    hands[i]!.rotationWeight = rotationWeight;
    hands[i]!.fadeSeconds = 0.3;
  }
  return targets;
}
