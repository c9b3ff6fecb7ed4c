import { choleskySolve } from "./cholesky.js";

/**
 * The damped least-squares step of {@link IKSolverJacobian}: Δθ = Jᵀ(JJᵀ + λ²I)⁻¹e in preallocated arrays,
 * with joint limits handled by an active set: an angle at a limit whose step would push it further out is
 * taken out of the system (its column zeroed) and the step solved again, so the other angles take over.
 */
export class DampedLeastSquares {
  /** Angles; the step adds to them in place. */
  readonly theta: Float64Array;
  /** Lower limit per angle. */
  readonly lo: Float64Array;
  /** Upper limit per angle. */
  readonly hi: Float64Array;
  /** Weighted Jacobian, rows × angles, row-major. */
  jac = new Float64Array(0);
  /** Weighted error, one per row. */
  err = new Float64Array(0);
  /** Rows in use. */
  rows = 0;
  /** λ² of the next step. */
  lambdaSq = 0;
  /** Largest angle change allowed per step (the whole step is scaled down to it). */
  maxStep = 0.5;
  /** Largest angle change of the last step. */
  stepSize = 0;
  private normal = new Float64Array(0);
  private y = new Float64Array(0);
  private readonly dtheta: Float64Array;
  private readonly pinned: Uint8Array;

  /** A step over `dofs` angles and their limits (kept by reference). */
  constructor(theta: Float64Array, lo: Float64Array, hi: Float64Array) {
    this.theta = theta;
    this.lo = lo;
    this.hi = hi;
    this.dtheta = new Float64Array(theta.length);
    this.pinned = new Uint8Array(theta.length);
  }

  /** Allocates for up to `maxRows` rows (setup time). */
  allocate(maxRows: number): void {
    this.jac = new Float64Array(maxRows * this.theta.length);
    this.err = new Float64Array(maxRows);
    this.normal = new Float64Array(maxRows * maxRows);
    this.y = new Float64Array(maxRows);
  }

  /**
   * Takes one step: adds the damped least-squares Δθ (scaled to {@link maxStep}) to the angles, clamped to
   * the limits. False when the system could not be solved (the angles are unchanged).
   */
  step(): boolean {
    const D = this.theta.length;
    this.pinned.fill(0);
    // at most a few rounds: each pins angles that sit at a limit and are pushed past it
    for (let round = 0; round < 4; round++) {
      if (!this.solve()) return false;
      let pinnedNow = 0;
      for (let d = 0; d < D; d++) {
        const t = this.theta[d]!;
        const s = this.dtheta[d]!;
        if (this.pinned[d] === 0 && ((t <= this.lo[d]! && s < 0) || (t >= this.hi[d]! && s > 0))) {
          this.pinned[d] = 1;
          for (let i = 0; i < this.rows; i++) this.jac[i * D + d] = 0;
          pinnedNow++;
        }
      }
      if (pinnedNow === 0) break;
    }
    let big = 0;
    for (let d = 0; d < D; d++) {
      const s = this.dtheta[d]!;
      const a = s < 0 ? -s : s;
      if (a > big) big = a;
    }
    if (!(big < Infinity)) return false;
    const scale = big > this.maxStep ? this.maxStep / big : 1;
    let moved = 0;
    for (let d = 0; d < D; d++) {
      const old = this.theta[d]!;
      let t = old + this.dtheta[d]! * scale;
      t = t < this.lo[d]! ? this.lo[d]! : t > this.hi[d]! ? this.hi[d]! : t;
      this.theta[d] = t;
      const a = t > old ? t - old : old - t;
      if (a > moved) moved = a;
    }
    this.stepSize = moved;
    return true;
  }

  /** Δθ = Jᵀ(JJᵀ + λ²I)⁻¹e into `dtheta`; false when the Cholesky solve fails. */
  private solve(): boolean {
    const m = this.rows;
    const D = this.theta.length;
    const J = this.jac;
    const A = this.normal;
    for (let i = 0; i < m; i++) {
      const ri = i * D;
      for (let j = 0; j <= i; j++) {
        const rj = j * D;
        let s = 0;
        for (let d = 0; d < D; d++) s += J[ri + d]! * J[rj + d]!;
        A[i * m + j] = s;
        A[j * m + i] = s;
      }
      A[i * m + i] += this.lambdaSq;
      this.y[i] = this.err[i]!;
    }
    if (!choleskySolve(A, this.y, m, m)) return false;
    for (let d = 0; d < D; d++) {
      let s = 0;
      for (let i = 0; i < m; i++) s += J[i * D + d]! * this.y[i]!;
      this.dtheta[d] = s;
    }
    return true;
  }
}
