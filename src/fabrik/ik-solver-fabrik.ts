/**
 * FABRIK (forward and backward reaching) on the joint-solver frame.
 * @module
 */
import { IKSolverJoints } from "../joints/ik-solver-joints.js";
import type { ReadonlyVec3 } from "../math/vec3.js";

/**
 * FABRIK IK (FinalIK's IKSolverFABRIK): each iteration a forward reach puts the tip on the target and pulls every
 * joint, tip to root, to its bone's length from the next; a backward reach puts the root back and pushes every
 * joint, root to tip, to its bone's length from the previous. Between iterations (after each backward reach, when
 * any joint has a limit) the positions are turned into rotations, clamped by the limits root to tip, and turned
 * back into positions, so the next forward reach starts from a pose inside the limits; the final pose always goes
 * through that pass, so every joint ends inside its limit. Iteration stops when the tip is within `tolerance` of
 * the target or after `maxIterations`. Per-joint weights are CCD's; FABRIK ignores them.
 *
 * Reachability and the rest of the frame: see {@link IKSolverJoints}. Allocation-free.
 */
export class IKSolverFABRIK extends IKSolverJoints {
  /** @inheritdoc */
  protected solveImpl(): void {
    const limited = this.hasLimits();
    const g = this.goal;
    const P = this.positions;
    const rx = P[0]!;
    const ry = P[1]!;
    const rz = P[2]!;
    const tol = this.tolerance > 0 ? this.tolerance * this.tolerance : -1;
    for (let it = 0; it < this.maxIterations; it++) {
      if (this.tipWithinSq(g, tol)) break;
      this.lastIterations = it + 1;
      this.forwardReach(g);
      this.backwardReachTo(rx, ry, rz);
      if (limited) this.syncFromPositions(true);
    }
    if (!limited || this.lastIterations === 0) this.syncFromPositions(true);
  }

  /** Forward reach: the tip onto `target`, then every joint toward the root to its bone's length from the next. */
  forwardReach(target: ReadonlyVec3): void {
    const P = this.positions;
    const L = this.lengths;
    let k = 3 * (this.count - 1);
    P[k] = target.x;
    P[k + 1] = target.y;
    P[k + 2] = target.z;
    for (let i = this.count - 2; i >= 0; i--) {
      k = 3 * i;
      const nx = P[k + 3]!;
      const ny = P[k + 4]!;
      const nz = P[k + 5]!;
      const dx = P[k]! - nx;
      const dy = P[k + 1]! - ny;
      const dz = P[k + 2]! - nz;
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
      // a joint on top of the next has no direction to keep: it stays, and the rotation pass restores the length
      if (!(d > 0)) continue;
      const s = L[i]! / d;
      P[k] = nx + dx * s;
      P[k + 1] = ny + dy * s;
      P[k + 2] = nz + dz * s;
    }
  }

  /** Backward reach: the root onto `root`, then every joint toward the tip to its bone's length from the previous. */
  backwardReach(root: ReadonlyVec3): void {
    this.backwardReachTo(root.x, root.y, root.z);
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

  private backwardReachTo(rx: number, ry: number, rz: number): void {
    const P = this.positions;
    const L = this.lengths;
    P[0] = rx;
    P[1] = ry;
    P[2] = rz;
    for (let i = 0; i < this.count - 1; i++) {
      const k = 3 * i;
      const px = P[k]!;
      const py = P[k + 1]!;
      const pz = P[k + 2]!;
      const dx = P[k + 3]! - px;
      const dy = P[k + 4]! - py;
      const dz = P[k + 5]! - pz;
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (!(d > 0)) continue;
      const s = L[i]! / d;
      P[k + 3] = px + dx * s;
      P[k + 4] = py + dy * s;
      P[k + 5] = pz + dz * s;
    }
  }

  private tipWithinSq(g: ReadonlyVec3, tolSq: number): boolean {
    const k = 3 * (this.count - 1);
    const x = this.positions[k]! - g.x;
    const y = this.positions[k + 1]! - g.y;
    const z = this.positions[k + 2]! - g.z;
    return x * x + y * y + z * z <= tolSq;
  }
}
