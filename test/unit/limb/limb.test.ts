/**
 * IKSolverLimb on an arm and a leg built in code: exact reach, the two unreachable cases, the bend
 * modifiers, end rotation, bad input, weights 0 bit-exact, LH/RH and scale equivariance. Expected values
 * come from plain geometry in the test (vectors.ts), never from src/math.
 */
import { describe, expect, it } from "vitest";
import { Quat } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { IKSolverLimb } from "../../../src/limb/ik-solver-limb.js";
import { FBBIKError } from "../../../src/solver/errors.js";
import type { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import { Random } from "../../helpers/random.js";
import { type V, add, angleDeg, cross, dist, len, mul, perp, sub, unit } from "../../helpers/vectors.js";
import {
  ARM,
  BASE,
  LEG,
  VARIANTS,
  type Variant,
  buildPose,
  id,
  mapPoint,
  mapRot,
  pos,
  qaxis,
  qrot,
  rot,
  rotAngle,
  snapshot,
  unmapPoint,
} from "./rigs.js";

function arm(variant: Variant = BASE): { pose: HierarchyPose; ik: IKSolverLimb; b: [number, number, number] } {
  const pose = buildPose(ARM, variant);
  const b: [number, number, number] = [id(pose, "upperArm"), id(pose, "forearm"), id(pose, "hand")];
  return { pose, ik: new IKSolverLimb(pose, b[0], b[1], b[2], { parent: id(pose, "clavicle") }), b };
}

function lengths(pose: HierarchyPose, b: readonly number[]): [number, number] {
  return [dist(pos(pose, b[0]!), pos(pose, b[1]!)), dist(pos(pose, b[1]!), pos(pose, b[2]!))];
}

/**
 * Independent middle joint: on the circle of radius l1 about the root, in the half-plane of the line
 * root → target that holds `sidePoint`, at l2 from the target; found by bisection on the bone's angle
 * from the line (the distance to the target grows with it).
 */
function bisectMiddle(root: V, target: V, sidePoint: V, l1: number, l2: number): V {
  const d = unit(sub(target, root));
  const s = unit(perp(sub(sidePoint, root), d));
  const at = (a: number): V => add(root, add(mul(d, l1 * Math.cos(a)), mul(s, l1 * Math.sin(a))));
  let lo = 0;
  let hi = Math.PI;
  for (let i = 0; i < 200; i++) {
    const m = (lo + hi) / 2;
    if (dist(at(m), target) < l2) lo = m;
    else hi = m;
  }
  return at((lo + hi) / 2);
}

function setTarget(ik: IKSolverLimb, p: V): void {
  ik.ikPosition.x = p.x;
  ik.ikPosition.y = p.y;
  ik.ikPosition.z = p.z;
}

function setGoal(ik: IKSolverLimb, p: V): void {
  ik.bendGoal.x = p.x;
  ik.bendGoal.y = p.y;
  ik.bendGoal.z = p.z;
}

describe("IKSolverLimb", () => {
  it("meets reachable targets to 1e-9 of the limb length, goal side (2,000 targets × 2 limbs, bisection)", () => {
    const rng = new Random(1801);
    for (const spec of [ARM, LEG]) {
      const base = buildPose(spec, BASE);
      const names = spec === ARM ? ["upperArm", "forearm", "hand"] : ["thigh", "calf", "foot"];
      const b = names.map((n) => id(base, n));
      const [l1, l2] = lengths(base, b);
      const L = l1 + l2;
      let worstEnd = 0;
      let worstMid = 0;
      let worstLen = 0;
      for (let k = 0; k < 2000; k++) {
        const pose = base.clone();
        const ik = new IKSolverLimb(pose, b[0]!, b[1]!, b[2]!);
        const root = pos(pose, b[0]!);
        const u = rng.unitVector();
        const r = rng.range(Math.abs(l1 - l2) * 1.02, L * 0.98);
        const target = add(root, mul(u, r));
        const goal = add(root, mul(rng.unitVector(), rng.range(0.1, 1) * L));
        if (len(cross(sub(goal, root), sub(target, root))) < 1e-3 * L * L) continue;
        ik.ikPosition.x = target.x;
        ik.ikPosition.y = target.y;
        ik.ikPosition.z = target.z;
        ik.bendModifier = "goal";
        ik.bendGoal.x = goal.x;
        ik.bendGoal.y = goal.y;
        ik.bendGoal.z = goal.z;
        ik.solve();
        expect(ik.skipReason).toBe("");
        const end = pos(pose, b[2]!);
        const mid = pos(pose, b[1]!);
        worstEnd = Math.max(worstEnd, dist(end, target) / L);
        worstMid = Math.max(worstMid, dist(mid, bisectMiddle(root, target, goal, l1, l2)) / L);
        const [m1, m2] = lengths(pose, b);
        worstLen = Math.max(worstLen, Math.abs(m1 - l1) / L, Math.abs(m2 - l2) / L);
        expect(dist(pos(pose, b[0]!), root)).toBe(0);
      }
      expect(worstEnd).toBeLessThan(1e-12);
      expect(worstMid).toBeLessThan(1e-9);
      expect(worstLen).toBeLessThan(1e-12);
    }
  });

  it("beyond reach lies straight, pointing at the target; inside the blind zone folds flat toward it", () => {
    const rng = new Random(1802);
    for (const spec of [ARM, LEG]) {
      const base = buildPose(spec, BASE);
      const names = spec === ARM ? ["upperArm", "forearm", "hand"] : ["thigh", "calf", "foot"];
      const b = names.map((n) => id(base, n));
      const [l1, l2] = lengths(base, b);
      for (let k = 0; k < 500; k++) {
        const pose = base.clone();
        const ik = new IKSolverLimb(pose, b[0]!, b[1]!, b[2]!);
        const root = pos(pose, b[0]!);
        const u = rng.unitVector();
        const far = k % 2 === 0;
        // nearer the root than ON_POINT (1e-4) of the limb counts as on it (skipped; see "a target on the root")
        const r = far ? rng.range(1.0001, 5) * (l1 + l2) : rng.range(0.01, 0.99) * Math.abs(l1 - l2);
        const target = add(root, mul(u, r));
        ik.ikPosition.x = target.x;
        ik.ikPosition.y = target.y;
        ik.ikPosition.z = target.z;
        ik.solve();
        const mid = pos(pose, b[1]!);
        const end = pos(pose, b[2]!);
        if (far) {
          expect(angleDeg(sub(mid, root), u)).toBeLessThan(1e-7);
          expect(angleDeg(sub(end, mid), u)).toBeLessThan(1e-7);
          expect(dist(end, root)).toBeCloseTo(l1 + l2, 12);
        } else {
          // the end as near the target as the bones allow: on the line, |l1 − l2| from the root
          expect(dist(end, add(root, mul(u, Math.abs(l1 - l2))))).toBeLessThan(1e-9 * (l1 + l2));
          expect(dist(mid, add(root, mul(u, l1 > l2 ? l1 : -l1)))).toBeLessThan(1e-9 * (l1 + l2));
        }
      }
    }
  });

  it("keeps the animated pose when the target is the animated end (animation bend modifier)", () => {
    const { pose, ik, b } = arm();
    const rng = new Random(1803);
    for (let k = 0; k < 200; k++) {
      // animate: turn the upper arm and bend the elbow, then ask for where the hand already is
      pose.setLocalRotation(
        b[0],
        mapRot(qaxis(rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1), rng.range(5, 120)), BASE),
      );
      const before = [pos(pose, b[0]), pos(pose, b[1]), pos(pose, b[2])];
      ik.ikPosition.x = before[2]!.x;
      ik.ikPosition.y = before[2]!.y;
      ik.ikPosition.z = before[2]!.z;
      ik.ikRotationWeight = 0;
      ik.solve();
      for (let i = 0; i < 3; i++) expect(dist(pos(pose, b[i]!), before[i]!)).toBeLessThan(1e-12);
    }
  });

  it("target and parent modifiers turn the bend normal with the target's and the parent's rotation", () => {
    const rng = new Random(1804);
    for (const mode of ["target", "parent"] as const) {
      for (let k = 0; k < 200; k++) {
        const { pose, ik, b } = arm();
        const n0 = unit(cross(sub(pos(pose, b[1]), pos(pose, b[0])), sub(pos(pose, b[2]), pos(pose, b[1]))));
        const R = qaxis(rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1), rng.range(-90, 90));
        const clav = id(pose, "clavicle");
        if (mode === "target") {
          const hand = rot(pose, b[2]);
          const t = {
            x: R.w * hand.x + R.x * hand.w + R.y * hand.z - R.z * hand.y,
            y: R.w * hand.y - R.x * hand.z + R.y * hand.w + R.z * hand.x,
            z: R.w * hand.z + R.x * hand.y - R.y * hand.x + R.z * hand.w,
            w: R.w * hand.w - R.x * hand.x - R.y * hand.y - R.z * hand.z,
          };
          ik.ikRotation.x = t.x;
          ik.ikRotation.y = t.y;
          ik.ikRotation.z = t.z;
          ik.ikRotation.w = t.w;
        } else {
          // turn the clavicle about its own position: the arm moves with it
          const c = rot(pose, clav);
          pose.setRotation(
            clav,
            new Quat(
              R.w * c.x + R.x * c.w + R.y * c.z - R.z * c.y,
              R.w * c.y - R.x * c.z + R.y * c.w + R.z * c.x,
              R.w * c.z + R.x * c.y - R.y * c.x + R.z * c.w,
              R.w * c.w - R.x * c.x - R.y * c.y - R.z * c.z,
            ),
          );
        }
        ik.bendModifier = mode;
        const root = pos(pose, b[0]);
        const target = add(root, mul(rng.unitVector(), 0.4));
        ik.ikPosition.x = target.x;
        ik.ikPosition.y = target.y;
        ik.ikPosition.z = target.z;
        ik.solve();
        const n = unit(cross(sub(pos(pose, b[1]), root), sub(pos(pose, b[2]), pos(pose, b[1]))));
        const expected = unit(perp(qrot(R, n0), sub(target, root)));
        expect(dist(n, expected)).toBeLessThan(1e-9);
      }
    }
  });

  it("sets the end bone's rotation by ikRotationWeight and keeps the animated one by maintainRotationWeight", () => {
    const { pose, ik, b } = arm();
    const animated = rot(pose, b[2]);
    const T = qaxis(0.3, -1, 0.5, 70);
    ik.ikRotation.x = T.x;
    ik.ikRotation.y = T.y;
    ik.ikRotation.z = T.z;
    ik.ikRotation.w = T.w;
    const root = pos(pose, b[0]);
    ik.ikPosition.x = root.x + 0.2;
    ik.ikPosition.y = root.y - 0.3;
    ik.ikPosition.z = root.z + 0.1;
    ik.solve();
    expect(rotAngle(rot(pose, b[2]), T)).toBeLessThan(1e-7);
    const p2 = buildPose(ARM);
    const ik2 = new IKSolverLimb(p2, b[0], b[1], b[2]);
    ik2.ikPosition.x = ik.ikPosition.x;
    ik2.ikPosition.y = ik.ikPosition.y;
    ik2.ikPosition.z = ik.ikPosition.z;
    ik2.ikRotationWeight = 0;
    ik2.maintainRotationWeight = 1;
    ik2.solve();
    expect(rotAngle(rot(p2, b[2]), animated)).toBeLessThan(1e-7);
    expect(dist(pos(p2, b[2]), { x: ik2.ikPosition.x, y: ik2.ikPosition.y, z: ik2.ikPosition.z })).toBeLessThan(1e-12);
  });

  it("blends continuously from the animated pose: a tiny weight moves the limb a tiny bit", () => {
    for (const w of [1e-9, 1e-6, 1e-3]) {
      const { pose, ik, b } = arm();
      const before = b.map((bone) => pos(pose, bone));
      const root = pos(pose, b[0]);
      setTarget(ik, add(root, { x: -0.1, y: -0.3, z: 0.35 }));
      ik.bendModifier = "goal";
      setGoal(ik, add(root, { x: 0, y: 1, z: -1 }));
      ik.ikPositionWeight = w;
      ik.ikRotationWeight = 0;
      ik.solve();
      const moved = Math.max(...b.map((bone, i) => dist(pos(pose, bone), before[i]!)));
      expect(moved).toBeGreaterThan(0);
      expect(moved).toBeLessThan(10 * w);
    }
  });

  it("with ikPositionWeight and ikRotationWeight 0 leaves the pose bit-exact, whatever the other inputs", () => {
    const { pose, ik } = arm();
    const before = snapshot(pose);
    ik.ikPositionWeight = 0;
    ik.ikRotationWeight = 0;
    ik.maintainRotationWeight = 1;
    ik.bendGoalWeight = 1;
    ik.ikPosition.x = 10;
    ik.setNaturalFrame(-1, new Vec3(0, 0, 1), new Vec3(0, 1, 0));
    for (const mode of ["animation", "target", "parent", "goal", "arm"] as const) {
      ik.bendModifier = mode;
      ik.solve();
      expect(ik.skipReason).toBe("weight");
    }
    expect(snapshot(pose)).toEqual(before);
  });

  it("ignores the frame for NaN or infinite input, a target on the root, a collapsed bone; never writes NaN", () => {
    const cases: ((ik: IKSolverLimb, pose: HierarchyPose, b: number[]) => void)[] = [
      (ik) => (ik.ikPosition.x = NaN),
      (ik) => (ik.ikPosition.y = Infinity),
      (ik) => (ik.ikPositionWeight = NaN),
      (ik) => (ik.ikRotationWeight = Infinity),
      (ik) => (ik.maintainRotationWeight = NaN),
      (ik) => (ik.bendModifierWeight = NaN),
      (ik) => (ik.ikRotation.w = NaN),
      (ik) => {
        ik.bendGoalWeight = 1;
        ik.bendGoal.z = NaN;
      },
      (ik) => {
        ik.bendNormal.x = NaN;
      },
      (ik, pose, b) => {
        const p = pose.positions[b[0]!]!;
        ik.ikPosition.x = p.x;
        ik.ikPosition.y = p.y;
        ik.ikPosition.z = p.z;
      },
      (_ik, pose, b) => pose.setLocalPosition(b[1]!, new Vec3(0, 0, 0)),
      (_ik, pose, b) => pose.setLocalPosition(b[2]!, new Vec3(0, 0, 0)),
    ];
    for (const change of cases) {
      const { pose, ik, b } = arm();
      ik.ikPosition.x += 0.1;
      change(ik, pose, b);
      const before = snapshot(pose);
      ik.solve();
      expect(ik.skipReason).not.toBe("");
      expect(snapshot(pose)).toEqual(before);
    }
  });

  it("ignores a bend goal collinear with the root and the target", () => {
    const a = arm();
    const c = arm();
    const root = pos(a.pose, a.b[0]);
    const t = add(root, { x: 0.3, y: -0.2, z: 0.1 });
    for (const s of [a, c]) {
      s.ik.ikPosition.x = t.x;
      s.ik.ikPosition.y = t.y;
      s.ik.ikPosition.z = t.z;
    }
    a.ik.bendGoalWeight = 1;
    const g = add(root, mul(sub(t, root), 2.5));
    a.ik.bendGoal.x = g.x;
    a.ik.bendGoal.y = g.y;
    a.ik.bendGoal.z = g.z;
    a.ik.solve();
    c.ik.solve();
    expect(snapshot(a.pose)).toEqual(snapshot(c.pose));
  });

  it("rejects a repeated bone, a bad id and a zero-length bone at setup, naming the bone", () => {
    const pose = buildPose(ARM);
    expect(() => new IKSolverLimb(pose, 3, 3, 5)).toThrow(FBBIKError);
    expect(() => new IKSolverLimb(pose, 3, -1, 5)).toThrow(/not a bone id/);
    pose.setLocalPosition(id(pose, "hand"), new Vec3(0, 0, 0));
    expect(() => new IKSolverLimb(pose, 3, 4, 5)).toThrow(/forearm \(4\) has zero length/);
  });

  it("is mirror- and scale-equivariant (z → −z, ×0.01, ×100) for every bend modifier", () => {
    const rng = new Random(1805);
    for (const mode of ["animation", "target", "parent", "goal"] as const) {
      for (let k = 0; k < 50; k++) {
        const t = { x: rng.range(-0.4, 0.9), y: rng.range(0.9, 2), z: rng.range(-0.6, 0.6) };
        const g = { x: rng.range(-1, 1), y: rng.range(0, 2), z: rng.range(-1, 1) };
        const T = qaxis(rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1), rng.range(-180, 180));
        const results = VARIANTS.map((variant) => {
          const { pose, ik, b } = arm(variant);
          const tp = mapPoint(t, variant);
          const gp = mapPoint(g, variant);
          const tq = mapRot(T, variant);
          ik.ikPosition.x = tp.x;
          ik.ikPosition.y = tp.y;
          ik.ikPosition.z = tp.z;
          ik.bendGoal.x = gp.x;
          ik.bendGoal.y = gp.y;
          ik.bendGoal.z = gp.z;
          ik.ikRotation.x = tq.x;
          ik.ikRotation.y = tq.y;
          ik.ikRotation.z = tq.z;
          ik.ikRotation.w = tq.w;
          ik.bendModifier = mode;
          ik.bendModifierWeight = 0.7;
          ik.bendGoalWeight = 0.4;
          ik.ikPositionWeight = 0.9;
          ik.solve();
          return [...b, id(pose, "finger")].map((bone) => unmapPoint(pos(pose, bone), variant));
        });
        for (const r of results.slice(1)) {
          for (let i = 0; i < r.length; i++) expect(dist(r[i]!, results[0]![i]!)).toBeLessThan(1e-9);
        }
      }
    }
  });
});
