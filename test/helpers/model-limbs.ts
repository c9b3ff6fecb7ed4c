/**
 * The limbs of the scenario models for the IK family's tests: a left arm and a right leg per model (found by the
 * library's reference detection, or named where the rig cannot be detected), bone world positions read where
 * Babylon renders them (linked nodes or plain Bones), bit-level pose snapshots, and targets reachable by
 * construction (the end of a randomly posed copy of the chain, computed on world positions).
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { type Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import type { LoadedModel, ModelName } from "./babylon-scene.js";
import type { Random } from "./random.js";

/** Three bones of a limb: upper, middle, end. */
export type LimbBones = [Bone, Bone, Bone];

/** A model's limbs for the family's tests; `leg` is null (with `why`) when the rig has no usable leg chain. */
export interface ModelLimbs {
  arm: LimbBones;
  leg: LimbBones | null;
  why: string;
}

/**
 * RobotExpressive cannot be detected (its feet hang from the root bone, a baked Blender IK rig, and each hand is
 * three palm bones): its arm is named, ending at the middle palm, and it has no leg chain of three bones.
 */
const NAMED: Partial<Record<ModelName, { arm: [string, string, string]; why: string }>> = {
  RobotExpressive: {
    arm: ["UpperArm.L", "LowerArm.L", "Palm2.L"],
    why: "its feet hang from the root bone, not from the lower legs: no thigh-calf-foot chain",
  },
};

/** The left arm and right leg of `name` loaded as `m`. */
export function modelLimbs(name: ModelName, m: LoadedModel): ModelLimbs {
  const named = NAMED[name];
  if (named !== undefined) {
    const bone = (n: string): Bone => {
      const b = m.skeleton.bones.find((x) => x.name === n);
      if (b === undefined) throw new Error(`no bone ${n} in ${name}`);
      return b;
    };
    return { arm: named.arm.map(bone) as LimbBones, leg: null, why: named.why };
  }
  const r = resolveBipedReferences(m.skeleton).references;
  return { arm: [r.leftUpperArm, r.leftForearm, r.leftHand], leg: [r.rightThigh, r.rightCalf, r.rightFoot], why: "" };
}

/** The mesh a skeleton deforms (where plain Bones are rendered). */
export function skinnedMesh(m: LoadedModel): AbstractMesh {
  return m.scene.meshes.find((x) => x.skeleton === m.skeleton)!;
}

/** A bone's world position where Babylon renders it: its linked node's, else the bone's on its mesh (fresh). */
export function bonePos(m: LoadedModel, bone: Bone): Vector3 {
  const node = bone.getTransformNode();
  if (node !== null) {
    node.computeWorldMatrix(true);
    return node.absolutePosition.clone();
  }
  m.skeleton.computeAbsoluteMatrices(true);
  return bone.getAbsolutePosition(skinnedMesh(m));
}

/** A bone's world matrix where Babylon renders it: its linked node's, else the bone's on its mesh (a copy). */
export function boneMatrix(m: LoadedModel, bone: Bone): Matrix {
  const node = bone.getTransformNode();
  if (node !== null) return node.computeWorldMatrix(true).clone();
  m.skeleton.computeAbsoluteMatrices(true);
  return bone.getAbsoluteMatrix().multiply(skinnedMesh(m).computeWorldMatrix(true));
}

/** Sum of the distances between consecutive bones (world units). */
export function chainLength(points: readonly Vector3[]): number {
  let sum = 0;
  for (let i = 1; i < points.length; i++) sum += Vector3.Distance(points[i - 1]!, points[i]!);
  return sum;
}

/** Every bone's local transform as numbers: the linked node's position, rotation, scaling, or the local matrix. */
export function poseSnapshot(m: LoadedModel): number[][] {
  return m.skeleton.bones.map((b) => {
    const n = b.getTransformNode();
    if (n === null) return [...b.getLocalMatrix().m];
    return [...n.position.asArray(), ...(n.rotationQuaternion?.asArray() ?? []), ...n.scaling.asArray()];
  });
}

/**
 * Renders `a` and `b` together `frames` times: how many bone-frames of `a` differ from `b`'s, bit for bit, and how
 * many of `b`'s moved from its first pose (the animation plays).
 */
export function lockstep(a: LoadedModel, b: LoadedModel, frames: number): { differing: number; animated: number } {
  const changed = (x: number[][], y: number[][]) => x.filter((row, i) => row.some((v, j) => v !== y[i]![j])).length;
  const first = poseSnapshot(b);
  let differing = 0;
  let animated = 0;
  for (let f = 0; f < frames; f++) {
    a.scene.render();
    b.scene.render();
    const sb = poseSnapshot(b);
    differing += changed(poseSnapshot(a), sb);
    animated += changed(sb, first);
  }
  return { differing, animated };
}

/** True when every number of the snapshot is finite. */
export function allFinite(snapshot: readonly number[][]): boolean {
  return snapshot.every((row) => row.every((v) => Number.isFinite(v)));
}

/**
 * The end of the chain through `points` after turning each joint but the last by a random rotation of at most
 * `maxAngle` radians (world space, about a random axis): a point the chain reaches by construction. Poses whose
 * end lies farther than `maxReach` × the chain's length from its root are drawn again (a nearly straight chain
 * is where CCD and FABRIK converge slowest; LimbIK and JacobianIK do not mind).
 */
export function posedEnd(points: readonly Vector3[], rnd: Random, maxAngle: number, maxReach = 0.95): Vector3 {
  const reach = maxReach * chainLength(points);
  for (;;) {
    const end = posedOnce(points, rnd, maxAngle);
    if (Vector3.Distance(end, points[0]!) <= reach) return end;
  }
}

function posedOnce(points: readonly Vector3[], rnd: Random, maxAngle: number): Vector3 {
  const p = points.map((x) => x.clone());
  const q = new Quaternion();
  const axis = new Vector3();
  for (let i = 0; i < p.length - 1; i++) {
    const u = rnd.unitVector();
    axis.set(u.x, u.y, u.z);
    Quaternion.RotationAxisToRef(axis, rnd.range(-maxAngle, maxAngle), q);
    for (let j = i + 1; j < p.length; j++) {
      const d = p[j]!.subtract(p[i]!);
      d.rotateByQuaternionToRef(q, d);
      p[j] = p[i]!.add(d);
    }
  }
  return p[p.length - 1]!;
}
