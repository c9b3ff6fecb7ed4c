/**
 * FinalIK's RotationLimitHinge: one axis, an angle range.
 * @module
 */
import { Quat, type ReadonlyQuat, conjugateMultiply, multiply, normalizeQuat } from "../../math/quat.js";
import { type ReadonlyVec3, Vec3, copy, normalize } from "../../math/vec3.js";
import { checkDegreeRange } from "./limit-arguments.js";
import type { SingleAxisLimit } from "./rotation-limit.js";

const SLACK = 1e-12;
const DEG = Math.PI / 180;
const delta = new Quat();

/**
 * Lets a joint turn only about `axis` (in its own frame), by an angle in [`min`, `max`] degrees from rest.
 *
 * The rotation relative to rest is split into a swing and a twist about the axis (the twist applied first);
 * the swing is dropped, and the twist angle, taken in (−180°, 180°], is clamped to the nearer end of the range
 * measured around the circle. A rotation already about the axis and inside the range (to 1e-12 rad) is left
 * bit-exact. Defaults as FinalIK's: axis +X, min −45°, max 90°.
 */
export class RotationLimitHinge implements SingleAxisLimit {
  /** Lower bound in degrees. */
  min = -45;
  /** Upper bound in degrees. */
  max = 90;
  private readonly axisUnit = new Vec3(1, 0, 0);
  private readonly rest = new Quat();

  /**
   * Creates the limit about `axis` (normalised; a zero axis means +X) with the range [min, max] degrees.
   * @throws FBBIKError when min or max is not finite, or min is above max.
   */
  constructor(axis: ReadonlyVec3 = new Vec3(1, 0, 0), min = -45, max = 90) {
    checkDegreeRange("RotationLimitHinge", min, max);
    this.setAxis(axis);
    this.min = min;
    this.max = max;
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
  singleAxis(out: Vec3): boolean {
    copy(out, this.axisUnit);
    return true;
  }

  /** @inheritdoc */
  apply(local: Quat): boolean {
    const d = conjugateMultiply(delta, this.rest, local);
    const s = d.w < 0 ? -1 : 1;
    const w = d.w * s;
    const a = this.axisUnit;
    const t = (d.x * a.x + d.y * a.y + d.z * a.z) * s;
    // the swing's vector part is what remains of d's once the twist's is taken out
    const sx = d.x * s - t * a.x;
    const sy = d.y * s - t * a.y;
    const sz = d.z * s - t * a.z;
    const angle = 2 * Math.atan2(t, w);
    const lo = this.min * DEG;
    const hi = this.max * DEG;
    if (sx * sx + sy * sy + sz * sz <= SLACK * SLACK && angle >= lo - SLACK && angle <= hi + SLACK) return false;
    let c = angle;
    if (c < lo || c > hi) {
      // nearer end around the circle (the larger cosine), so a turn just past −180° does not jump to the far end;
      // no helper returning the wrapped angle: a double returned by a call V8 does not inline is boxed
      c = Math.cos(lo - c) >= Math.cos(c - hi) ? lo : hi;
    }
    const h = Math.sin(c * 0.5);
    d.x = a.x * h;
    d.y = a.y * h;
    d.z = a.z * h;
    d.w = Math.cos(c * 0.5);
    multiply(local, this.rest, d);
    return true;
  }
}
