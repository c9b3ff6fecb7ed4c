/**
 * Push and Reach (FinalIK's FBIKChain.Push and FBIKChain.Reach, run each iteration of IKSolverFullBody).
 * Push: a limb compressed below its animated first-to-last distance pushes its first node away from
 * the end node by f = 1 − L/distance (shaped f, f², f³) × push, and hands pushParent × that push to the
 * root node. Reach: with reachForce = reach × end effector weight, the first node (× (1 − its own
 * effector weight)) and the end node move along the limb by length × δ, where
 * δ = clamp(L/length, 1 − rf, 1 + rf) − 1 + rf, shaped, clamped to [0, L/length] (the port's
 * scale-invariant bound). The expected numbers below are worked out by hand from those formulas.
 */
import { describe, expect, it } from "vitest";
import { Smoothing } from "../../../src/solver/smoothing.js";
import { Random } from "../../helpers/random.js";
import { bipedVariants } from "../../helpers/synthetic-biped.js";
import { type V, add, clone, dist, len, mul, sub, unit } from "../../helpers/vectors.js";
import {
  LIMB_NAMES,
  type Stage,
  bonePos,
  expectNear,
  limbs,
  put,
  randomUnit,
  snapshot,
  stage,
} from "./stage-fixture.js";

const SHAPES = [
  [Smoothing.None, 1],
  [Smoothing.Exponential, 2],
  [Smoothing.Cubic, 3],
] as const;

/** Animated first-to-last distance of limb chain `ci`, from the pose. */
function animatedDistance(st: Stage, ci: number): number {
  const nodes = st.s.chains[ci]!.nodes;
  return dist(bonePos(st.b.pose, nodes[0]!.bone), bonePos(st.b.pose, nodes[2]!.bone));
}

/** Limb length (sum of bone lengths) of chain `ci`, from the pose. */
function limbLength(st: Stage, ci: number): number {
  const [a, b, c] = st.s.chains[ci]!.nodes.map((n) => bonePos(st.b.pose, n.bone));
  return dist(a!, b!) + dist(b!, c!);
}

/** Puts limb `ci` back to its bones, then its first node at `ratio` × `base` from the end node, along `dir`. */
function placeFirst(st: Stage, ci: number, ratio: number, base: number, dir: V): void {
  const nodes = st.s.chains[ci]!.nodes;
  for (const n of nodes) put(n.solverPosition, n.bonePosition);
  put(nodes[0]!.solverPosition, add(clone(nodes[2]!.solverPosition), mul(dir, ratio * base)));
}

describe.each(bipedVariants().map((b) => [b.name, b] as const))("push on %s", (_name, variant) => {
  const rng = new Random(0x9054);

  it("reads the animated first-to-last distance while push > 0", () => {
    const st = stage(variant);
    limbs(st.s).forEach((c) => (c.push = 1));
    st.s.update();
    for (let ci = 1; ci <= 4; ci++) {
      const d = animatedDistance(st, ci);
      expect(Math.abs(st.s.chains[ci]!.distance - d) / d).toBeLessThan(1e-12);
    }
  });

  it.each(SHAPES)(
    "a compressed limb pushes its first node away from the end node by f^k × push (smoothing %s, k = %s)",
    (smoothing, k) => {
      const st = stage(variant);
      for (const c of limbs(st.s)) {
        c.push = 1;
        c.pushSmoothing = smoothing;
      }
      st.s.update();
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const d = animatedDistance(st, ci);
        for (const [ratio, push] of [
          [0.9, 1],
          [0.5, 1],
          [0.2, 1],
          [0.5, 0.5],
          [0.7, 0.25],
        ] as const) {
          chain.push = push;
          const dir = randomUnit(rng);
          placeFirst(st, ci, ratio, d, dir);
          const [n0, n1, n2] = chain.nodes;
          const p0 = clone(n0!.solverPosition);
          const p1 = clone(n1!.solverPosition);
          const p2 = clone(n2!.solverPosition);
          const result = clone(chain.pushNodes(st.s));
          const f = 1 - ratio;
          const magnitude = ratio * d * f ** k * push;
          const what = `${LIMB_NAMES[ci - 1]} ratio ${ratio} push ${push}`;
          expectNear(n0!.solverPosition, add(p0, mul(dir, magnitude)), 1e-12 * d, what);
          expectNear(result, mul(dir, magnitude), 1e-12 * d, `${what} (returned push)`);
          expect(clone(n1!.solverPosition)).toEqual(p1);
          expect(clone(n2!.solverPosition)).toEqual(p2);
        }
      }
    },
  );

  it("nothing when the limb is at or beyond its animated distance (even if shorter than its length), or when push = 0", () => {
    const st = stage(variant);
    for (const c of limbs(st.s)) c.push = 1;
    st.s.update();
    for (let ci = 1; ci <= 4; ci++) {
      const chain = st.s.chains[ci]!;
      const d = animatedDistance(st, ci);
      const L = limbLength(st, ci);
      expect(L).toBeGreaterThan(d * 1.001);
      for (const [ratio, push] of [
        [1 + 1e-9, 1],
        [(d + L) / 2 / d, 1], // longer than animated, shorter than the limb
        [1.5, 1],
        [0.5, 0],
      ] as const) {
        chain.push = push;
        placeFirst(st, ci, ratio, d, randomUnit(rng));
        const before = snapshot(st.s);
        const result = clone(chain.pushNodes(st.s));
        expect(snapshot(st.s), `${LIMB_NAMES[ci - 1]} ratio ${ratio} push ${push}`).toEqual(before);
        expect(result).toEqual({ x: 0, y: 0, z: 0 });
      }
      // exactly at the animated distance (up to rounding of the placement): f ≈ 0, no push to speak of
      chain.push = 1;
      placeFirst(st, ci, 1, d, randomUnit(rng));
      expect(len(chain.pushNodes(st.s)) / d).toBeLessThan(1e-15);
    }
  });

  it("pushParent passes push × pushParent of each limb to the root node (recursively from the root chain)", () => {
    const st = stage(variant);
    const [la, ra, ll, rl] = limbs(st.s);
    la!.push = 1;
    la!.pushParent = 0.5;
    rl!.push = 0.5;
    rl!.pushParent = -1;
    ra!.push = 1;
    ra!.pushParent = 0; // pushes but passes nothing on
    ll!.push = 0;
    ll!.pushParent = 1; // passes on, but does not push
    for (const c of limbs(st.s)) c.pushSmoothing = Smoothing.None;
    st.s.update();
    const dirs = [randomUnit(rng), randomUnit(rng), randomUnit(rng), randomUnit(rng)];
    const ratios = [0.6, 0.7, 0.5, 0.8];
    for (let ci = 1; ci <= 4; ci++) placeFirst(st, ci, ratios[ci - 1]!, animatedDistance(st, ci), dirs[ci - 1]!);
    const root = st.s.chains[0]!.nodes[0]!;
    const rootBefore = clone(root.solverPosition);
    const firsts = limbs(st.s).map((c) => clone(c.nodes[0]!.solverPosition));
    const rootResult = clone(st.s.chains[0]!.pushNodes(st.s));
    // each limb's push: ratio × d × (1 − ratio) × push along dir
    const pushes = [1, 1, 0, 0.5].map((push, i) =>
      mul(dirs[i]!, ratios[i]! * animatedDistance(st, i + 1) * (1 - ratios[i]!) * push),
    );
    limbs(st.s).forEach((c, i) =>
      expectNear(c.nodes[0]!.solverPosition, add(firsts[i]!, pushes[i]!), 1e-12 * variant.height, LIMB_NAMES[i]),
    );
    const expectedRoot = add(add(rootBefore, mul(pushes[0]!, 0.5)), mul(pushes[3]!, -1));
    expectNear(root.solverPosition, expectedRoot, 1e-12 * variant.height, "root");
    expect(dist(root.solverPosition, rootBefore)).toBeGreaterThan(1e-3 * variant.height);
    // the root chain itself has one node: it pushes nothing further up
    expect(rootResult).toEqual({ x: 0, y: 0, z: 0 });
  });
});

describe.each(bipedVariants().map((b) => [b.name, b] as const))("reach on %s", (_name, variant) => {
  const rng = new Random(0x4eac);

  /** Solver with the given end-effector weights and reach, frame read. */
  function frame(handWeight: number, reach: number, smoothing: Smoothing, shoulderWeight = 0, ikw = 1): Stage {
    const st = stage(variant);
    for (let ci = 1; ci <= 4; ci++) {
      const c = st.s.chains[ci]!;
      c.reach = reach;
      c.reachSmoothing = smoothing;
      st.s.effectors[4 + ci]!.positionWeight = handWeight; // hands and feet
      st.s.effectors[ci]!.positionWeight = shoulderWeight; // shoulders and thighs
    }
    st.s.ikPositionWeight = ikw;
    st.s.update();
    return st;
  }

  it("reachForce = reach × the end effector's weighted position weight", () => {
    expect(limbs(frame(1, 0.1, Smoothing.Exponential).s).map((c) => c.reachForce)).toEqual([0.1, 0.1, 0.1, 0.1]);
    for (const c of limbs(frame(0.5, 0.2, Smoothing.Exponential, 0, 0.5).s)) expect(c.reachForce).toBeCloseTo(0.05, 15);
    expect(limbs(frame(0, 0.1, Smoothing.Exponential).s).map((c) => c.reachForce)).toEqual([0, 0, 0, 0]);
    expect(limbs(frame(1, 0, Smoothing.Exponential).s).map((c) => c.reachForce)).toEqual([0, 0, 0, 0]);
  });

  // ratio L/length → δ for reachForce 0.1, before smoothing (clamp(ratio, 0.9, 1.1) − 1 + 0.1)
  const TABLE = [
    [1, 0.1],
    [1.5, 0.2],
    [1.05, 0.15],
    [0.95, 0.05],
    [0.9, 0],
    [0.5, 0],
  ] as const;

  it.each(SHAPES)(
    "moves the first and the end node along the limb by length × δ^k (smoothing %s, k = %s)",
    (smoothing, k) => {
      const st = frame(1, 0.1, smoothing);
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const L = limbLength(st, ci);
        expect(Math.abs(chain.length - L) / L).toBeLessThan(1e-12);
        const [n0, n1, n2] = chain.nodes;
        for (const [ratio, delta] of TABLE) {
          const u = randomUnit(rng);
          for (const n of chain.nodes) put(n.solverPosition, n.bonePosition);
          put(n2!.solverPosition, add(clone(n0!.solverPosition), mul(u, ratio * L)));
          const p0 = clone(n0!.solverPosition);
          const p1 = clone(n1!.solverPosition);
          const p2 = clone(n2!.solverPosition);
          chain.reachNodes(st.s);
          const offset = mul(u, L * delta ** k);
          const what = `${LIMB_NAMES[ci - 1]} ratio ${ratio}`;
          expectNear(n0!.solverPosition, add(p0, offset), 1e-12 * L, `${what} first`);
          expectNear(n2!.solverPosition, add(p2, offset), 1e-12 * L, `${what} end`);
          expect(clone(n1!.solverPosition)).toEqual(p1);
        }
      }
    },
  );

  it("the first node's share is scaled by 1 − its own effector weight; the end node always gets the full offset", () => {
    const st = frame(1, 0.1, Smoothing.None, 0.25, 1);
    for (let ci = 1; ci <= 4; ci++) {
      const chain = st.s.chains[ci]!;
      const L = limbLength(st, ci);
      const [n0, , n2] = chain.nodes;
      expect(n0!.effectorPositionWeight).toBe(0.25);
      const u = unit(sub(clone(n2!.bonePosition), clone(n0!.bonePosition)));
      for (const n of chain.nodes) put(n.solverPosition, n.bonePosition);
      put(n2!.solverPosition, add(clone(n0!.solverPosition), mul(u, L)));
      const p0 = clone(n0!.solverPosition);
      const p2 = clone(n2!.solverPosition);
      chain.reachNodes(st.s);
      // ratio 1 → δ = 0.1 (no smoothing)
      expectNear(n0!.solverPosition, add(p0, mul(u, 0.1 * L * 0.75)), 1e-12 * L, LIMB_NAMES[ci - 1]);
      expectNear(n2!.solverPosition, add(p2, mul(u, 0.1 * L)), 1e-12 * L, LIMB_NAMES[ci - 1]);
    }
  });

  it("nothing moves when reach = 0 or the end effector is unweighted; the root chain recurses into the limbs", () => {
    for (const [w, reach] of [
      [1, 0],
      [0, 0.1],
    ] as const) {
      const st = frame(w, reach, Smoothing.None);
      for (const c of limbs(st.s)) {
        for (const n of c.nodes) put(n.solverPosition, n.bonePosition);
        put(c.nodes[2]!.solverPosition, add(clone(c.nodes[0]!.solverPosition), mul(randomUnit(rng), c.length)));
      }
      const before = snapshot(st.s);
      st.s.chains[0]!.reachNodes(st.s);
      expect(snapshot(st.s)).toEqual(before);
    }
    const st = frame(1, 0.1, Smoothing.None);
    for (const c of limbs(st.s)) {
      for (const n of c.nodes) put(n.solverPosition, n.bonePosition);
      put(c.nodes[2]!.solverPosition, add(clone(c.nodes[0]!.solverPosition), mul(randomUnit(rng), c.length)));
    }
    const ends = limbs(st.s).map((c) => clone(c.nodes[2]!.solverPosition));
    const rootBefore = clone(st.s.chains[0]!.nodes[0]!.solverPosition);
    st.s.chains[0]!.reachNodes(st.s);
    expect(clone(st.s.chains[0]!.nodes[0]!.solverPosition)).toEqual(rootBefore);
    limbs(st.s).forEach((c, i) => {
      const moved = dist(c.nodes[2]!.solverPosition, ends[i]!);
      expect(Math.abs(moved - 0.1 * c.length) / c.length).toBeLessThan(1e-12);
    });
  });
});

describe.each(bipedVariants().map((b) => [b.name, b] as const))(
  "push within the full solve on %s",
  (_name, variant) => {
    /**
     * Solves once with the right foot pulled halfway up toward its thigh (compressing the leg) and the
     * right leg's push and pushParent as given; the last limb, so a push pass gated on "some chain
     * pushes" must look at every chain. Returns the solved thigh and root nodes and the target.
     */
    function solveCompressedLeg(push: number, pushParent: number): { thigh: V; root: V; target: V } {
      const st = stage(variant);
      const leg = st.s.chains[4]!;
      leg.push = push;
      leg.pushParent = pushParent;
      const foot = st.s.rightFootEffector;
      const thighBone = bonePos(st.b.pose, leg.nodes[0]!.bone);
      const footBone = bonePos(st.b.pose, leg.nodes[2]!.bone);
      const target = add(thighBone, mul(sub(footBone, thighBone), 0.5));
      put(foot.position, target);
      foot.positionWeight = 1;
      st.s.update();
      expect(st.s.solvedLastUpdate).toBe(true);
      return {
        thigh: clone(leg.nodes[0]!.solverPosition),
        root: clone(st.s.chains[0]!.nodes[0]!.solverPosition),
        target,
      };
    }

    it("a pushing limb drives its first node away from a compressing target, and pushParent moves the body", () => {
      const still = solveCompressedLeg(0, 0);
      const pushed = solveCompressedLeg(1, 0);
      const passedOn = solveCompressedLeg(1, 1);
      const h = variant.height;
      // push pushes the thigh away from the foot's target (the other constraints pull it partly back)
      expect(dist(pushed.thigh, pushed.target)).toBeGreaterThan(dist(still.thigh, still.target) + 1e-3 * h);
      // pushParent 0 keeps the push in the leg's first node; 1 hands it to the body's node as well
      expect(dist(passedOn.root, pushed.root)).toBeGreaterThan(1e-3 * h);
    });
  },
);
