import { choleskyFactor, choleskySolve, choleskySubstitute } from "./cholesky.js";

/**
 * The damped least-squares step of {@link IKSolverJacobian}: Δθ = Jᵀ(JJᵀ + λ²I)⁻¹e in preallocated arrays,
 * with joint limits handled by an active set: an angle at a limit whose step would push it further out is
 * taken out of the system (its column zeroed) and the step solved again, so the other angles take over.
 *
 * With several priority levels (rows grouped, highest first) each level is solved in the null space of
 * the levels above it (task priority): Δθ += N(JₗN)ᵀ((JₗN)(JₗN)ᵀ + λ²I)⁻¹(eₗ − JₗΔθ), then N shrinks by
 * the projector onto the rows of JₗN (a pseudo-inverse regularised at 1e-6 of their scale). Each level has its own λ
 * ({@link levelLambdaSq}), so a lower level's failed steps do not slow the higher ones.
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
  /** Priority levels in use (1: a plain weighted solve). */
  levels = 1;
  /** First row per level and one past the last at [levels] (set with {@link levels}). */
  levelStart = new Int32Array(1);
  /** λ² of the next step per level (the first also for a single level's solve). */
  levelLambdaSq = new Float64Array(1);
  /** Largest angle change allowed per step (the whole step is scaled down to it). */
  maxStep = 0.5;
  /** Largest angle change of the last step. */
  stepSize = 0;
  private normal = new Float64Array(0);
  private y = new Float64Array(0);
  /** The null-space projector N of the levels solved so far, angles × angles. */
  private readonly proj: Float64Array;
  /** JₗN, rows × angles. */
  private jt = new Float64Array(0);
  private col = new Float64Array(0);
  private readonly tmp: Float64Array;
  private readonly dtheta: Float64Array;
  private readonly pinned: Uint8Array;

  /** A step over `dofs` angles and their limits (kept by reference). */
  constructor(theta: Float64Array, lo: Float64Array, hi: Float64Array) {
    this.theta = theta;
    this.lo = lo;
    this.hi = hi;
    this.dtheta = new Float64Array(theta.length);
    this.pinned = new Uint8Array(theta.length);
    this.proj = new Float64Array(theta.length * theta.length);
    this.tmp = new Float64Array(theta.length);
  }

  /** Allocates for up to `maxRows` rows in up to `maxLevels` levels (setup time). */
  allocate(maxRows: number, maxLevels: number): void {
    this.levelLambdaSq = new Float64Array(maxLevels > 0 ? maxLevels : 1);
    this.jac = new Float64Array(maxRows * this.theta.length);
    this.err = new Float64Array(maxRows);
    this.normal = new Float64Array(maxRows * maxRows);
    this.y = new Float64Array(maxRows);
    this.jt = new Float64Array(maxRows * this.theta.length);
    this.col = new Float64Array(maxRows);
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
      if (!(this.levels > 1 ? this.solveLevels() : this.solve())) return false;
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
      A[i * m + i] += this.levelLambdaSq[0]!;
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

  /** Δθ level by level, each in the null space of the ones above (see the class); false on a failed solve. */
  private solveLevels(): boolean {
    const D = this.theta.length;
    const J = this.jac;
    const N = this.proj;
    const A = this.normal;
    const jt = this.jt;
    const y = this.y;
    N.fill(0);
    for (let d = 0; d < D; d++) N[d * D + d] = this.pinned[d] === 1 ? 0 : 1;
    this.dtheta.fill(0);
    for (let l = 0; l < this.levels; l++) {
      const r0 = this.levelStart[l]!;
      const m = this.levelStart[l + 1]! - r0;
      let trace = 0;
      for (let i = 0; i < m; i++) {
        const ri = (r0 + i) * D;
        // JₗN row i, and the residual left by the levels above
        let res = this.err[r0 + i]!;
        for (let d = 0; d < D; d++) {
          let s = 0;
          for (let c = 0; c < D; c++) s += J[ri + c]! * N[c * D + d]!;
          jt[i * D + d] = s;
          res -= J[ri + d]! * this.dtheta[d]!;
        }
        y[i] = res;
      }
      for (let i = 0; i < m; i++) {
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let d = 0; d < D; d++) s += jt[i * D + d]! * jt[j * D + d]!;
          A[i * m + j] = s;
          A[j * m + i] = s;
        }
        trace += A[i * m + i]!;
        A[i * m + i] += this.levelLambdaSq[l]!;
      }
      if (!choleskySolve(A, y, m, m)) return false;
      const g = this.tmp;
      for (let d = 0; d < D; d++) {
        let s = 0;
        for (let i = 0; i < m; i++) s += jt[i * D + d]! * y[i]!;
        g[d] = s;
      }
      if (l === 0) {
        for (let d = 0; d < D; d++) this.dtheta[d] += g[d]!;
      } else {
        // projected once more: the regularised N leaks ε²/σ² into the levels above, N·N only its square
        for (let d = 0; d < D; d++) {
          let s = 0;
          for (let c = 0; c < D; c++) s += N[d * D + c]! * g[c]!;
          this.dtheta[d] += s;
        }
      }
      if (l === this.levels - 1 || !(trace > 0)) continue;
      // N −= (JₗN)ᵀ((JₗN)(JₗN)ᵀ + ε²I)⁻¹(JₗN): the directions this level uses are closed to the next
      const eps2 = 1e-12 * (trace / m);
      for (let i = 0; i < m; i++) {
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let d = 0; d < D; d++) s += jt[i * D + d]! * jt[j * D + d]!;
          A[i * m + j] = s;
          A[j * m + i] = s;
        }
        A[i * m + i] += eps2;
      }
      if (!choleskyFactor(A, m, m)) return false;
      const col = this.col;
      for (let d = 0; d < D; d++) {
        for (let i = 0; i < m; i++) col[i] = jt[i * D + d]!;
        choleskySubstitute(A, col, m, m);
        for (let c = 0; c < D; c++) {
          let s = 0;
          for (let i = 0; i < m; i++) s += jt[i * D + c]! * col[i]!;
          N[c * D + d] -= s;
        }
      }
    }
    return true;
  }
}
