/**
 * IKSolverCCD on chains of 10–60 bones built with HierarchyPose: accuracy, limits, MMD options, optimized CCD,
 * mirror and scale equivariance, allocation.
 */
import { describe, expect, it } from "vitest";
import { IKSolverCCD } from "../../../src/ccd/ik-solver-ccd.js";
import { RotationLimitAngle } from "../../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitEuler } from "../../../src/joints/limits/rotation-limit-euler.js";
import { Quat, angleBetween } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import {
  type TestChain,
  buildChain,
  chainPositions,
  localRotation,
  worstLimitViolation,
} from "../../helpers/joint-chains.js";
import { eulerXYZ, relative } from "../../helpers/limit-reference.js";
import { Random } from "../../helpers/random.js";
import { orbitSolve } from "../../helpers/ball-orbit.js";
import { bytesPerFrame, whereFramesAllocate } from "../../helpers/frame-heap.js";

function aim(s: IKSolverCCD, c: TestChain, rng: Random, lo: number, hi: number): void {
  const root = c.pose.positions[c.ids[0]!]!;
  const d = rng.unitVector();
  const r = rng.range(lo, hi) * c.length;
  s.ikPosition.x = root.x + d.x * r;
  s.ikPosition.y = root.y + d.y * r;
  s.ikPosition.z = root.z + d.z * r;
}

function tipError(s: IKSolverCCD, c: TestChain): number {
  const t = c.pose.positions[c.ids[c.ids.length - 1]!]!;
  return Math.hypot(t.x - s.ikPosition.x, t.y - s.ikPosition.y, t.z - s.ikPosition.z);
}

describe("IKSolverCCD accuracy", () => {
  for (const bones of [10, 30, 60]) {
    for (const order of ["tipToRoot", "rootToTip"] as const) {
      it(`reaches targets within 0.01 % of the length of a ${bones}-bone chain (${order})`, () => {
        const rng = new Random(bones * 7 + (order === "tipToRoot" ? 0 : 1));
        for (let k = 0; k < 10; k++) {
          const c = buildChain({ bones, seed: k + 1 });
          const s = new IKSolverCCD(c.pose, c.ids, { rootParent: 0 });
          s.linkOrder = order;
          s.maxIterations = 3000;
          s.tolerance = 1e-5 * c.length;
          aim(s, c, rng, 0.2, 0.9);
          s.update();
          expect(s.lastReach).toBe("reachable");
          expect(tipError(s, c)).toBeLessThan(1e-4 * c.length);
        }
      });
    }
  }

  it("optimized CCD reaches as closely, with a far smaller largest bend between neighbouring bones", () => {
    let plainBend = 0;
    let optBend = 0;
    for (let k = 0; k < 20; k++) {
      const bends: number[] = [];
      for (const optimized of [false, true]) {
        const c = buildChain({ bones: 30, seed: k, bend: 0.05, lengthOf: () => 1 });
        const s = new IKSolverCCD(c.pose, c.ids, { rootParent: 0 });
        s.optimized = optimized;
        s.maxIterations = 3000;
        s.tolerance = 1e-5 * c.length;
        const r = new Random(1000 + k);
        aim(s, c, r, 0.3, 0.9);
        s.update();
        expect(tipError(s, c)).toBeLessThan(1e-4 * c.length);
        const p = chainPositions(c.pose, c.ids);
        let m = 0;
        for (let i = 1; i < 29; i++) {
          const u = [p[3 * i]! - p[3 * i - 3]!, p[3 * i + 1]! - p[3 * i - 2]!, p[3 * i + 2]! - p[3 * i - 1]!];
          const w = [p[3 * i + 3]! - p[3 * i]!, p[3 * i + 4]! - p[3 * i + 1]!, p[3 * i + 5]! - p[3 * i + 2]!];
          const cr = Math.hypot(
            u[1]! * w[2]! - u[2]! * w[1]!,
            u[2]! * w[0]! - u[0]! * w[2]!,
            u[0]! * w[1]! - u[1]! * w[0]!,
          );
          m = Math.max(m, Math.atan2(cr, u[0]! * w[0]! + u[1]! * w[1]! + u[2]! * w[2]!));
        }
        bends.push(m);
      }
      plainBend += bends[0]!;
      optBend += bends[1]!;
    }
    expect(optBend).toBeLessThan(plainBend * 0.4);
  });
});

describe("IKSolverCCD options", () => {
  it("a link with weight 0 keeps its local rotation", () => {
    const c = buildChain({ bones: 10 });
    const s = new IKSolverCCD(c.pose, c.ids, { rootParent: 0 });
    s.bones[4]!.weight = 0;
    const before = localRotation(c.pose, c.ids, 4);
    s.ikPosition.x = 2;
    s.ikPosition.y = 3;
    s.ikPosition.z = 1;
    s.maxIterations = 50;
    s.update();
    expect(angleBetween(before, localRotation(c.pose, c.ids, 4))).toBeLessThan(1e-12);
    expect(angleBetween(before, localRotation(c.pose, c.ids, 5))).toBeGreaterThan(1e-6);
  });

  it("maxAngle caps every link's turn in an iteration", () => {
    const c = buildChain({ bones: 12 });
    const s = new IKSolverCCD(c.pose, c.ids, { rootParent: 0 });
    const before = c.ids.map((_, i) => localRotation(c.pose, c.ids, i));
    s.maxAngle = 0.02;
    s.maxIterations = 1;
    s.ikPosition.x = -4;
    s.ikPosition.y = 2;
    s.ikPosition.z = 3;
    s.update();
    let largest = 0;
    c.ids.forEach((_, i) => {
      largest = Math.max(largest, angleBetween(before[i]!, localRotation(c.pose, c.ids, i)));
    });
    expect(largest).toBeLessThan(0.02 + 1e-12);
    expect(largest).toBeGreaterThan(0.019);
  });

  it("keeps every joint inside its swing-and-twist limit while reaching", () => {
    const rng = new Random(5);
    for (let k = 0; k < 20; k++) {
      const c = buildChain({ bones: 20, seed: k });
      const s = new IKSolverCCD(c.pose, c.ids, { rootParent: 0 });
      for (let i = 0; i < 20; i++) s.setLimit(i, new RotationLimitAngle(new Vec3(0, 1, 0), 25, 10));
      s.maxIterations = 200;
      aim(s, c, rng, 0.2, 0.8);
      s.update();
      expect(worstLimitViolation(s, c)).toBeLessThan(1e-9);
    }
  });
});

/** An MMD leg: base (hips) → thigh → knee → ankle, the knee limited to X in [−180°, −0.5°] as MMD models are. */
function mmdLeg(mirror = false): { pose: HierarchyPose; ids: number[]; s: IKSolverCCD; knee: RotationLimitEuler } {
  const z = mirror ? -1 : 1;
  const pose = new HierarchyPose([
    { name: "hips", parent: -1, position: new Vec3(0, 1, 0), rotation: new Quat() },
    { name: "thigh", parent: 0, position: new Vec3(0.1, -0.05, 0), rotation: new Quat() },
    { name: "knee", parent: 1, position: new Vec3(0, -0.45, 0.01 * z), rotation: new Quat() },
    { name: "ankle", parent: 2, position: new Vec3(0, -0.42, -0.01 * z), rotation: new Quat() },
  ]);
  const ids = [1, 2, 3];
  const s = new IKSolverCCD(pose, ids, { rootParent: 0 });
  // MMD's ranges are written for its left-handed frame; mirrored, X's range is negated and swapped
  const knee = mirror
    ? new RotationLimitEuler(new Vec3(0.5 * (Math.PI / 180), 0, 0), new Vec3(Math.PI, 0, 0))
    : new RotationLimitEuler(new Vec3(-Math.PI, 0, 0), new Vec3(-0.5 * (Math.PI / 180), 0, 0));
  s.setLimit(1, knee);
  s.maxIterations = 40;
  s.maxAngle = 2;
  return { pose, ids, s, knee };
}

describe("IKSolverCCD on an MMD leg", () => {
  it("the knee only ever bends about its X axis, forward, whatever the foot target", () => {
    const { pose, ids, s } = mmdLeg();
    const rest = s.getRestLocalRotation(1, new Quat());
    const rng = new Random(77);
    const hip = pose.positions[1]!;
    let reached = 0;
    let reachable = 0;
    for (let k = 0; k < 500; k++) {
      const d = rng.unitVector();
      const r = rng.range(0, 1.2) * 0.87;
      s.ikPosition.x = hip.x + d.x * r;
      s.ikPosition.y = hip.y + d.y * r;
      s.ikPosition.z = hip.z + d.z * r;
      s.tolerance = 1e-6;
      s.update();
      const e = eulerXYZ(relative(rest, localRotation(pose, ids, 1)));
      expect(Math.abs(e.y)).toBeLessThan(1e-9);
      expect(Math.abs(e.z)).toBeLessThan(1e-9);
      expect(e.x).toBeLessThanOrEqual(-0.5 * (Math.PI / 180) + 1e-9);
      const t = pose.positions[3]!;
      if (s.lastReach !== "reachable") continue;
      reachable++;
      if (Math.hypot(t.x - s.ikPosition.x, t.y - s.ikPosition.y, t.z - s.ikPosition.z) < 1e-5) reached++;
    }
    // the knee's reach solve gets CCD out of the straight-leg dead point: all but the odd edge case are met
    expect(reached).toBeGreaterThan(reachable * 0.98);
  });

  it("a foot target in front of the hip bends the knee so the foot comes forward, not the knee backwards", () => {
    const { pose, s } = mmdLeg();
    s.ikPosition.x = 0.1;
    s.ikPosition.y = 0.5;
    s.ikPosition.z = 0.3;
    s.tolerance = 1e-7;
    s.update();
    const t = pose.positions[3]!;
    expect(Math.hypot(t.x - 0.1, t.y - 0.5, t.z - 0.3)).toBeLessThan(1e-6);
  });
});

describe("IKSolverCCD equivariance", () => {
  it("a mirrored MMD leg with the mirrored knee range solves every foot target to the mirrored pose", () => {
    const a = mmdLeg();
    const b = mmdLeg(true);
    const rng = new Random(404);
    const hip = a.pose.positions[1]!;
    for (let k = 0; k < 200; k++) {
      const d = rng.unitVector();
      const r = rng.range(0.1, 1) * 0.87;
      a.s.ikPosition.x = hip.x + d.x * r;
      a.s.ikPosition.y = hip.y + d.y * r;
      a.s.ikPosition.z = hip.z + d.z * r;
      b.s.ikPosition.x = a.s.ikPosition.x;
      b.s.ikPosition.y = a.s.ikPosition.y;
      b.s.ikPosition.z = -a.s.ikPosition.z;
      a.s.update();
      b.s.update();
      for (const id of a.ids) {
        const pa = a.pose.positions[id]!;
        const pb = b.pose.positions[id]!;
        expect(pb.x).toBeCloseTo(pa.x, 9);
        expect(pb.y).toBeCloseTo(pa.y, 9);
        expect(pb.z).toBeCloseTo(-pa.z, 9);
      }
      const e = eulerXYZ(relative(b.s.getRestLocalRotation(1, new Quat()), localRotation(b.pose, b.ids, 1)));
      expect(e.x).toBeGreaterThanOrEqual(0.5 * (Math.PI / 180) - 1e-9);
      expect(Math.abs(e.y) + Math.abs(e.z)).toBeLessThan(1e-9);
    }
  });

  it("a mirrored rig (z → −z) with a mirrored target solves to the mirrored pose", () => {
    const rng = new Random(91);
    for (let k = 0; k < 10; k++) {
      const a = buildChain({ bones: 20, seed: k });
      const b = buildChain({ bones: 20, seed: k, mirror: true });
      const sa = new IKSolverCCD(a.pose, a.ids, { rootParent: 0 });
      const sb = new IKSolverCCD(b.pose, b.ids, { rootParent: 0 });
      for (let i = 0; i < 20; i++) {
        sa.setLimit(i, new RotationLimitAngle(new Vec3(0.3, 1, 0.4), 30, 15));
        sb.setLimit(i, new RotationLimitAngle(new Vec3(0.3, 1, -0.4), 30, 15));
      }
      aim(sa, a, rng, 0.2, 0.9);
      sb.ikPosition.x = sa.ikPosition.x;
      sb.ikPosition.y = sa.ikPosition.y;
      sb.ikPosition.z = -sa.ikPosition.z;
      for (const s of [sa, sb]) {
        s.maxIterations = 30;
        s.update();
      }
      const pa = chainPositions(a.pose, a.ids);
      const pb = chainPositions(b.pose, b.ids);
      for (let i = 0; i < pa.length; i++) expect(pb[i]!).toBeCloseTo(i % 3 === 2 ? -pa[i]! : pa[i]!, 9);
    }
  });

  for (const scale of [0.01, 100]) {
    it(`a rig scaled ×${scale} with a scaled target and tolerance solves to the scaled pose`, () => {
      const rng = new Random(92);
      for (let k = 0; k < 10; k++) {
        const a = buildChain({ bones: 20, seed: k });
        const b = buildChain({ bones: 20, seed: k, scale });
        const sa = new IKSolverCCD(a.pose, a.ids, { rootParent: 0 });
        const sb = new IKSolverCCD(b.pose, b.ids, { rootParent: 0 });
        for (const s of [sa, sb]) s.optimized = k % 2 === 1;
        aim(sa, a, rng, 0.2, 1.2);
        sb.ikPosition.x = sa.ikPosition.x * scale;
        sb.ikPosition.y = sa.ikPosition.y * scale;
        sb.ikPosition.z = sa.ikPosition.z * scale;
        sa.tolerance = 1e-3;
        sb.tolerance = 1e-3 * scale;
        sa.maxIterations = sb.maxIterations = 20;
        sa.update();
        sb.update();
        const pa = chainPositions(a.pose, a.ids);
        const pb = chainPositions(b.pose, b.ids);
        for (let i = 0; i < pa.length; i++) expect(pb[i]! / scale).toBeCloseTo(pa[i]!, 9);
      }
    });
  }
});

describe("IKSolverCCD allocation", () => {
  it("1,000 solves with limits allocate (next to) nothing", () => {
    const c = buildChain({ bones: 20 });
    const s = new IKSolverCCD(c.pose, c.ids, { rootParent: 0 });
    for (let i = 0; i < 20; i++) s.setLimit(i, new RotationLimitAngle(new Vec3(0, 1, 0), 40, 20));
    s.setLimit(5, new RotationLimitEuler(new Vec3(-1, 0, 0), new Vec3(0, 0, 0)));
    s.maxIterations = 10;
    const rng = new Random(3);
    const targets = Array.from({ length: 100 }, () => rng.unitVector());
    const run = (frames: number): void => {
      for (let f = 0; f < frames; f++) {
        const t = targets[f % 100]!;
        s.ikPosition.x = t.x * 10;
        s.ikPosition.y = t.y * 10;
        s.ikPosition.z = t.z * 10;
        s.optimized = f % 2 === 0;
        s.update();
      }
    };
    run(2000);
    // the least growth of three rounds: JIT work elsewhere in the process can add to one round, not to all
    let grown = Infinity;
    for (let round = 0; round < 3; round++) {
      const before = process.memoryUsage().heapUsed;
      run(1000);
      grown = Math.min(grown, process.memoryUsage().heapUsed - before);
    }
    // an allocation per link per iteration would be ≥ 16 B × 19 × 10 × 1000 ≈ 3 MB
    expect(grown).toBeLessThan(300_000);
  });

  it("solves round a ball with limits, the colliders in the iterations, allocate nothing", async () => {
    const solve = orbitSolve(
      (chain) => {
        const ccd = new IKSolverCCD(chain.pose, chain.ids, { rootParent: 0 });
        ccd.maxIterations = 20;
        return ccd;
      },
      { limits: true },
    );
    const bytes = bytesPerFrame(solve, 2_000);
    if (process.env.FBBIK_REPORT) console.log(`[figures] CCD round a ball: ${bytes} B a solve`);
    expect(bytes, bytes < 8 ? "" : await whereFramesAllocate(solve, 2_000)).toBeLessThan(8);
  });
});
