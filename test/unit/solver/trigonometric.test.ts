/**
 * The trigonometric pass (FinalIK's FBIKChain.SolveTrigonometric): the middle node of each limb is
 * placed by the law of cosines so that both bones keep their lengths, on the side of the bend
 * direction; the end node never moves; a limb longer than 0.99999 × its length is solved as if it
 * were that long. An end node on the first node (within ON_POINT of the limb) folds the limb along its
 * animated upper bone, the end put ON_POINT off square to it. Expectations come from the bone lengths measured on the pose and plain geometry.
 */
import { describe, expect, it } from "vitest";
import { ON_POINT } from "../../../src/math/on-point.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { MAX_LIMB_LENGTH } from "../../../src/solver/chain.js";
import { Random } from "../../helpers/random.js";
import { bipedVariants } from "../../helpers/synthetic-biped.js";
import { type V, add, clone, cross, dist, dot, len, mul, perp, sub, unit } from "../../helpers/vectors.js";
import { LIMB_NAMES, bonePos, expectNear, limbs, put, randomUnit, randomVec, rotate, stage } from "./stage-fixture.js";

const CASES_PER_LIMB = 1000;

/** The pose's own bone lengths of limb `i` (chain i + 1). */
function poseLengths(st: ReturnType<typeof stage>, chainIndex: number): { l0: number; l1: number } {
  const [n0, n1, n2] = st.s.chains[chainIndex]!.nodes;
  const p = st.b.pose;
  return { l0: dist(bonePos(p, n0!.bone), bonePos(p, n1!.bone)), l1: dist(bonePos(p, n1!.bone), bonePos(p, n2!.bone)) };
}

/**
 * Where the middle node must be: at l0 from p0 and l1 from the point `m` along the unit axis `u`,
 * offset toward `side` (which must not be parallel to u). Law of cosines, written out here.
 */
function expectedMiddle(p0: V, u: V, m: number, l0: number, l1: number, side: V): V {
  const x = (m * m + l0 * l0 - l1 * l1) / (2 * m);
  const y = Math.sqrt(Math.max(0, l0 * l0 - x * x));
  return add(add(p0, mul(u, x)), mul(unit(perp(side, u)), y));
}

describe.each(bipedVariants().map((b) => [b.name, b] as const))("trigonometric pass on %s", (_name, variant) => {
  it(`keeps both bone lengths, bends toward the bend direction and never moves the end node (${CASES_PER_LIMB} cases per limb)`, () => {
    const st = stage(variant);
    const h = variant.height;
    const rng = new Random(0x7a16 + Math.round(variant.scale * 1000) + (variant.mirrored ? 1 : 0));
    for (let ci = 1; ci <= 4; ci++) {
      const chain = st.s.chains[ci]!;
      const { l0, l1 } = poseLengths(st, ci);
      const L = l0 + l1;
      const [n0, n1, n2] = chain.nodes;
      let maxUpper = 0;
      let maxLower = 0;
      let maxPlane = 0;
      let maxExpected = 0;
      let wrongSide = 0;
      let endMoved = 0;
      let firstMoved = 0;
      for (let k = 0; k < CASES_PER_LIMB; k++) {
        const p0 = add(bonePos(st.b.pose, n0!.bone), randomVec(rng, 0.3 * h));
        const u = randomUnit(rng);
        // reachable: between the folded and the (almost) straight limb, away from both degenerate ends
        const m = rng.range(Math.abs(l0 - l1) + 0.02 * L, 0.995 * L);
        const p2 = add(p0, mul(u, m));
        let w = randomUnit(rng);
        while (len(perp(w, u)) < 0.2) w = randomUnit(rng);
        const p1 = add(p0, mul(w, l0 * rng.range(0.2, 2)));
        put(n0!.solverPosition, p0);
        put(n1!.solverPosition, p1);
        put(n2!.solverPosition, p2);

        chain.solveTrigonometric(st.s, false);

        const q0 = clone(n0!.solverPosition);
        const q1 = clone(n1!.solverPosition);
        const q2 = clone(n2!.solverPosition);
        if (q2.x !== p2.x || q2.y !== p2.y || q2.z !== p2.z) endMoved++;
        if (q0.x !== p0.x || q0.y !== p0.y || q0.z !== p0.z) firstMoved++;
        maxUpper = Math.max(maxUpper, Math.abs(dist(q0, q1) - l0) / l0);
        maxLower = Math.max(maxLower, Math.abs(dist(q1, q2) - l1) / l1);
        const bend = sub(p1, p0);
        const normal = unit(cross(u, bend));
        maxPlane = Math.max(maxPlane, Math.abs(dot(sub(q1, q0), normal)) / L);
        if (!(dot(perp(sub(q1, q0), u), perp(bend, u)) > 0)) wrongSide++;
        maxExpected = Math.max(maxExpected, dist(q1, expectedMiddle(p0, u, m, l0, l1, bend)) / L);
      }
      const label = LIMB_NAMES[ci - 1];
      expect(endMoved, `${label}: end node moved`).toBe(0);
      expect(firstMoved, `${label}: first node moved`).toBe(0);
      expect(wrongSide, `${label}: middle node on the wrong side`).toBe(0);
      expect(maxUpper, `${label}: upper bone length error`).toBeLessThan(1e-9);
      expect(maxLower, `${label}: lower bone length error`).toBeLessThan(1e-9);
      expect(maxPlane, `${label}: middle node off the bend plane`).toBeLessThan(1e-9);
      expect(maxExpected, `${label}: middle node off its law-of-cosines place`).toBeLessThan(1e-9);
    }
  });

  it("clamps an over-stretched limb to 0.99999 × its length along the axis, keeping the upper bone length", () => {
    const st = stage(variant);
    const rng = new Random(99);
    for (let ci = 1; ci <= 4; ci++) {
      const chain = st.s.chains[ci]!;
      const { l0, l1 } = poseLengths(st, ci);
      const L = l0 + l1;
      const [n0, n1, n2] = chain.nodes;
      for (const stretch of [MAX_LIMB_LENGTH + 1e-6, 1, 1.0001, 1.5, 3, 100]) {
        const p0 = bonePos(st.b.pose, n0!.bone);
        const u = randomUnit(rng);
        const p2 = add(p0, mul(u, stretch * L));
        const bend = sub(bonePos(st.b.pose, n1!.bone), p0);
        put(n0!.solverPosition, p0);
        put(n1!.solverPosition, add(p0, bend));
        put(n2!.solverPosition, p2);
        chain.solveTrigonometric(st.s, false);
        const q1 = clone(n1!.solverPosition);
        const what = `${LIMB_NAMES[ci - 1]} stretched ×${stretch}`;
        expect(n2!.solverPosition, `${what}: end node`).toEqual(p2);
        // the limb is solved as if its end were at 0.99999 L along the axis
        const virtualEnd = add(p0, mul(u, 0.99999 * L));
        expect(Math.abs(dist(p0, q1) - l0) / l0, `${what}: upper bone`).toBeLessThan(1e-9);
        expect(Math.abs(dist(q1, virtualEnd) - l1) / l1, `${what}: lower bone to the clamped end`).toBeLessThan(1e-9);
        const x = (0.99999 * L * 0.99999 * L + l0 * l0 - l1 * l1) / (2 * 0.99999 * L);
        expect(Math.abs(dot(sub(q1, p0), u) - x) / L, `${what}: elbow along the axis`).toBeLessThan(1e-9);
        // still bent (not straight) and on the original side
        expect(dot(perp(sub(q1, p0), u), perp(bend, u)), `${what}: side`).toBeGreaterThan(0);
        expectNear(q1, expectedMiddle(p0, u, 0.99999 * L, l0, l1, bend), 1e-9 * L, what);
      }
    }
  });

  it("folds along the animated upper bone when the end node sits on the first node (within ON_POINT)", () => {
    const st = stage(variant);
    const rng = new Random(0x0f01d);
    for (const chain of limbs(st.s)) {
      const [n0, n1, n2] = chain.nodes;
      const L = n0!.length + n1!.length;
      const b0 = clone(n0!.bonePosition);
      const upper = unit(sub(n1!.bonePosition, b0));
      const side = perp(sub(n2!.bonePosition, b0), upper);
      for (const off of [0, 0.3, 0.99]) {
        const p0 = clone(n0!.solverPosition);
        // float noise off the first node, any way
        put(n2!.solverPosition, add(p0, mul(randomUnit(rng), off * ON_POINT * L)));
        chain.solveTrigonometric(st.s, false);
        const what = `${chain.name}, ${off} × ON_POINT`;
        expect(chain.foldedOnRoot, what).toBe(true);
        expect(clone(n0!.solverPosition), what).toEqual(p0);
        expectNear(n1!.solverPosition, add(p0, mul(upper, n0!.length)), 1e-12 * L, what);
        const end = sub(n2!.solverPosition, p0);
        expect(len(end) / L, what).toBeCloseTo(ON_POINT, 12);
        expect(Math.abs(dot(end, upper)) / len(end), what).toBeLessThan(1e-9);
        // on the animated end's side of the upper bone (a straight synthetic limb has none)
        if (len(side) > ON_POINT * L) expect(dot(end, side), what).toBeGreaterThan(0);
      }
      // past ON_POINT the law of cosines again, the end node where it was
      const p2 = add(n0!.solverPosition, mul(randomUnit(rng), 2 * ON_POINT * L));
      put(n2!.solverPosition, p2);
      chain.foldedOnRoot = false;
      chain.solveTrigonometric(st.s, false);
      expect(chain.foldedOnRoot).toBe(false);
      expect(clone(n2!.solverPosition)).toEqual(p2);
    }
  });

  it("recurses from the root chain into all four limbs and leaves the root node alone", () => {
    const st = stage(variant);
    const h = variant.height;
    const rng = new Random(5);
    const root = st.s.chains[0]!;
    const rootBefore = clone(root.nodes[0]!.solverPosition);
    const ends: V[] = [];
    for (const chain of limbs(st.s)) {
      // pull every end a bit toward its first node, keep the animated bend
      const [n0, n1, n2] = chain.nodes;
      put(
        n2!.solverPosition,
        add(n2!.solverPosition, mul(sub(n0!.solverPosition, n2!.solverPosition), rng.range(0.1, 0.4))),
      );
      put(n1!.solverPosition, add(n1!.solverPosition, randomVec(rng, 0.01 * h)));
      ends.push(clone(n2!.solverPosition));
    }
    root.solveTrigonometric(st.s, false);
    expect(root.nodes[0]!.solverPosition).toEqual(rootBefore);
    limbs(st.s).forEach((chain, i) => {
      const { l0, l1 } = poseLengths(st, i + 1);
      const [n0, n1, n2] = chain.nodes;
      expect(n2!.solverPosition).toEqual(ends[i]);
      expect(Math.abs(dist(n0!.solverPosition, n1!.solverPosition) - l0) / l0).toBeLessThan(1e-9);
      expect(Math.abs(dist(n1!.solverPosition, n2!.solverPosition) - l1) / l1).toBeLessThan(1e-9);
    });
  });

  it("with calculateBendDirection, a bend goal at weight 1 decides the side (the current middle node does not)", () => {
    const st = stage(variant);
    const h = variant.height;
    const rng = new Random(17);
    for (let ci = 1; ci <= 4; ci++) {
      const chain = st.s.chains[ci]!;
      const { l0, l1 } = poseLengths(st, ci);
      const L = l0 + l1;
      const [n0, n1, n2] = chain.nodes;
      const bc = chain.bendConstraint;
      bc.weight = 1;
      for (let k = 0; k < 200; k++) {
        const p0 = add(bonePos(st.b.pose, n0!.bone), randomVec(rng, 0.2 * h));
        const u = randomUnit(rng);
        const m = rng.range(Math.abs(l0 - l1) + 0.05 * L, 0.99 * L);
        let g = randomUnit(rng);
        while (len(perp(g, u)) < 0.2) g = randomUnit(rng);
        const goal = add(p0, mul(g, rng.range(0.1, 2) * L));
        bc.bendGoal = new Vec3(goal.x, goal.y, goal.z);
        put(n0!.solverPosition, p0);
        // the current middle node points the other way: it must not matter at weight 1
        put(n1!.solverPosition, add(p0, mul(unit(perp(g, u)), -l0)));
        put(n2!.solverPosition, add(p0, mul(u, m)));
        chain.solveTrigonometric(st.s, true);
        const q1 = clone(n1!.solverPosition);
        const what = `${LIMB_NAMES[ci - 1]} case ${k}`;
        expectNear(q1, expectedMiddle(p0, u, m, l0, l1, sub(goal, p0)), 1e-9 * L, what);
        expect(dot(perp(sub(q1, p0), u), perp(g, u)), what).toBeGreaterThan(0);
      }
    }
  });

  it("with calculateBendDirection, an explicit direction at weight 1 decides the side", () => {
    const st = stage(variant);
    const h = variant.height;
    const rng = new Random(23);
    for (let ci = 1; ci <= 4; ci++) {
      const chain = st.s.chains[ci]!;
      const { l0, l1 } = poseLengths(st, ci);
      const L = l0 + l1;
      const [n0, n1, n2] = chain.nodes;
      const bc = chain.bendConstraint;
      bc.weight = 1;
      bc.bendGoal = null;
      for (let k = 0; k < 200; k++) {
        const p0 = add(bonePos(st.b.pose, n0!.bone), randomVec(rng, 0.2 * h));
        const u = randomUnit(rng);
        const m = rng.range(Math.abs(l0 - l1) + 0.05 * L, 0.99 * L);
        let d = randomUnit(rng);
        while (len(perp(d, u)) < 0.2) d = randomUnit(rng);
        // any length: only the direction counts
        put(bc.direction, mul(d, rng.range(1e-3, 1e3)));
        put(n0!.solverPosition, p0);
        put(n1!.solverPosition, add(p0, mul(unit(perp(d, u)), -l0)));
        put(n2!.solverPosition, add(p0, mul(u, m)));
        chain.solveTrigonometric(st.s, true);
        const what = `${LIMB_NAMES[ci - 1]} case ${k}`;
        expectNear(n1!.solverPosition, expectedMiddle(p0, u, m, l0, l1, d), 1e-9 * L, what);
      }
    }
  });

  it("with calculateBendDirection and weight 0, a rigidly swung limb keeps its animated bend (the middle node swings along)", () => {
    const st = stage(variant);
    const rng = new Random(31);
    for (let ci = 1; ci <= 4; ci++) {
      const chain = st.s.chains[ci]!;
      const [n0, n1, n2] = chain.nodes;
      const b0 = bonePos(st.b.pose, n0!.bone);
      const b1 = bonePos(st.b.pose, n1!.bone);
      const b2 = bonePos(st.b.pose, n2!.bone);
      const { l0, l1 } = poseLengths(st, ci);
      const axis = sub(b2, b0);
      for (let k = 0; k < 50; k++) {
        // a pure swing: rotation about an axis perpendicular to the limb, up to 170°
        const swingAxis = cross(axis, randomUnit(rng));
        const angle = rng.range(-2.97, 2.97);
        const rot = (p: V): V => rotate(p, swingAxis, angle);
        put(n0!.solverPosition, b0);
        put(n1!.solverPosition, add(b0, randomVec(rng, l0))); // scrambled: must not matter
        put(n2!.solverPosition, add(b0, rot(axis)));
        chain.solveTrigonometric(st.s, true);
        expectNear(
          n1!.solverPosition,
          add(b0, rot(sub(b1, b0))),
          1e-9 * (l0 + l1),
          `${LIMB_NAMES[ci - 1]} swing ${angle}`,
        );
      }
    }
  });
});
