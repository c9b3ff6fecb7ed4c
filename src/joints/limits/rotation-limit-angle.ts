/**
 * FinalIK's RotationLimitAngle: a swing cone around an axis plus a twist range about it.
 * @module
 */
import { Quat, type ReadonlyQuat, conjugateMultiply, multiply, normalizeQuat } from "../../math/quat.js";
import { type ReadonlyVec3, Vec3, normalize } from "../../math/vec3.js";
import type { RotationLimit } from "./rotation-limit.js";

const SLACK = 1e-12;
const DEG = Math.PI / 180;
const delta = new Quat();
const swing = new Quat();
const twist = new Quat();

/**
 * Keeps the joint's `axis` (in its own frame) within `limit` degrees of where it points at rest, and its twist
 * about that axis within ±`twistLimit` degrees.
 *
 * The rotation relative to rest is split as `swing · twist` (the twist about the axis applied first, then the
 * shortest-arc swing that moves the axis); the swing angle is clamped to `limit` along its own arc and the twist
 * angle to ±`twistLimit`. A rotation already inside (to 1e-12 rad) is left bit-exact. Defaults as FinalIK's:
 * axis +X, limit 45°, twistLimit 180° (twist free). A limit of 180° or more leaves the swing free.
 */
export class RotationLimitAngle implements RotationLimit {
  /** Largest swing of the axis from rest, in degrees. */
  limit = 45;
  /** Largest twist about the axis either way, in degrees (0..180). */
  twistLimit = 180;
  private readonly axisUnit = new Vec3(1, 0, 0);
  private readonly rest = new Quat();
  // sines and cosines of the half limits (clamping) and of the half limits plus the slack (testing), kept until
  // `limit` or `twistLimit` change
  private cachedLimit = Number.NaN;
  private cachedTwist = Number.NaN;
  private swingSin = 0;
  private swingCos = 1;
  private swingSinOut = 0;
  private swingCosOut = 1;
  private twistSin = 0;
  private twistCos = 1;
  private twistSinOut = 0;
  private twistCosOut = 1;

  /** Creates the limit about `axis` (normalised; zero means +X) with the given swing and twist limits (degrees). */
  constructor(axis: ReadonlyVec3 = new Vec3(1, 0, 0), limit = 45, twistLimit = 180) {
    this.setAxis(axis);
    this.limit = limit;
    this.twistLimit = twistLimit;
  }

  /** The unit axis in the joint's own frame. */
  get axis(): ReadonlyVec3 {
    return this.axisUnit;
  }

  /** Sets the axis (normalised; a zero axis leaves +X). */
  setAxis(axis: ReadonlyVec3): void {
    normalize(this.axisUnit, axis);
    if (this.axisUnit.x === 0 && this.axisUnit.y === 0 && this.axisUnit.z === 0) this.axisUnit.x = 1;
  }

  /** @inheritdoc */
  setDefaultLocalRotation(rest: ReadonlyQuat): void {
    normalizeQuat(this.rest, rest);
  }

  /** Recomputes the cached half-limit sines and cosines. */
  private cacheHalves(): void {
    this.cachedLimit = this.limit;
    this.cachedTwist = this.twistLimit;
    const lim = this.limit > 0 ? this.limit * DEG : 0;
    const tlim = this.twistLimit > 0 ? this.twistLimit * DEG : 0;
    this.swingSin = Math.sin(lim * 0.5);
    this.swingCos = Math.cos(lim * 0.5);
    this.swingSinOut = Math.sin((lim + SLACK) * 0.5);
    this.swingCosOut = Math.cos((lim + SLACK) * 0.5);
    this.twistSin = Math.sin(tlim * 0.5);
    this.twistCos = Math.cos(tlim * 0.5);
    this.twistSinOut = Math.sin((tlim + SLACK) * 0.5);
    this.twistCosOut = Math.cos((tlim + SLACK) * 0.5);
  }

  /** @inheritdoc */
  apply(local: Quat): boolean {
    const d = conjugateMultiply(delta, this.rest, local);
    if (d.w < 0) {
      d.x = -d.x;
      d.y = -d.y;
      d.z = -d.z;
      d.w = -d.w;
    }
    const a = this.axisUnit;
    const t = d.x * a.x + d.y * a.y + d.z * a.z;
    const tl = Math.sqrt(d.w * d.w + t * t);
    // a half-turn swing leaves no twist to measure: take it as none
    twist.w = tl > 1e-300 ? d.w / tl : 1;
    const tt = tl > 1e-300 ? t / tl : 0;
    twist.x = a.x * tt;
    twist.y = a.y * tt;
    twist.z = a.z * tt;
    // swing = d · twist⁻¹
    swing.x = -twist.x;
    swing.y = -twist.y;
    swing.z = -twist.z;
    swing.w = twist.w;
    multiply(swing, d, swing);
    if (swing.w < 0) {
      swing.x = -swing.x;
      swing.y = -swing.y;
      swing.z = -swing.z;
      swing.w = -swing.w;
    }
    if (this.cachedLimit !== this.limit || this.cachedTwist !== this.twistLimit) this.cacheHalves();
    const sv = Math.sqrt(swing.x * swing.x + swing.y * swing.y + swing.z * swing.z);
    // angle > limit, as sin(half angle − half limit) > 0: exact near 0 where comparing cosines is not
    const swingOut = this.limit * DEG < Math.PI && sv * this.swingCosOut - swing.w * this.swingSinOut > 0;
    const at = tt < 0 ? -tt : tt;
    const twistOut = at * this.twistCosOut - twist.w * this.twistSinOut > 0;
    if (!swingOut && !twistOut) return false;
    if (swingOut) {
      const k = sv > 0 ? this.swingSin / sv : 0;
      swing.x *= k;
      swing.y *= k;
      swing.z *= k;
      swing.w = this.swingCos;
    }
    if (twistOut) {
      const h = tt > 0 ? this.twistSin : -this.twistSin;
      twist.x = a.x * h;
      twist.y = a.y * h;
      twist.z = a.z * h;
      twist.w = this.twistCos;
    }
    multiply(d, swing, twist);
    multiply(local, this.rest, d);
    return true;
  }
}
