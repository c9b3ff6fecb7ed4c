/**
 * The family benchmark's FABRIK-with-hinges group: IKSolverFABRIK alone on the chains of
 * test/unit/fabrik/fabrik-mixed-limits.test.ts whose hinges sit behind joints with limits of their own
 * (RobotExpressive's spine, shoulder and arm with a hinge elbow; its wrist with two finger hinges), with the hinge
 * help of ARCHITECTURE.md deviation 20 as it is by default (roll and swivel), rolling only (`hingeSwivel` false)
 * and off (`hingeRoll` false: FinalIK's FABRIK). What the swivel costs, and what it buys.
 */
import { IKSolverFABRIK } from "../src/fabrik/ik-solver-fabrik.js";
import { type LimitedRig, reachOf, reachableTargets } from "../test/helpers/limited-chains.js";
import { type MixedLimitChain, ROBOT_ARM, ROBOT_FINGER } from "../test/helpers/mixed-limit-chains.js";
import { type FamilyGroupResult, type Impl, TARGET_COUNT, measureGroup } from "./family-harness.js";

/** FABRIK's default iterations, as the test measures. */
const ITERATIONS = 4;

/** The hinge help's three settings. */
const MODES = [
  { label: "roll + swivel (default)", roll: true, swivel: true },
  { label: "roll only (hingeSwivel false)", roll: true, swivel: false },
  { label: "off (hingeRoll false)", roll: false, swivel: false },
] as const;

/**
 * One solver on its own copy of `chain`: base = the rest pose put back and the target set; op = base + the solve;
 * error = the tip's distance from the target, % of the reach. The targets are the test's (same seed), 600 of them.
 */
function hingeImpl(chain: MixedLimitChain, rig: LimitedRig, targets: Float64Array, mode: (typeof MODES)[number]): Impl {
  const rest = rig.pose.clone();
  const pose = rig.pose.clone();
  const s = new IKSolverFABRIK(pose, rig.ids, { rootParent: rig.rootParent });
  chain.limits(s);
  s.hingeRoll = mode.roll;
  s.hingeSwivel = mode.swivel;
  s.maxIterations = ITERATIONS;
  const tip = pose.positions[rig.ids[rig.ids.length - 1]!]!;
  const reach = reachOf(rig);
  const base = (f: number): void => {
    pose.copyLocalsFrom(rest);
    const o = 3 * (f % TARGET_COUNT);
    s.ikPosition.x = targets[o]!;
    s.ikPosition.y = targets[o + 1]!;
    s.ikPosition.z = targets[o + 2]!;
  };
  return {
    label: `${chain.label}: ${mode.label}`,
    name: `ours: IKSolverFABRIK alone on ${chain.name}, hinge help ${mode.label} (base: rest pose put back, target)`,
    op: (f) => {
      base(f);
      s.update();
    },
    base,
    error: (f) => {
      const o = 3 * (f % TARGET_COUNT);
      return (100 * Math.hypot(tip.x - targets[o]!, tip.y - targets[o + 1]!, tip.z - targets[o + 2]!)) / reach;
    },
  };
}

/** FABRIK on RobotExpressive's arm and finger chains, the hinge help on, rolling only and off. */
export function fabrikHingeGroup(): FamilyGroupResult {
  const impls: Impl[] = [];
  for (const chain of [ROBOT_ARM, ROBOT_FINGER]) {
    const rig = chain.rig();
    const make = (pose: LimitedRig["pose"], ids: number[], rootParent: number) =>
      new IKSolverFABRIK(pose, ids, { rootParent });
    const list = reachableTargets(rig, make, chain.limits, TARGET_COUNT, 11);
    const targets = new Float64Array(3 * TARGET_COUNT);
    list.forEach((t, i) => targets.set([t.x, t.y, t.z], 3 * i));
    for (const mode of MODES) impls.push(hingeImpl(chain, rig, targets, mode));
  }
  return {
    group: "FABRIK, hinges behind limited joints",
    iterations: ITERATIONS,
    setup:
      `IKSolverFABRIK alone on two RobotExpressive chains of test/unit/fabrik/fabrik-mixed-limits.test.ts, ` +
      `${TARGET_COUNT} targets reachable inside the limits (the test's seed), every solve from the rest pose, ` +
      `${ITERATIONS} iterations; the hinge help (ARCHITECTURE.md, deviation 20) by default, rolling only, and off`,
    ours: measureGroup(impls, ITERATIONS, "% of reach"),
    peer: [],
  };
}
