/**
 * IKSolverLookAt on a spine + neck + head + eyes built in code: the head and eyes look straight at the
 * target with clamp 0 and weight 1, every part stays within its clamp bound, bad input, weight 0
 * bit-exact, LH/RH and scale equivariance. Expected values from plain geometry in the test.
 */
import { describe, expect, it } from "vitest";
import { Vec3 } from "../../../src/math/vec3.js";
import { IKSolverLookAt, defaultSpineWeightCurve } from "../../../src/aim/ik-solver-look-at.js";
import { FBBIKError } from "../../../src/solver/errors.js";
import type { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import { Random } from "../../helpers/random.js";
import { type V, add, angleDeg, dist, mul, sub } from "../../helpers/vectors.js";
import {
  BASE,
  HEAD,
  VARIANTS,
  type Variant,
  buildPose,
  id,
  mapDir,
  mapPoint,
  pos,
  qrot,
  rot,
  snapshot,
  unmapPoint,
} from "../limb/rigs.js";

const SPINE = ["spine0", "spine1", "spine2", "neck"];

interface Rig {
  pose: HierarchyPose;
  ik: IKSolverLookAt;
  /** A bone's forward: the setup +Z carried by its rotation since setup (written out here). */
  forward: (name: string) => V;
}

function rig(variant: Variant = BASE, parts: { spine?: boolean; head?: boolean; eyes?: boolean } = {}): Rig {
  const pose = buildPose(HEAD, variant);
  const setup = new Map(HEAD.map((b) => [b.name, rot(pose, id(pose, b.name))]));
  const fwd = mapDir({ x: 0, y: 0, z: 1 }, variant);
  const ik = new IKSolverLookAt(pose, {
    spine: parts.spine === false ? [] : SPINE.map((n) => id(pose, n)),
    head: parts.head === false ? undefined : id(pose, "head"),
    eyes: parts.eyes === false ? [] : [id(pose, "eyeL"), id(pose, "eyeR")],
    forward: fwd,
  });
  const forward = (name: string): V => {
    const s = setup.get(name)!;
    const local = qrot({ x: -s.x, y: -s.y, z: -s.z, w: s.w }, fwd);
    return qrot(rot(pose, id(pose, name)), local);
  };
  return { pose, ik, forward };
}

function setV(out: Vec3, p: V): void {
  out.x = p.x;
  out.y = p.y;
  out.z = p.z;
}

describe("IKSolverLookAt", () => {
  it("with clamps 0 and weights 1, the head and eyes look straight at the target within 0.01° (1,000 targets)", () => {
    const rng = new Random(1821);
    let worstHead = 0;
    let worstEye = 0;
    for (let k = 0; k < 1000; k++) {
      const { pose, ik, forward } = rig();
      ik.clampWeight = 0;
      ik.clampWeightHead = 0;
      ik.clampWeightEyes = 0;
      ik.bodyWeight = rng.range(0, 1);
      ik.headWeight = 1;
      ik.eyesWeight = 1;
      const target = add(pos(pose, id(pose, "head")), mul(rng.unitVector(), rng.range(0.3, 20)));
      setV(ik.ikPosition, target);
      ik.solve();
      worstHead = Math.max(worstHead, angleDeg(forward("head"), sub(target, pos(pose, id(pose, "head")))));
      for (const e of ["eyeL", "eyeR"])
        worstEye = Math.max(worstEye, angleDeg(forward(e), sub(target, pos(pose, id(pose, e)))));
    }
    expect(worstHead).toBeLessThan(0.01);
    expect(worstEye).toBeLessThan(0.01);
  });

  it("keeps each part within (1 − clamp) × 180° of its base forward (targets all around, mostly behind)", () => {
    const rng = new Random(1822);
    for (const c of [0.2, 0.5, 0.75]) {
      for (let k = 0; k < 400; k++) {
        const withSpine = k % 2 === 0;
        const { pose, ik, forward } = rig(BASE, { spine: withSpine });
        const animatedHead = forward("head");
        const animatedSpine0 = forward("spine0");
        ik.clampWeight = c;
        ik.clampWeightHead = c;
        ik.clampWeightEyes = c;
        ik.bodyWeight = 1;
        ik.headWeight = 1;
        ik.eyesWeight = 1;
        ik.clampSmoothing = rng.int(3);
        const behind = add(mul({ x: 0, y: 0, z: -1 }, 2), mul(rng.unitVector(), rng.range(0, 2.5)));
        setV(ik.ikPosition, add(pos(pose, id(pose, "head")), behind));
        ik.solve();
        const bound = (1 - c) * 180 + 1e-7;
        const headBase = withSpine ? forward("neck") : animatedHead;
        expect(angleDeg(forward("head"), headBase)).toBeLessThanOrEqual(bound);
        for (const e of ["eyeL", "eyeR"]) expect(angleDeg(forward(e), forward("head"))).toBeLessThanOrEqual(bound);
        if (withSpine) for (const s of SPINE) expect(angleDeg(forward(s), animatedSpine0)).toBeLessThanOrEqual(bound);
      }
    }
  });

  it("spreads the spine's turn by the weight curve, the top spine bone looking along the clamped direction", () => {
    const { pose, ik, forward } = rig(BASE, { head: false, eyes: false });
    const base = forward("spine0");
    ik.bodyWeight = 1;
    ik.clampWeight = 0;
    // the direction is taken from the top spine bone's animated position, once per solve
    const look = { x: 3, y: 0.5, z: 1 };
    setV(ik.ikPosition, add(pos(pose, id(pose, "neck")), look));
    ik.solve();
    const full = angleDeg(base, look);
    for (let i = 0; i < SPINE.length; i++) {
      expect(angleDeg(forward(SPINE[i]!), base)).toBeCloseTo(full * defaultSpineWeightCurve(i / (SPINE.length - 1)), 6);
    }
    expect(angleDeg(forward("neck"), look)).toBeLessThan(1e-7);
  });

  it("with ikPositionWeight 0 leaves the pose bit-exact; partial weights turn less", () => {
    const { pose, ik, forward } = rig();
    const before = snapshot(pose);
    ik.ikPositionWeight = 0;
    setV(ik.ikPosition, { x: 3, y: 1, z: 1 });
    ik.solve();
    expect(ik.skipReason).toBe("weight");
    expect(snapshot(pose)).toEqual(before);
    const animated = forward("head");
    ik.ikPositionWeight = 0.3;
    ik.solve();
    const partial = angleDeg(forward("head"), animated);
    const full = rig();
    setV(full.ik.ikPosition, { x: 3, y: 1, z: 1 });
    full.ik.solve();
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(angleDeg(full.forward("head"), animated));
  });

  it("ignores the frame for NaN or infinite input; never writes NaN", () => {
    const cases: ((ik: IKSolverLookAt, pose: HierarchyPose) => void)[] = [
      (ik) => (ik.ikPosition.x = NaN),
      (ik) => (ik.ikPositionWeight = NaN),
      (ik) => (ik.headWeight = Infinity),
      (ik) => (ik.clampWeightEyes = NaN),
      (ik) => (ik.spineTargetOffset.z = NaN),
      (_ik, pose) => pose.setLocalPosition(id(pose, "spine1"), new Vec3(0, NaN, 0)),
    ];
    for (const change of cases) {
      const { pose, ik } = rig();
      setV(ik.ikPosition, { x: 1, y: 2, z: 3 });
      change(ik, pose);
      const before = snapshot(pose);
      ik.solve();
      expect(ik.skipReason).not.toBe("");
      expect(snapshot(pose)).toEqual(before);
    }
    // a target on the head leaves the head (and eyes look at it from where they are): no NaN
    const { pose, ik } = rig();
    setV(ik.ikPosition, pos(pose, id(pose, "head")));
    ik.headWeight = 1;
    ik.solve();
    for (let i = 0; i < pose.count; i++) expect(Number.isFinite(pose.localRotations[i]!.w)).toBe(true);
  });

  it("rejects no bones, a repeated bone and a zero forward at setup", () => {
    const pose = buildPose(HEAD);
    expect(() => new IKSolverLookAt(pose, {})).toThrow(FBBIKError);
    expect(() => new IKSolverLookAt(pose, { spine: [1, 2], head: 2 })).toThrow(/is both spine bone 1 and the head/);
    expect(() => new IKSolverLookAt(pose, { head: 5, forward: new Vec3() })).toThrow(/zero or non-finite forward/);
  });

  it("is mirror- and scale-equivariant (z → −z, ×0.01, ×100)", () => {
    const rng = new Random(1823);
    for (let k = 0; k < 100; k++) {
      const t = add({ x: 0, y: 1.6, z: 0 }, mul(rng.unitVector(), rng.range(0.5, 5)));
      const o = mul(rng.unitVector(), 0.3);
      const results = VARIANTS.map((variant) => {
        const { pose, ik } = rig(variant);
        setV(ik.ikPosition, mapPoint(t, variant));
        setV(ik.spineTargetOffset, mapPoint(o, variant));
        ik.bodyWeight = 0.7;
        ik.headWeight = 0.8;
        ik.ikPositionWeight = 0.9;
        ik.solve();
        return HEAD.map((b) => unmapPoint(pos(pose, id(pose, b.name)), variant));
      });
      for (const r of results.slice(1)) {
        for (let i = 0; i < r.length; i++) expect(dist(r[i]!, results[0]![i]!)).toBeLessThan(1e-9);
      }
    }
  });
});
