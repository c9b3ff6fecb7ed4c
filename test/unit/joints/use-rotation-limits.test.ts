/**
 * useRotationLimits (FinalIK's name) on the chain solvers: false solves as if no joint had a limit, bit for bit,
 * keeping the limits set; true again holds them.
 */
import { describe, expect, it } from "vitest";
import { IKSolverCCD } from "../../../src/ccd/ik-solver-ccd.js";
import { IKSolverFABRIK } from "../../../src/fabrik/ik-solver-fabrik.js";
import type { IKSolverJoints } from "../../../src/joints/ik-solver-joints.js";
import { RotationLimitAngle } from "../../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitHinge } from "../../../src/joints/limits/rotation-limit-hinge.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { FBBIKError } from "../../../src/solver/errors.js";
import { buildChain, snapshot, worstLimitViolation } from "../../helpers/joint-chains.js";
import { Random } from "../../helpers/random.js";

const makers: [string, (c: ReturnType<typeof buildChain>) => IKSolverJoints][] = [
  ["CCD", (c) => new IKSolverCCD(c.pose, c.ids, { rootParent: 0 })],
  ["FABRIK", (c) => new IKSolverFABRIK(c.pose, c.ids, { rootParent: 0 })],
];

describe.each(makers)("%s useRotationLimits", (_, make) => {
  it("false solves as without limits, bit for bit; true holds them again", () => {
    const plain = buildChain({ bones: 8, seed: 12 });
    const limited = buildChain({ bones: 8, seed: 12 });
    const a = make(plain);
    const b = make(limited);
    for (let i = 0; i < 8; i++)
      b.setLimit(
        i,
        i % 2 === 0
          ? new RotationLimitAngle(new Vec3(0, 1, 0), 20, 10)
          : new RotationLimitHinge(new Vec3(1, 0, 0), -30, 30),
      );
    const freshA = plain.pose.clone();
    const freshB = limited.pose.clone();
    const rng = new Random(9);
    let worstOn = 0;
    let worstOff = 0;
    for (let k = 0; k < 300; k++) {
      const d = rng.unitVector();
      const r = rng.range(0.2, 0.9) * plain.length;
      const root = plain.pose.positions[plain.ids[0]!]!;
      for (const s of [a, b]) {
        s.ikPosition.x = root.x + d.x * r;
        s.ikPosition.y = root.y + d.y * r;
        s.ikPosition.z = root.z + d.z * r;
      }
      plain.pose.copyLocalsFrom(freshA);
      limited.pose.copyLocalsFrom(freshB);
      b.useRotationLimits = k % 2 === 0;
      a.update();
      b.update();
      if (b.useRotationLimits) worstOn = Math.max(worstOn, worstLimitViolation(b, limited));
      else {
        expect(snapshot(limited.pose)).toEqual(snapshot(plain.pose));
        worstOff = Math.max(worstOff, worstLimitViolation(b, limited));
      }
    }
    expect(b.hasLimits()).toBe(true);
    expect(worstOff).toBeGreaterThan(0.1);
    expect(worstOn).toBeLessThan(1e-9);
  });
});

describe.each(makers)("%s setLimit with one limit object on two joints", (_, make) => {
  it("throws an FBBIKError naming both joints, and keeps the first joint's limit about its own rest", () => {
    const c = buildChain({ bones: 5, seed: 4, bend: 0.6 });
    const s = make(c);
    const shared = new RotationLimitAngle(new Vec3(0, 1, 0), 20, 10);
    s.setLimit(1, shared);
    expect(() => s.setLimit(2, shared)).toThrow(FBBIKError);
    expect(() => s.setLimit(2, shared)).toThrow(/joint 2 .* joint 1 already has/);
    // joint 1's limit still holds joint 1's rest: a solve ends inside it
    const tip = c.pose.positions[c.ids[4]!]!;
    s.ikPosition.x = tip.x;
    s.ikPosition.y = tip.y;
    s.ikPosition.z = tip.z;
    s.update();
    expect(worstLimitViolation(s, c)).toBeLessThan(1e-9);
    // the same object again on its own joint, or a removal, is fine
    expect(() => s.setLimit(1, shared)).not.toThrow();
    s.setLimit(1, null);
    expect(() => s.setLimit(2, shared)).not.toThrow();
  });
});
