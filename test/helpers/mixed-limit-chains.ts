/**
 * The chains mixing limit kinds that FABRIK's hinge help (ARCHITECTURE.md, deviation 20) is measured on: built in
 * code or read from RobotExpressive, each with its limits. Shared by test/unit/fabrik/fabrik-mixed-limits.test.ts
 * (accuracy) and bench/family-fabrik.ts (cost), so both measure the same chains.
 */
import { resolve } from "node:path";
import { RotationLimitAngle } from "../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitHinge } from "../../src/joints/limits/rotation-limit-hinge.js";
import { RotationLimitPolygonal } from "../../src/joints/limits/rotation-limit-polygonal.js";
import { Vec3 } from "../../src/math/vec3.js";
import { REPO_MODELS } from "./babylon-scene.js";
import { buildChain } from "./joint-chains.js";
import { type LimitedRig, type SetLimits, glbChain } from "./limited-chains.js";

const X = new Vec3(1, 0, 0);
const Y = new Vec3(0, 1, 0);
const Z = new Vec3(0, 0, 1);
/** A shoulder's reach cone (the API example's) and a narrow wrist's, about the bone (+Y). */
const shoulder = () => [new Vec3(0.35, 1, 0), new Vec3(0, 1, 0.8), new Vec3(-1, 0.4, 0), new Vec3(0, 1, -0.8)];
const wrist = () => [new Vec3(0.6, 1, 0), new Vec3(0, 1, 0.3), new Vec3(-0.8, 1, 0), new Vec3(0, 1, -0.3)];

/** A chain of `lengths` built in code, hanging off a base bone, slightly bent. */
function coded(lengths: number[]): LimitedRig {
  const c = buildChain({ bones: lengths.length + 1, seed: 5, bend: 0.05, lengthOf: (i) => lengths[i]! });
  return { pose: c.pose, ids: c.ids, rootParent: 0 };
}

/** A chain of RobotExpressive's bones, by name, root first. */
const robot = (chain: string[]) => glbChain(resolve(REPO_MODELS, "RobotExpressive.glb"), chain);

/** One chain and its limits. */
export interface MixedLimitChain {
  /** What the chain is, as the test and the benchmark print it. */
  name: string;
  /** Short name for a benchmark row. */
  label: string;
  /** Builds the chain (a fresh pose each call). */
  rig: () => LimitedRig;
  /** Sets the solver's limits (new limit objects each call). */
  limits: SetLimits;
}

/** Polygonal shoulder (twist ±60°) and a hinge elbow, built in code. */
export const SHOULDER_HINGE: MixedLimitChain = {
  name: "polygonal shoulder (twist ±60°), hinge elbow",
  label: "shoulder + hinge",
  rig: () => coded([1, 0.9]),
  limits: (s) => {
    s.setLimit(0, new RotationLimitPolygonal(Y, shoulder(), 60));
    s.setLimit(1, new RotationLimitHinge(X, 0, 140));
  },
};

/** A cone (60°, twist ±40°) and two hinges, built in code. */
export const CONE_TWO_HINGES: MixedLimitChain = {
  name: "cone (60°, twist ±40°), two hinges",
  label: "cone + 2 hinges",
  rig: () => coded([1, 0.8, 0.5]),
  limits: (s) => {
    s.setLimit(0, new RotationLimitAngle(Y, 60, 40));
    s.setLimit(1, new RotationLimitHinge(X, -10, 120));
    s.setLimit(2, new RotationLimitHinge(X, 0, 90));
  },
};

/** Four stiff spine joints (20°, twist ±10°) and a hinge, built in code. */
export const SPINE_HINGE: MixedLimitChain = {
  name: "four spine joints (20°, twist ±10°), hinge",
  label: "4 spine joints + hinge",
  rig: () => coded([0.3, 0.3, 0.3, 0.3, 0.5]),
  limits: (s) => {
    for (let i = 0; i < 4; i++) s.setLimit(i, new RotationLimitAngle(Y, 20, 10));
    s.setLimit(4, new RotationLimitHinge(X, 0, 120));
  },
};

/** RobotExpressive's left palm (a polygonal wrist, twist ±30°) and its middle finger's two hinges. */
export const ROBOT_FINGER: MixedLimitChain = {
  name: "RobotExpressive: polygonal wrist (twist ±30°), two finger hinges",
  label: "robot wrist + 2 finger hinges",
  rig: () => robot(["Palm2.L", "Middle1.L", "Middle2.L", "Middle2.L_end"]),
  limits: (s) => {
    s.setLimit(0, new RotationLimitPolygonal(Y, wrist(), 30));
    s.setLimit(1, new RotationLimitHinge(Z, 0, 90));
    s.setLimit(2, new RotationLimitHinge(Z, 0, 90));
  },
};

/** RobotExpressive's abdomen, torso, shoulder (cones), polygonal upper arm and hinge elbow. */
export const ROBOT_ARM: MixedLimitChain = {
  name: "RobotExpressive: abdomen, torso, shoulder (cones), polygonal upper arm, hinge elbow",
  label: "robot spine, shoulder, arm + hinge elbow",
  rig: () => robot(["Abdomen", "Torso", "Shoulder.L", "UpperArm.L", "LowerArm.L", "Palm2.L"]),
  limits: (s) => {
    s.setLimit(0, new RotationLimitAngle(Y, 20, 15));
    s.setLimit(1, new RotationLimitAngle(Y, 20, 15));
    s.setLimit(2, new RotationLimitAngle(Y, 15, 5));
    s.setLimit(3, new RotationLimitPolygonal(Y, shoulder(), 60));
    s.setLimit(4, new RotationLimitHinge(Z, 0, 130));
  },
};

/** A cone (60°, twist ±40°) and three hinges (a finger with its knuckle), built in code. */
export const CONE_THREE_HINGES: MixedLimitChain = {
  name: "cone (60°, twist ±40°), three hinges",
  label: "cone + 3 hinges",
  rig: () => coded([1, 0.6, 0.4, 0.3]),
  limits: (s) => {
    s.setLimit(0, new RotationLimitAngle(Y, 60, 40));
    s.setLimit(1, new RotationLimitHinge(X, 0, 90));
    s.setLimit(2, new RotationLimitHinge(X, 0, 100));
    s.setLimit(3, new RotationLimitHinge(X, 0, 80));
  },
};
