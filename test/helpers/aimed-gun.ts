/**
 * The gun of test/scenario/aim-look-gun.test.ts: a node on the right hand along the character's forward, aimed by an
 * AimIK through the first two spine bones and the right arm, with targets for it and for a LookAtIK that wander about
 * ahead of the head.
 */
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { AimIK } from "../../src/babylon/aim-ik.js";
import type { BipedReferences } from "../../src/babylon/biped-references.js";
import { worldPos } from "./scene-probes.js";

/** The gun, its AimIK and the two targets. */
export interface AimedGun {
  gun: TransformNode;
  aim: AimIK;
  target: TransformNode;
  lookTarget: TransformNode;
  /** Places the targets for time `t` (s), ahead of the head of a character `h` high. */
  moveTargets(t: number, h: number): void;
}

/** Puts a gun in the right hand of `r` and aims it by an AimIK (at `updateOrder` when given). */
export function aimedGun(scene: Scene, r: BipedReferences, updateOrder?: number): AimedGun {
  const hand = r.rightHand.getTransformNode()!;
  const gun = new TransformNode("gun", scene);
  gun.parent = hand;
  const local = Vector3.TransformNormal(Vector3.Forward(), Matrix.Invert(hand.computeWorldMatrix(true))).normalize();
  gun.rotationQuaternion = Quaternion.FromUnitVectorsToRef(Vector3.Forward(), local, new Quaternion());
  const target = new TransformNode("target", scene);
  const lookTarget = new TransformNode("look", scene);
  const aim = AimIK.create(scene, [r.spine[0]!, r.spine[1]!, r.rightUpperArm, r.rightForearm, r.rightHand], {
    target,
    aimTransform: gun,
    ...(updateOrder !== undefined ? { updateOrder } : {}),
  });
  const moveTargets = (t: number, h: number): void => {
    const head = worldPos(r.head!);
    target.position.set(head.x + Math.sin(t) * 0.5 * h, head.y + Math.cos(0.7 * t) * 0.2 * h, head.z + 2 * h);
    lookTarget.position.set(head.x + Math.cos(0.5 * t) * 0.8 * h, head.y, head.z + 2 * h);
  };
  return { gun, aim, target, lookTarget, moveTargets };
}
