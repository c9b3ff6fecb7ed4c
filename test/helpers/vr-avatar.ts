/** A VR avatar as docs/API.md §7's `vrAvatar` builds it, on nodes the test places. */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { createTrackerTarget } from "../../src/babylon/tracker-target.js";
import { FBBIKHeadEffector } from "../../src/effectors/head/fbbik-head-effector.js";

/** What {@link vrAvatar} made: the head effector, the tracker targets it and the hands follow, and the hand bones. */
export interface VRAvatar {
  head: FBBIKHeadEffector;
  headTarget: TransformNode;
  handTargets: [TransformNode, TransformNode];
  handBones: [Bone, Bone];
}

/** How {@link vrAvatar} weighs the hands: `rotationWeight` (the docs' 1) and `fadeSeconds` (the effector's default). */
export interface VRHands {
  rotationWeight?: number;
  fadeSeconds?: number;
}

/**
 * The head on `headset` and the hands on `controllers` through createTrackerTarget, with the docs' settings
 * (bodyWeight 0.8, headClampWeight 0, handsPullBody false, hands fully weighted in position and, unless `hands` says
 * otherwise, rotation).
 */
export function vrAvatar(
  ik: FullBodyBipedIK,
  headset: TransformNode,
  controllers: readonly TransformNode[],
  hands: VRHands = {},
): VRAvatar {
  const r = ik.references;
  const headTarget = createTrackerTarget(headset, r.head!, { position: "tracker" });
  const head = FBBIKHeadEffector.create(ik, {
    target: headTarget,
    bodyWeight: 0.8,
    headClampWeight: 0,
    handsPullBody: false,
  });
  const effectors = [ik.solver.leftHandEffector, ik.solver.rightHandEffector];
  const handBones: [Bone, Bone] = [r.leftHand, r.rightHand];
  const handTargets = handBones.map((bone, i) => {
    const t = createTrackerTarget(controllers[i]!, bone, { position: "tracker" });
    effectors[i]!.target = t;
    effectors[i]!.positionWeight = 1;
    effectors[i]!.rotationWeight = hands.rotationWeight ?? 1;
    if (hands.fadeSeconds !== undefined) effectors[i]!.fadeSeconds = hands.fadeSeconds;
    return t;
  }) as [TransformNode, TransformNode];
  return { head, headTarget, handTargets, handBones };
}
