/**
 * FinalIK's RotationLimitPolygonal: the axis may swing anywhere inside a spherical polygon (a reach cone of any
 * outline, smoothed if wished), plus a twist range about it.
 * @module
 */
import { Quat, conjugateMultiply, fromToRotation, rotateVector } from "../../math/quat.js";
import { type ReadonlyVec3, Vec3, copy, cross, dot, length, normalize } from "../../math/vec3.js";
import { FBBIKError } from "../../solver/errors.js";
import { checkFiniteDegrees } from "./limit-arguments.js";
import { AxisTwistLimit, LIMIT_SLACK, joinSwingTwist, splitSwingTwist } from "./swing-twist.js";

const delta = new Quat();
const swing = new Quat();
const twist = new Quat();
const dir = new Vec3();
const best = new Vec3();
/** The most smoothing passes: each doubles the outline's points (3 passes: 8 times as many). */
const MAX_SMOOTH = 3;

/**
 * Keeps the joint's `axis` (in its own frame) inside a spherical polygon of directions, and its twist about the
 * axis within ±`twistLimit` degrees.
 *
 * The polygon is given as points, directions in the joint's own frame at rest (where `axis` points at rest is the
 * polygon's centre), in order once around the axis, either way round. Each point and the next bound a sector seen
 * from the axis; the sectors together make the reach cone, so the outline may be concave as long as every point
 * is seen from the axis (each step between neighbours turns less than 180° about it). `smoothIterations` rounds
 * the outline: each pass puts a point of the Catmull–Rom curve through the outline between every two neighbours.
 *
 * The rotation relative to rest is split as `swing · twist` (as {@link RotationLimitAngle} does); a swing that takes
 * the axis outside the polygon is replaced by the shortest arc to the nearest point of the outline (the
 * geodesically nearest, so a joint pushed along an edge slides along it), and the twist is clamped. A rotation
 * already inside (to 1e-12) is left bit-exact. Defaults: axis +X, the four points 45° from it toward ±Y and ±Z
 * (a square reach cone), twistLimit 180° (twist free).
 */
export class RotationLimitPolygonal extends AxisTwistLimit {
  private given: Vec3[] = [];
  private smoothing = 0;
  // the outline counter-clockwise about the axis, each point's azimuth-plane normal (axis × point) and each edge's
  // great-circle normal (point × next, toward the axis)
  private outline: Vec3[] = [];
  private azimuthNormals: Vec3[] = [];
  private edgeNormals: Vec3[] = [];

  /**
   * Creates the limit about `axis` (normalised; zero means +X) with the polygon's `points` (see
   * {@link setPoints}; default: a square cone of 45°) and `twistLimit` (degrees).
   * @throws FBBIKError when the points do not make a polygon around the axis, or `twistLimit` is not finite.
   */
  constructor(axis: ReadonlyVec3 = new Vec3(1, 0, 0), points?: readonly ReadonlyVec3[], twistLimit = 180) {
    checkFiniteDegrees("RotationLimitPolygonal", { twistLimit });
    super(axis, twistLimit);
    this.setPoints(points ?? squareCone(this.axisUnit, 45));
  }

  /** The points as given to {@link setPoints} (unit length). */
  get points(): readonly ReadonlyVec3[] {
    return this.given;
  }

  /** The outline the limit works with: the points, smoothed, counter-clockwise about the axis. */
  get outlinePoints(): readonly ReadonlyVec3[] {
    return this.outline;
  }

  /**
   * Smoothing passes, 0 (the polygon as given, FinalIK's default) to 3; each doubles the outline's points.
   * @throws FBBIKError when the smoothed outline no longer goes around the axis (a very uneven polygon).
   */
  get smoothIterations(): number {
    return this.smoothing;
  }

  set smoothIterations(value: number) {
    const n = Math.max(0, Math.min(MAX_SMOOTH, Math.round(Number.isFinite(value) ? value : 0)));
    if (n === this.smoothing) return;
    const before = this.smoothing;
    this.smoothing = n;
    this.buildOrUndo(() => {
      this.smoothing = before;
    });
  }

  /**
   * Sets the polygon: at least three directions (normalised) in the joint's own frame at rest, in order once around
   * the axis (either way), none within 1e-6 rad of the axis or of its opposite, each turning less than 180° about
   * the axis from the one before.
   * @throws FBBIKError naming what is wrong; the limit keeps its previous polygon.
   */
  setPoints(points: readonly ReadonlyVec3[]): void {
    const before = this.given;
    this.given = points.map((p) => normalize(new Vec3(), p));
    this.buildOrUndo(() => {
      this.given = before;
    });
  }

  /** @inheritdoc */
  apply(local: Quat): boolean {
    const a = this.axisUnit;
    splitSwingTwist(conjugateMultiply(delta, this.rest, local), a, swing, twist);
    // where the swing takes the axis, in the joint's rest frame
    rotateVector(dir, swing, a);
    const swingOut = !this.contains(dir);
    const twistOut = this.twistRange.clamp(twist, a);
    if (!swingOut && !twistOut) return false;
    if (swingOut) {
      this.nearestOnOutline(dir, best);
      fromToRotation(swing, a, best);
    }
    joinSwingTwist(local, this.rest, swing, twist, delta);
    return true;
  }

  /** True when the unit direction `d` is inside the polygon (to 1e-12). */
  contains(d: ReadonlyVec3): boolean {
    // dot products written out: apply runs per joint per iteration (see ARCHITECTURE.md, "Doubles across calls")
    const m = this.azimuthNormals;
    const n = m.length;
    for (let i = 0; i < n; i++) {
      // the sector from point i (inclusive) to point i + 1, both less than half a turn away
      const a = m[i]!;
      if (!(a.x * d.x + a.y * d.y + a.z * d.z >= 0)) continue;
      const b = m[i + 1 === n ? 0 : i + 1]!;
      if (!(b.x * d.x + b.y * d.y + b.z * d.z < 0)) continue;
      const e = this.edgeNormals[i]!;
      return e.x * d.x + e.y * d.y + e.z * d.z >= -LIMIT_SLACK;
    }
    // no azimuth: along the axis (inside) or against it (outside)
    const ax = this.axisUnit;
    return d.x * ax.x + d.y * ax.y + d.z * ax.z > 0;
  }

  /** Writes into `out` the outline's point nearest (by angle) to the unit direction `d`. */
  nearestOnOutline(d: ReadonlyVec3, out: Vec3): Vec3 {
    const p = this.outline;
    const e = this.edgeNormals;
    const n = p.length;
    let score = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const from = p[i]!;
      const to = p[i + 1 === n ? 0 : i + 1]!;
      // the vertex
      const s = d.x * from.x + d.y * from.y + d.z * from.z;
      if (s > score) {
        score = s;
        copy(out, from);
      }
      // the foot of d on the edge's great circle, if it falls between the edge's ends
      const nn = e[i]!;
      const k = d.x * nn.x + d.y * nn.y + d.z * nn.z;
      let fx = d.x - nn.x * k;
      let fy = d.y - nn.y * k;
      let fz = d.z - nn.z * k;
      const len = Math.sqrt(fx * fx + fy * fy + fz * fz);
      if (!(len > 1e-12)) continue;
      fx /= len;
      fy /= len;
      fz /= len;
      // (from × foot) · n ≥ 0 and (foot × to) · n ≥ 0: the foot lies on the arc from `from` to `to`
      const afterFrom =
        (from.y * fz - from.z * fy) * nn.x + (from.z * fx - from.x * fz) * nn.y + (from.x * fy - from.y * fx) * nn.z;
      const beforeTo = (fy * to.z - fz * to.y) * nn.x + (fz * to.x - fx * to.z) * nn.y + (fx * to.y - fy * to.x) * nn.z;
      if (afterFrom < 0 || beforeTo < 0) continue;
      const sa = d.x * fx + d.y * fy + d.z * fz;
      if (sa > score) {
        score = sa;
        out.x = fx;
        out.y = fy;
        out.z = fz;
      }
    }
    return out;
  }

  /** {@link build}s; when that throws, runs `undo`, builds what was there before (if anything) and throws again. */
  private buildOrUndo(undo: () => void): void {
    try {
      this.build();
    } catch (e) {
      undo();
      if (this.given.length > 0) this.build();
      throw e;
    }
  }

  /** Smooths the given points and precomputes the planes, after checking they make a polygon around the axis. */
  private build(): void {
    const a = this.axisUnit;
    const problems = outlineProblems(this.given, a);
    if (problems.length > 0) throw new FBBIKError(problems, "RotationLimitPolygonal");
    let pts = this.given.map((p) => new Vec3(p.x, p.y, p.z));
    // counter-clockwise about the axis
    if (turnSign(pts, a) < 0) pts.reverse();
    for (let k = 0; k < this.smoothing; k++) pts = smoothOnce(pts);
    if (this.smoothing > 0) {
      const smoothed = outlineProblems(pts, a);
      if (smoothed.length > 0)
        throw new FBBIKError([`smoothed ${this.smoothing} times: ${smoothed[0]}`], "RotationLimitPolygonal");
    }
    this.outline = pts;
    this.azimuthNormals = pts.map((p) => normalize(new Vec3(), cross(new Vec3(), a, p)));
    this.edgeNormals = pts.map((p, i) => normalize(new Vec3(), cross(new Vec3(), p, pts[(i + 1) % pts.length]!)));
  }
}

/** The signed turn (radians) about `axis` from `p` to `q`, seen from the axis's tip: counter-clockwise positive. */
function turnAbout(axis: ReadonlyVec3, p: ReadonlyVec3, q: ReadonlyVec3): number {
  const ap = cross(new Vec3(), axis, p);
  const aq = cross(new Vec3(), axis, q);
  return Math.atan2(dot(axis, cross(new Vec3(), ap, aq)), dot(ap, aq));
}

/** The outline's total turn about the axis, over 2π: +1 counter-clockwise, −1 clockwise. */
function turnSign(pts: readonly ReadonlyVec3[], axis: ReadonlyVec3): number {
  let sum = 0;
  for (let i = 0; i < pts.length; i++) sum += turnAbout(axis, pts[i]!, pts[(i + 1) % pts.length]!);
  return Math.round(sum / (2 * Math.PI));
}

/** What keeps `pts` from being a polygon around `axis`, in words (none: it is one). */
function outlineProblems(pts: readonly ReadonlyVec3[], axis: ReadonlyVec3): string[] {
  if (pts.length < 3) return [`a polygon needs at least 3 points (got ${pts.length})`];
  const problems: string[] = [];
  pts.forEach((p, i) => {
    if (!Number.isFinite(p.x + p.y + p.z) || (p.x === 0 && p.y === 0 && p.z === 0))
      problems.push(`point ${i} is not a direction`);
    else if (length(cross(new Vec3(), axis, p)) < 1e-6)
      problems.push(`point ${i} lies on the axis's line: it has no side of the axis`);
  });
  if (problems.length > 0) return problems;
  const sign = turnSign(pts, axis);
  if (Math.abs(sign) !== 1) return ["the points do not go once around the axis"];
  for (let i = 0; i < pts.length; i++) {
    const next = (i + 1) % pts.length;
    const turn = sign * turnAbout(axis, pts[i]!, pts[next]!);
    const degrees = ((turn * 180) / Math.PI).toFixed(1);
    if (!(turn > 0 && turn < Math.PI - 1e-9))
      problems.push(`points ${i} and ${next} turn ${degrees}° about the axis (between 0° and 180° needed)`);
  }
  return problems;
}

/** A Catmull–Rom point between each two neighbours (the curve through all of them, halfway), on the unit sphere. */
function smoothOnce(pts: readonly Vec3[]): Vec3[] {
  const n = pts.length;
  const out: Vec3[] = [];
  for (let i = 0; i < n; i++) {
    const p0 = pts[(i + n - 1) % n]!;
    const p1 = pts[i]!;
    const p2 = pts[(i + 1) % n]!;
    const p3 = pts[(i + 2) % n]!;
    out.push(p1);
    // the uniform Catmull–Rom curve at t = ½: (−p0 + 9 p1 + 9 p2 − p3) / 16
    const m = new Vec3(
      -p0.x + 9 * p1.x + 9 * p2.x - p3.x,
      -p0.y + 9 * p1.y + 9 * p2.y - p3.y,
      -p0.z + 9 * p1.z + 9 * p2.z - p3.z,
    );
    out.push(normalize(m, m));
  }
  return out;
}

/** Four directions `angle` degrees from `axis`, a quarter turn apart (the default polygon: a square cone). */
function squareCone(axis: ReadonlyVec3, angle: number): Vec3[] {
  const u = Math.abs(axis.x) < 0.9 ? new Vec3(1, 0, 0) : new Vec3(0, 1, 0);
  const side = normalize(new Vec3(), cross(new Vec3(), axis, u));
  const up = cross(new Vec3(), axis, side);
  const c = Math.cos((angle * Math.PI) / 180);
  const s = Math.sin((angle * Math.PI) / 180);
  const pts: Vec3[] = [];
  for (let k = 0; k < 4; k++) {
    const phi = (k * Math.PI) / 2;
    pts.push(
      new Vec3(
        axis.x * c + (side.x * Math.cos(phi) + up.x * Math.sin(phi)) * s,
        axis.y * c + (side.y * Math.cos(phi) + up.y * Math.sin(phi)) * s,
        axis.z * c + (side.z * Math.cos(phi) + up.z * Math.sin(phi)) * s,
      ),
    );
  }
  return pts;
}
