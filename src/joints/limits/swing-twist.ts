/**
 * The swing–twist split the axis-based rotation limits share (RotationLimitAngle, RotationLimitPolygonal), and the
 * twist range they clamp with.
 * @module
 */
import { Quat, type ReadonlyQuat, multiply, normalizeQuat } from "../../math/quat.js";
import { type ReadonlyVec3, Vec3, normalize } from "../../math/vec3.js";
import type { RotationLimit } from "./rotation-limit.js";

const DEG = Math.PI / 180;
/** How far past a limit (radians) still counts as inside, so a clamped rotation stays put when applied again. */
export const LIMIT_SLACK = 1e-12;

/**
 * Splits `d` (a rotation relative to rest; turned into its w ≥ 0 form in place) as `swing · twist`: `twist` about
 * the unit `axis`, applied first, then `swing`, the shortest arc that moves the axis (w ≥ 0). A half-turn swing
 * leaves no twist to measure: it is taken as none.
 */
export function splitSwingTwist(d: Quat, axis: ReadonlyVec3, swing: Quat, twist: Quat): void {
  if (d.w < 0) {
    d.x = -d.x;
    d.y = -d.y;
    d.z = -d.z;
    d.w = -d.w;
  }
  const t = d.x * axis.x + d.y * axis.y + d.z * axis.z;
  const tl = Math.sqrt(d.w * d.w + t * t);
  twist.w = tl > 1e-300 ? d.w / tl : 1;
  const tt = tl > 1e-300 ? t / tl : 0;
  twist.x = axis.x * tt;
  twist.y = axis.y * tt;
  twist.z = axis.z * tt;
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
}

/**
 * A twist range of ±`limit` degrees about an axis, with the sines and cosines of its half angle kept until the
 * limit changes (the limits call it for every joint on every iteration).
 */
export class TwistRange {
  /** Largest twist either way, degrees (0..180; 180 or more: free). */
  limit: number;
  private cached = Number.NaN;
  private sinHalf = 0;
  private cosHalf = 1;
  private sinHalfOut = 0;
  private cosHalfOut = 1;

  /** A range of ±`limit` degrees. */
  constructor(limit: number) {
    this.limit = limit;
  }

  /**
   * Clamps `twist` (a rotation about the unit `axis` from {@link splitSwingTwist}) to the range in place; true when
   * it was outside by more than {@link LIMIT_SLACK}.
   */
  clamp(twist: Quat, axis: ReadonlyVec3): boolean {
    if (this.cached !== this.limit) this.cache();
    // the twist's sine part, signed along the axis
    const tt = twist.x * axis.x + twist.y * axis.y + twist.z * axis.z;
    const at = tt < 0 ? -tt : tt;
    // angle > limit, as sin(half angle − half limit) > 0: exact near 0 where comparing cosines is not
    if (!(at * this.cosHalfOut - twist.w * this.sinHalfOut > 0)) return false;
    const h = tt > 0 ? this.sinHalf : -this.sinHalf;
    twist.x = axis.x * h;
    twist.y = axis.y * h;
    twist.z = axis.z * h;
    twist.w = this.cosHalf;
    return true;
  }

  private cache(): void {
    this.cached = this.limit;
    const lim = this.limit > 0 ? this.limit * DEG : 0;
    this.sinHalf = Math.sin(lim * 0.5);
    this.cosHalf = Math.cos(lim * 0.5);
    this.sinHalfOut = Math.sin((lim + LIMIT_SLACK) * 0.5);
    this.cosHalfOut = Math.cos((lim + LIMIT_SLACK) * 0.5);
  }
}

/** Writes `rest · swing · twist` into `local` (`scratch` receives `swing · twist`). */
export function joinSwingTwist(local: Quat, rest: Quat, swing: Quat, twist: Quat, scratch: Quat): void {
  multiply(scratch, swing, twist);
  multiply(local, rest, scratch);
}

/** What the limits about an axis share: the axis, the rest rotation and the twist range. */
export abstract class AxisTwistLimit implements RotationLimit {
  /** @internal The unit axis in the joint's own frame. */
  protected readonly axisUnit = new Vec3(1, 0, 0);
  /** @internal The rest local rotation the limit is relative to. */
  protected readonly rest = new Quat();
  /** @internal The twist range about the axis. */
  protected readonly twistRange = new TwistRange(180);

  /** About `axis` (normalised; zero means +X), the twist within ±`twistLimit` degrees. */
  constructor(axis: ReadonlyVec3, twistLimit: number) {
    this.useAxis(axis);
    this.twistRange.limit = twistLimit;
  }

  /** Largest twist about the axis either way, in degrees (0..180). */
  get twistLimit(): number {
    return this.twistRange.limit;
  }

  set twistLimit(value: number) {
    this.twistRange.limit = value;
  }

  /** The unit axis in the joint's own frame. */
  get axis(): ReadonlyVec3 {
    return this.axisUnit;
  }

  /** @inheritdoc */
  setDefaultLocalRotation(rest: ReadonlyQuat): void {
    normalizeQuat(this.rest, rest);
  }

  /** @inheritdoc */
  abstract apply(local: Quat): boolean;

  /** @internal Sets the axis (normalised; a zero axis leaves +X). */
  protected useAxis(axis: ReadonlyVec3): void {
    normalize(this.axisUnit, axis);
    if (this.axisUnit.x === 0 && this.axisUnit.y === 0 && this.axisUnit.z === 0) this.axisUnit.x = 1;
  }
}
