/**
 * Property test of the chain solvers over 10,000 seeded targets each on a 10-bone chain with mixed limits (swing
 * and twist, hinges, an MMD knee whose rest lies outside its range): after every solve every joint is inside its
 * limit (to 1e-9 rad) and every number in the pose is finite, whatever the target (reachable, beyond, in the blind
 * zone, on the root, non-finite) and the options.
 */
import { describe, expect, it } from "vitest";
import { IKSolverCCD } from "../../src/ccd/ik-solver-ccd.js";
import { IKSolverFABRIK } from "../../src/fabrik/ik-solver-fabrik.js";
import type { IKSolverJoints } from "../../src/joints/ik-solver-joints.js";
import { RotationLimitAngle } from "../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitEuler } from "../../src/joints/limits/rotation-limit-euler.js";
import { RotationLimitHinge } from "../../src/joints/limits/rotation-limit-hinge.js";
import { RotationLimitPolygonal } from "../../src/joints/limits/rotation-limit-polygonal.js";
import { RotationLimitSpline } from "../../src/joints/limits/rotation-limit-spline.js";
import { Quat, angleBetween } from "../../src/math/quat.js";
import { Vec3 } from "../../src/math/vec3.js";
import { buildChain, localRotation } from "../helpers/joint-chains.js";
import { Random } from "../helpers/random.js";

const N = 10_000;
/** Swing limits around +Y (degrees at azimuths from +X), lopsided. */
const SPLINE = [
  { time: 0, value: 50 },
  { time: 120, value: 15 },
  { time: 250, value: 35 },
];
/** A lopsided reach cone about +Y, concave between its second and third points. */
const POLYGON = [
  new Vec3(0.5, 1, 0),
  new Vec3(0, 1, 0.8),
  new Vec3(-0.1, 1, 0.1),
  new Vec3(-0.6, 1, -0.2),
  new Vec3(0.1, 1, -0.5),
];

function limitChain(s: IKSolverJoints): void {
  for (let i = 0; i < s.count; i++) {
    if (i === 4)
      s.setLimit(i, new RotationLimitEuler(new Vec3(-Math.PI, 0, 0), new Vec3(-0.5 * (Math.PI / 180), 0, 0)));
    else if (i === 6) s.setLimit(i, new RotationLimitPolygonal(new Vec3(0, 1, 0), POLYGON, 25));
    else if (i === 9) s.setLimit(i, new RotationLimitSpline(new Vec3(0, 1, 0), new Vec3(1, 0, 0), SPLINE, 30));
    else if (i % 3 === 1) s.setLimit(i, new RotationLimitHinge(new Vec3(0, 0, 1), -70, 40));
    else if (i % 3 === 2) s.setLimit(i, new RotationLimitEuler(new Vec3(-0.6, -0.3, -0.2), new Vec3(0.4, 0.3, 0.2)));
    else s.setLimit(i, new RotationLimitAngle(new Vec3(0.1, 1, 0.2), 35, 15));
  }
}

function run(
  name: string,
  make: (pose: ReturnType<typeof buildChain>) => IKSolverJoints,
  options: (s: IKSolverJoints, rng: Random) => void,
): void {
  it(`${name}: every joint inside its limit and the pose finite after each of 10,000 solves`, () => {
    const c = buildChain({ bones: 10, seed: 4, bend: 0.3 });
    const s = make(c);
    limitChain(s);
    const rng = new Random(name.length * 1009);
    const root = c.pose.positions[c.ids[0]!]!;
    const q = new Quat();
    const clamped = new Quat();
    let worst = 0;
    const reach: Record<string, number> = {};
    for (let k = 0; k < N; k++) {
      const kind = rng.next();
      const d = rng.unitVector();
      const r =
        kind < 0.05
          ? 0
          : kind < 0.1
            ? rng.range(1.1, 3) * c.length
            : kind < 0.12
              ? Number.NaN
              : rng.range(0, 1) * c.length;
      s.ikPosition.x = root.x + d.x * r;
      s.ikPosition.y = root.y + d.y * r;
      s.ikPosition.z = kind < 0.13 && kind >= 0.12 ? Infinity : root.z + d.z * r;
      s.maxIterations = 1 + rng.int(6);
      s.ikPositionWeight = rng.next() < 0.1 ? rng.next() : 1;
      options(s, rng);
      s.update();
      reach[s.lastReach] = (reach[s.lastReach] ?? 0) + 1;
      for (let i = 0; i < s.count; i++) {
        const id = c.ids[i]!;
        const p = c.pose.positions[id]!;
        const rr = c.pose.rotations[id]!;
        if (![p.x, p.y, p.z, rr.x, rr.y, rr.z, rr.w].every(Number.isFinite))
          throw new Error(`sample ${k}: joint ${i} not finite`);
        // a partial weight blends toward the animated pose, which need not be inside, and a skipped frame (non-finite
        // target) leaves that pose: check the full-weight solves
        if (s.ikPositionWeight < 1 || !Number.isFinite(s.ikPosition.y) || !Number.isFinite(s.ikPosition.z)) continue;
        localRotation(c.pose, c.ids, i, q);
        clamped.x = q.x;
        clamped.y = q.y;
        clamped.z = q.z;
        clamped.w = q.w;
        if (s.bones[i]!.limit!.apply(clamped)) worst = Math.max(worst, angleBetween(q, clamped));
      }
      if (worst > 1e-9) throw new Error(`sample ${k}: a joint is ${worst} rad outside its limit`);
    }
    expect(worst).toBeLessThan(1e-9);
    expect(reach.beyond).toBeGreaterThan(0);
    expect(reach.reachable).toBeGreaterThan(N / 2);
  });
}

describe("chain solvers over 10,000 seeded targets", () => {
  run(
    "CCD",
    (c) => new IKSolverCCD(c.pose, c.ids, { rootParent: 0 }),
    (s, rng) => {
      const ccd = s as IKSolverCCD;
      ccd.optimized = rng.next() < 0.3;
      ccd.maxAngle = rng.next() < 0.3 ? rng.range(0.01, 1) : Infinity;
      ccd.linkOrder = rng.next() < 0.2 ? "rootToTip" : "tipToRoot";
      ccd.bones[rng.int(10)]!.weight = rng.next();
    },
  );
  run(
    "FABRIK",
    (c) => new IKSolverFABRIK(c.pose, c.ids, { rootParent: 0 }),
    (s, rng) => {
      s.tolerance = rng.next() < 0.5 ? 1e-3 : 0;
    },
  );
});
