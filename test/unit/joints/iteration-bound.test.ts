/**
 * The chain solvers' `maxIterations` is bounded per solve (iteration-bound.ts): with `tolerance` 0 (the default) or a
 * target the limits keep out of reach, no iteration ends the solve early, so `Infinity` (accepted by the settings)
 * ran a frame for ever and 1e7 for seconds.
 */
import { describe, expect, it } from "vitest";
import { IKSolverCCD } from "../../../src/ccd/ik-solver-ccd.js";
import { IKSolverFABRIK } from "../../../src/fabrik/ik-solver-fabrik.js";
import { IKSolverFABRIKRoot } from "../../../src/fabrik/ik-solver-fabrik-root.js";
import { MAX_CHAIN_ITERATIONS, MAX_JACOBIAN_ITERATIONS, iterationBound } from "../../../src/joints/iteration-bound.js";
import { buildChain } from "../../helpers/joint-chains.js";

/** A 10-bone chain and a reachable target half its length from its root. */
function chainAndTarget() {
  const c = buildChain({ bones: 10, seed: 3 });
  const root = c.pose.positions[c.ids[0]!]!;
  return { c, x: root.x + 0.3 * c.length, y: root.y + 0.4 * c.length, z: root.z };
}

describe("iterationBound", () => {
  it("passes counts up to the bound, caps above it, reads NaN and negatives as 0", () => {
    expect(iterationBound(4)).toBe(4);
    expect(iterationBound(MAX_CHAIN_ITERATIONS)).toBe(MAX_CHAIN_ITERATIONS);
    expect(iterationBound(Number.POSITIVE_INFINITY)).toBe(MAX_CHAIN_ITERATIONS);
    expect(iterationBound(1e7, MAX_JACOBIAN_ITERATIONS)).toBe(MAX_JACOBIAN_ITERATIONS);
    expect(iterationBound(Number.NaN)).toBe(0);
    expect(iterationBound(-3)).toBe(0);
  });
});

describe("chain solvers with an unbounded maxIterations and tolerance 0", () => {
  for (const [name, make] of [
    ["CCD", (c: ReturnType<typeof buildChain>) => new IKSolverCCD(c.pose, c.ids, { rootParent: 0 })],
    ["FABRIK", (c: ReturnType<typeof buildChain>) => new IKSolverFABRIK(c.pose, c.ids, { rootParent: 0 })],
  ] as const) {
    it(`${name}: 1e7 and Infinity stop at ${MAX_CHAIN_ITERATIONS} iterations`, () => {
      for (const max of [1e7, Number.POSITIVE_INFINITY]) {
        const { c, x, y, z } = chainAndTarget();
        const s = make(c);
        s.maxIterations = max;
        s.tolerance = 0;
        s.ikPosition.x = x;
        s.ikPosition.y = y;
        s.ikPosition.z = z;
        s.update();
        expect(s.lastIterations).toBe(MAX_CHAIN_ITERATIONS);
      }
    });
  }

  // no tolerance ends its passes: unbounded, Infinity never returned
  it(`FABRIKRoot: 1e7 and Infinity stop at ${MAX_CHAIN_ITERATIONS} iterations`, () => {
    for (const max of [1e7, Number.POSITIVE_INFINITY]) {
      const { c, x, y, z } = chainAndTarget();
      const chain = new IKSolverFABRIK(c.pose, c.ids.slice(1));
      const r = new IKSolverFABRIKRoot(c.pose, c.ids[0]!, [chain]);
      r.maxIterations = max;
      chain.ikPosition.x = x;
      chain.ikPosition.y = y;
      chain.ikPosition.z = z;
      r.update();
      expect(r.lastIterations).toBe(MAX_CHAIN_ITERATIONS);
      expect(Number.isFinite(c.pose.positions[c.ids[9]!]!.x)).toBe(true);
    }
  });
});
