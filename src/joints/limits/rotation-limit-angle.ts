/**
 * FinalIK's RotationLimitAngle: a swing cone around an axis plus a twist range about it.
 * @module
 */
import { Quat, conjugateMultiply } from "../../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../../math/vec3.js";
import { checkFiniteDegrees } from "./limit-arguments.js";
import { AxisTwistLimit, LIMIT_SLACK, joinSwingTwist, splitSwingTwist } from "./swing-twist.js";

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
export class RotationLimitAngle extends AxisTwistLimit {
  /** Largest swing of the axis from rest, in degrees. */
  limit = 45;
  // sines and cosines of the half limit (clamping) and of the half limit plus the slack (testing), kept until
  // `limit` changes
  private cachedLimit = Number.NaN;
  private swingSin = 0;
  private swingCos = 1;
  private swingSinOut = 0;
  private swingCosOut = 1;

  /**
   * Creates the limit about `axis` (normalised; zero means +X) with the given swing and twist limits (degrees).
   * @throws FBBIKError when a limit is not finite.
   */
  constructor(axis: ReadonlyVec3 = new Vec3(1, 0, 0), limit = 45, twistLimit = 180) {
    checkFiniteDegrees("RotationLimitAngle", { limit, twistLimit });
    super(axis, twistLimit);
    this.limit = limit;
  }

  /** Sets the axis (normalised; a zero axis leaves +X). */
  setAxis(axis: ReadonlyVec3): void {
    this.useAxis(axis);
  }

  /** Recomputes the cached half-limit sines and cosines. */
  private cacheHalves(): void {
    this.cachedLimit = this.limit;
    const lim = this.limit > 0 ? this.limit * DEG : 0;
    this.swingSin = Math.sin(lim * 0.5);
    this.swingCos = Math.cos(lim * 0.5);
    this.swingSinOut = Math.sin((lim + LIMIT_SLACK) * 0.5);
    this.swingCosOut = Math.cos((lim + LIMIT_SLACK) * 0.5);
  }

  /** @inheritdoc */
  apply(local: Quat): boolean {
    const a = this.axisUnit;
    splitSwingTwist(conjugateMultiply(delta, this.rest, local), a, swing, twist);
    if (this.cachedLimit !== this.limit) this.cacheHalves();
    const sv = Math.sqrt(swing.x * swing.x + swing.y * swing.y + swing.z * swing.z);
    // angle > limit, as sin(half angle − half limit) > 0: exact near 0 where comparing cosines is not
    const swingOut = this.limit * DEG < Math.PI && sv * this.swingCosOut - swing.w * this.swingSinOut > 0;
    const twistOut = this.twistRange.clamp(twist, a);
    if (!swingOut && !twistOut) return false;
    if (swingOut) {
      const k = sv > 0 ? this.swingSin / sv : 0;
      swing.x *= k;
      swing.y *= k;
      swing.z *= k;
      swing.w = this.swingCos;
    }
    joinSwingTwist(local, this.rest, swing, twist, delta);
    return true;
  }
}
