/**
 * FABRIK's close on a limited chain that stalls short of its goal: a few tip-to-root sweeps, each link turned within
 * its limit to swing the tip toward the goal, reach the bends FABRIK's reaches, which move joints along lines to
 * their neighbours, cannot start in a straight run of joints held between limited ones.
 * @module
 */
import type { JointBone } from "../joints/joint-bone.js";
import { clampToLimit } from "../joints/limits/chain-limits.js";
import { composeOwnTurns } from "../joints/own-turns.js";
import {
  Quat,
  type ReadonlyQuat,
  fromToRotation,
  multiply,
  multiplyConjugate,
  normalizeQuat,
  quatFromArray,
  quatToArray,
  rotateVector,
} from "../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";

/**
 * Sweeps at most per solve. Measured on the demo tentacle's orbit (test/helpers/ball-orbit.ts, 40 iterations, with
 * the ball): samples more than 1 % of the chain off 5/64 with none, 3/64 with 1, 0/64 with 2 and 3 (without the
 * ball 7, 5, 1 and 0/64).
 */
const SWEEPS = 3;

const tip = new Vec3();
const arm = new Vec3();
const aim = new Vec3();
const parent = new Quat();
const old = new Quat();
const rot = new Quat();
const turn = new Quat();

/** What may refuse a sweep besides the tip's distance: the solver, when colliders act in its iterations. */
export interface SweepGuard {
  /** Called before the sweeps, with the pose they start from. */
  beforeSweeps(): void;
  /** False when the sweep just made (the pose in the solver's arrays) must be undone. */
  keepsSweep(): boolean;
}

/** The sweeps' scratch (one per solver, sized at setup): each link's turn, and the pose before a sweep. */
export class ClosingSweeps {
  private readonly turns: Float64Array;
  private readonly positions: Float64Array;
  private readonly rotations: Float64Array;
  /** The squared distance from the goal that ends the sweeps (0: never), a field so no double crosses a call. */
  toleranceSquared = 0;

  /** Scratch for a chain of `count` joints. */
  constructor(count: number) {
    this.turns = new Float64Array(4 * count);
    this.positions = new Float64Array(3 * count);
    this.rotations = new Float64Array(4 * count);
  }

  /**
   * Runs the sweeps on positions `P` and rotations `R` (`O`: each bone's vector in its joint's frame; `rootParent`:
   * the rotation the root's limit is relative to) until the tip is within {@link toleranceSquared} of `goal`, or a
   * sweep brings it no nearer or `guard` refuses it (that sweep undone). Allocation-free.
   */
  run(
    P: Float64Array,
    R: Float64Array,
    O: Float64Array,
    bones: readonly JointBone[],
    rootParent: ReadonlyQuat,
    goal: ReadonlyVec3,
    guard: SweepGuard | null,
  ): void {
    const k = P.length - 3;
    let miss = distanceSquared(P, k, goal);
    if (!(miss <= this.toleranceSquared)) guard?.beforeSweeps();
    for (let s = 0; s < SWEEPS && !(miss <= this.toleranceSquared); s++) {
      this.positions.set(P);
      this.rotations.set(R);
      this.sweep(P, R, O, bones, rootParent, goal);
      const now = distanceSquared(P, k, goal);
      if (!(now < miss) || (guard !== null && !guard.keepsSweep())) {
        P.set(this.positions);
        R.set(this.rotations);
        return;
      }
      miss = now;
    }
  }

  /** One sweep, tip to root: each link turns by the arc that swings the tip onto the line to the goal, clamped. */
  private sweep(
    P: Float64Array,
    R: Float64Array,
    O: Float64Array,
    bones: readonly JointBone[],
    rootParent: ReadonlyQuat,
    goal: ReadonlyVec3,
  ): void {
    const n = bones.length;
    const D = this.turns;
    const k = 3 * (n - 1);
    tip.x = P[k]!;
    tip.y = P[k + 1]!;
    tip.z = P[k + 2]!;
    for (let i = 0; i < 4 * n; i += 4) {
      D[i] = 0;
      D[i + 1] = 0;
      D[i + 2] = 0;
      D[i + 3] = 1;
    }
    for (let i = n - 2; i >= 0; i--) {
      const i3 = 3 * i;
      const px = P[i3]!;
      const py = P[i3 + 1]!;
      const pz = P[i3 + 2]!;
      arm.x = tip.x - px;
      arm.y = tip.y - py;
      arm.z = tip.z - pz;
      aim.x = goal.x - px;
      aim.y = goal.y - py;
      aim.z = goal.z - pz;
      fromToRotation(turn, arm, aim);
      quatFromArray(old, R, 4 * i);
      multiply(rot, turn, old);
      normalizeQuat(rot, rot);
      // the links nearer the root have not turned yet: the parent's rotation in R is the one this sweep starts from
      if (i > 0) quatFromArray(parent, R, 4 * i - 4);
      const limit = bones[i]!.limit;
      if (limit !== null) clampToLimit(limit, i > 0 ? parent : rootParent, rot);
      multiplyConjugate(turn, rot, old);
      quatToArray(R, 4 * i, rot);
      quatToArray(D, 4 * i, turn);
      rotateVector(arm, turn, arm);
      tip.x = px + arm.x;
      tip.y = py + arm.y;
      tip.z = pz + arm.z;
    }
    composeOwnTurns(P, R, O, D, n, tip);
  }
}

/** Squared distance from the point at `P[k]` to `goal`. */
function distanceSquared(P: Float64Array, k: number, goal: ReadonlyVec3): number {
  const x = P[k]! - goal.x;
  const y = P[k + 1]! - goal.y;
  const z = P[k + 2]! - goal.z;
  return x * x + y * y + z * z;
}
