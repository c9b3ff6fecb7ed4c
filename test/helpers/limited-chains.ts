/**
 * Chains with rotation limits of several kinds, and targets every one of which the chain reaches inside its limits:
 * the chain posed by random turns, each clamped by its joint's limit, and the tip taken. A perfect solver ends on
 * each; the tests measure how far FABRIK and CCD end off, in fractions of the chain's reach.
 */
import { readFileSync } from "node:fs";
import type { IKSolverJoints } from "../../src/joints/ik-solver-joints.js";
import {
  Quat,
  angleBetween,
  conjugateMultiply,
  copyQuat,
  multiply,
  normalizeQuat,
  slerp,
} from "../../src/math/quat.js";
import { Vec3 } from "../../src/math/vec3.js";
import { type HierarchyBone, HierarchyPose } from "../../src/mapping/hierarchy-pose.js";
import { Random } from "./random.js";

/** A chain on a pose: its bone ids root first, and the bone its first joint's limit is relative to. */
export interface LimitedRig {
  pose: HierarchyPose;
  ids: number[];
  rootParent: number;
}

/** Makes a solver of some kind on a pose and chain (FABRIK, CCD). */
export type MakeSolver = (pose: HierarchyPose, ids: number[], rootParent: number) => IKSolverJoints;

/** Sets a solver's limits (a new limit object per joint and call). */
export type SetLimits = (s: IKSolverJoints) => void;

/** Tip errors over a target set, as fractions of the reach, and the worst limit violation (radians). */
export interface ChainErrors {
  mean: number;
  worst: number;
  violation: number;
}

/**
 * A rig read from a glTF binary: the ancestors of `chain[0]` (by `children`) and the named chain, each node's
 * translation and rotation (scale left out: the tests' rigs have none to speak of).
 */
export function glbChain(file: string, chain: readonly string[]): LimitedRig {
  const bytes = readFileSync(file);
  const length = bytes.readUInt32LE(12);
  const json = JSON.parse(bytes.subarray(20, 20 + length).toString("utf8")) as {
    nodes: { name?: string; children?: number[]; translation?: number[]; rotation?: number[] }[];
  };
  const parent = new Map<number, number>();
  json.nodes.forEach((n, i) => {
    for (const c of n.children ?? []) parent.set(c, i);
  });
  const find = (name: string): number => {
    const i = json.nodes.findIndex((n) => n.name === name);
    if (i < 0) throw new Error(`no node ${name} in ${file}`);
    return i;
  };
  const path: number[] = [];
  for (let i = parent.get(find(chain[0]!)); i !== undefined; i = parent.get(i)) path.unshift(i);
  for (const name of chain) path.push(find(name));
  const bones: HierarchyBone[] = path.map((node, k) => {
    const n = json.nodes[node]!;
    const t = n.translation ?? [0, 0, 0];
    const r = n.rotation ?? [0, 0, 0, 1];
    return {
      name: n.name ?? `node ${node}`,
      parent: k - 1,
      position: new Vec3(t[0]!, t[1]!, t[2]!),
      rotation: new Quat(r[0]!, r[1]!, r[2]!, r[3]!),
    };
  });
  const first = path.length - chain.length;
  return { pose: new HierarchyPose(bones), ids: chain.map((_, i) => first + i), rootParent: first - 1 };
}

/** Sum of the chain's bone lengths at rest. */
export function reachOf(rig: LimitedRig): number {
  let sum = 0;
  for (let i = 0; i + 1 < rig.ids.length; i++) {
    const a = rig.pose.positions[rig.ids[i]!]!;
    const b = rig.pose.positions[rig.ids[i + 1]!]!;
    sum += Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z);
  }
  return sum;
}

/**
 * `count` tips of the chain posed by random turns inside its limits: each joint's rest rotation turned by a uniform
 * random rotation scaled by a random fraction, then clamped by the joint's limit (as `make` and `limits` set it).
 */
export function reachableTargets(
  rig: LimitedRig,
  make: MakeSolver,
  limits: SetLimits,
  count: number,
  seed: number,
): Vec3[] {
  const rng = new Random(seed);
  const pose = rig.pose.clone();
  const s = make(pose, rig.ids, rig.rootParent);
  limits(s);
  const rest = rig.ids.map((id) => copyQuat(new Quat(), pose.localRotations[id]!));
  const identity = new Quat();
  const turn = new Quat();
  const local = new Quat();
  const out: Vec3[] = [];
  for (let k = 0; k < count; k++) {
    for (let i = 0; i + 1 < rig.ids.length; i++) {
      const u = rng.unitQuaternion();
      slerp(turn, identity, new Quat(u.x, u.y, u.z, u.w), rng.next());
      normalizeQuat(local, multiply(local, rest[i]!, turn));
      s.bones[i]!.limit?.apply(local);
      pose.setLocalRotation(rig.ids[i]!, local);
    }
    const tip = pose.positions[rig.ids[rig.ids.length - 1]!]!;
    out.push(new Vec3(tip.x, tip.y, tip.z));
  }
  return out;
}

/** Solves each target from the rest pose with a fresh solver; the tip's distance off it and the limits' excess. */
export function chainErrors(
  rig: LimitedRig,
  make: MakeSolver,
  limits: SetLimits,
  targets: readonly Vec3[],
  tune: (s: IKSolverJoints) => void,
): ChainErrors {
  const reach = reachOf(rig);
  const tipId = rig.ids[rig.ids.length - 1]!;
  let sum = 0;
  let worst = 0;
  let violation = 0;
  const local = new Quat();
  const clamped = new Quat();
  for (const t of targets) {
    const pose = rig.pose.clone();
    const s = make(pose, rig.ids, rig.rootParent);
    limits(s);
    tune(s);
    s.ikPosition.x = t.x;
    s.ikPosition.y = t.y;
    s.ikPosition.z = t.z;
    s.update();
    const tip = pose.positions[tipId]!;
    const e = Math.hypot(tip.x - t.x, tip.y - t.y, tip.z - t.z) / reach;
    sum += e;
    worst = Math.max(worst, e);
    s.bones.forEach((b, i) => {
      if (b.limit === null) return;
      const parent = i === 0 ? rig.rootParent : rig.ids[i - 1]!;
      conjugateMultiply(local, pose.rotations[parent]!, pose.rotations[rig.ids[i]!]!);
      copyQuat(clamped, local);
      if (b.limit.apply(clamped)) violation = Math.max(violation, angleBetween(local, clamped));
    });
  }
  return { mean: sum / targets.length, worst, violation };
}
