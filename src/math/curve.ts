/**
 * A keyframed curve of one number over time (what FinalIK's components take as Unity AnimationCurves):
 * cubic Hermite between keys with per-key in/out tangents, clamped to the first and last key outside.
 * Evaluation allocates nothing.
 */

/** One key of a {@link Curve}. */
export interface CurveKey {
  /** Time of the key. */
  time: number;
  /** Value at the key. */
  value: number;
  /** Slope arriving at the key (value per time). Default: automatic (smooth). */
  inTangent?: number;
  /** Slope leaving the key. Default: automatic (smooth). */
  outTangent?: number;
}

/**
 * Time in, value out: the numbers of {@link Curve.evaluateInto}, in an object's fields. A class, not an
 * object literal: V8 gives literals with the same property names one shared hidden class, and a Babylon
 * loader storing an object in the `b` of its own `{ a, b }` literals turns that field into a tagged one for
 * all of them, so every double stored into it is boxed (16 bytes a frame, seen with
 * `--trace-generalization`). Any object with numeric `a` and `b` fields of its own class works too.
 */
export class CurveIO {
  /** Time (input). */
  a = 0;
  /** Value (output). */
  b = 0;
}

/** The scratch of {@link Curve.evaluate}. */
const scratch = new CurveIO();

/** A keyframed curve evaluated with cubic Hermite interpolation. */
export class Curve {
  private readonly times: Float64Array;
  private readonly values: Float64Array;
  private readonly inTangents: Float64Array;
  private readonly outTangents: Float64Array;

  /**
   * Builds the curve from keys (sorted by time here). Missing tangents are automatic: the slope between
   * the neighbouring keys (flat at the ends), as a smooth Unity curve does.
   */
  constructor(keys: readonly CurveKey[]) {
    const sorted = [...keys]
      .filter((k) => Number.isFinite(k.time) && Number.isFinite(k.value))
      .sort((a, b) => a.time - b.time);
    const n = sorted.length;
    this.times = new Float64Array(n);
    this.values = new Float64Array(n);
    this.inTangents = new Float64Array(n);
    this.outTangents = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const k = sorted[i]!;
      this.times[i] = k.time;
      this.values[i] = k.value;
      let auto = 0;
      if (i > 0 && i < n - 1) {
        const dt = sorted[i + 1]!.time - sorted[i - 1]!.time;
        auto = dt > 0 ? (sorted[i + 1]!.value - sorted[i - 1]!.value) / dt : 0;
      }
      this.inTangents[i] = k.inTangent ?? auto;
      this.outTangents[i] = k.outTangent ?? auto;
    }
  }

  /** A straight line from (t0, v0) to (t1, v1). */
  static linear(t0: number, v0: number, t1: number, v1: number): Curve {
    const slope = t1 !== t0 ? (v1 - v0) / (t1 - t0) : 0;
    return new Curve([
      { time: t0, value: v0, inTangent: slope, outTangent: slope },
      { time: t1, value: v1, inTangent: slope, outTangent: slope },
    ]);
  }

  /** An ease-in-out from (t0, v0) to (t1, v1) (flat tangents at both ends). */
  static easeInOut(t0: number, v0: number, t1: number, v1: number): Curve {
    return new Curve([
      { time: t0, value: v0, inTangent: 0, outTangent: 0 },
      { time: t1, value: v1, inTangent: 0, outTangent: 0 },
    ]);
  }

  /**
   * An interaction's weight curve: 0 → 1 over `rise` seconds, held until `hold`, back to 0 at `end`, flat
   * at every key (reach, hold the object, let go).
   */
  static riseHoldFall(rise: number, hold: number, end: number): Curve {
    return new Curve([
      { time: 0, value: 0, outTangent: 0 },
      { time: rise, value: 1, inTangent: 0, outTangent: 0 },
      { time: hold, value: 1, inTangent: 0, outTangent: 0 },
      { time: end, value: 0, inTangent: 0 },
    ]);
  }

  /** A constant value. */
  static constant(value: number): Curve {
    return new Curve([{ time: 0, value, inTangent: 0, outTangent: 0 }]);
  }

  /** `io.b` = {@link duration} (for the per-frame paths: no double returned). */
  durationInto(io: CurveIO): void {
    const n = this.times.length;
    io.b = n > 0 ? this.times[n - 1]! : 0;
  }

  /** Number of keys. */
  get length(): number {
    return this.times.length;
  }

  /** Time of the last key (0 for an empty curve): a curve's length in FinalIK's sense. */
  get duration(): number {
    const n = this.times.length;
    return n > 0 ? this.times[n - 1]! : 0;
  }

  /** Time of key `i`. */
  keyTime(i: number): number {
    return this.times[i]!;
  }

  /** Value of key `i`. */
  keyValue(i: number): number {
    return this.values[i]!;
  }

  /** The curve's value at `time` (the first/last key's value outside the keys; 0 for an empty curve). */
  evaluate(time: number): number {
    scratch.a = time;
    this.evaluateInto(scratch);
    return scratch.b;
  }

  /**
   * `io.b` = the curve's value at time `io.a` ({@link evaluate} without numbers crossing the call,
   * see ARCHITECTURE.md, "Doubles across calls"; per-frame callers use this form).
   */
  evaluateInto(io: CurveIO): void {
    const time = io.a;
    const times = this.times;
    const n = times.length;
    if (n === 0) {
      io.b = 0;
      return;
    }
    if (!(time > times[0]!)) {
      io.b = this.values[0]!;
      return;
    }
    if (time >= times[n - 1]!) {
      io.b = this.values[n - 1]!;
      return;
    }
    // binary search for the segment [i, i + 1] holding time
    let lo = 0;
    let hi = n - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (times[mid]! <= time) lo = mid;
      else hi = mid;
    }
    const t0 = times[lo]!;
    const dt = times[hi]! - t0;
    if (!(dt > 0)) {
      io.b = this.values[hi]!;
      return;
    }
    const s = (time - t0) / dt;
    const s2 = s * s;
    const s3 = s2 * s;
    const h00 = 2 * s3 - 3 * s2 + 1;
    const h10 = s3 - 2 * s2 + s;
    const h01 = -2 * s3 + 3 * s2;
    const h11 = s3 - s2;
    io.b =
      h00 * this.values[lo]! +
      h10 * dt * this.outTangents[lo]! +
      h01 * this.values[hi]! +
      h11 * dt * this.inTangents[hi]!;
  }
}
