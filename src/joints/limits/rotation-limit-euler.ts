/**
 * MMD-style Euler limit: a [min, max] range per local axis.
 * @module
 */
import { Quat, type ReadonlyQuat, conjugateMultiply, multiply, normalizeQuat } from "../../math/quat.js";
import { type ReadonlyVec3, Vec3, set } from "../../math/vec3.js";
import { checkRadianRanges } from "./limit-arguments.js";
import type { SingleAxisLimit } from "./rotation-limit.js";

/** Below this a range check counts as inside, so an output clamped once is left alone when limited again. */
const SLACK = 1e-12;
/** The middle (Y) angle is kept this far from ±90°, where X and Z stop being separable. */
const GIMBAL_MARGIN = 1e-6;
const HALF_PI = Math.PI / 2;

const delta = new Quat();
const part = new Quat();

/**
 * Limits a joint to a box of Euler angles, the way MikuMikuDance's IK links do (a knee of an MMD model: X between
 * −180° and −0.5°, Y and Z fixed at 0).
 *
 * The rotation relative to rest, `delta = rest⁻¹ · local`, is decomposed as `delta = Rx(x) · Ry(y) · Rz(z)`
 * (X outermost, Z applied first, angles in radians, x and z in (−π, π], y in [−π/2, π/2]). Each angle is clamped
 * to its range and the rotation rebuilt: the MMD behaviour, not the nearest rotation inside the box. X is the
 * outer axis so a knee or elbow bending about X keeps its full ±180° range; Y, the middle axis, is the one
 * confined to ±90° by the decomposition, and its range is narrowed by 1e-6 rad from ±90° so the other two stay
 * separable. A rotation already inside (to 1e-12 rad) is left bit-exact.
 *
 * The angles are the bone's own: a range bends a joint the same way in left- and right-handed Babylon scenes (the
 * glTF loader mirrors the root node, not the bones). A glTF knee bends forward at positive X when its bone's X
 * axis points to the character's left (UAL's, Mixamo's Xbot's), at negative X when it points right: MMD's knee
 * range, written for MMD's left-handed model data, bends such a knee backward. Bone data that was itself mirrored
 * (z → −z) turns `Rx(x)` into `Rx(−x)` and `Ry(y)` into `Ry(−y)`: its X and Y ranges are negated and swapped.
 * {@link kneeEulerLimit} builds a knee's range from a Babylon leg with the sign that bends it the way it bends.
 */
export class RotationLimitEuler implements SingleAxisLimit {
  /** Lower bounds of the X, Y, Z angles in radians. */
  readonly min: Vec3;
  /** Upper bounds of the X, Y, Z angles in radians. */
  readonly max: Vec3;
  private readonly rest = new Quat();

  /**
   * Creates the limit from the lower and upper bounds per axis (radians, unlike the other limits' degrees), both
   * (0, 0, 0) when omitted.
   * @throws FBBIKError naming each axis whose range is not finite, beyond ±2π (degrees given), or not low to high.
   */
  constructor(min: ReadonlyVec3 = new Vec3(), max: ReadonlyVec3 = new Vec3()) {
    checkRadianRanges("RotationLimitEuler", min, max);
    this.min = new Vec3(min.x, min.y, min.z);
    this.max = new Vec3(max.x, max.y, max.z);
  }

  /** @inheritdoc */
  setDefaultLocalRotation(rest: ReadonlyQuat): void {
    normalizeQuat(this.rest, rest);
  }

  /** @inheritdoc */
  singleAxis(out: Vec3): boolean {
    const xFixed = this.min.x === 0 && this.max.x === 0;
    const yFixed = this.min.y === 0 && this.max.y === 0;
    const zFixed = this.min.z === 0 && this.max.z === 0;
    if (!xFixed && yFixed && zFixed) set(out, 1, 0, 0);
    else if (xFixed && !yFixed && zFixed) set(out, 0, 1, 0);
    else if (xFixed && yFixed && !zFixed) set(out, 0, 0, 1);
    else return false;
    return true;
  }

  /** @inheritdoc */
  apply(local: Quat): boolean {
    const d = conjugateMultiply(delta, this.rest, local);
    const x = d.x;
    const y = d.y;
    const z = d.z;
    const w = d.w;
    // the rotation matrix entries that Rx·Ry·Rz leaves separable
    const m00 = 1 - 2 * (y * y + z * z);
    const m01 = 2 * (x * y - z * w);
    const m02 = 2 * (x * z + y * w);
    const m12 = 2 * (y * z - x * w);
    const m22 = 1 - 2 * (x * x + y * y);
    const ax = Math.atan2(-m12, m22);
    const ay = Math.atan2(m02, Math.sqrt(m00 * m00 + m01 * m01));
    const az = Math.atan2(-m01, m00);
    const lo = this.min;
    const hi = this.max;
    const loY = lo.y > -HALF_PI + GIMBAL_MARGIN ? lo.y : -HALF_PI + GIMBAL_MARGIN;
    const hiY = hi.y < HALF_PI - GIMBAL_MARGIN ? hi.y : HALF_PI - GIMBAL_MARGIN;
    if (
      ax >= lo.x - SLACK &&
      ax <= hi.x + SLACK &&
      ay >= loY - SLACK &&
      ay <= hiY + SLACK &&
      az >= lo.z - SLACK &&
      az <= hi.z + SLACK
    ) {
      return false;
    }
    const cx = ax < lo.x ? lo.x : ax > hi.x ? hi.x : ax;
    const cy = ay < loY ? loY : ay > hiY ? hiY : ay;
    const cz = az < lo.z ? lo.z : az > hi.z ? hi.z : az;
    // rebuild Rx(cx) · Ry(cy) · Rz(cz), then local = rest · delta
    d.x = Math.sin(cx * 0.5);
    d.y = 0;
    d.z = 0;
    d.w = Math.cos(cx * 0.5);
    part.x = 0;
    part.y = Math.sin(cy * 0.5);
    part.z = 0;
    part.w = Math.cos(cy * 0.5);
    multiply(d, d, part);
    part.y = 0;
    part.z = Math.sin(cz * 0.5);
    part.w = Math.cos(cz * 0.5);
    multiply(d, d, part);
    multiply(local, this.rest, d);
    return true;
  }
}
