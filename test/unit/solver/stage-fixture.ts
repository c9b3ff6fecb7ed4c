/**
 * Shared set-up for the solver stage tests: a biped solver on a synthetic biped whose nodes hold one
 * frame's animated pose, and a little quaternion math of our own. The math here is written independently
 * of src/math so that expectations never run through the code under test.
 */
import { expect } from "vitest";
import type { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import type { FBIKChain } from "../../../src/solver/chain.js";
import { IKSolverFullBodyBiped } from "../../../src/solver/full-body-biped.js";
import type { SolverWarning } from "../../../src/solver/full-body.js";
import type { Random } from "../../helpers/random.js";
import { type SyntheticBiped, syntheticBiped } from "../../helpers/synthetic-biped.js";
import { type V, add, clone, cross, dist, dot, mul, unit, v } from "../../helpers/vectors.js";

/** The biped solver with the pipeline's protected steps opened for tests. */
export class StageSolver extends IKSolverFullBodyBiped {
  public override readBones(): void {
    super.readBones();
  }
  public override readPose(): void {
    super.readPose();
  }
  public override solve(): void {
    super.solve();
  }
}

/** A solver ready for stage tests. */
export interface Stage {
  b: SyntheticBiped;
  s: StageSolver;
  warnings: SolverWarning[];
}

/**
 * Builds the solver on `b` and runs one frame with every weight 0, which reads the animated pose into
 * the nodes (solver positions = bone positions) and the per-frame chain quantities.
 */
export function stage(b: SyntheticBiped = syntheticBiped()): Stage {
  const s = new StageSolver(b.pose);
  const warnings: SolverWarning[] = [];
  s.onWarning.add((w) => warnings.push(w));
  s.setToReferences(b.bones);
  s.update();
  return { b, s, warnings };
}

/** The four limb chains (solver chains 1..4). */
export function limbs(s: IKSolverFullBodyBiped): FBIKChain[] {
  return [1, 2, 3, 4].map((i) => s.chains[i]!);
}

export const LIMB_NAMES = ["left arm", "right arm", "left leg", "right leg"] as const;

// ---------------------------------------------------------------------------------------------
// Quaternion and random-vector math (independent of src/math); vectors in helpers/vectors.ts.
// ---------------------------------------------------------------------------------------------

export type Q = { x: number; y: number; z: number; w: number };

/** Writes `src` into `out` (a solver Vec3). */
export function put(out: V, src: V): void {
  out.x = src.x;
  out.y = src.y;
  out.z = src.z;
}

/** Rodrigues: `a` rotated by `angle` radians about `axis` (any length). */
export function rotate(a: V, axis: V, angle: number): V {
  const k = unit(axis);
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return add(add(mul(a, c), mul(cross(k, a), s)), mul(k, dot(k, a) * (1 - c)));
}

/** Quaternion of `angle` radians about `axis`. */
export function quatAxisAngle(axis: V, angle: number): Q {
  const k = unit(axis);
  const s = Math.sin(angle / 2);
  return { x: k.x * s, y: k.y * s, z: k.z * s, w: Math.cos(angle / 2) };
}

/** Hamilton product a·b (b first, then a). */
export function qmul(a: Q, b: Q): Q {
  return {
    x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
    y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
    z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
    w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
  };
}

/** `a` rotated by the unit quaternion `q` (q a q*). */
export function qrot(q: Q, a: V): V {
  const p = qmul(qmul(q, { x: a.x, y: a.y, z: a.z, w: 0 }), { x: -q.x, y: -q.y, z: -q.z, w: q.w });
  return v(p.x, p.y, p.z);
}

/** Random vector with each component in [−r, r). */
export function randomVec(rng: Random, r: number): V {
  return v(rng.range(-r, r), rng.range(-r, r), rng.range(-r, r));
}

/** Random unit vector. */
export function randomUnit(rng: Random): V {
  const u = rng.unitVector();
  return v(u.x, u.y, u.z);
}

/** Component-space position of a pose bone. */
export function bonePos(pose: HierarchyPose, bone: number): V {
  return clone(pose.positions[bone]!);
}

/** Component-space rotation of a pose bone. */
export function boneRot(pose: HierarchyPose, bone: number): Q {
  const r = pose.rotations[bone]!;
  return { x: r.x, y: r.y, z: r.z, w: r.w };
}

/** Copies of every node's solver position, chain by chain. */
export function snapshot(s: IKSolverFullBodyBiped): V[] {
  const out: V[] = [];
  for (const c of s.chains) for (const n of c.nodes) out.push(clone(n.solverPosition));
  return out;
}

/** Expects |a − b| ≤ tol. */
export function expectNear(a: V, b: V, tol: number, what = ""): void {
  const d = dist(a, b);
  if (!(d <= tol)) expect.unreachable(`${what}: |(${a.x}, ${a.y}, ${a.z}) − (${b.x}, ${b.y}, ${b.z})| = ${d} > ${tol}`);
}

/** Expects the same rotation (q or −q) to `tol` per component. */
export function expectSameRotation(a: Q, b: Q, tol: number, what = ""): void {
  const s = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0 ? -1 : 1;
  const e = Math.max(
    Math.abs(a.x - s * b.x),
    Math.abs(a.y - s * b.y),
    Math.abs(a.z - s * b.z),
    Math.abs(a.w - s * b.w),
  );
  if (!(e <= tol)) expect.unreachable(`${what}: rotations differ by ${e} > ${tol}`);
}

/** Expects |actual − expected| ≤ tol × |scale|. */
export function expectRel(actual: number, expected: number, scale: number, tol: number, what = ""): void {
  const e = Math.abs(actual - expected);
  if (!(e <= tol * Math.abs(scale)))
    expect.unreachable(`${what}: ${actual} vs ${expected} (error ${e / Math.abs(scale)} × scale > ${tol})`);
}
