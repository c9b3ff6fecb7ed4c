/**
 * FinalIK's RotationLimitSpline: a swing limit whose angle changes smoothly around the axis, plus a twist range.
 * @module
 */
import { Curve, CurveIO, type CurveKey } from "../../math/curve.js";
import { Quat, conjugateMultiply } from "../../math/quat.js";
import { type ReadonlyVec3, Vec3, cross, normalize } from "../../math/vec3.js";
import { checkFiniteDegrees } from "./limit-arguments.js";
import { AxisTwistLimit, LIMIT_SLACK, joinSwingTwist, splitSwingTwist } from "./swing-twist.js";

const DEG = Math.PI / 180;
const delta = new Quat();
const swing = new Quat();
const twist = new Quat();
/** The curve's azimuth in, limit out (see CurveIO: no double crosses the call). */
const io = new CurveIO();

/**
 * Keeps the joint's `axis` (in its own frame) within a swing limit that depends on the direction it swings
 * toward, and its twist about the axis within ±`twistLimit` degrees.
 *
 * The limit is a curve of the azimuth around the axis (degrees, 0 toward `crossAxis`, 90 toward `axis × crossAxis`)
 * giving the largest swing there (degrees): keys as {@link CurveKey}s, read as one turn (a key's time is taken
 * modulo 360) and joined smoothly across 0°/360°, cubic between keys as FinalIK's AnimationCurve (keys close
 * together with far values overshoot between them; the limit is kept within 0–180°). A swing past
 * the limit is brought back along its own arc, so the axis keeps the azimuth it swung toward; the twist is
 * clamped as {@link RotationLimitAngle} does. A rotation already inside (to 1e-12) is left bit-exact. Defaults:
 * axis +X, crossAxis +Y, 45° all round (a cone), twistLimit 180° (twist free).
 */
export class RotationLimitSpline extends AxisTwistLimit {
  private readonly crossUnit = new Vec3(0, 1, 0);
  private readonly crossSide = new Vec3(0, 0, 1);
  private curve: Curve = Curve.constant(45);
  private given: CurveKey[] = [];

  /**
   * Creates the limit about `axis` (normalised; zero means +X), azimuth 0 toward `crossAxis` (made perpendicular
   * to the axis; one parallel to it is replaced by a perpendicular), with the swing limit `keys` (default: 45°
   * everywhere) and `twistLimit` (degrees).
   * @throws FBBIKError when `twistLimit` is not finite.
   */
  constructor(
    axis: ReadonlyVec3 = new Vec3(1, 0, 0),
    crossAxis: ReadonlyVec3 = new Vec3(0, 1, 0),
    keys: readonly CurveKey[] = [{ time: 0, value: 45 }],
    twistLimit = 180,
  ) {
    checkFiniteDegrees("RotationLimitSpline", { twistLimit });
    super(axis, twistLimit);
    const a = this.axisUnit;
    const c = this.crossUnit;
    const along = crossAxis.x * a.x + crossAxis.y * a.y + crossAxis.z * a.z;
    c.x = crossAxis.x - a.x * along;
    c.y = crossAxis.y - a.y * along;
    c.z = crossAxis.z - a.z * along;
    if (!(Math.sqrt(c.x * c.x + c.y * c.y + c.z * c.z) > 1e-9)) {
      // any perpendicular: the world axis least along the limit's
      const u = Math.abs(a.x) < 0.9 ? new Vec3(1, 0, 0) : new Vec3(0, 1, 0);
      cross(c, cross(c, a, u), a);
    }
    normalize(c, c);
    cross(this.crossSide, a, c);
    this.setKeys(keys);
  }

  /** The unit direction of azimuth 0, perpendicular to the axis, in the joint's own frame. */
  get crossAxis(): ReadonlyVec3 {
    return this.crossUnit;
  }

  /** The keys as given to {@link setKeys}. */
  get keys(): readonly CurveKey[] {
    return this.given;
  }

  /**
   * Sets the swing limit: keys of the largest swing (degrees, `value`) at azimuths around the axis (degrees, `time`,
   * modulo 360). Keys that are not finite are left out; none at all leaves the swing free (180°).
   */
  setKeys(keys: readonly CurveKey[]): void {
    const turn = keys
      .filter((k) => Number.isFinite(k.time) && Number.isFinite(k.value))
      .map((k) => ({ ...k, time: ((k.time % 360) + 360) % 360 }));
    this.given = keys.map((k) => ({ ...k }));
    // a turn before and after, so the curve and its automatic slopes run on across 0°/360°
    const periodic = [-360, 0, 360].flatMap((shift) => turn.map((k) => ({ ...k, time: k.time + shift })));
    this.curve = turn.length > 0 ? new Curve(periodic) : Curve.constant(180);
  }

  /** The largest swing (degrees, 0..180) toward `azimuth` (degrees). */
  limitAt(azimuth: number): number {
    io.a = ((azimuth % 360) + 360) % 360;
    this.curve.evaluateInto(io);
    const v = io.b;
    return v > 0 ? (v < 180 ? v : 180) : 0;
  }

  /** @inheritdoc */
  apply(local: Quat): boolean {
    const a = this.axisUnit;
    splitSwingTwist(conjugateMultiply(delta, this.rest, local), a, swing, twist);
    // the swing's vector part is perpendicular to the axis: its azimuth is the swung axis's, less a quarter turn
    const sv = Math.sqrt(swing.x * swing.x + swing.y * swing.y + swing.z * swing.z);
    let swingOut = false;
    let half = 0;
    if (sv > 0) {
      // where the axis swings toward: axis-side of (swing axis × axis), written out (no double crosses a call)
      const c = this.crossUnit;
      const s = this.crossSide;
      const tx = swing.y * a.z - swing.z * a.y;
      const ty = swing.z * a.x - swing.x * a.z;
      const tz = swing.x * a.y - swing.y * a.x;
      io.a = Math.atan2(tx * s.x + ty * s.y + tz * s.z, tx * c.x + ty * c.y + tz * c.z) / DEG;
      if (io.a < 0) io.a += 360;
      this.curve.evaluateInto(io);
      const lim = (io.b > 0 ? (io.b < 180 ? io.b : 180) : 0) * DEG;
      half = lim * 0.5;
      // angle > limit, as sin(half angle − half limit) > 0 (exact near 0); 180° leaves the swing free
      const slack = half + LIMIT_SLACK * 0.5;
      swingOut = lim < Math.PI && sv * Math.cos(slack) - swing.w * Math.sin(slack) > 0;
    }
    const twistOut = this.twistRange.clamp(twist, a);
    if (!swingOut && !twistOut) return false;
    if (swingOut) {
      const k = Math.sin(half) / sv;
      swing.x *= k;
      swing.y *= k;
      swing.z *= k;
      swing.w = Math.cos(half);
    }
    joinSwingTwist(local, this.rest, swing, twist, delta);
    return true;
  }
}
