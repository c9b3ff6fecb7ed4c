/** Shared scaffolding of the offset-modifier scenario tests: loading, measuring, posing, sampling. */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import type { FullBodyBipedEffector } from "../../src/solver/biped-bones.js";
import { type LoadedModel, type ModelName, loadModel } from "./babylon-scene.js";
import { height, worldPos } from "./scene-probes.js";

export { height, worldPos };

export const DT = 0.016; // scene.useConstantAnimationDeltaTime: 16 ms a frame

/** Prints measured figures when FBBIK_REPORT is set (for reports; silent otherwise). */
export const report = (label: string, ...values: number[]): void => {
  if (process.env.FBBIK_REPORT) console.log(`[figures] ${label}: ${values.map((v) => v.toExponential(2)).join(", ")}`);
};

/** A Babylon Vector3 from anything with x, y, z. */
export const V = (v: { x: number; y: number; z: number }): Vector3 => new Vector3(v.x, v.y, v.z);

/** Models loaded by the current test; disposed after each test (afterEach in the test file). */
export const open: LoadedModel[] = [];

/** Disposes every model the current test loaded. */
export function disposeOpen(): void {
  while (open.length > 0) open.pop()!.dispose();
}

export async function load(
  name: ModelName,
  rightHanded = false,
  clips?: (name: string, index: number) => boolean,
): Promise<LoadedModel> {
  const m = await loadModel(name, { rightHanded, clips });
  open.push(m);
  return m;
}

/** Bends T-posed arms so the hands are in front of the body (before the IK is created, so it is the pose the IK stores and restores). */
export function poseArmsForward(m: LoadedModel): void {
  const { references: r } = resolveBipedReferences(m.skeleton);
  const axes = [
    new Vector3(1, 0, 0),
    new Vector3(-1, 0, 0),
    new Vector3(0, 1, 0),
    new Vector3(0, -1, 0),
    new Vector3(0, 0, 1),
    new Vector3(0, 0, -1),
  ];
  const turnBest = (bone: Bone, hand: Bone, angle: number, score: (p: Vector3) => number) => {
    const node = bone.getTransformNode()!;
    const orig = node.rotationQuaternion!.clone();
    let best = orig;
    let bestScore = -Infinity;
    for (const axis of axes) {
      const q = orig.multiply(Quaternion.RotationAxis(axis, angle));
      node.rotationQuaternion = q;
      const s = score(worldPos(hand));
      if (s > bestScore) {
        bestScore = s;
        best = q;
      }
    }
    node.rotationQuaternion = best;
  };
  for (const [upper, fore, hand] of [
    [r.leftUpperArm, r.leftForearm, r.leftHand],
    [r.rightUpperArm, r.rightForearm, r.rightHand],
  ] as const) {
    turnBest(upper, hand, 1.2, (p) => -p.y);
    turnBest(fore, hand, 1.3, (p) => p.z);
  }
}

/** Records an effector's positionOffset as the modifiers left it, every update. */
export function sampleOffsets(ik: FullBodyBipedIK, effector: FullBodyBipedEffector): Vector3[] {
  const out: Vector3[] = [];
  // onPreRead: after the modifiers (on onSkeletonRead) and before the solve resets the offsets
  ik.solver.onPreReadObservable.add(() => out.push(ik.solver.getEffector(effector).positionOffset.clone()));
  return out;
}

/** The left hand's world rotation in the right hand's frame, into `out`. */
export function leftInRight(ik: FullBodyBipedIK, out: Quaternion): Quaternion {
  const r = ik.references;
  const m = r.leftHand
    .getTransformNode()!
    .computeWorldMatrix(true)
    .multiply(r.rightHand.getTransformNode()!.computeWorldMatrix(true).clone().invert());
  m.decompose(undefined, out);
  return out;
}

/** The hands as the animation has them (before the solve, as the modifiers see them), updated every frame. */
export function recordAnimatedHands(ik: FullBodyBipedIK): { l: Vector3; r: Vector3; rel: Quaternion } {
  const animated = { l: new Vector3(), r: new Vector3(), rel: new Quaternion() };
  const r = ik.references;
  ik.solver.onPreUpdateObservable.add(() => {
    animated.l.copyFrom(worldPos(r.leftHand));
    animated.r.copyFrom(worldPos(r.rightHand));
    leftInRight(ik, animated.rel);
  });
  return animated;
}

/**
 * How far the left hand is from its animated grip on the right hand turned by `turn` (a two-handed Recoil's hand
 * rotation): its place (/h) and its rotation relative to the right hand (radians).
 */
export function gripError(
  ik: FullBodyBipedIK,
  animated: { l: Vector3; r: Vector3; rel: Quaternion },
  turn: Quaternion,
  h: number,
): { place: number; rotation: number } {
  const r = ik.references;
  const expected = animated.l.subtract(animated.r).applyRotationQuaternion(turn);
  const rel = worldPos(r.leftHand).subtract(worldPos(r.rightHand));
  const q = leftInRight(ik, new Quaternion());
  return {
    place: rel.subtract(expected).length() / h,
    rotation: 2 * Math.acos(Math.min(1, Math.abs(Quaternion.Dot(q, animated.rel)))),
  };
}

/** Pins both foot effectors, at full position weight, where the feet stand now. */
export function pinFeetWhereTheyStand(ik: FullBodyBipedIK): void {
  const s = ik.solver;
  const r = ik.references;
  for (const [e, foot] of [
    [s.leftFootEffector, r.leftFoot],
    [s.rightFootEffector, r.rightFoot],
  ] as const) {
    e.position.copyFrom(worldPos(foot));
    e.positionWeight = 1;
  }
}
