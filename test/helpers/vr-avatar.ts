/** A VR avatar as docs/API.md §7's `vrAvatar` builds it, on nodes the test places. */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import type { LoadedModel, ModelName } from "./babylon-scene.js";
import { load, worldPos } from "./modifier-scene.js";
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

/** A character standing for a VR avatar: its idle clip playing, an FBBIK, its height and forward. */
export interface StandingCharacter {
  m: LoadedModel;
  ik: FullBodyBipedIK;
  /** The head's height above the feet. */
  h: number;
  /** Horizontal, from the feet to the toes. */
  forward: Vector3;
}

/** `name` playing its idle clip (the Mannequin and the Superhero have none: their setup pose stands in) with an FBBIK. */
export async function standingCharacter(name: ModelName): Promise<StandingCharacter> {
  const m = await load(name, false, (n, i) => /idle/i.test(n) || i === 0);
  const idle = m.container.animationGroups.find((g) => /idle/i.test(g.name)) ?? m.container.animationGroups[0];
  idle?.start(true);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  const r = ik.references;
  const feet = worldPos(r.leftFoot).add(worldPos(r.rightFoot)).scale(0.5);
  const h = worldPos(r.head!).y - feet.y;
  const forward = new Vector3();
  for (const foot of [r.leftFoot, r.rightFoot])
    forward.addInPlace(worldPos(foot.children[0]!).subtract(worldPos(foot)));
  forward.y = 0;
  forward.normalize();
  return { m, ik, h, forward };
}

/** A tracker node at `at` with the world's axes, as a headset's and controllers' are. */
export function worldTracker(scene: Scene, label: string, at: Vector3): TransformNode {
  const t = new TransformNode(label, scene);
  t.position.copyFrom(at);
  t.rotationQuaternion = Quaternion.Identity();
  t.computeWorldMatrix(true);
  return t;
}
