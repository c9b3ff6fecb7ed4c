/**
 * The two FABRIK stages (FinalIK's FBIKChain.Stage1 and FBIKChain.Stage2): Stage1 reaches forward from
 * the limb ends and moves the root to the pull-weighted centroid of where the limbs want it; Stage2
 * reaches backward from the root, settling the body's constraint systems clamp(iterations, 2, 4) times;
 * solveLinearConstraint moves two points to a distance with a cross-fade. Lengths are measured on the
 * pose, never on the nodes.
 */
import { describe, expect, it, vi } from "vitest";
import { Vec3 } from "../../../src/math/vec3.js";
import { solveLinearConstraint } from "../../../src/solver/chain.js";
import { Random } from "../../helpers/random.js";
import { bipedVariants } from "../../helpers/synthetic-biped.js";
import { type V, add, clone, dist, mul, sub, unit } from "../../helpers/vectors.js";
import {
  LIMB_NAMES,
  type Stage,
  bonePos,
  expectNear,
  limbs,
  put,
  randomVec,
  snapshot,
  stage,
} from "./stage-fixture.js";

/** Bone lengths and root length of chain `ci` measured on the pose. */
function poseLengths(st: Stage, ci: number): { l0: number; l1: number; root: number } {
  const p = st.b.pose;
  const [n0, n1, n2] = st.s.chains[ci]!.nodes;
  const rootBone = st.s.chains[0]!.nodes[0]!.bone;
  return {
    l0: dist(bonePos(p, n0!.bone), bonePos(p, n1!.bone)),
    l1: dist(bonePos(p, n1!.bone), bonePos(p, n2!.bone)),
    root: dist(bonePos(p, rootBone), bonePos(p, n0!.bone)),
  };
}

/** Moves every node of the solver by a random vector of up to `r` per axis. */
function perturbAll(st: Stage, rng: Random, r: number): void {
  for (const c of st.s.chains) for (const n of c.nodes) put(n.solverPosition, add(n.solverPosition, randomVec(rng, r)));
}

/** Turns every child constraint of the body off (both elasticities ≥ 1 skips a constraint). */
function constraintsOff(st: Stage): void {
  for (const c of st.s.chains[0]!.childConstraints) {
    c.pushElasticity = 1;
    c.pullElasticity = 1;
  }
}

/** Where the root would be for limb `ci`: on the line to its first node, at its root length. */
function wish(st: Stage, ci: number, root: V): V {
  const n0 = clone(st.s.chains[ci]!.nodes[0]!.solverPosition);
  return add(n0, mul(unit(sub(root, n0)), poseLengths(st, ci).root));
}

const variants = bipedVariants();

describe.each(variants.map((b) => [b.name, b] as const))("FABRIK stages on %s", (_name, variant) => {
  const h = variant.height;

  it("stage1 of a limb keeps its end node and both bone lengths (100 perturbed poses)", () => {
    const st = stage(variant);
    const rng = new Random(1);
    for (let k = 0; k < 100; k++) {
      perturbAll(st, rng, 0.3 * h);
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const [n0, n1, n2] = chain.nodes;
        const end = clone(n2!.solverPosition);
        chain.stage1(st.s);
        const { l0, l1 } = poseLengths(st, ci);
        expect(n2!.solverPosition).toEqual(end);
        expect(Math.abs(dist(n0!.solverPosition, n1!.solverPosition) - l0) / l0).toBeLessThan(1e-9);
        expect(Math.abs(dist(n1!.solverPosition, n2!.solverPosition) - l1) / l1).toBeLessThan(1e-9);
      }
    }
  });

  it("stage1 from the root keeps every limb's bone lengths when the child constraints are off (100 perturbed poses)", () => {
    const st = stage(variant);
    constraintsOff(st);
    const rng = new Random(2);
    for (let k = 0; k < 100; k++) {
      perturbAll(st, rng, 0.3 * h);
      const ends = limbs(st.s).map((c) => clone(c.nodes[2]!.solverPosition));
      st.s.chains[0]!.stage1(st.s);
      limbs(st.s).forEach((chain, i) => {
        const { l0, l1 } = poseLengths(st, i + 1);
        const [n0, n1, n2] = chain.nodes;
        expect(n2!.solverPosition, LIMB_NAMES[i]).toEqual(ends[i]);
        expect(Math.abs(dist(n0!.solverPosition, n1!.solverPosition) - l0) / l0, LIMB_NAMES[i]).toBeLessThan(1e-9);
        expect(Math.abs(dist(n1!.solverPosition, n2!.solverPosition) - l1) / l1, LIMB_NAMES[i]).toBeLessThan(1e-9);
      });
    }
  });

  it("stage1 from the root solves the child constraints after the limbs' forward reach: shoulder and thigh widths are exact, lower bones kept", () => {
    // FinalIK's FBIKChain.Stage1 order: children Stage1 first, then the root's SolveChildConstraints, which
    // moves the limbs' first nodes; only Stage2 restores the upper bone lengths.
    const st = stage(variant);
    const p = st.b.pose;
    const rng = new Random(3);
    const [la, ra, ll, rl] = limbs(st.s);
    const shoulderWidth = dist(bonePos(p, la!.nodes[0]!.bone), bonePos(p, ra!.nodes[0]!.bone));
    const hipWidth = dist(bonePos(p, ll!.nodes[0]!.bone), bonePos(p, rl!.nodes[0]!.bone));
    for (let k = 0; k < 100; k++) {
      perturbAll(st, rng, 0.3 * h);
      st.s.chains[0]!.stage1(st.s);
      expect(
        Math.abs(dist(la!.nodes[0]!.solverPosition, ra!.nodes[0]!.solverPosition) - shoulderWidth) / shoulderWidth,
      ).toBeLessThan(1e-9);
      expect(
        Math.abs(dist(ll!.nodes[0]!.solverPosition, rl!.nodes[0]!.solverPosition) - hipWidth) / hipWidth,
      ).toBeLessThan(1e-9);
      limbs(st.s).forEach((chain, i) => {
        const { l1 } = poseLengths(st, i + 1);
        expect(Math.abs(dist(chain.nodes[1]!.solverPosition, chain.nodes[2]!.solverPosition) - l1) / l1).toBeLessThan(
          1e-9,
        );
      });
    }
  });

  it("stage2 from the root keeps every bone length and every limb's root length (100 perturbed poses)", () => {
    const st = stage(variant);
    const rng = new Random(4);
    const root = st.s.chains[0]!.nodes[0]!;
    for (let k = 0; k < 100; k++) {
      perturbAll(st, rng, 0.3 * h);
      st.s.chains[0]!.stage2(st.s, clone(root.solverPosition));
      limbs(st.s).forEach((chain, i) => {
        const { l0, l1, root: rootLength } = poseLengths(st, i + 1);
        const [n0, n1, n2] = chain.nodes;
        expect(Math.abs(chain.rootLength - rootLength) / rootLength).toBeLessThan(1e-12);
        expect(
          Math.abs(dist(root.solverPosition, n0!.solverPosition) - rootLength) / rootLength,
          `${LIMB_NAMES[i]} root length`,
        ).toBeLessThan(1e-9);
        expect(Math.abs(dist(n0!.solverPosition, n1!.solverPosition) - l0) / l0, `${LIMB_NAMES[i]} upper`).toBeLessThan(
          1e-9,
        );
        expect(Math.abs(dist(n1!.solverPosition, n2!.solverPosition) - l1) / l1, `${LIMB_NAMES[i]} lower`).toBeLessThan(
          1e-9,
        );
      });
    }
  });

  it("stage2 from the root puts the root at the given position when the shoulder and thigh effectors are unweighted", () => {
    const st = stage(variant);
    const rng = new Random(5);
    const root = st.s.chains[0]!.nodes[0]!;
    for (let k = 0; k < 20; k++) {
      perturbAll(st, rng, 0.3 * h);
      const target = add(bonePos(st.b.pose, root.bone), randomVec(rng, 0.3 * h));
      st.s.chains[0]!.stage2(st.s, new Vec3(target.x, target.y, target.z));
      // crossFades are 0 (shoulder/thigh effector weights 0): the root never gives way
      expect(root.solverPosition).toEqual(target);
    }
  });

  it("readPose: crossFades = first-node effector weight × pull / max(1, body weight + Σ of those)", () => {
    const st = stage(variant);
    st.s.effectors[0]!.positionWeight = 0.5; // body
    st.s.effectors[1]!.positionWeight = 1; // left shoulder
    st.s.effectors[2]!.positionWeight = 0.5; // right shoulder
    st.s.effectors[3]!.positionWeight = 1; // left thigh
    st.s.effectors[4]!.positionWeight = 0; // right thigh
    st.s.chains[3]!.pull = 0.5; // left leg
    st.s.update();
    // Σ = 0.5 + 1 + 0.5 + 0.5 = 2.5
    st.s.chains[0]!.crossFades.forEach((c, i) => expect(c).toBeCloseTo([0.4, 0.2, 0.2, 0][i]!, 15));
    st.s.ikPositionWeight = 0.5; // all weights halved: Σ = 1.25
    st.s.update();
    st.s.chains[0]!.crossFades.forEach((c, i) => expect(c).toBeCloseTo([0.4, 0.2, 0.2, 0][i]!, 15));
    st.s.ikPositionWeight = 0.25; // Σ = 0.625 < 1: no normalisation
    st.s.update();
    st.s.chains[0]!.crossFades.forEach((c, i) => expect(c).toBeCloseTo([0.25, 0.125, 0.125, 0][i]!, 15));
  });

  it("stage2: a weighted shoulder holds its place against the root by the crossFade (1: the root gives way fully; 0.5: both, about the mid-point)", () => {
    for (const weight of [1, 0.5]) {
      const st = stage(variant);
      st.s.effectors[1]!.positionWeight = weight; // left shoulder → crossFades[0] = weight
      st.s.update();
      constraintsOff(st);
      const rng = new Random(11);
      perturbAll(st, rng, 0.2 * h);
      const root = st.s.chains[0]!.nodes[0]!;
      const shoulder = st.s.chains[1]!.nodes[0]!;
      const rootLength = poseLengths(st, 1).root;
      const from = clone(root.solverPosition);
      const s0 = clone(shoulder.solverPosition);
      st.s.chains[0]!.stage2(st.s, new Vec3(from.x, from.y, from.z));
      expect(Math.abs(dist(root.solverPosition, shoulder.solverPosition) - rootLength) / rootLength).toBeLessThan(1e-9);
      if (weight === 1) {
        expectNear(shoulder.solverPosition, s0, 1e-12 * h, "shoulder kept");
        expectNear(root.solverPosition, add(s0, mul(unit(sub(from, s0)), rootLength)), 1e-12 * h, "root gave way");
      } else {
        const mid = mul(add(from, s0), 0.5);
        expectNear(
          mul(add(clone(root.solverPosition), clone(shoulder.solverPosition)), 0.5),
          mid,
          1e-12 * h,
          "mid-point kept",
        );
      }
    }
  });

  it("the limbs' stages run node by node across the limbs: bit-identical to limb after limb (300 random full solves)", () => {
    // the interleaved leaf passes are an ordering of independent work; force the sequential order on a twin
    const a = stage(variant);
    const b = stage(variant);
    (b.s.chains[0] as unknown as { leafChildren: boolean }).leafChildren = false;
    expect((a.s.chains[0] as unknown as { leafChildren: boolean }).leafChildren).toBe(true);
    const rng = new Random(17);
    for (let k = 0; k < 300; k++) {
      for (const st of [a, b]) {
        st.s.effectors.forEach((e, i) => {
          e.positionWeight = i >= 5 ? 1 : k % 3 === 0 ? 0.5 : 0;
        });
      }
      const seed = rng.next();
      for (const st of [a, b]) {
        const r = new Random(Math.floor(seed * 1e9));
        for (const e of st.s.effectors) put(e.position, add(bonePos(st.b.pose, e.node.bone), randomVec(r, 0.5 * h)));
        st.s.update();
      }
      a.s.chains.forEach((c, ci) =>
        c.nodes.forEach((n, ni) =>
          expect(n.solverPosition, `chain ${ci} node ${ni}`).toEqual(b.s.chains[ci]!.nodes[ni]!.solverPosition),
        ),
      );
    }
  });

  it("forwardReach: last node to the position, each earlier node at its length along the line to where it was", () => {
    const st = stage(variant);
    const rng = new Random(6);
    for (let ci = 1; ci <= 4; ci++) {
      const chain = st.s.chains[ci]!;
      const { l0, l1 } = poseLengths(st, ci);
      const [n0, n1, n2] = chain.nodes;
      for (let k = 0; k < 50; k++) {
        perturbAll(st, rng, 0.3 * h);
        const a0 = clone(n0!.solverPosition);
        const a1 = clone(n1!.solverPosition);
        const target = add(a0, randomVec(rng, h));
        chain.forwardReach(new Vec3(target.x, target.y, target.z));
        const e1 = add(target, mul(unit(sub(a1, target)), l1));
        const e0 = add(e1, mul(unit(sub(a0, e1)), l0));
        expect(n2!.solverPosition).toEqual(target);
        expectNear(n1!.solverPosition, e1, 1e-12 * h, "middle");
        expectNear(n0!.solverPosition, e0, 1e-12 * h, "first");
      }
    }
  });

  it("backward reach (stage2 of a limb): first node at the root length from the position toward where it was, the rest follow at their lengths", () => {
    const st = stage(variant);
    const rng = new Random(7);
    for (let ci = 1; ci <= 4; ci++) {
      const chain = st.s.chains[ci]!;
      const { l0, l1, root } = poseLengths(st, ci);
      const [n0, n1, n2] = chain.nodes;
      for (let k = 0; k < 50; k++) {
        perturbAll(st, rng, 0.3 * h);
        const a0 = clone(n0!.solverPosition);
        const a1 = clone(n1!.solverPosition);
        const a2 = clone(n2!.solverPosition);
        const from = add(a0, randomVec(rng, h));
        chain.stage2(st.s, new Vec3(from.x, from.y, from.z));
        const e0 = add(from, mul(unit(sub(a0, from)), root));
        const e1 = add(e0, mul(unit(sub(a1, e0)), l0));
        const e2 = add(e1, mul(unit(sub(a2, e1)), l1));
        expectNear(n0!.solverPosition, e0, 1e-12 * h, "first");
        expectNear(n1!.solverPosition, e1, 1e-12 * h, "middle");
        expectNear(n2!.solverPosition, e2, 1e-12 * h, "last");
      }
    }
  });

  describe("stage1 moves the root to the pull-weighted centroid of the limbs' wishes", () => {
    /** A frame with the given pulls read in, constraints off, every node scrambled. */
    function frame(pulls: number[], pin = 0, seed = 8): { st: Stage; rng: Random } {
      const st = stage(variant);
      limbs(st.s).forEach((c, i) => (c.pull = pulls[i]!));
      st.s.chains[0]!.pin = pin;
      st.s.update(); // re-reads pullParentSum
      constraintsOff(st);
      const rng = new Random(seed);
      perturbAll(st, rng, 0.3 * h);
      return { st, rng };
    }

    it("one limb with pull 1 and the others 0: the root goes exactly to that limb's wish", () => {
      for (let ci = 1; ci <= 4; ci++) {
        const pulls = [0, 0, 0, 0];
        pulls[ci - 1] = 1;
        const { st } = frame(pulls, 0, ci);
        const root = st.s.chains[0]!.nodes[0]!;
        const before = clone(root.solverPosition);
        st.s.chains[0]!.stage1(st.s);
        expectNear(root.solverPosition, wish(st, ci, before), 1e-12 * h, LIMB_NAMES[ci - 1]);
        expect(dist(root.solverPosition, before)).toBeGreaterThan(1e-3 * h);
      }
    });

    it("pull 0.5 on one limb moves the root half-way (Σ pulls is clamped to ≥ 1)", () => {
      const { st } = frame([0.5, 0, 0, 0]);
      const root = st.s.chains[0]!.nodes[0]!;
      const before = clone(root.solverPosition);
      st.s.chains[0]!.stage1(st.s);
      expectNear(root.solverPosition, add(before, mul(sub(wish(st, 1, before), before), 0.5)), 1e-12 * h);
    });

    it("all pulls 1: the root goes to the mean of the four wishes", () => {
      const { st } = frame([1, 1, 1, 1]);
      const root = st.s.chains[0]!.nodes[0]!;
      const before = clone(root.solverPosition);
      st.s.chains[0]!.stage1(st.s);
      let mean = { x: 0, y: 0, z: 0 };
      for (let ci = 1; ci <= 4; ci++) mean = add(mean, mul(wish(st, ci, before), 0.25));
      expectNear(root.solverPosition, mean, 1e-12 * h);
    });

    it("pulls 1, 0.5, 0, 0: each wish weighted by pull / Σ pulls", () => {
      const { st } = frame([1, 0.5, 0, 0]);
      const root = st.s.chains[0]!.nodes[0]!;
      const before = clone(root.solverPosition);
      st.s.chains[0]!.stage1(st.s);
      const expected = add(
        add(before, mul(sub(wish(st, 1, before), before), 1 / 1.5)),
        mul(sub(wish(st, 2, before), before), 0.5 / 1.5),
      );
      expectNear(root.solverPosition, expected, 1e-12 * h);
    });

    it("all pulls 0: the root stays", () => {
      const { st } = frame([0, 0, 0, 0]);
      const root = st.s.chains[0]!.nodes[0]!;
      const before = clone(root.solverPosition);
      st.s.chains[0]!.stage1(st.s);
      expect(root.solverPosition).toEqual(before);
    });

    it("pin 1 keeps the root fixed; pin 0.5 stops half-way", () => {
      const pinned = frame([1, 1, 1, 1], 1);
      const root = pinned.st.s.chains[0]!.nodes[0]!;
      const before = clone(root.solverPosition);
      pinned.st.s.chains[0]!.stage1(pinned.st.s);
      expect(root.solverPosition).toEqual(before);

      const half = frame([1, 0, 0, 0], 0.5);
      const r = half.st.s.chains[0]!.nodes[0]!;
      const b = clone(r.solverPosition);
      half.st.s.chains[0]!.stage1(half.st.s);
      expectNear(r.solverPosition, add(b, mul(sub(wish(half.st, 1, b), b), 0.5)), 1e-12 * h);
    });
  });

  it("stage2 repeats the constraint systems clamp(iterations, 2, 4) times", () => {
    const counts: number[] = [];
    const results: V[][] = [];
    const iterations = [0, 1, 2, 3, 4, 5, 10];
    for (const it of iterations) {
      const st = stage(variant);
      // shoulder and thigh effectors weighted so the root itself gives way in the linear constraints
      for (let e = 1; e <= 4; e++) st.s.effectors[e]!.positionWeight = 0.5;
      st.s.update(); // reads the crossFades (iterations 4)
      st.s.iterations = it;
      const spy = vi.spyOn(st.s.chains[0]!.childConstraints[2]!, "solve");
      for (const c of st.s.chains) for (const n of c.nodes) put(n.solverPosition, n.bonePosition);
      perturbAll(st, new Random(9), 0.2 * h);
      const root = st.s.chains[0]!.nodes[0]!;
      st.s.chains[0]!.stage2(st.s, clone(root.solverPosition));
      counts.push(spy.mock.calls.length);
      results.push(snapshot(st.s));
    }
    expect(counts).toEqual([2, 2, 2, 3, 4, 4, 4]);
    // the repetitions are what changes the result: 0, 1 and 2 agree, 4, 5 and 10 agree, 2, 3 and 4 differ
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
    expect(results[5]).toEqual(results[4]);
    expect(results[6]).toEqual(results[4]);
    expect(results[3]).not.toEqual(results[2]);
    expect(results[4]).not.toEqual(results[3]);
  });
});

describe("solveLinearConstraint", () => {
  const rng = new Random(10);
  const scales = [0.01, 1, 100];

  it("puts the two points at exactly the distance along their line, keeping the cross-fade point fixed (10,000 cases)", () => {
    let maxDist = 0;
    let maxFixed = 0;
    let maxLine = 0;
    for (let k = 0; k < 10_000; k++) {
      const sc = scales[k % 3]!;
      const a = randomVec(rng, sc);
      const b = randomVec(rng, sc);
      const d = rng.range(0, 2) * sc;
      const cf = rng.next();
      const n1 = new Vec3(a.x, a.y, a.z);
      const n2 = new Vec3(b.x, b.y, b.z);
      solveLinearConstraint(n1, n2, cf, d);
      maxDist = Math.max(maxDist, Math.abs(dist(n1, n2) - d) / sc);
      // the point at the cross-fade fraction along the segment does not move
      const fixedBefore = add(a, mul(sub(b, a), cf));
      const fixedAfter = add(clone(n1), mul(sub(n2, n1), cf));
      maxFixed = Math.max(maxFixed, dist(fixedBefore, fixedAfter) / sc);
      // both stay on the original line
      const u = unit(sub(b, a));
      const off = (p: V): number => {
        const w = sub(p, a);
        return dist(w, mul(u, w.x * u.x + w.y * u.y + w.z * u.z));
      };
      maxLine = Math.max(maxLine, off(n1) / sc, off(n2) / sc);
    }
    expect(maxDist).toBeLessThan(1e-12);
    expect(maxFixed).toBeLessThan(1e-12);
    expect(maxLine).toBeLessThan(1e-12);
  });

  it("crossFade 0 moves only n2, crossFade 1 only n1, 0.5 both equally", () => {
    for (let k = 0; k < 100; k++) {
      const a = randomVec(rng, 1);
      const b = randomVec(rng, 1);
      const d = rng.range(0, 2);
      const n1 = new Vec3(a.x, a.y, a.z);
      const n2 = new Vec3(b.x, b.y, b.z);
      solveLinearConstraint(n1, n2, 0, d);
      expect(clone(n1)).toEqual(a);
      expect(Math.abs(dist(n1, n2) - d)).toBeLessThan(1e-12);

      const m1 = new Vec3(a.x, a.y, a.z);
      const m2 = new Vec3(b.x, b.y, b.z);
      solveLinearConstraint(m1, m2, 1, d);
      expect(clone(m2)).toEqual(b);
      expect(Math.abs(dist(m1, m2) - d)).toBeLessThan(1e-12);

      const h1 = new Vec3(a.x, a.y, a.z);
      const h2 = new Vec3(b.x, b.y, b.z);
      solveLinearConstraint(h1, h2, 0.5, d);
      expect(Math.abs(dist(h1, a) - dist(h2, b))).toBeLessThan(1e-12);
    }
  });

  it("does nothing at the distance already, or when the points coincide", () => {
    const a = new Vec3(1, 2, 3);
    const b = new Vec3(1, 2, 5);
    solveLinearConstraint(a, b, 0.3, 2);
    expect([clone(a), clone(b)]).toEqual([
      { x: 1, y: 2, z: 3 },
      { x: 1, y: 2, z: 5 },
    ]);
    const c = new Vec3(4, 4, 4);
    const d = new Vec3(4, 4, 4);
    solveLinearConstraint(c, d, 0.3, 2);
    expect([clone(c), clone(d)]).toEqual([
      { x: 4, y: 4, z: 4 },
      { x: 4, y: 4, z: 4 },
    ]);
  });
});
