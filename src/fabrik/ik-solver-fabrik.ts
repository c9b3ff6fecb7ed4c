/**
 * FABRIK (forward and backward reaching) on the joint-solver frame.
 * @module
 */
import { IKSolverJoints } from "../joints/ik-solver-joints.js";
import { isSingleAxisLimit } from "../joints/limits/rotation-limit.js";
import { ChainSwivel } from "./chain-swivel.js";
import { ClosingSweeps, type SweepGuard } from "./closing-sweeps.js";
import { forwardReachWithinLimits } from "./limited-reach.js";
import { placeFrom } from "./reach-step.js";
import { StraightBend } from "./straight-bend.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";
import { iterationBound } from "../joints/iteration-bound.js";

/** How much deeper into the colliders (× the chain's length) a closing sweep may take a joint: rounding. */
const SWEEP_DEPTH_SLACK = 1e-9;

/**
 * FABRIK IK (FinalIK's IKSolverFABRIK): each iteration a forward reach puts the tip on the target and pulls every
 * joint, tip to root, to its bone's length from the next; a backward reach puts the root back and pushes every
 * joint, root to tip, to its bone's length from the previous. Between iterations (after each backward reach, when
 * any joint has a limit) the positions are turned into rotations, clamped by the limits root to tip, and turned
 * back into positions, so the next forward reach starts from a pose inside the limits; the final pose always goes
 * through that pass, so every joint ends inside its limit. Iteration stops when the tip is within `tolerance` of
 * the target or after `maxIterations`. Per-joint weights are CCD's; FABRIK ignores them. A single-axis limit (a
 * hinge) drops every turn off its axis, so the rotation pass first rolls the bone before it (unless that joint is a
 * hinge too) about itself to bring the next joint that is no hinge, or the tip, into the hinge's plane, swivels that
 * bone when its own limit holds the roll back, runs at the swivel of the whole chain that ends nearest, and puts
 * the inner joints of a run of hinges on the side the hinges can bend to (not in FinalIK; ARCHITECTURE.md,
 * deviation 20). With colliders (and `collideInIterations`), the joints are pushed out of them after every backward
 * reach, so the chain wraps round a collider between the root and the target (deviation 21).
 *
 * Reachability and the rest of the frame: see {@link IKSolverJoints}. Allocation-free.
 */
export class IKSolverFABRIK extends IKSolverJoints {
  private readonly rootStart = new Vec3();
  private readonly chainSwivel = new ChainSwivel(this.count);
  private readonly closingSweeps = new ClosingSweeps(this.count);
  /** The colliders' depth before the closing sweeps. */
  private depthBeforeSweeps = 0;
  /** Undoes a closing sweep that takes a joint deeper into the colliders than before the sweeps. */
  private readonly sweepGuard: SweepGuard = {
    beforeSweeps: () => {
      this.measureCollisionDepth();
      this.depthBeforeSweeps = this.collisionDepth;
    },
    keepsSweep: () => {
      this.measureCollisionDepth();
      return !(this.collisionDepth > this.depthBeforeSweeps + SWEEP_DEPTH_SLACK * this.chainLength);
    },
  };
  private readonly straightBend = new StraightBend();
  protected override rollsForHinges = true;
  /** See {@link limitedReach}: the forward reach keeps the limits, and the closing sweeps run. */
  private limitsInReach = true;
  private closes = true;

  /**
   * Whether, on a chain with rotation limits, the forward reach keeps each joint's limit from its child's side (so a
   * bend the limits refuse near the tip moves toward the root) and a solve still off its goal closes with up to three
   * tip-to-root sweeps, each link turned within its limit toward the goal; a chain lying along the line to its goal,
   * which the reaches leave straight, is bent first toward the side its first inner hinge bends to (default true; not
   * in FinalIK, whose FABRIK clamps only between iterations and can stop far off a target its limits allow: false
   * solves as it does). Chains without limits solve the same either way. ARCHITECTURE.md, deviation 22.
   */
  get limitedReach(): boolean {
    return this.limitsInReach && this.closes;
  }
  set limitedReach(on: boolean) {
    this.limitsInReach = on;
    this.closes = on;
  }

  /**
   * Whether the rotation pass rolls the bone before a hinge (a single-axis limit) so that the hinge's plane holds
   * the target, and places a run of hinges' inner joints where the hinges can bend (default true; not in FinalIK,
   * whose FABRIK leaves a hinge's plane where it is and ends far off a target out of it: false, with
   * {@link limitedReach} false, solves as FinalIK's does). ARCHITECTURE.md, deviation 20.
   */
  get hingeRoll(): boolean {
    return this.rollsForHinges;
  }
  set hingeRoll(on: boolean) {
    this.rollsForHinges = on;
  }

  /**
   * With {@link hingeRoll}: whether the bone before a hinge also swivels about the line to the point the hinge's
   * plane must hold when its own limit (a twist limit) holds the roll back, and the whole chain swivels about the line
   * from its root to the goal so that the joints above share the turn (default true, at 2.5–4 times the solve's time of
   * rolling only on such chains; false rolls only). ARCHITECTURE.md, deviation 20.
   */
  get hingeSwivel(): boolean {
    return this.swivelsForHinges;
  }
  set hingeSwivel(on: boolean) {
    this.swivelsForHinges = on;
  }

  /** @inheritdoc */
  /** "IKSolverFABRIK". */
  override getClassName(): string {
    return "IKSolverFABRIK";
  }

  protected solveImpl(): void {
    const limited = this.limitsActive();
    const collides = this.collideInIterations && this.colliders !== null;
    // a chain with an inner hinge has the hinge help and the chain's swivel: keeping its limits in the reach as well
    // left the stiff spine chain 11.3 % of its reach off at worst against 2.9 % (fabrik-mixed-limits.test.ts)
    const reachLimited = limited && this.limitsInReach && !this.hasInnerHinge();
    const g = this.goal;
    const P = this.positions;
    const root = this.rootStart;
    root.x = P[0]!;
    root.y = P[1]!;
    root.z = P[2]!;
    // a chain along the line to its goal stays straight under the reaches: bent first, the way its limits allow
    if (this.limitsInReach && limited && this.straightBend.run(P, this.rotations, this.lengths, this.bones, g)) {
      this.syncFromPositions(true);
    }
    const iterations = iterationBound(this.maxIterations);
    for (let it = 0; it < iterations; it++) {
      if (this.tipWithinTolerance()) break;
      this.lastIterations = it + 1;
      if (reachLimited) this.forwardReachLimited(g);
      else this.forwardReach(g);
      this.backwardReach(root);
      // a position constraint like the root's: the next forward reach starts from a chain that goes round them
      if (collides) this.pushOutOfColliders();
      if (limited) this.limitedPass(it);
    }
    if (!limited || this.lastIterations === 0) this.syncFromPositions(true);
    else if (this.closes) this.close();
  }

  /** The forward reach with the limits kept from each joint's child's side (limited-reach.ts). */
  private forwardReachLimited(target: ReadonlyVec3): void {
    forwardReachWithinLimits(this.positions, this.rotations, this.offsets, this.lengths, this.bones, target);
  }

  /**
   * The closing sweeps (closing-sweeps.ts), when the iterations left the tip off its goal; with colliders in the
   * iterations, a sweep that takes the chain deeper into them is undone: the sub-steps' push-out after the solve,
   * clamped by the limits, cannot take it all back (targets inside the orbit's ball: the deepest joint 3.95 % of the
   * chain inside → 1.5 %; colliders-in-iterations.test.ts).
   */
  private close(): void {
    const sweeps = this.closingSweeps;
    sweeps.toleranceSquared = this.tolerance > 0 ? this.tolerance * this.tolerance : 0;
    const guard = this.collideInIterations && this.colliders !== null ? this.sweepGuard : null;
    sweeps.run(this.positions, this.rotations, this.offsets, this.bones, this.rootParentRotation, this.goal, guard);
  }

  /** Forward reach: the tip onto `target`, then every joint toward the root to its bone's length from the next. */
  forwardReach(target: ReadonlyVec3): void {
    const P = this.positions;
    const k = 3 * (this.count - 1);
    P[k] = target.x;
    P[k + 1] = target.y;
    P[k + 2] = target.z;
    // a joint on top of the next has no direction to keep: it stays, and the rotation pass restores the length
    for (let i = this.count - 2; i >= 0; i--) placeFrom(P, 3 * i, 3 * i + 3, this.lengths, i);
  }

  /** Backward reach: the root onto `root`, then every joint toward the tip to its bone's length from the previous. */
  backwardReach(root: ReadonlyVec3): void {
    const P = this.positions;
    P[0] = root.x;
    P[1] = root.y;
    P[2] = root.z;
    for (let i = 0; i < this.count - 1; i++) placeFrom(P, 3 * i + 3, 3 * i, this.lengths, i);
  }

  /** The current position of joint `index` (component space), written into `out`. */
  getJointPosition(index: number, out: { x: number; y: number; z: number }): void {
    const k = 3 * index;
    out.x = this.positions[k]!;
    out.y = this.positions[k + 1]!;
    out.z = this.positions[k + 2]!;
  }

  /** Makes the rotations follow the reached positions, limits applied (the pass run between iterations). */
  finishRotations(): void {
    this.syncFromPositions(true);
  }

  /**
   * The rotation pass after iteration `iteration` (0 first): with the hinge swivel on and a hinge inside the chain, at
   * the swivel of the whole chain about the line from its root to the goal whose clamped tip ends nearest
   * (chain-swivel.ts); else once.
   */
  private limitedPass(iteration: number): void {
    const s = this.chainSwivel;
    const P = this.positions;
    const R = this.rotations;
    if (
      !this.rollsForHinges ||
      !this.swivelsForHinges ||
      !this.hasInnerHinge() ||
      !s.begin(P, R, this.goal, iteration)
    ) {
      this.syncFromPositions(true);
      return;
    }
    while (!s.done()) {
      s.place(P, R);
      // a swivelled trial only ranks the swivel: the bone before a hinge searches its own in whole steps there
      this.fineSwivels = !s.swivelled();
      this.syncFromPositions(true);
      s.score(P, R, this.goal);
    }
    this.fineSwivels = true;
    s.finish(P, R);
  }

  /** True when a joint between the root and the tip has a single-axis limit (a hinge) the solve applies. */
  private hasInnerHinge(): boolean {
    for (let i = 1; i < this.count - 1; i++) {
      const limit = this.activeLimit(i);
      if (limit !== null && isSingleAxisLimit(limit)) return true;
    }
    return false;
  }

  /** True when the tip is within `tolerance` of the goal (never for a tolerance of 0). */
  private tipWithinTolerance(): boolean {
    const k = 3 * (this.count - 1);
    const g = this.goal;
    const x = this.positions[k]! - g.x;
    const y = this.positions[k + 1]! - g.y;
    const z = this.positions[k + 2]! - g.z;
    return this.tolerance > 0 && x * x + y * y + z * z <= this.tolerance * this.tolerance;
  }
}
