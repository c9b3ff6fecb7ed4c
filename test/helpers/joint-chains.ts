/**
 * Long bone chains built in code on a HierarchyPose, for the joint solvers' tests (CCD, FABRIK).
 */
import type { IKSolverJoints } from "../../src/joints/ik-solver-joints.js";
import { Quat, angleBetween, conjugateMultiply, normalizeQuat } from "../../src/math/quat.js";
import { Vec3 } from "../../src/math/vec3.js";
import { type HierarchyBone, HierarchyPose } from "../../src/mapping/hierarchy-pose.js";
import { Random } from "./random.js";

/** A chain on a pose: bone 0 is a base the chain hangs on, bones 1..n the chain, root first. */
export interface TestChain {
  pose: HierarchyPose;
  /** The chain's bone ids, root first. */
  ids: number[];
  /** Sum of the bone lengths. */
  length: number;
}

/** How a test chain is built. */
export interface ChainOptions {
  /** Number of bones in the chain. */
  bones: number;
  /** Seed of the gentle random bend of the rest pose (each joint up to `bend` rad off straight). */
  seed?: number;
  /** Largest rest bend per joint in radians (default 0.15). */
  bend?: number;
  /** Multiplies every position (default 1). */
  scale?: number;
  /** Mirrors every input z → −z (a left-handed copy of the same rig). */
  mirror?: boolean;
  /** Bone lengths (default: 1 + 0.5 sin(i), all different). */
  lengthOf?: (i: number) => number;
}

/** Mirrors a rotation by z → −z (M R M with M = diag(1, 1, −1)). */
export function mirrorQuat(q: { x: number; y: number; z: number; w: number }): Quat {
  return new Quat(-q.x, -q.y, q.z, q.w);
}

/** Builds the chain: a base at (0.3, −0.2, 0.1) turned a little, then `bones` bones along local +Y, gently bent. */
export function buildChain(o: ChainOptions): TestChain {
  const rng = new Random(o.seed ?? 7);
  const s = o.scale ?? 1;
  const bend = o.bend ?? 0.15;
  const lengthOf = o.lengthOf ?? ((i: number) => 1 + 0.5 * Math.sin(i));
  const bones: HierarchyBone[] = [];
  const m = (p: Vec3): Vec3 => (o.mirror ? new Vec3(p.x, p.y, -p.z) : p);
  const mq = (q: Quat): Quat => (o.mirror ? mirrorQuat(q) : q);
  bones.push({
    name: "base",
    parent: -1,
    position: m(new Vec3(0.3 * s, -0.2 * s, 0.1 * s)),
    rotation: mq(normalizeQuat(new Quat(), new Quat(0.1, 0.2, -0.05, 1))),
  });
  let total = 0;
  for (let i = 0; i < o.bones; i++) {
    const a = rng.unitVector();
    const ang = rng.range(0, bend);
    const h = Math.sin(ang / 2);
    const rot = new Quat(a.x * h, a.y * h, a.z * h, Math.cos(ang / 2));
    const len = i === 0 ? 0 : lengthOf(i - 1);
    total += i === 0 ? 0 : len;
    bones.push({ name: `b${i}`, parent: i, position: m(new Vec3(0, len * s, 0)), rotation: mq(rot) });
  }
  const pose = new HierarchyPose(bones);
  const ids = Array.from({ length: o.bones }, (_, i) => i + 1);
  return { pose, ids, length: total * s };
}

/** The local rotation of `ids[i]` relative to `ids[i-1]` (to the base for i = 0), read from the pose. */
export function localRotation(pose: HierarchyPose, ids: readonly number[], i: number, out = new Quat()): Quat {
  const parent = i === 0 ? 0 : ids[i - 1]!;
  return conjugateMultiply(out, pose.rotations[parent]!, pose.rotations[ids[i]!]!);
}

/** Component-space positions of the chain as plain numbers. */
export function chainPositions(pose: HierarchyPose, ids: readonly number[]): number[] {
  const out: number[] = [];
  for (const id of ids) out.push(pose.positions[id]!.x, pose.positions[id]!.y, pose.positions[id]!.z);
  return out;
}

/** Snapshot of every local transform, for bit-exact comparisons. */
export function snapshot(pose: HierarchyPose): number[] {
  const out: number[] = [];
  for (let i = 0; i < pose.count; i++) {
    const p = pose.localPositions[i]!;
    const q = pose.localRotations[i]!;
    out.push(p.x, p.y, p.z, q.x, q.y, q.z, q.w);
    const wp = pose.positions[i]!;
    const wq = pose.rotations[i]!;
    out.push(wp.x, wp.y, wp.z, wq.x, wq.y, wq.z, wq.w);
  }
  return out;
}

/** Largest angle (rad) by which any joint's local rotation lies outside its limit. */
export function worstLimitViolation(s: IKSolverJoints, c: TestChain): number {
  let worst = 0;
  const q = new Quat();
  s.bones.forEach((b, i) => {
    if (b.limit === null) return;
    localRotation(c.pose, c.ids, i, q);
    const clamped = new Quat(q.x, q.y, q.z, q.w);
    if (b.limit.apply(clamped)) worst = Math.max(worst, angleBetween(q, clamped));
  });
  return worst;
}
