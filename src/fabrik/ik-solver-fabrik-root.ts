/**
 * Several FABRIK chains sharing a root that moves (FinalIK's IKSolverFABRIKRoot).
 * @module
 */
import { Vec3, isFiniteVec } from "../math/vec3.js";
import { FBBIKError } from "../solver/errors.js";
import type { IKPose } from "../solver/pose.js";
import type { IKSolverFABRIK } from "./ik-solver-fabrik.js";
import { iterationBound } from "../joints/iteration-bound.js";

/** One chain of an {@link IKSolverFABRIKRoot}. */
export class FABRIKChain {
  /** The chain's solver: its `ikPosition` is the chain's target, its `ikPositionWeight` its weight. */
  readonly solver: IKSolverFABRIK;
  /** How strongly the chain pulls the shared root toward where it wants it, ≥ 0 (FinalIK's pull). */
  pull = 1;

  /** Wraps `solver`. */
  constructor(solver: IKSolverFABRIK) {
    this.solver = solver;
  }
}

const rootStart = new Vec3();
const moved = new Vec3();
const first = new Vec3();
const anchor = new Vec3();

/**
 * FABRIK for a tree: several chains (fingers of a hand, the tails of a multi-tail) whose first joints hang rigidly
 * on one `root` bone, which the solver translates (never turns).
 *
 * Each iteration every chain does its forward reach (tip on its target, joints pulled toward the root), which
 * leaves its first joint where that chain would like it. The root's translation is then the `pull`-weighted mean of
 * those displacements (the weighted centroid of the chains' wishes, taken from where the first joints started),
 * scaled by `1 − rootPin` so that `rootPin` 1 keeps the root where it is; every chain then does its backward reach
 * from its first joint moved by that translation. After `maxIterations` the chains' rotations follow their
 * positions (limits applied), the root's new position is written, then each chain's rotations.
 *
 * Weights: this solver's `ikPositionWeight` scales the root's translation and every chain's write (0 or NaN:
 * nothing written); a chain's own `ikPositionWeight` scales its write too. A chain with weight 0, a negative or NaN
 * pull or a non-finite target neither pulls nor is written; one with pull 0 follows the root without moving it. The
 * chains' own reachability checks are off (the root moves).
 * Allocation-free.
 */
export class IKSolverFABRIKRoot {
  /** The pose read and written. */
  readonly pose: IKPose;
  /** The shared root bone. */
  readonly root: number;
  /** The chains. */
  readonly chains: readonly FABRIKChain[];
  /** How much of the solve is written, in [0, 1]. */
  ikPositionWeight = 1;
  /** How much the root stays where the animation put it, in [0, 1] (FinalIK's rootPin). */
  rootPin = 0;
  /** Iterations per solve. */
  maxIterations = 4;
  /** Iterations the last solve ran. */
  lastIterations = 0;
  private readonly starts: Float64Array;
  private readonly active: Uint8Array;
  private readonly chainWeights: Float64Array;

  /**
   * Binds the solver to `pose`, the shared `root` bone and the chains (each a FABRIK solver on the same pose whose
   * first joint follows the root rigidly). Throws {@link FBBIKError} when a chain is on another pose or turns the root.
   */
  constructor(pose: IKPose, root: number, chains: readonly IKSolverFABRIK[]) {
    const problems: string[] = [];
    if (chains.length === 0) problems.push("a FABRIK root needs at least one chain");
    chains.forEach((c, i) => {
      if (c.pose !== pose) problems.push(`chain ${i} works on another pose`);
      for (let j = 1; j < c.count; j++) {
        if (c.bones[j]!.id === root) problems.push(`chain ${i} turns the root bone ${root}`);
      }
    });
    if (problems.length > 0) throw new FBBIKError(problems, "IKSolverFABRIKRoot");
    this.pose = pose;
    this.root = root;
    this.chains = chains.map((c) => new FABRIKChain(c));
    this.starts = new Float64Array(3 * chains.length);
    this.active = new Uint8Array(chains.length);
    this.chainWeights = new Float64Array(chains.length);
  }

  /** Reads, solves and writes the root and the chains. Never throws for per-frame input. */
  update(): void {
    // NaN fails both tests: skipped, as the chain solvers skip it (it read as 1 through the clamp before)
    if (!(this.ikPositionWeight > 0)) return;
    const w = this.ikPositionWeight < 1 ? this.ikPositionWeight : 1;
    this.lastIterations = 0;
    this.pose.getPosition(this.root, rootStart);
    if (!isFiniteVec(rootStart)) return;
    const m = this.chains.length;
    let any = false;
    for (let c = 0; c < m; c++) {
      const chain = this.chains[c]!;
      const s = chain.solver;
      const cw = s.ikPositionWeight;
      this.chainWeights[c] = cw;
      const ok = cw > 0 && chain.pull >= 0 && s.beginSolve(false);
      this.active[c] = ok ? 1 : 0;
      if (!ok) continue;
      any = true;
      s.getJointPosition(0, first);
      this.starts[3 * c] = first.x;
      this.starts[3 * c + 1] = first.y;
      this.starts[3 * c + 2] = first.z;
    }
    if (!any) return;
    moved.x = moved.y = moved.z = 0;
    const pin = this.rootPin > 0 ? (this.rootPin < 1 ? this.rootPin : 1) : 0;
    const iterations = iterationBound(this.maxIterations);
    for (let it = 0; it < iterations; it++) {
      this.lastIterations = it + 1;
      let sx = 0;
      let sy = 0;
      let sz = 0;
      let sw = 0;
      for (let c = 0; c < m; c++) {
        if (this.active[c] === 0) continue;
        const chain = this.chains[c]!;
        chain.solver.forwardReach(chain.solver.ikPosition);
        chain.solver.getJointPosition(0, first);
        const p = Number.isFinite(chain.pull) ? chain.pull : 0;
        sx += (first.x - this.starts[3 * c]!) * p;
        sy += (first.y - this.starts[3 * c + 1]!) * p;
        sz += (first.z - this.starts[3 * c + 2]!) * p;
        sw += p;
      }
      const k = sw > 0 ? (1 - pin) / sw : 0;
      moved.x = sx * k;
      moved.y = sy * k;
      moved.z = sz * k;
      for (let c = 0; c < m; c++) {
        if (this.active[c] === 0) continue;
        anchor.x = this.starts[3 * c]! + moved.x;
        anchor.y = this.starts[3 * c + 1]! + moved.y;
        anchor.z = this.starts[3 * c + 2]! + moved.z;
        this.chains[c]!.solver.backwardReach(anchor);
      }
    }
    if (moved.x !== 0 || moved.y !== 0 || moved.z !== 0) {
      moved.x = rootStart.x + moved.x * w;
      moved.y = rootStart.y + moved.y * w;
      moved.z = rootStart.z + moved.z * w;
      this.pose.setPosition(this.root, moved);
    }
    for (let c = 0; c < m; c++) {
      if (this.active[c] === 0) continue;
      const s = this.chains[c]!.solver;
      s.finishRotations();
      s.ikPositionWeight = this.chainWeights[c]! * w;
      s.endSolve();
      s.ikPositionWeight = this.chainWeights[c]!;
    }
  }
}
