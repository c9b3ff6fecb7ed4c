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

/**
 * The head on `headset` and the hands on `controllers` through createTrackerTarget, with the docs' settings
 * (bodyWeight 0.8, headClampWeight 0, handsPullBody false, hands fully weighted in position and rotation, eased over
 * `handFadeSeconds` when given).
 */
export function vrAvatar(
  ik: FullBodyBipedIK,
  headset: TransformNode,
  controllers: readonly [TransformNode, TransformNode],
  handFadeSeconds?: number,
): VRAvatar {
  const r = ik.references;
  const headTarget = createTrackerTarget(headset, r.head!, { position: "tracker" });
  const head = FBBIKHeadEffector.create(ik, {
    target: headTarget,
    bodyWeight: 0.8,
    headClampWeight: 0,
    handsPullBody: false,
  });
  const hands = [ik.solver.leftHandEffector, ik.solver.rightHandEffector];
  const handBones: [Bone, Bone] = [r.leftHand, r.rightHand];
  const handTargets = handBones.map((bone, i) => {
    const t = createTrackerTarget(controllers[i]!, bone, { position: "tracker" });
    hands[i]!.target = t;
    hands[i]!.positionWeight = 1;
    hands[i]!.rotationWeight = 1;
    if (handFadeSeconds !== undefined) hands[i]!.fadeSeconds = handFadeSeconds;
    return t;
  }) as [TransformNode, TransformNode];
  return { head, headTarget, handTargets, handBones };
}
