/**
 * The joint-solver frame (IKSolverJoints): setup errors, per-frame input policy, reachability, the collider
 * sub-steps and the write-back, on chains built with HierarchyPose.
 */
import { describe, expect, it } from "vitest";
import { IKSolverCCD } from "../../../src/ccd/ik-solver-ccd.js";
import { IKSolverAim } from "../../../src/aim/ik-solver-aim.js";
import { IKSolverLookAt } from "../../../src/aim/ik-solver-look-at.js";
import { IKSolverFABRIKRoot } from "../../../src/fabrik/ik-solver-fabrik-root.js";
import { IKSolverFABRIK } from "../../../src/fabrik/ik-solver-fabrik.js";
import { IKSolverJacobian } from "../../../src/jacobian/ik-solver-jacobian.js";
import { ColliderSet } from "../../../src/joints/colliders/collider-set.js";
import { SphereCollider } from "../../../src/joints/colliders/sphere-collider.js";
import { IKSolverJoints } from "../../../src/joints/ik-solver-joints.js";
import { IKSolverLimb } from "../../../src/limb/ik-solver-limb.js";
import type { ColliderStep, JointColliders } from "../../../src/joints/joint-colliders.js";
import type { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import { FBBIKError } from "../../../src/solver/errors.js";
import type { IKPose } from "../../../src/solver/pose.js";
import { buildChain, chainPositions, snapshot } from "../../helpers/joint-chains.js";
import { angleDeg, dist, sub, v } from "../../helpers/vectors.js";

/** A solver whose own step does nothing: what remains is the frame. */
class StillSolver extends IKSolverJoints {
  steps = 0;
  protected solveImpl(): void {
    this.steps++;
  }
}

/** Stand-in for the colliders helper's ColliderSet: one sphere, joints pushed radially out of it. */
class SphereColliders implements JointColliders {
  updates = 0;
  alphas: number[] = [];
  constructor(
    readonly cx: number,
    readonly cy: number,
    readonly cz: number,
    readonly r: number,
  ) {}
  update(_pose: IKPose): void {
    this.updates++;
  }
  resolveStep(p: Float64Array, count: number, step: ColliderStep): boolean {
    const radius = step.radius;
    this.alphas.push(step.alpha);
    let moved = false;
    for (let i = 0; i < count; i++) {
      const dx = p[3 * i]! - this.cx;
      const dy = p[3 * i + 1]! - this.cy;
      const dz = p[3 * i + 2]! - this.cz;
      const d = Math.hypot(dx, dy, dz);
      const want = this.r + radius;
      if (d < want && d > 0) {
        p[3 * i] = this.cx + (dx / d) * want;
        p[3 * i + 1] = this.cy + (dy / d) * want;
        p[3 * i + 2] = this.cz + (dz / d) * want;
        moved = true;
      }
    }
    return moved;
  }
}

const pos = (pose: HierarchyPose, id: number) => v(pose.positions[id]!.x, pose.positions[id]!.y, pose.positions[id]!.z);

describe("IKSolverJoints setup", () => {
  it("throws FBBIKError naming the bad bone", () => {
    const c = buildChain({ bones: 4 });
    const name = (b: number) => c.pose.getName(b);
    expect(() => new StillSolver(c.pose, [1])).toThrow(FBBIKError);
    expect(() => new StillSolver(c.pose, [1, 2, 2], { boneName: name })).toThrow(/b1 appears twice/);
    expect(() => new StillSolver(c.pose, [1, -3])).toThrow(/-3 is not a bone id/);
    expect(() => new StillSolver(c.pose, [1, 2], { rootParent: 2 })).toThrow(/root parent/);
    expect(() => new StillSolver(c.pose, c.ids, { rootParent: 0 })).not.toThrow();
  });

  it("engine-neutral solvers used alone name themselves in their set-up errors, not FullBodyBipedIK", () => {
    const c = buildChain({ bones: 4 });
    const [b0, b1, b2, b3] = c.ids as [number, number, number, number];
    const fabrik = new IKSolverFABRIK(c.pose, [b0, b1]);
    const cases: [string, () => unknown][] = [
      ["IKSolverJoints", () => new StillSolver(c.pose, [b1])],
      ["IKSolverCCD", () => new IKSolverCCD(c.pose, [b1, b1])],
      ["IKSolverFABRIK", () => new IKSolverFABRIK(c.pose, [b1, -1])],
      ["IKSolverFABRIKRoot", () => new IKSolverFABRIKRoot(c.pose, b0, [])],
      ["IKSolverLimb", () => new IKSolverLimb(c.pose, b1, b1, b3)],
      ["IKSolverAim", () => new IKSolverAim(c.pose, [b0, -2])],
      ["IKSolverLookAt", () => new IKSolverLookAt(c.pose, { spine: [b2, b2] })],
      ["IKSolverJacobian", () => new IKSolverJacobian(c.pose, [{ bone: -1 }])],
      ["ColliderSet", () => new ColliderSet([new SphereCollider(-1, 0.1)])],
    ];
    expect(fabrik.getClassName()).toBe("IKSolverFABRIK");
    for (const [name, create] of cases) {
      let error: unknown = null;
      try {
        create();
      } catch (e) {
        error = e;
      }
      expect(error, name).toBeInstanceOf(FBBIKError);
      expect((error as FBBIKError).component, name).toBe(name);
      expect((error as Error).message, name).toMatch(new RegExp(`^${name} cannot be set up: (?!${name})`));
    }
  });

  it("setLimit rejects an index outside the chain", () => {
    const c = buildChain({ bones: 4 });
    expect(() => new StillSolver(c.pose, c.ids).setLimit(4, null)).toThrow(RangeError);
  });
});

describe("IKSolverJoints per-frame input", () => {
  it("weight 0, a NaN weight and a non-finite target leave the pose bit-exact", () => {
    const c = buildChain({ bones: 12 });
    const s = new IKSolverCCD(c.pose, c.ids, { rootParent: 0 });
    const before = snapshot(c.pose);
    s.ikPosition.x = 3;
    s.ikPositionWeight = 0;
    s.update();
    expect(snapshot(c.pose)).toEqual(before);
    s.ikPositionWeight = Number.NaN;
    s.update();
    expect(snapshot(c.pose)).toEqual(before);
    s.ikPositionWeight = 1;
    for (const bad of [Number.NaN, Infinity, -Infinity]) {
      s.ikPosition.y = bad;
      s.update();
      expect(snapshot(c.pose)).toEqual(before);
    }
  });

  it("a non-finite target rotation is ignored; a finite one turns the tip fully at weight 1", () => {
    const c = buildChain({ bones: 6 });
    const s = new IKSolverCCD(c.pose, c.ids, { rootParent: 0 });
    const tipId = c.ids[5]!;
    s.ikPosition.x = c.pose.positions[tipId]!.x;
    s.ikPosition.y = c.pose.positions[tipId]!.y;
    s.ikPosition.z = c.pose.positions[tipId]!.z;
    s.ikRotationWeight = 1;
    s.ikRotation.x = Number.NaN;
    s.update();
    for (const n of snapshot(c.pose)) expect(Number.isFinite(n)).toBe(true);
    s.ikRotation.x = 0.5;
    s.ikRotation.y = 0.5;
    s.ikRotation.z = 0.5;
    s.ikRotation.w = 0.5;
    s.update();
    const r = c.pose.rotations[tipId]!;
    expect(Math.abs(r.x * 0.5 + r.y * 0.5 + r.z * 0.5 + r.w * 0.5)).toBeCloseTo(1, 12);
  });

  it("a weight of ½ writes each joint halfway (slerp) between the animated and the solved rotation", () => {
    const a = buildChain({ bones: 8 });
    const b = buildChain({ bones: 8 });
    const sa = new IKSolverCCD(a.pose, a.ids, { rootParent: 0 });
    const sb = new IKSolverCCD(b.pose, b.ids, { rootParent: 0 });
    for (const s of [sa, sb]) {
      s.ikPosition.x = 2;
      s.ikPosition.y = 3;
      s.ikPosition.z = 1;
    }
    const start = a.ids.map((id) => ({ ...a.pose.rotations[id]! }));
    sb.ikPositionWeight = 0.5;
    sa.update();
    sb.update();
    a.ids.forEach((id, i) => {
      const full = a.pose.rotations[id]!;
      const half = b.pose.rotations[b.ids[i]!]!;
      const s0 = start[i]!;
      // the half-way rotation is equally far (in angle) from the start and the full solve
      const ang = (p: typeof s0, q: typeof s0) =>
        2 * Math.acos(Math.min(1, Math.abs(p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w)));
      expect(ang(s0, half)).toBeCloseTo(ang(half, full), 9);
    });
  });
});

describe("IKSolverJoints reachability", () => {
  it("a target beyond the chain straightens it toward the target without running the solver's step", () => {
    const c = buildChain({ bones: 15 });
    const s = new StillSolver(c.pose, c.ids, { rootParent: 0 });
    const root = pos(c.pose, c.ids[0]!);
    s.ikPosition.x = root.x + c.length * 1.5;
    s.ikPosition.y = root.y + c.length * 0.4;
    s.ikPosition.z = root.z - c.length * 0.2;
    s.update();
    expect(s.lastReach).toBe("beyond");
    expect(s.steps).toBe(0);
    const dir = sub(v(s.ikPosition.x, s.ikPosition.y, s.ikPosition.z), root);
    for (let i = 1; i < c.ids.length; i++) {
      expect(angleDeg(sub(pos(c.pose, c.ids[i]!), root), dir)).toBeLessThan(1e-6);
    }
    expect(dist(pos(c.pose, c.ids[14]!), root)).toBeCloseTo(c.length, 9);
  });

  it("a target in the blind zone near the root folds the chain onto the nearest reachable point on its ray", () => {
    // lengths 6, 1, 1, 1: the tip can come no nearer the root than 6 − 3 = 3
    const c = buildChain({ bones: 5, lengthOf: (i) => (i === 0 ? 6 : 1), bend: 0.3 });
    const s = new IKSolverCCD(c.pose, c.ids, { rootParent: 0 });
    s.maxIterations = 200;
    s.tolerance = 1e-7;
    const root = pos(c.pose, c.ids[0]!);
    s.ikPosition.x = root.x + 1;
    s.ikPosition.y = root.y;
    s.ikPosition.z = root.z;
    s.update();
    expect(s.lastReach).toBe("blind");
    expect(s.lastIterations).toBe(0);
    const tip = pos(c.pose, c.ids[4]!);
    expect(dist(tip, v(root.x + 3, root.y, root.z))).toBeLessThan(1e-9);
  });

  it("a target on the root never writes NaN (blind zone, zero-length bones, straight chains)", () => {
    const cases = [
      buildChain({ bones: 5, lengthOf: (i) => (i === 0 ? 6 : 1) }),
      buildChain({ bones: 6, lengthOf: (i) => (i % 2 === 0 ? 0 : 1) }),
      buildChain({ bones: 6, bend: 0 }),
      buildChain({ bones: 4, lengthOf: () => 0 }),
    ];
    for (const c of cases) {
      const s = new IKSolverCCD(c.pose, c.ids, { rootParent: 0 });
      const root = pos(c.pose, c.ids[0]!);
      s.ikPosition.x = root.x;
      s.ikPosition.y = root.y;
      s.ikPosition.z = root.z;
      s.maxIterations = 20;
      s.update();
      for (const n of snapshot(c.pose)) expect(Number.isFinite(n)).toBe(true);
    }
  });
});

describe("IKSolverJoints collider sub-steps", () => {
  it("updates the colliders once, resolves once per sub-step with alpha = k / subSteps, and keeps bone lengths", () => {
    const c = buildChain({ bones: 10, bend: 0.05 });
    const s = new IKSolverCCD(c.pose, c.ids, { rootParent: 0 });
    const before = chainPositions(c.pose, c.ids);
    // a sphere around the middle of the chain, slightly off its line
    const mid = pos(c.pose, c.ids[5]!);
    const col = new SphereColliders(mid.x + 0.3, mid.y, mid.z, 0.8);
    s.colliders = col;
    s.subSteps = 4;
    s.colliderRadius = 0.1;
    const tip = pos(c.pose, c.ids[9]!);
    s.ikPosition.x = tip.x;
    s.ikPosition.y = tip.y;
    s.ikPosition.z = tip.z;
    s.maxIterations = 0;
    s.update();
    expect(col.updates).toBe(1);
    expect(col.alphas).toEqual([0.25, 0.5, 0.75, 1]);
    const after = chainPositions(c.pose, c.ids);
    expect(after).not.toEqual(before);
    for (let i = 0; i < 9; i++) {
      const l0 = Math.hypot(
        before[3 * i + 3]! - before[3 * i]!,
        before[3 * i + 4]! - before[3 * i + 1]!,
        before[3 * i + 5]! - before[3 * i + 2]!,
      );
      const l1 = Math.hypot(
        after[3 * i + 3]! - after[3 * i]!,
        after[3 * i + 4]! - after[3 * i + 1]!,
        after[3 * i + 5]! - after[3 * i + 2]!,
      );
      expect(l1).toBeCloseTo(l0, 12);
    }
    // the joints the sphere held have been pushed out (the chain bends around it)
    const d5 = Math.hypot(after[15]! - col.cx, after[16]! - col.cy, after[17]! - col.cz);
    expect(d5).toBeGreaterThan(0.8);
    expect([after[0], after[1], after[2]]).toEqual([before[0], before[1], before[2]]);
  });

  it("colliders that move nothing leave the solve as it was", () => {
    const a = buildChain({ bones: 10 });
    const b = buildChain({ bones: 10 });
    const sa = new IKSolverCCD(a.pose, a.ids, { rootParent: 0 });
    const sb = new IKSolverCCD(b.pose, b.ids, { rootParent: 0 });
    sb.colliders = new SphereColliders(100, 100, 100, 1);
    sb.subSteps = 3;
    for (const s of [sa, sb]) {
      s.ikPosition.x = 2;
      s.ikPosition.y = 4;
      s.ikPosition.z = -1;
      s.update();
    }
    expect(snapshot(b.pose)).toEqual(snapshot(a.pose));
  });
});
