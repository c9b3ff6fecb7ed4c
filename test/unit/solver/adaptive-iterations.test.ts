import { describe, expect, it } from "vitest";
import { Vec3 } from "../../../src/math/vec3.js";
import { Random } from "../../helpers/random.js";
import { aimAt, mappedBiped, randomPose, worstEffectorError } from "./posed-targets.js";

/** Local pose as numbers, for bit-exact comparisons. */
function locals(m: ReturnType<typeof mappedBiped>): number[] {
  const pose = m.b.pose;
  return pose.localRotations.flatMap((q, i) => [q.x, q.y, q.z, q.w, ...Object.values(pose.localPositions[i]!)]);
}

describe("adaptive iterations", () => {
  it("iterationTolerance 0 runs exactly `iterations`, bit-exact whatever maxIterations says (FinalIK's count)", () => {
    const runs: number[][] = [];
    for (const max of [0, 10, 30]) {
      const m = mappedBiped();
      m.solver.iterationTolerance = 0;
      m.solver.maxIterations = max;
      const target = m.rest.clone();
      randomPose(m, target, new Random(3));
      aimAt(m, target);
      m.solver.update();
      expect(m.solver.iterationsUsed).toBe(4);
      runs.push(locals(m));
    }
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
  });

  it("an easy frame stops early; a frame whose targets cannot all be met uses more, up to maxIterations", () => {
    const m = mappedBiped();
    m.solver.iterationTolerance = 1e-5;
    const target = m.rest.clone();
    // easy: a hand drawn in toward the body (the arm bent, so its reach does not pull the shoulder), nothing else
    // weighted; a hand left on the nearly straight arm's line keeps the shoulder moving (reach), and runs 4
    m.b.pose.copyLocalsFrom(m.rest);
    const hand = m.effectors[1]!;
    m.rest.getPosition(hand.bone, hand.effector.position);
    hand.effector.position.x *= 0.7;
    hand.effector.positionWeight = 1;
    m.solver.update();
    expect(m.solver.iterationsUsed).toBeLessThan(4);
    const reached = m.b.pose.getPosition(hand.bone, new Vec3());
    const goal = hand.effector.position;
    expect(Math.hypot(reached.x - goal.x, reached.y - goal.y, reached.z - goal.z)).toBeLessThan(1e-9);
    // hard: the hands farther than the arms reach with the body pinned: the body keeps moving
    randomPose(m, target, new Random(9));
    aimAt(m, target);
    for (const k of [1, 2]) {
      const e = m.effectors[k]!.effector.position;
      e.x *= 1.6;
      e.z += 0.3;
    }
    m.solver.maxIterations = 7;
    m.solver.update();
    expect(m.solver.iterationsUsed).toBe(7);
  });

  it("over 300 posed sets: no worse than FinalIK's 4 iterations on average, fewer iterations on the reachable ones", () => {
    const stats = (tolerance: number, max: number) => {
      const m = mappedBiped();
      m.solver.iterationTolerance = tolerance;
      m.solver.maxIterations = max;
      const target = m.rest.clone();
      const r = new Random(21);
      let error = 0;
      let used = 0;
      for (let s = 0; s < 300; s++) {
        randomPose(m, target, r, 1.2);
        aimAt(m, target);
        m.solver.update();
        error += worstEffectorError(m) / 300;
        used += m.solver.iterationsUsed / 300;
      }
      return { error, used };
    };
    const fixed = stats(0, 0);
    const capped = stats(1e-5, 4);
    const adaptive = stats(1e-5, 10);
    expect(capped.used).toBeLessThan(4);
    expect(capped.error).toBeLessThan(fixed.error * 1.05);
    expect(adaptive.error).toBeLessThan(fixed.error);
  });

  it("non-finite settings are reported once and fall back", () => {
    const m = mappedBiped();
    m.solver.iterationTolerance = Number.NaN;
    m.solver.maxIterations = Number.POSITIVE_INFINITY;
    const target = m.rest.clone();
    randomPose(m, target, new Random(4));
    aimAt(m, target);
    m.solver.update();
    m.solver.update();
    expect(m.solver.iterationsUsed).toBe(4);
    expect(m.warnings.map((w) => w.cause).filter((c) => c === "iterationTolerance")).toHaveLength(1);
    m.solver.iterationTolerance = 1e-5;
    m.solver.update();
    expect(m.warnings.map((w) => w.cause).filter((c) => c === "maxIterations")).toHaveLength(1);
  });
});
