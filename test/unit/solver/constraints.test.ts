/**
 * ChildConstraint (FinalIK's FBIKChain.ChildConstraint.Solve): a distance constraint between the first nodes
 * of two child chains. Rigid (both elasticities 0) restores the nominal distance exactly and splits the
 * correction by the chains' pulls; elasticity e resolves 1 − e of the violation; both elasticities ≥ 1 skip
 * it. The biped's spine stiffness drives the push elasticity of the two torso diagonals.
 */
import { describe, expect, it } from "vitest";
import { FBIKChain } from "../../../src/solver/chain.js";
import { ChildConstraint } from "../../../src/solver/child-constraint.js";
import { IKNode } from "../../../src/solver/node.js";
import { Random } from "../../helpers/random.js";
import { bipedVariants } from "../../helpers/synthetic-biped.js";
import { type V, add, clone, dist, mul, sub, unit } from "../../helpers/vectors.js";
import { bonePos, expectNear, put, randomUnit, randomVec, stage } from "./stage-fixture.js";

/** Two one-node chains with the given pulls whose bones are `a` and `b`, and a constraint between them. */
function pair(
  a: V,
  b: V,
  push: number,
  pull: number,
  pull1 = 1,
  pull2 = 1,
): { c: ChildConstraint; n1: IKNode; n2: IKNode } {
  const n1 = new IKNode(0);
  const n2 = new IKNode(1);
  put(n1.bonePosition, a);
  put(n2.bonePosition, b);
  put(n1.solverPosition, a);
  put(n2.solverPosition, b);
  const c1 = new FBIKChain([n1]);
  const c2 = new FBIKChain([n2]);
  c1.pull = pull1;
  c2.pull = pull2;
  const c = new ChildConstraint(0, 1, push, pull);
  c.initiate([c1, c2]);
  return { c, n1, n2 };
}

const rng = new Random(0xc0);
const SCALES = [0.01, 1, 100];

/** Random pair of bone positions at scale `sc` and a random placement of the nodes `f` × nominal apart. */
function scenario(sc: number, f: number): { a: V; b: V; nominal: number; p1: V; p2: V } {
  const a = randomVec(rng, sc);
  const b = add(a, mul(randomUnit(rng), rng.range(0.2, 1) * sc));
  const nominal = dist(a, b);
  const p1 = add(a, randomVec(rng, 0.5 * sc));
  const p2 = add(p1, mul(randomUnit(rng), f * nominal));
  return { a, b, nominal, p1, p2 };
}

describe("ChildConstraint", () => {
  it("reads the nominal distance from the bones at initiate and on every onPreSolve", () => {
    const { c, n2 } = pair({ x: 0, y: 0, z: 0 }, { x: 3, y: 4, z: 0 }, 0, 0);
    expect(c.nominalDistance).toBe(5);
    expect(c.isRigid).toBe(true);
    put(n2.bonePosition, { x: 0, y: 0, z: 2 });
    c.onPreSolve();
    expect(c.nominalDistance).toBe(2);
  });

  it.each(SCALES)(
    "rigid (0, 0) restores the nominal distance exactly from compression and from stretch (scale %s)",
    (sc) => {
      for (let k = 0; k < 500; k++) {
        const f = k % 2 === 0 ? rng.range(0.05, 0.95) : rng.range(1.05, 5);
        const s = scenario(sc, f);
        const { c, n1, n2 } = pair(s.a, s.b, 0, 0);
        put(n1.solverPosition, s.p1);
        put(n2.solverPosition, s.p2);
        c.solve();
        expect(Math.abs(dist(n1.solverPosition, n2.solverPosition) - s.nominal) / s.nominal).toBeLessThan(1e-12);
        // equal pulls: both give way equally, the midpoint stays
        expectNear(mul(add(n1.solverPosition, n2.solverPosition), 0.5), mul(add(s.p1, s.p2), 0.5), 1e-12 * sc);
        // along the line between them
        const u = unit(sub(s.p2, s.p1));
        expect(Math.abs(dist(unit(sub(n2.solverPosition, n1.solverPosition)), u))).toBeLessThan(1e-12);
      }
    },
  );

  it("rigid cross-fade from the pulls: the chain that pulls harder does not move", () => {
    for (let k = 0; k < 200; k++) {
      const s = scenario(1, k % 2 === 0 ? 0.5 : 2);
      const a = pair(s.a, s.b, 0, 0, 1, 0);
      put(a.n1.solverPosition, s.p1);
      put(a.n2.solverPosition, s.p2);
      a.c.solve();
      expect(clone(a.n1.solverPosition)).toEqual(s.p1);
      expect(Math.abs(dist(a.n1.solverPosition, a.n2.solverPosition) - s.nominal)).toBeLessThan(1e-12);

      const b = pair(s.a, s.b, 0, 0, 0, 1);
      put(b.n1.solverPosition, s.p1);
      put(b.n2.solverPosition, s.p2);
      b.c.solve();
      expect(clone(b.n2.solverPosition)).toEqual(s.p2);
      expect(Math.abs(dist(b.n1.solverPosition, b.n2.solverPosition) - s.nominal)).toBeLessThan(1e-12);

      // pulls 1 and 0.5: crossFade 1 − (0.5 + 0.25) = 0.25 of the correction on n1, 0.75 on n2
      const q = pair(s.a, s.b, 0, 0, 1, 0.5);
      put(q.n1.solverPosition, s.p1);
      put(q.n2.solverPosition, s.p2);
      q.c.solve();
      const moved1 = dist(q.n1.solverPosition, s.p1);
      const moved2 = dist(q.n2.solverPosition, s.p2);
      const violation = Math.abs(dist(s.p1, s.p2) - s.nominal);
      expect(Math.abs(moved1 - 0.25 * violation)).toBeLessThan(1e-12);
      expect(Math.abs(moved2 - 0.75 * violation)).toBeLessThan(1e-12);
    }
  });

  it.each(SCALES)(
    "push-only (push 0, pull 1) restores when compressed and does nothing when stretched (scale %s)",
    (sc) => {
      for (let k = 0; k < 300; k++) {
        const compressed = k % 2 === 0;
        const s = scenario(sc, compressed ? rng.range(0.05, 0.95) : rng.range(1.05, 5));
        const { c, n1, n2 } = pair(s.a, s.b, 0, 1);
        expect(c.isRigid).toBe(false);
        put(n1.solverPosition, s.p1);
        put(n2.solverPosition, s.p2);
        c.solve();
        if (compressed) {
          expect(Math.abs(dist(n1.solverPosition, n2.solverPosition) - s.nominal) / s.nominal).toBeLessThan(1e-12);
          // not rigid: always split half and half
          expect(Math.abs(dist(n1.solverPosition, s.p1) - dist(n2.solverPosition, s.p2)) / sc).toBeLessThan(1e-12);
        } else {
          expect(clone(n1.solverPosition)).toEqual(s.p1);
          expect(clone(n2.solverPosition)).toEqual(s.p2);
        }
      }
    },
  );

  it.each(SCALES)(
    "elasticity e resolves 1 − e of the violation (push for compression, pull for stretch; scale %s)",
    (sc) => {
      for (let k = 0; k < 300; k++) {
        const compressed = k % 2 === 0;
        const e = rng.range(0.05, 0.95);
        const other = rng.range(0, 0.99);
        const s = scenario(sc, compressed ? rng.range(0.05, 0.95) : rng.range(1.05, 5));
        const { c, n1, n2 } = compressed ? pair(s.a, s.b, e, other) : pair(s.a, s.b, other, e);
        put(n1.solverPosition, s.p1);
        put(n2.solverPosition, s.p2);
        c.solve();
        const d0 = dist(s.p1, s.p2);
        const expected = d0 + (s.nominal - d0) * (1 - e);
        expect(Math.abs(dist(n1.solverPosition, n2.solverPosition) - expected) / s.nominal).toBeLessThan(1e-12);
      }
      // the documented half case
      const s = scenario(sc, 0.5);
      const { c, n1, n2 } = pair(s.a, s.b, 0.5, 0.5);
      put(n1.solverPosition, s.p1);
      put(n2.solverPosition, s.p2);
      c.solve();
      expect(Math.abs(dist(n1.solverPosition, n2.solverPosition) - 0.75 * s.nominal) / s.nominal).toBeLessThan(1e-12);
    },
  );

  it("both elasticities ≥ 1 skip the constraint entirely; one of them < 1 does not", () => {
    for (const [push, pull] of [
      [1, 1],
      [2, 1.5],
      [1, 7],
    ] as const) {
      for (const f of [0.1, 3]) {
        const s = scenario(1, f);
        const { c, n1, n2 } = pair(s.a, s.b, push, pull);
        put(n1.solverPosition, s.p1);
        put(n2.solverPosition, s.p2);
        c.solve();
        expect(clone(n1.solverPosition)).toEqual(s.p1);
        expect(clone(n2.solverPosition)).toEqual(s.p2);
      }
    }
    const s = scenario(1, 0.1);
    const { c, n1, n2 } = pair(s.a, s.b, 0.99, 1);
    put(n1.solverPosition, s.p1);
    put(n2.solverPosition, s.p2);
    c.solve();
    expect(dist(n1.solverPosition, n2.solverPosition)).toBeGreaterThan(dist(s.p1, s.p2));
  });

  it("does nothing at the nominal distance or with coincident nodes", () => {
    const s = scenario(1, 1);
    const { c, n1, n2 } = pair(s.a, s.b, 0, 0);
    c.solve();
    expect([clone(n1.solverPosition), clone(n2.solverPosition)]).toEqual([s.a, s.b]);
    put(n2.solverPosition, s.a);
    c.solve();
    expect([clone(n1.solverPosition), clone(n2.solverPosition)]).toEqual([s.a, s.a]);
  });
});

describe.each(bipedVariants().map((b) => [b.name, b] as const))(
  "the biped's child constraints on %s",
  (_name, variant) => {
    it("are the two torso diagonals (push-only) and the shoulder and thigh widths (rigid), with nominal distances from the pose", () => {
      const st = stage(variant);
      const p = st.b.pose;
      const bones = st.b.bones;
      const cs = st.s.chains[0]!.childConstraints;
      expect(cs.map((c) => [c.chain1Index, c.chain2Index])).toEqual([
        [1, 4],
        [2, 3],
        [1, 2],
        [3, 4],
      ]);
      expect(cs.map((c) => c.pullElasticity)).toEqual([1, 1, 0, 0]);
      expect(cs.map((c) => c.isRigid)).toEqual([false, false, true, true]);
      const pairs: [number, number][] = [
        [bones.leftUpperArm, bones.rightThigh],
        [bones.rightUpperArm, bones.leftThigh],
        [bones.leftUpperArm, bones.rightUpperArm],
        [bones.leftThigh, bones.rightThigh],
      ];
      cs.forEach((c, i) => {
        const d = dist(bonePos(p, pairs[i]![0]), bonePos(p, pairs[i]![1]));
        expect(Math.abs(c.nominalDistance - d) / d).toBeLessThan(1e-12);
      });
    });

    it("spineStiffness maps to the push elasticity of constraints 0 and 1 (1 − stiffness, clamped) on the next solve", () => {
      const st = stage(variant);
      const cs = st.s.chains[0]!.childConstraints;
      expect(cs.map((c) => c.pushElasticity)).toEqual([0.5, 0.5, 0, 0]); // default stiffness 0.5
      for (const [stiffness, e] of [
        [0.3, 0.7],
        [0, 1],
        [1, 0],
        [1.5, 0],
        [-0.5, 1],
      ] as const) {
        st.s.spineStiffness = stiffness;
        st.s.update();
        expect(Math.abs(cs[0]!.pushElasticity - e)).toBeLessThan(1e-15);
        expect(Math.abs(cs[1]!.pushElasticity - e)).toBeLessThan(1e-15);
        expect([cs[2]!.pushElasticity, cs[3]!.pushElasticity, cs[2]!.pullElasticity, cs[3]!.pullElasticity]).toEqual([
          0, 0, 0, 0,
        ]);
      }
    });

    it("a compressed torso diagonal is restored by the stiffness: fully at 1, half at 0.5, not at all at 0", () => {
      for (const stiffness of [1, 0.5, 0]) {
        const st = stage(variant);
        st.s.spineStiffness = stiffness;
        st.s.update();
        const c = st.s.chains[0]!.childConstraints[0]!;
        const a = st.s.chains[1]!.nodes[0]!.solverPosition;
        const b = st.s.chains[4]!.nodes[0]!.solverPosition;
        const nominal = c.nominalDistance;
        // squeeze the left shoulder toward the right thigh to 60 %
        put(a, add(clone(b), mul(sub(clone(a), clone(b)), 0.6)));
        c.solve();
        expect(Math.abs(dist(a, b) - (0.6 + 0.4 * stiffness) * nominal) / nominal).toBeLessThan(1e-12);
      }
    });
  },
);
