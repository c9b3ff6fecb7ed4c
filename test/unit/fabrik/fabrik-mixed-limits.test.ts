/**
 * IKSolverFABRIK on chains mixing limit kinds (polygonal or cone, then hinges; a stiff spine, then a hinge), built in
 * code and read from RobotExpressive, against targets each reachable inside the limits: how far the tip ends off,
 * next to CCD's, and that every joint stays inside its limit.
 */
import { describe, expect, it } from "vitest";
import { resolve } from "node:path";
import { IKSolverCCD } from "../../../src/ccd/ik-solver-ccd.js";
import { IKSolverFABRIK } from "../../../src/fabrik/ik-solver-fabrik.js";
import { RotationLimitAngle } from "../../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitHinge } from "../../../src/joints/limits/rotation-limit-hinge.js";
import { RotationLimitPolygonal } from "../../../src/joints/limits/rotation-limit-polygonal.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { buildChain } from "../../helpers/joint-chains.js";
import {
  type LimitedRig,
  type MakeSolver,
  type SetLimits,
  chainErrors,
  glbChain,
  reachableTargets,
} from "../../helpers/limited-chains.js";
import { REPO_MODELS } from "../../helpers/babylon-scene.js";

const X = new Vec3(1, 0, 0);
const Y = new Vec3(0, 1, 0);
const Z = new Vec3(0, 0, 1);
/** A shoulder's reach cone (the API example's) and a narrow wrist's, about the bone (+Y). */
const shoulder = () => [new Vec3(0.35, 1, 0), new Vec3(0, 1, 0.8), new Vec3(-1, 0.4, 0), new Vec3(0, 1, -0.8)];
const wrist = () => [new Vec3(0.6, 1, 0), new Vec3(0, 1, 0.3), new Vec3(-0.8, 1, 0), new Vec3(0, 1, -0.3)];

const fabrik: MakeSolver = (pose, ids, rootParent) => new IKSolverFABRIK(pose, ids, { rootParent });
const ccd: MakeSolver = (pose, ids, rootParent) => new IKSolverCCD(pose, ids, { rootParent });

function coded(lengths: number[]): LimitedRig {
  const c = buildChain({ bones: lengths.length + 1, seed: 5, bend: 0.05, lengthOf: (i) => lengths[i]! });
  return { pose: c.pose, ids: c.ids, rootParent: 0 };
}

const robot = (chain: string[]) => glbChain(resolve(REPO_MODELS, "RobotExpressive.glb"), chain);

interface Case {
  name: string;
  rig: () => LimitedRig;
  limits: SetLimits;
  /** Bounds on FABRIK's mean and worst tip error (fraction of the reach) at its default 4 iterations. */
  mean: number;
  worst: number;
}

const cases: Case[] = [
  {
    name: "polygonal shoulder (twist ±60°), hinge elbow",
    rig: () => coded([1, 0.9]),
    limits: (s) => {
      s.setLimit(0, new RotationLimitPolygonal(Y, shoulder(), 60));
      s.setLimit(1, new RotationLimitHinge(X, 0, 140));
    },
    mean: 0.03,
    worst: 0.06,
  },
  {
    name: "cone (60°, twist ±40°), two hinges",
    rig: () => coded([1, 0.8, 0.5]),
    limits: (s) => {
      s.setLimit(0, new RotationLimitAngle(Y, 60, 40));
      s.setLimit(1, new RotationLimitHinge(X, -10, 120));
      s.setLimit(2, new RotationLimitHinge(X, 0, 90));
    },
    mean: 0.1,
    worst: 0.5,
  },
  {
    name: "four spine joints (20°, twist ±10°), hinge",
    rig: () => coded([0.3, 0.3, 0.3, 0.3, 0.5]),
    limits: (s) => {
      for (let i = 0; i < 4; i++) s.setLimit(i, new RotationLimitAngle(Y, 20, 10));
      s.setLimit(4, new RotationLimitHinge(X, 0, 120));
    },
    mean: 0.08,
    worst: 0.45,
  },
  {
    name: "RobotExpressive: polygonal wrist (twist ±30°), two finger hinges",
    rig: () => robot(["Palm2.L", "Middle1.L", "Middle2.L", "Middle2.L_end"]),
    limits: (s) => {
      s.setLimit(0, new RotationLimitPolygonal(Y, wrist(), 30));
      s.setLimit(1, new RotationLimitHinge(Z, 0, 90));
      s.setLimit(2, new RotationLimitHinge(Z, 0, 90));
    },
    mean: 0.13,
    worst: 0.45,
  },
  {
    name: "RobotExpressive: abdomen, torso, shoulder (cones), polygonal upper arm, hinge elbow",
    rig: () => robot(["Abdomen", "Torso", "Shoulder.L", "UpperArm.L", "LowerArm.L", "Palm2.L"]),
    limits: (s) => {
      s.setLimit(0, new RotationLimitAngle(Y, 20, 15));
      s.setLimit(1, new RotationLimitAngle(Y, 20, 15));
      s.setLimit(2, new RotationLimitAngle(Y, 15, 5));
      s.setLimit(3, new RotationLimitPolygonal(Y, shoulder(), 60));
      s.setLimit(4, new RotationLimitHinge(Z, 0, 130));
    },
    mean: 0.1,
    worst: 0.45,
  },
];

const pct = (x: number) => `${(100 * x).toFixed(2)} %`;

describe("IKSolverFABRIK with limits of several kinds on one chain", () => {
  for (const c of cases) {
    it(`${c.name}: reachable targets, the tip's error and the limits`, () => {
      const rig = c.rig();
      const targets = reachableTargets(rig, fabrik, c.limits, 100, 11);
      const solved = chainErrors(rig, fabrik, c.limits, targets, () => {});
      const finalIK = chainErrors(rig, fabrik, c.limits, targets, (s) => {
        (s as IKSolverFABRIK).hingeRoll = false;
      });
      const rollOnly = chainErrors(rig, fabrik, c.limits, targets, (s) => {
        (s as IKSolverFABRIK).hingeSwivel = false;
      });
      const reference = chainErrors(rig, ccd, c.limits, targets, (s) => {
        s.maxIterations = 10;
      });
      if (process.env.FBBIK_REPORT)
        console.log(
          `[figures] ${c.name}: tip off / reach, mean and worst: FABRIK ${pct(solved.mean)}, ${pct(solved.worst)}; ` +
            `hingeSwivel false ${pct(rollOnly.mean)}, ${pct(rollOnly.worst)}; ` +
            `hingeRoll false ${pct(finalIK.mean)}, ${pct(finalIK.worst)}; CCD (10 iterations) ` +
            `${pct(reference.mean)}, ${pct(reference.worst)}`,
        );
      expect(solved.mean).toBeLessThan(c.mean);
      expect(solved.worst).toBeLessThan(c.worst);
      expect(solved.violation).toBeLessThan(1e-9);
      expect(rollOnly.violation).toBeLessThan(1e-9);
      expect(finalIK.violation).toBeLessThan(1e-9);
    });
  }
});
