/**
 * FABRIK's help for a hinge behind limited joints: the whole chain as FABRIK placed it swivels about the line from
 * its root to the goal (every bone keeps its length, the tip stays on the goal), and the rotation pass, limits
 * applied, runs at a few swivels; the one whose clamped tip ends nearest the goal is kept. The joints above the bone
 * before a hinge thus share the turn the hinge's plane needs, where that bone alone is held back by its limit.
 * @module
 */
import type { ReadonlyVec3 } from "../math/vec3.js";

/**
 * The first iteration tries the swivels of a ring (90° apart), then one either side of the best (30°); the second,
 * fourth and later even-numbered ones, which start from the chain the last search swivelled, try none and one either
 * side (20°); the others run the pass once. Measured on the chains of test/unit/fabrik/fabrik-mixed-limits.test.ts
 * (600 targets), against a search in every iteration: RobotExpressive's arm 3.55 % of the reach off on average
 * against 3.37 %, at 8.7 passes per solve against 9.7.
 */
const RING = 4;
const FIRST_STEP = Math.PI / 6;
const LATER_STEP = Math.PI / 9;

/**
 * A tip this near the goal (fraction of the chain's length) needs no other swivel: in the first iteration, which
 * later ones still refine, 3 %; in later ones 1 %. Most reachable targets end there at FABRIK's own swivel, and the
 * pass then runs once. A threshold of 1e-6 (600 targets) costs RobotExpressive's finger 12.6 passes per solve
 * against 6.9 for a mean of 0.63 % of the reach off against 0.80 %.
 */
const FIRST_SERVED = 3e-2;
const LATER_SERVED = 1e-2;

/**
 * The swivel search's state and scratch arrays (one per solver, sized at setup). Per solve: {@link begin}, then per
 * trial {@link place}, the caller's rotation pass and {@link score}, until {@link done}; then {@link finish}.
 * Allocation-free.
 */
export class ChainSwivel {
  /** The positions FABRIK left, 3 per joint. */
  private readonly base: Float64Array;
  /** The rotations before the pass (it carries each joint's twist from them), 4 per joint. */
  private readonly startRotations: Float64Array;
  private readonly bestPositions: Float64Array;
  private readonly bestRotations: Float64Array;
  /** The unit line from the root to the goal. */
  private ux = 0;
  private uy = 0;
  private uz = 0;
  /** The trial's number and swivel (radians), and the best swivel and its tip's squared distance from the goal. */
  private trial = 0;
  private trials = 0;
  private first = true;
  private angle = 0;
  private bestAngle = 0;
  private bestMiss = 0;
  private served = 0;

  /** Scratch for a chain of `count` joints. */
  constructor(count: number) {
    this.base = new Float64Array(3 * count);
    this.startRotations = new Float64Array(4 * count);
    this.bestPositions = new Float64Array(3 * count);
    this.bestRotations = new Float64Array(4 * count);
  }

  /**
   * Keeps `P` (FABRIK's positions) and `R` (the rotations before the pass) and the line from the root (joint 0) to
   * `goal`, for the pass after iteration `iteration` (0 first: a ring of swivels; odd: only either side of none).
   * False when that iteration searches none, or the goal is on the root (no line to swivel about): the caller runs
   * the pass once as it is.
   */
  begin(P: Float64Array, R: Float64Array, goal: ReadonlyVec3, iteration: number): boolean {
    const first = iteration === 0;
    if (!first && (iteration & 1) === 0) return false;
    const x = goal.x - P[0]!;
    const y = goal.y - P[1]!;
    const z = goal.z - P[2]!;
    const d = Math.sqrt(x * x + y * y + z * z);
    if (!(d > 0)) return false;
    this.ux = x / d;
    this.uy = y / d;
    this.uz = z / d;
    this.base.set(P);
    this.startRotations.set(R);
    this.trial = 0;
    this.first = first;
    this.trials = first ? RING + 2 : 3;
    this.bestAngle = 0;
    this.bestMiss = Infinity;
    // the chain's length from the positions: a double handed to a call V8 may not inline is boxed
    let length = 0;
    for (let k = 3; k < P.length; k += 3) {
      const dx = P[k]! - P[k - 3]!;
      const dy = P[k + 1]! - P[k - 2]!;
      const dz = P[k + 2]! - P[k - 1]!;
      length += Math.sqrt(dx * dx + dy * dy + dz * dz);
    }
    const served = first ? FIRST_SERVED : LATER_SERVED;
    this.served = served * length * (served * length);
    return true;
  }

  /** True when no trial is left, or the best one's tip is near enough the goal. */
  done(): boolean {
    return this.trial >= this.trials || this.bestMiss <= this.served;
  }

  /**
   * Sets the next trial's swivel (the ring or none, then either side of the best), writes FABRIK's positions swivelled
   * by it about the line into `P` and puts `R` back as it was before the pass.
   */
  place(P: Float64Array, R: Float64Array): void {
    const ring = this.first ? RING : 1;
    const q = this.trial;
    if (q < ring) this.angle = (2 * Math.PI * q) / ring;
    else {
      const step = this.first ? FIRST_STEP : LATER_STEP;
      this.angle = this.bestAngle + (q > ring ? -step : step);
    }
    R.set(this.startRotations);
    const B = this.base;
    const rx = B[0]!;
    const ry = B[1]!;
    const rz = B[2]!;
    const ux = this.ux;
    const uy = this.uy;
    const uz = this.uz;
    const c = Math.cos(this.angle);
    const s = Math.sin(this.angle);
    // Rodrigues' rotation about the line through the root
    for (let k = 0; k < B.length; k += 3) {
      const x = B[k]! - rx;
      const y = B[k + 1]! - ry;
      const z = B[k + 2]! - rz;
      const along = (x * ux + y * uy + z * uz) * (1 - c);
      P[k] = rx + x * c + (uy * z - uz * y) * s + ux * along;
      P[k + 1] = ry + y * c + (uz * x - ux * z) * s + uy * along;
      P[k + 2] = rz + z * c + (ux * y - uy * x) * s + uz * along;
    }
  }

  /** True when the trial {@link place} set swivels the chain (false at FABRIK's own swivel). */
  swivelled(): boolean {
    return this.angle !== 0;
  }

  /** Scores the trial just passed (`P`, `R` after the rotation pass): keeps it when its tip ends nearer the goal. */
  score(P: Float64Array, R: Float64Array, goal: ReadonlyVec3): void {
    this.trial++;
    const k = P.length - 3;
    const x = P[k]! - goal.x;
    const y = P[k + 1]! - goal.y;
    const z = P[k + 2]! - goal.z;
    const miss = x * x + y * y + z * z;
    // another swivel must gain more than rounding (a leg's swivels tie to 1e-12, and rounding turned its knee aside),
    // so a chain the first trial serves stays as the pass left it
    if (!(miss < this.bestMiss * (1 - 1e-9))) return;
    this.bestMiss = miss;
    this.bestAngle = this.angle;
    this.bestPositions.set(P);
    this.bestRotations.set(R);
  }

  /** Writes the best trial's positions and rotations into `P` and `R` (none kept: a pass that read NaN, left as is). */
  finish(P: Float64Array, R: Float64Array): void {
    if (this.bestMiss === Infinity) return;
    P.set(this.bestPositions);
    R.set(this.bestRotations);
  }
}
