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
    const sv = Math.sqrt(swing.x * swing.x + swing.y * swing.y + swing.z * swing.z);
    const swingAngle = 2 * Math.atan2(sv, swing.w);
    const twistAngle = 2 * Math.atan2(tt, twist.w);
    const lim = this.limit * DEG;
    const tlim = this.twistLimit * DEG;
    const swingOut = lim < Math.PI && swingAngle > lim + SLACK;
    const twistOut = twistAngle > tlim + SLACK || twistAngle < -tlim - SLACK;
    if (!swingOut && !twistOut) return false;
    if (swingOut) {
      const c = lim > 0 ? lim : 0;
      const k = sv > 0 ? Math.sin(c * 0.5) / sv : 0;
      swing.x *= k;
      swing.y *= k;
      swing.z *= k;
      swing.w = Math.cos(c * 0.5);
    }
    if (twistOut) {
      const c = twistAngle > 0 ? (tlim > 0 ? tlim : 0) : tlim > 0 ? -tlim : 0;
      const h = Math.sin(c * 0.5);
      twist.x = a.x * h;
      twist.y = a.y * h;
      twist.z = a.z * h;
      twist.w = Math.cos(c * 0.5);
    }
    multiply(d, swing, twist);
    multiply(local, this.rest, d);
    return true;
  }
}
