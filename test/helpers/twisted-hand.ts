/**
 * A FullBodyBipedIK's left hand turned about its forearm by the hand's rotation effector, and the twist angles a
 * TwistRelaxer spreads: each bone's turn about the forearm's axis, measured from world matrices only.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import type { LoadedModel } from "./babylon-scene.js";
import { worldPos } from "./scene-probes.js";

/** A bone's world matrix, computed now (a copy). */
export function boneWorld(bone: Bone): Matrix {
  return bone.getTransformNode()!.computeWorldMatrix(true).clone();
}

/** The FBBIK and the probes of its left arm. */
export interface TwistedArm {
  ik: FullBodyBipedIK;
  upper: Bone;
  forearm: Bone;
  hand: Bone;
  /** Turns the hand's target `angle` radians about the forearm from the bent pose's hand. */
  turn(angle: number): void;
  /** Twist of `child` relative to `parent` about the forearm's current axis, radians, from the bent pose. */
  twist(parent: Bone, child: Bone): number;
}

/**
 * Creates a FullBodyBipedIK on `m` with the left hand pulled toward its shoulder, the elbow bent down (bend weight 1);
 * `turn` then drives the hand's rotation effector (weight 1) to that bent pose's hand turned about the forearm.
 */
export function twistedArm(m: LoadedModel): TwistedArm {
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  const r = ik.references;
  const [upper, forearm, hand] = [r.leftUpperArm, r.leftForearm, r.leftHand];
  // the arm bent first, its elbow held down by the bend constraint: the hand's turn cannot turn the arm's plane
  const e = ik.solver.leftHandEffector;
  const target = new TransformNode("twist target", m.scene);
  target.position.copyFrom(Vector3.Lerp(worldPos(upper), worldPos(hand), 0.6));
  e.target = target;
  e.positionWeight = 1;
  const bend = ik.solver.leftArmChain.bendConstraint;
  bend.direction.set(0, -1, 0);
  bend.weight = 1;
  for (let f = 0; f < 3; f++) m.scene.render();
  const hand0 = boneWorld(hand);
  const axis0 = axisOf(forearm, hand);
  const twist = twistProbe(upper, forearm, hand);
  return {
    ik,
    upper,
    forearm,
    hand,
    turn(angle) {
      e.rotationWeight = 1;
      // row vectors: the hand's frame, then the world turn about the forearm's axis; the hand's place kept
      const turned = hand0.multiply(Matrix.RotationAxis(axis0, angle));
      turned.setTranslation(hand0.getTranslation());
      target.freezeWorldMatrix(turned);
    },
    twist,
  };
}

/**
 * Twist of `child` relative to `parent` about the forearm's current axis, radians, from the arm's pose now: a
 * direction across the forearm, carried by each bone, flattened across the axis. `world`: a bone's world matrix
 * (default its linked node's; plain Bones need their mesh's, `boneMatrix` of model-limbs.ts).
 */
export function twistProbe(
  upper: Bone,
  forearm: Bone,
  hand: Bone,
  world: (bone: Bone) => Matrix = boneWorld,
): (parent: Bone, child: Bone) => number {
  const axisNow = () => world(hand).getTranslation().subtract(world(forearm).getTranslation()).normalize();
  const axis0 = axisNow();
  const across = Vector3.Cross(axis0, Math.abs(axis0.y) < 0.9 ? Vector3.Up() : Vector3.Right()).normalize();
  const local = new Map<Bone, Vector3>();
  for (const b of [upper, forearm, hand]) local.set(b, Vector3.TransformNormal(across, world(b).invert()));
  return (parent, child) => {
    const a = axisNow();
    const flat = (b: Bone) => {
      const v = Vector3.TransformNormal(local.get(b)!, world(b));
      return v.subtract(a.scale(Vector3.Dot(v, a)));
    };
    const p = flat(parent);
    const c = flat(child);
    return Math.atan2(Vector3.Dot(a, Vector3.Cross(p, c)), Vector3.Dot(p, c));
  };
}

/** How far two world matrices' rotations are apart: the largest change of a unit axis (≈ the angle, radians). */
export function turnBetween(a: Matrix, b: Matrix): number {
  let worst = 0;
  for (let row = 0; row < 3; row++) {
    const axis = (m: Matrix) => new Vector3(m.m[row * 4]!, m.m[row * 4 + 1]!, m.m[row * 4 + 2]!).normalize();
    worst = Math.max(worst, Vector3.Distance(axis(a), axis(b)));
  }
  return worst;
}

/** The forearm's world axis, toward the hand. */
export function axisOf(forearm: Bone, hand: Bone): Vector3 {
  return boneWorld(hand).getTranslation().subtract(boneWorld(forearm).getTranslation()).normalize();
}
