/**
 * IKSolverJacobian (damped least squares): the law of cosines on a planar arm, long chains and a tree
 * reaching reachable targets, conflicting targets resolved by weight, rotation targets, limits, weight 0
 * bit-exact, no NaN for bad input, LH/RH mirror and ×0.01/×100 scale equivariance. Expected values come
 * from formulas in the test, never from src/.
 */
import { describe, expect, it } from "vitest";
import { IKSolverJacobian } from "../../../src/jacobian/ik-solver-jacobian.js";
import type { JacobianJoint } from "../../../src/jacobian/jacobian-joint.js";
import { type HierarchyBone, HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import { Quat } from "../../../src/math/quat.js";
import { FBBIKError } from "../../../src/solver/errors.js";
import { bytesPerFrame, whereFramesAllocate } from "../../helpers/frame-heap.js";
import { Random } from "../../helpers/random.js";
import { type V, dist, len, sub, v } from "../../helpers/vectors.js";

type Q = { x: number; y: number; z: number; w: number };
const ID: Q = { x: 0, y: 0, z: 0, w: 1 };
const axisAngle = (a: V, angle: number): Q => {
  const l = len(a);
  const s = Math.sin(angle / 2) / l;
  return { x: a.x * s, y: a.y * s, z: a.z * s, w: Math.cos(angle / 2) };
};
const qmul = (a: Q, b: Q): Q => ({
  x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
  y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
  z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
  w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
});
const qconj = (a: Q): Q => ({ x: -a.x, y: -a.y, z: -a.z, w: a.w });
/** q applied to p (about the origin). */
const rotate = (q: Q, p: V): V => {
  const r = qmul(qmul(q, { x: p.x, y: p.y, z: p.z, w: 0 }), qconj(q));
  return v(r.x, r.y, r.z);
};
/** Angle of the rotation between a and b (atan2 of the relative rotation: accurate near 0, unlike acos). */
const qangle = (a: Q, b: Q): number => {
  const r = qmul(qconj(a), b);
  return 2 * Math.atan2(Math.hypot(r.x, r.y, r.z), Math.abs(r.w));
};
/** Mirror z → −z: positions flip z, rotations (x, y, z, w) → (−x, −y, z, w). */
const mirrorV = (a: V): V => v(a.x, a.y, -a.z);
const mirrorQ = (q: Q): Q => ({ x: -q.x, y: -q.y, z: q.z, w: q.w });

/** A chain of `n` bones of length `l` along +Y, each turned by `bend` about `axis` (a gentle curve). */
function chainBones(n: number, l: number, bend = 0.1, axis: V = v(0, 0, 1)): HierarchyBone[] {
  return Array.from({ length: n + 1 }, (_, i) => ({
    name: `b${i}`,
    parent: i - 1,
    position: i === 0 ? v(0, 0, 0) : v(0, l, 0),
    rotation: i === 0 || i === n ? ID : axisAngle(axis, bend),
  }));
}

/** Snapshot of every bone's component-space transform. */
function snapshot(pose: HierarchyPose): number[] {
  const out: number[] = [];
  for (let i = 0; i < pose.count; i++) {
    const p = pose.positions[i]!;
    const q = pose.rotations[i]!;
    out.push(p.x, p.y, p.z, q.x, q.y, q.z, q.w);
  }
  return out;
}

const sameBits = (a: number[], b: number[]): boolean => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
const posOf = (pose: HierarchyPose, bone: number): V => ({ ...pose.positions[bone]! });

describe("IKSolverJacobian setup", () => {
  const pose = new HierarchyPose(chainBones(3, 1));
  it("throws FBBIKError naming the bad joint's bone", () => {
    expect(() => new IKSolverJacobian(pose, [])).toThrow(FBBIKError);
    expect(() => new IKSolverJacobian(pose, [{ bone: 0 }, { bone: 0 }])).toThrow(/bone 0.*twice/);
    expect(() => new IKSolverJacobian(pose, [{ bone: 0 }, { bone: 1, parent: 1 }])).toThrow(/bone 1.*parent/);
    expect(() => new IKSolverJacobian(pose, [{ bone: 0, hingeAxis: v(0, 0, 0) }])).toThrow(/bone 0.*hinge/);
    expect(() => new IKSolverJacobian(pose, [{ bone: 2, min: [0, 0] }])).toThrow(/bone 2.*min/);
    const inverted: JacobianJoint = { bone: 2, hingeAxis: v(1, 0, 0), min: [1], max: [0] };
    expect(() => new IKSolverJacobian(pose, [inverted])).toThrow(/bone 2/);
    const s = new IKSolverJacobian(pose, [{ bone: 0 }, { bone: 1 }]);
    expect(() => s.addEffector(3)).toThrow(/bone 3/);
  });
});

describe("IKSolverJacobian two-bone arm: the law of cosines", () => {
  // The elbow bends one way, 0 to 2.8 rad in all: the answer is unique for every target at 0.12 to a + b.
  // (A limit at a full fold, π, would leave DLS a saddle it cannot leave: the folded arm pointing at the target.)
  it("planar arm with hinges (elbow bending one way) matches the analytic answer to 1e-6 of the limb length", () => {
    const rng = new Random(31);
    const a = 0.3;
    const b = 0.25;
    const bones: HierarchyBone[] = [
      { name: "shoulder", parent: -1, position: v(0.1, 1.4, 0), rotation: ID },
      { name: "elbow", parent: 0, position: v(a, 0, 0), rotation: axisAngle(v(0, 0, 1), 0.4) },
      { name: "hand", parent: 1, position: v(b, 0, 0), rotation: ID },
    ];
    const rest = new HierarchyPose(bones);
    let worst = 0;
    for (let k = 0; k < 500; k++) {
      const pose = rest.clone();
      const joints: JacobianJoint[] = [
        { bone: 0, hingeAxis: v(0, 0, 1) },
        { bone: 1, hingeAxis: v(0, 0, 1), min: [-0.4], max: [2.8 - 0.4] },
        { bone: 2, locked: true },
      ];
      const s = new IKSolverJacobian(pose, joints);
      const e = s.addEffector(2);
      const d = rng.range(0.12, a + b - 0.01);
      const phi = rng.range(-Math.PI, Math.PI);
      const sh = v(0.1, 1.4, 0);
      e.position.x = sh.x + d * Math.cos(phi);
      e.position.y = sh.y + d * Math.sin(phi);
      e.position.z = 0;
      s.update();
      // the elbow bends counter-clockwise, so the upper arm lies clockwise of the target by α
      const alpha = Math.acos((a * a + d * d - b * b) / (2 * a * d));
      const elbow = v(sh.x + a * Math.cos(phi - alpha), sh.y + a * Math.sin(phi - alpha), 0);
      const err = Math.max(dist(posOf(pose, 1), elbow), dist(posOf(pose, 2), e.position));
      worst = Math.max(worst, err / (a + b));
    }
    expect(worst).toBeLessThan(1e-6);
  });

  it("a ball-joint shoulder and a hinge elbow reach 3D targets with the elbow's law-of-cosines angle", () => {
    const rng = new Random(32);
    const a = 0.3;
    const b = 0.25;
    let worst = 0;
    for (let k = 0; k < 300; k++) {
      const pose = new HierarchyPose([
        { name: "shoulder", parent: -1, position: v(0, 0, 0), rotation: ID },
        { name: "elbow", parent: 0, position: v(a, 0, 0), rotation: axisAngle(v(0, 0, 1), 0.3) },
        { name: "hand", parent: 1, position: v(b, 0, 0), rotation: ID },
      ]);
      const s = new IKSolverJacobian(pose, [
        { bone: 0 },
        { bone: 1, hingeAxis: v(0, 0, 1), min: [-0.3], max: [2.5] },
        { bone: 2, locked: true },
      ]);
      const e = s.addEffector(2);
      const d = rng.range(0.12, a + b - 0.01);
      const u = rng.unitVector();
      e.position.x = u.x * d;
      e.position.y = u.y * d;
      e.position.z = u.z * d;
      s.update();
      const sh = posOf(pose, 0);
      const el = posOf(pose, 1);
      const ha = posOf(pose, 2);
      // interior angle at the elbow: the law of cosines for the sides a, b, d
      const interior = Math.acos((a * a + b * b - d * d) / (2 * a * b));
      const u1 = sub(sh, el);
      const u2 = sub(ha, el);
      const got = Math.acos((u1.x * u2.x + u1.y * u2.y + u1.z * u2.z) / (len(u1) * len(u2)));
      worst = Math.max(worst, dist(ha, e.position) / (a + b), (Math.abs(got - interior) * b) / (a + b));
    }
    expect(worst).toBeLessThan(1e-6);
  });
});

describe("IKSolverJacobian long chains", () => {
  it("a 20-bone chain reaches 300 reachable targets within 0.01 % of its length", () => {
    const rng = new Random(20);
    const rest = new HierarchyPose(chainBones(20, 0.1));
    const L = 2;
    const pose = rest.clone();
    const s = new IKSolverJacobian(
      pose,
      Array.from({ length: 21 }, (_, i) => ({ bone: i })),
    );
    const e = s.addEffector(20);
    let worst = 0;
    let iterations = 0;
    for (let k = 0; k < 300; k++) {
      pose.copyLocalsFrom(rest);
      const u = rng.unitVector();
      const d = rng.range(0.1, 0.95) * L;
      e.position.x = u.x * d;
      e.position.y = u.y * d;
      e.position.z = u.z * d;
      s.update();
      worst = Math.max(worst, dist(posOf(pose, 20), e.position) / L);
      iterations += s.lastIterations;
    }
    const perSolve = (iterations / 300).toFixed(1);
    console.log(`20-bone chain: worst error ${worst.toExponential(2)} of the length, ${perSolve} iterations per solve`);
    expect(worst).toBeLessThan(1e-4);
  });

  it("a tree (a wrist with three 3-bone fingers) reaches three targets at once", () => {
    const rng = new Random(21);
    const bones: HierarchyBone[] = [{ name: "wrist", parent: -1, position: v(0, 0, 0), rotation: ID }];
    const tips: number[] = [];
    for (let f = 0; f < 3; f++) {
      let parent = 0;
      for (let j = 0; j < 4; j++) {
        bones.push({
          name: `f${f}_${j}`,
          parent,
          position: j === 0 ? v((f - 1) * 0.03, 0.08, 0) : v(0, 0.03, 0),
          rotation: j === 0 || j === 3 ? ID : axisAngle(v(1, 0, 0), 0.2),
        });
        parent = bones.length - 1;
      }
      tips.push(parent);
    }
    const rest = new HierarchyPose(bones);
    const joints: JacobianJoint[] = bones.map((b, i) => ({ bone: i, parent: b.parent, locked: tips.includes(i) }));
    let worst = 0;
    const L = 3 * (Math.hypot(0.03, 0.08) + 0.09);
    for (let k = 0; k < 200; k++) {
      // targets: the tips of a randomly posed copy, so all three are reachable together
      const posed = rest.clone();
      for (let i = 0; i < posed.count; i++) {
        if (tips.includes(i)) continue;
        posed.setLocalRotation(i, qmul(posed.localRotations[i]!, axisAngle(rng.unitVector(), rng.range(0, 0.8))));
      }
      const pose = rest.clone();
      const s = new IKSolverJacobian(pose, joints);
      const effs = tips.map((t) => s.addEffector(t));
      effs.forEach((e, f) => Object.assign(e.position, posed.positions[tips[f]!]!));
      s.update();
      for (let f = 0; f < 3; f++) worst = Math.max(worst, dist(posOf(pose, tips[f]!), effs[f]!.position) / L);
    }
    expect(worst).toBeLessThan(1e-4);
  });

  it("a rotation target on the tip is reached with its position", () => {
    const rng = new Random(22);
    const rest = new HierarchyPose(chainBones(6, 0.2));
    let worstPos = 0;
    let worstAngle = 0;
    for (let k = 0; k < 100; k++) {
      const posed = rest.clone();
      for (let i = 0; i < 7; i++) {
        posed.setLocalRotation(i, qmul(posed.localRotations[i]!, axisAngle(rng.unitVector(), rng.range(0, 0.6))));
      }
      const pose = rest.clone();
      const s = new IKSolverJacobian(
        pose,
        Array.from({ length: 7 }, (_, i) => ({ bone: i })),
      );
      const e = s.addEffector(6);
      Object.assign(e.position, posed.positions[6]!);
      e.rotation = new Quat(posed.rotations[6]!.x, posed.rotations[6]!.y, posed.rotations[6]!.z, posed.rotations[6]!.w);
      s.update();
      worstPos = Math.max(worstPos, dist(posOf(pose, 6), e.position) / 1.2);
      worstAngle = Math.max(worstAngle, qangle(pose.rotations[6]!, e.rotation));
    }
    expect(worstPos).toBeLessThan(1e-6);
    expect(worstAngle).toBeLessThan(1e-6);
  });
});

describe("IKSolverJacobian conflicts and weights", () => {
  it("two targets on one bone: the tip ends at their weighted mean", () => {
    const rng = new Random(23);
    const rest = new HierarchyPose(chainBones(5, 0.2));
    const rows: string[] = [];
    for (const [w1, w2] of [
      [1, 1],
      [3, 1],
      [1, 4],
      [0.2, 1],
    ] as const) {
      let worst = 0;
      for (let k = 0; k < 50; k++) {
        const pose = rest.clone();
        const s = new IKSolverJacobian(
          pose,
          Array.from({ length: 6 }, (_, i) => ({ bone: i })),
        );
        const e1 = s.addEffector(5);
        const e2 = s.addEffector(5);
        e1.weight = w1;
        e2.weight = w2;
        const c = rng.unitVector();
        const d = rng.unitVector();
        Object.assign(e1.position, v(c.x * 0.6 + d.x * 0.1, c.y * 0.6 + d.y * 0.1, c.z * 0.6 + d.z * 0.1));
        Object.assign(e2.position, v(c.x * 0.6 - d.x * 0.1, c.y * 0.6 - d.y * 0.1, c.z * 0.6 - d.z * 0.1));
        s.update();
        const mean = v(
          (w1 * e1.position.x + w2 * e2.position.x) / (w1 + w2),
          (w1 * e1.position.y + w2 * e2.position.y) / (w1 + w2),
          (w1 * e1.position.z + w2 * e2.position.z) / (w1 + w2),
        );
        worst = Math.max(worst, dist(posOf(pose, 5), mean) / 1);
      }
      rows.push(`w ${w1}:${w2} → ${worst.toExponential(1)}`);
      expect(worst).toBeLessThan(1e-6);
    }
    console.log(`conflicting targets, distance from the weighted mean / length: ${rows.join(", ")}`);
  });

  it("priority: a higher-priority target wins outright over a lower one on the same bone, whatever the weights", () => {
    const rng = new Random(27);
    const rest = new HierarchyPose(chainBones(5, 0.2));
    let worst = 0;
    for (let k = 0; k < 50; k++) {
      const pose = rest.clone();
      const s = new IKSolverJacobian(
        pose,
        Array.from({ length: 6 }, (_, i) => ({ bone: i })),
      );
      const hi = s.addEffector(5);
      const lo = s.addEffector(5);
      hi.priority = 1;
      lo.weight = 1000;
      const u = rng.unitVector();
      const w = rng.unitVector();
      Object.assign(hi.position, v(u.x * 0.6, u.y * 0.6, u.z * 0.6));
      Object.assign(lo.position, v(w.x * 0.7, w.y * 0.7, w.z * 0.7));
      s.update();
      worst = Math.max(worst, dist(posOf(pose, 5), hi.position));
    }
    expect(worst).toBeLessThan(1e-9);
  });

  it("priority: a mid-chain target is met exactly; the tip's is too when the rest of the chain reaches it", () => {
    const rng = new Random(28);
    const rest = new HierarchyPose(chainBones(10, 0.1));
    let worstMid = 0;
    let worstTip = 0;
    let worstMidByWeight = 0;
    for (let k = 0; k < 60; k++) {
      const u = rng.unitVector();
      const w = rng.unitVector();
      const mid = v(u.x * 0.35, u.y * 0.35, u.z * 0.35);
      // the last five bones reach 0.5 from the mid joint: even k within it, odd k beyond (a conflict)
      const r = k % 2 === 0 ? rng.range(0.05, 0.45) : rng.range(0.6, 0.9);
      const tip = v(mid.x + w.x * r, mid.y + w.y * r, mid.z + w.z * r);
      for (const prioritised of [true, false]) {
        const pose = rest.clone();
        const s = new IKSolverJacobian(
          pose,
          Array.from({ length: 11 }, (_, i) => ({ bone: i })),
        );
        const m = s.addEffector(5);
        const t = s.addEffector(10);
        if (prioritised) m.priority = 1;
        Object.assign(m.position, mid);
        Object.assign(t.position, tip);
        s.update();
        const dm = dist(posOf(pose, 5), mid);
        if (prioritised) {
          worstMid = Math.max(worstMid, dm);
          if (k % 2 === 0) worstTip = Math.max(worstTip, dist(posOf(pose, 10), tip));
        } else if (k % 2 === 1) {
          worstMidByWeight = Math.max(worstMidByWeight, dm);
        }
      }
    }
    console.log(
      `priorities: mid-chain target missed by ≤ ${worstMid.toExponential(1)} with priority, ` +
        `by up to ${worstMidByWeight.toExponential(1)} with equal weights`,
    );
    expect(worstMid).toBeLessThan(1e-9);
    expect(worstTip).toBeLessThan(1e-9);
    expect(worstMidByWeight).toBeGreaterThan(1e-2);
  });

  it("weight 0 leaves the pose bit-exact: master weight 0, every effector weight 0", () => {
    const rest = new HierarchyPose(chainBones(8, 0.1));
    const pose = rest.clone();
    const s = new IKSolverJacobian(
      pose,
      Array.from({ length: 9 }, (_, i) => ({ bone: i })),
    );
    const e = s.addEffector(8);
    Object.assign(e.position, v(0.3, 0.2, 0.1));
    const before = snapshot(pose);
    s.ikPositionWeight = 0;
    s.update();
    expect(sameBits(snapshot(pose), before)).toBe(true);
    s.ikPositionWeight = 1;
    e.weight = 0;
    s.update();
    expect(sameBits(snapshot(pose), before)).toBe(true);
    s.ikPositionWeight = Number.NaN;
    e.weight = 1;
    s.update();
    expect(sameBits(snapshot(pose), before)).toBe(true);
  });

  it("a master weight in (0, 1) blends the solved local rotations from the animated ones", () => {
    const rest = new HierarchyPose(chainBones(4, 0.25));
    const full = rest.clone();
    const half = rest.clone();
    for (const [pose, w] of [
      [full, 1],
      [half, 0.5],
    ] as const) {
      const s = new IKSolverJacobian(
        pose,
        Array.from({ length: 5 }, (_, i) => ({ bone: i })),
      );
      const e = s.addEffector(4);
      Object.assign(e.position, v(0.5, 0.5, 0.2));
      s.ikPositionWeight = w;
      s.update();
    }
    for (let i = 0; i < 4; i++) {
      const animated = rest.localRotations[i]!;
      const a = qangle(animated, full.localRotations[i]!);
      expect(qangle(animated, half.localRotations[i]!)).toBeCloseTo(a / 2, 9);
    }
  });
});

describe("IKSolverJacobian bad input", () => {
  it("NaN and infinite targets or weights switch their effector off; no NaN is ever written", () => {
    const rest = new HierarchyPose(chainBones(6, 0.1));
    const pose = rest.clone();
    const s = new IKSolverJacobian(
      pose,
      Array.from({ length: 7 }, (_, i) => ({ bone: i })),
    );
    const bad = s.addEffector(6);
    const before = snapshot(pose);
    for (const t of [v(Number.NaN, 0, 0), v(Infinity, 0, 0), v(0, -Infinity, 1)]) {
      Object.assign(bad.position, t);
      s.update();
      expect(sameBits(snapshot(pose), before)).toBe(true);
    }
    const good = s.addEffector(3);
    Object.assign(good.position, v(0.2, 0.15, 0));
    bad.weight = Infinity;
    Object.assign(bad.position, v(0.1, 0.1, 0.1));
    s.update();
    expect(snapshot(pose).every((x) => Number.isFinite(x))).toBe(true);
    expect(dist(posOf(pose, 3), good.position)).toBeLessThan(1e-9);
    const r = new Quat(Number.NaN, 0, 0, 1);
    good.rotation = r;
    s.update();
    expect(snapshot(pose).every((x) => Number.isFinite(x))).toBe(true);
  });

  it("a pose that reads non-finite skips the frame: nothing written, nothing thrown", () => {
    const rest = new HierarchyPose(chainBones(4, 0.2));
    const pose = rest.clone();
    const s = new IKSolverJacobian(
      pose,
      Array.from({ length: 5 }, (_, i) => ({ bone: i })),
    );
    const e = s.addEffector(4);
    Object.assign(e.position, v(0.3, 0.3, 0.3));
    pose.setLocalPosition(2, v(Number.NaN, 0.2, 0));
    const before = snapshot(pose);
    expect(() => s.update()).not.toThrow();
    expect(sameBits(snapshot(pose), before)).toBe(true);
    expect(s.lastIterations).toBe(0);
  });

  it("an unreachable target: the chain is stretched straight at it without iterating, no NaN", () => {
    const rng = new Random(24);
    const rest = new HierarchyPose(chainBones(10, 0.1));
    let worst = 0;
    for (let k = 0; k < 100; k++) {
      const pose = rest.clone();
      const s = new IKSolverJacobian(
        pose,
        Array.from({ length: 11 }, (_, i) => ({ bone: i })),
      );
      const e = s.addEffector(10);
      const u = rng.unitVector();
      const far = rng.range(1.05, 1e6);
      Object.assign(e.position, v(u.x * far, u.y * far, u.z * far));
      s.update();
      expect(snapshot(pose).every((x) => Number.isFinite(x))).toBe(true);
      expect(s.lastIterations).toBe(0);
      // every joint on the line from the root to the target, at its bone lengths
      for (let i = 0; i <= 10; i++) {
        worst = Math.max(worst, dist(posOf(pose, i), v(u.x * i * 0.1, u.y * i * 0.1, u.z * i * 0.1)));
      }
    }
    expect(worst).toBeLessThan(1e-12);
  });

  it("an unreachable target past hinges and limits: as close as they allow, no NaN", () => {
    const rng = new Random(26);
    const rest = new HierarchyPose(chainBones(6, 0.1));
    for (let k = 0; k < 100; k++) {
      const pose = rest.clone();
      const joints: JacobianJoint[] = Array.from({ length: 7 }, (_, i) =>
        i % 2 === 0 ? { bone: i, min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5] } : { bone: i, hingeAxis: v(0, 0, 1) },
      );
      const s = new IKSolverJacobian(pose, joints);
      const e = s.addEffector(6);
      const u = rng.unitVector();
      const far = rng.range(0.7, 1e6);
      Object.assign(e.position, v(u.x * far, u.y * far, u.z * far));
      s.update();
      expect(snapshot(pose).every((x) => Number.isFinite(x))).toBe(true);
      expect(s.lastError).toBeLessThan(far);
    }
  });
});

describe("IKSolverJacobian limits", () => {
  it("every angle stays within its limits (1,000 seeded targets), the angles re-read from the pose", () => {
    const rng = new Random(25);
    const rest = new HierarchyPose(chainBones(8, 0.1, 0));
    const lim = [0.3, 0.5, 0.2];
    const min = lim.map((x) => -x);
    const joints: JacobianJoint[] = Array.from({ length: 9 }, (_, i) => ({ bone: i, min, max: lim }));
    const pose = rest.clone();
    const s = new IKSolverJacobian(pose, joints);
    const e = s.addEffector(8);
    let worst = -Infinity;
    for (let k = 0; k < 1000; k++) {
      pose.copyLocalsFrom(rest);
      const u = rng.unitVector();
      Object.assign(e.position, v(u.x * 0.6, Math.abs(u.y) * 0.6 + 0.2, u.z * 0.6));
      s.update();
      for (let i = 0; i < 9; i++) {
        // rest locals are identity, so the local rotation is Rz·Ry·Rx itself
        const q = pose.localRotations[i]!;
        const r20 = 2 * (q.x * q.z - q.w * q.y);
        const r21 = 2 * (q.y * q.z + q.w * q.x);
        const r22 = 1 - 2 * (q.x * q.x + q.y * q.y);
        const r10 = 2 * (q.x * q.y + q.w * q.z);
        const r00 = 1 - 2 * (q.y * q.y + q.z * q.z);
        const ang = [Math.atan2(r21, r22), Math.asin(Math.max(-1, Math.min(1, -r20))), Math.atan2(r10, r00)];
        for (let d = 0; d < 3; d++) worst = Math.max(worst, Math.abs(ang[d]!) - lim[d]!);
      }
    }
    expect(worst).toBeLessThan(1e-9);
  });
});

describe("IKSolverJacobian root parent", () => {
  it("limits follow the root's parent bone: turning it turns the whole answer", () => {
    const rng = new Random(29);
    let worst = 0;
    let worstUnreached = 0;
    let reached = 0;
    for (let k = 0; k < 50; k++) {
      const bones = chainBones(6, 0.15);
      const lim = { min: [-0.4, -0.6, -0.4], max: [0.4, 0.6, 0.4] };
      const joints: JacobianJoint[] = Array.from({ length: 6 }, (_, i) => ({ bone: i + 1, ...lim }));
      const target = v(rng.range(-0.4, 0.4), rng.range(0.3, 0.8), rng.range(-0.4, 0.4));
      const turn = axisAngle(rng.unitVector(), rng.range(0, Math.PI));
      const results: HierarchyPose[] = [];
      const errors: number[] = [];
      for (const turned of [false, true]) {
        const pose = new HierarchyPose(bones);
        const s = new IKSolverJacobian(pose, joints, { rootParent: 0 });
        // set up at rest; then the animation turns the parent
        if (turned) pose.setLocalRotation(0, turn);
        const e = s.addEffector(6);
        Object.assign(e.position, turned ? rotate(turn, target) : target);
        s.update();
        results.push(pose);
        errors.push(s.lastError);
      }
      const [a, b] = results as [HierarchyPose, HierarchyPose];
      // a target the limits keep out of reach has a flat set of best answers: compare how close they come
      if (errors[0]! > 1e-9) {
        worstUnreached = Math.max(worstUnreached, Math.abs(errors[0]! - errors[1]!));
        continue;
      }
      for (let i = 0; i < a.count; i++) worst = Math.max(worst, dist(rotate(turn, a.positions[i]!), b.positions[i]!));
      reached++;
    }
    expect(reached).toBeGreaterThan(15);
    // a turned frame changes every rounding, and a redundant chain's answer drifts with it along its
    // null space (limits in component space instead put the two answers up to 0.57 apart)
    expect(worst).toBeLessThan(1e-7);
    expect(worstUnreached).toBeLessThan(1e-6);
  });
});

/** A random tree-ish chain with random rest rotations and hinge joints, for the equivariance tests. */
function randomRig(rng: Random, scale: number, mirror: boolean): { pose: HierarchyPose; joints: JacobianJoint[] } {
  const bones: HierarchyBone[] = [];
  const joints: JacobianJoint[] = [];
  for (let i = 0; i < 12; i++) {
    const p = i === 0 ? v(0.1, 0.2, 0.3) : v(rng.range(-0.05, 0.05), rng.range(0.05, 0.15), rng.range(-0.05, 0.05));
    const q = rng.unitQuaternion();
    const small = axisAngle(v(q.x, q.y, q.z + 1e-9), rng.range(0, 0.5));
    const pos = mirror ? mirrorV(p) : p;
    const position = v(pos.x * scale, pos.y * scale, pos.z * scale);
    bones.push({ name: `b${i}`, parent: i - 1, position, rotation: mirror ? mirrorQ(small) : small });
    if (i % 3 === 2) {
      const a = rng.unitVector();
      const lo = -rng.range(0, 1);
      const hi = rng.range(0, 1);
      // a mirrored hinge: the axis is a pseudo-vector (−x, −y, z); the angle keeps its sign
      joints.push({ bone: i, hingeAxis: mirror ? v(-a.x, -a.y, a.z) : a, min: [lo], max: [hi] });
    } else {
      const lo = [-rng.range(0.2, 2), -rng.range(0.2, 1.2), -rng.range(0.2, 2)];
      const hi = [rng.range(0.2, 2), rng.range(0.2, 1.2), rng.range(0.2, 2)];
      // mirrored Euler angles: x and y change sign, z keeps it
      const mirrored = { bone: i, min: [-hi[0]!, -hi[1]!, lo[2]!], max: [-lo[0]!, -lo[1]!, hi[2]!] };
      joints.push(mirror ? mirrored : { bone: i, min: lo, max: hi });
    }
  }
  return { pose: new HierarchyPose(bones), joints };
}

describe("IKSolverJacobian equivariance", () => {
  it("LH/RH: a mirrored rig with mirrored targets gives the mirrored pose (200 seeded rigs)", () => {
    let worst = 0;
    for (let k = 0; k < 200; k++) {
      const results: HierarchyPose[] = [];
      for (const mirror of [false, true]) {
        const rng = new Random(1000 + k);
        const { pose, joints } = randomRig(rng, 1, mirror);
        const s = new IKSolverJacobian(pose, joints);
        s.maxIterations = 30;
        const e1 = s.addEffector(11);
        const e2 = s.addEffector(6);
        const t1 = v(rng.range(-0.6, 0.6), rng.range(0.2, 1), rng.range(-0.6, 0.6));
        const t2 = v(rng.range(-0.3, 0.3), rng.range(0.2, 0.6), rng.range(-0.3, 0.3));
        const r = rng.unitQuaternion();
        Object.assign(e1.position, mirror ? mirrorV(t1) : t1);
        Object.assign(e2.position, mirror ? mirrorV(t2) : t2);
        e2.weight = 0.5;
        const rq = mirror ? mirrorQ(r) : r;
        e1.rotation = new Quat(rq.x, rq.y, rq.z, rq.w);
        e1.rotationWeight = 0.3;
        s.update();
        results.push(pose);
      }
      const [a, b] = results as [HierarchyPose, HierarchyPose];
      for (let i = 0; i < a.count; i++) {
        const dp = dist(mirrorV(a.positions[i]!), b.positions[i]!);
        worst = Math.max(worst, dp, qangle(mirrorQ(a.rotations[i]!), b.rotations[i]!));
      }
    }
    expect(worst).toBeLessThan(1e-9);
  });

  it("×0.01 and ×100: a scaled rig with scaled targets gives the same rotations and scaled positions", () => {
    let worst = 0;
    for (let k = 0; k < 100; k++) {
      for (const scale of [0.01, 100]) {
        const results: HierarchyPose[] = [];
        for (const sc of [1, scale]) {
          const rng = new Random(2000 + k);
          const { pose, joints } = randomRig(rng, sc, false);
          const s = new IKSolverJacobian(pose, joints);
          s.maxIterations = 30;
          const e = s.addEffector(11);
          Object.assign(e.position, v(rng.range(-0.6, 0.6) * sc, rng.range(0.2, 1) * sc, rng.range(-0.6, 0.6) * sc));
          s.update();
          results.push(pose);
        }
        const [a, b] = results as [HierarchyPose, HierarchyPose];
        for (let i = 0; i < a.count; i++) {
          const pa = a.positions[i]!;
          worst = Math.max(worst, dist(v(pa.x * scale, pa.y * scale, pa.z * scale), b.positions[i]!) / scale);
          worst = Math.max(worst, qangle(a.rotations[i]!, b.rotations[i]!));
        }
      }
    }
    expect(worst).toBeLessThan(1e-9);
  });
});

describe("IKSolverJacobian allocation", () => {
  it("1,000 solves of a 20-bone chain do not grow the heap noticeably", () => {
    const rest = new HierarchyPose(chainBones(20, 0.1));
    const pose = rest.clone();
    const s = new IKSolverJacobian(
      pose,
      Array.from({ length: 21 }, (_, i) => ({ bone: i })),
    );
    const e = s.addEffector(20);
    const targets = new Float64Array([0.5, 0.5, 0.3, -0.7, 1.1, 0.2, 0.1, -0.9, 0.8]);
    const run = (): void => {
      for (let k = 0; k < 1000; k++) {
        pose.copyLocalsFrom(rest);
        const o = (k % 3) * 3;
        e.position.x = targets[o]!;
        e.position.y = targets[o + 1]!;
        e.position.z = targets[o + 2]!;
        s.update();
      }
    };
    run();
    const h0 = process.memoryUsage().heapUsed;
    run();
    const h1 = process.memoryUsage().heapUsed;
    expect(h1 - h0).toBeLessThan(1 << 20);
  });

  it("solves with two priority levels allocate nothing: the corrections of the higher level, its own damping", async () => {
    const rest = new HierarchyPose(chainBones(10, 0.1));
    const pose = rest.clone();
    const s = new IKSolverJacobian(
      pose,
      Array.from({ length: 11 }, (_, i) => ({ bone: i })),
    );
    const mid = s.addEffector(5);
    const tip = s.addEffector(10);
    mid.priority = 1;
    const rng = new Random(31);
    // the tip's target within the last five bones' reach of the mid target, or beyond it: both levels work
    const targets = Array.from({ length: 100 }, (_, k) => {
      const u = rng.unitVector();
      const w = rng.unitVector();
      const r = k % 2 === 0 ? 0.3 : 0.7;
      return [u.x * 0.35, u.y * 0.35, u.z * 0.35, u.x * 0.35 + w.x * r, u.y * 0.35 + w.y * r, u.z * 0.35 + w.z * r];
    });
    const solve = (f: number): void => {
      const t = targets[f % 100]!;
      pose.copyLocalsFrom(rest);
      mid.position.x = t[0]!;
      mid.position.y = t[1]!;
      mid.position.z = t[2]!;
      tip.position.x = t[3]!;
      tip.position.y = t[4]!;
      tip.position.z = t[5]!;
      s.update();
    };
    const bytes = bytesPerFrame(solve, 1_000);
    if (process.env.FBBIK_REPORT) console.log(`[figures] JacobianIK with two priorities: ${bytes} B a solve`);
    expect(bytes, bytes < 8 ? "" : await whereFramesAllocate(solve, 1_000)).toBeLessThan(8);
  });
});
