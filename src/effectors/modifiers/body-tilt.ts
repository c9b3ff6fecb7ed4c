/**
 * FinalIK's BodyTilt: leans the body into turns by blending two offset poses from the character's yaw rate.
 * @module
 */
import { Vec3, copy, cross } from "../../math/vec3.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { OFFSET_MODIFIER_OPTION_KINDS, OffsetModifier, type OffsetModifierOptions } from "./offset-modifier.js";
import { OffsetPose } from "./offset-pose.js";
import type { OptionKinds } from "../../babylon/option-check.js";

/** Options of {@link BodyTilt}. */
export interface BodyTiltOptions extends OffsetModifierOptions {
  /** How fast the tilt follows the yaw rate, 1/s (default 6). */
  tiltSpeed?: number;
  /** Tilt per degree-per-second of yaw rate, in hundredths (default 0.07; see {@link BodyTilt}). */
  tiltSensitivity?: number;
  /** The pose at full tilt when turning left (default: empty). */
  poseLeft?: OffsetPose;
  /** The pose at full tilt when turning right (default: empty). */
  poseRight?: OffsetPose;
}

/** The kinds of {@link BodyTiltOptions}, for the check at create. */
export const BODY_TILT_OPTION_KINDS: OptionKinds<BodyTiltOptions> = {
  ...OFFSET_MODIFIER_OPTION_KINDS,
  tiltSpeed: "number",
  tiltSensitivity: "number",
  poseLeft: "object",
  poseRight: "object",
};

const tCross = new Vec3();

/**
 * Leans the body into turns (FinalIK's BodyTilt). Each frame the character root's yaw rate r (degrees per
 * second about its up; positive turning toward its right, in either handedness) gives a target tilt
 * clamp(r × tiltSensitivity × 0.01, −1, 1); the tilt follows it by lerp(tilt, target, 1 − e^(−dt ×
 * tiltSpeed)), alike at any frame rate; a positive tilt applies {@link poseRight} × tilt × weight, a negative
 * one {@link poseLeft} × |tilt| × weight.
 *
 * With the default sensitivity 0.07 a character turning at 90°/s tilts 0.063 of the pose; design the poses
 * for that range, or raise the sensitivity.
 */
export class BodyTilt extends OffsetModifier {
  /** How fast the tilt follows the yaw rate, 1/s. */
  tiltSpeed: number;
  /** Tilt per degree-per-second of yaw rate, in hundredths. */
  tiltSensitivity: number;
  /** The pose at full tilt when turning left. */
  poseLeft: OffsetPose;
  /** The pose at full tilt when turning right. */
  poseRight: OffsetPose;
  /** [−1, 1] The current tilt (positive: turning right). */
  tiltAngle = 0;
  /** The yaw rate of the last frame, degrees per second (positive: turning right). */
  yawRate = 0;
  private readonly lastForward = new Vec3();
  private started = false;
  // the last finite tiltSpeed and tiltSensitivity: a non-finite value is replaced by these (warned once)
  private validTiltSpeed = 6;
  private validTiltSensitivity = 0.07;

  /** Attaches to `ik`. */
  constructor(ik: FullBodyBipedIK, options: BodyTiltOptions = {}) {
    super(ik, options, BODY_TILT_OPTION_KINDS);
    this.followsMotion = true;
    this.tiltSpeed = options.tiltSpeed ?? 6;
    this.tiltSensitivity = options.tiltSensitivity ?? 0.07;
    this.poseLeft = options.poseLeft ?? new OffsetPose();
    this.poseRight = options.poseRight ?? new OffsetPose();
    if (Number.isFinite(this.tiltSpeed)) this.validTiltSpeed = this.tiltSpeed;
    if (Number.isFinite(this.tiltSensitivity)) this.validTiltSensitivity = this.tiltSensitivity;
  }

  /** The class name, as Babylon's own objects report it. */
  override getClassName(): string {
    return "BodyTilt";
  }

  /** A non-finite tiltSpeed or tiltSensitivity keeps its last finite value (written back, warned once). */
  private validateSettings(): void {
    if (Number.isFinite(this.tiltSpeed)) this.validTiltSpeed = this.tiltSpeed;
    else {
      this.ik.solver.inner.warn(
        "BodyTilt:tiltSpeed",
        `BodyTilt: tiltSpeed is ${String(this.tiltSpeed)} (not finite); its last valid value ` +
          `${this.validTiltSpeed} is kept.`,
      );
      this.tiltSpeed = this.validTiltSpeed;
    }
    if (Number.isFinite(this.tiltSensitivity)) this.validTiltSensitivity = this.tiltSensitivity;
    else {
      this.ik.solver.inner.warn(
        "BodyTilt:tiltSensitivity",
        `BodyTilt: tiltSensitivity is ${String(this.tiltSensitivity)} (not finite); its last valid value ` +
          `${this.validTiltSensitivity} is kept.`,
      );
      this.tiltSensitivity = this.validTiltSensitivity;
    }
  }

  /** Forgets the last heading and the tilt. */
  reset(): void {
    this.started = false;
    this.tiltAngle = 0;
    this.yawRate = 0;
  }

  /** The heading restarts: a turn made while it was off is no yaw rate (and no stale tilt comes back). */
  protected override onResume(): void {
    this.reset();
  }

  protected override onModifyOffset(): void {
    if (!Number.isFinite(this.tiltSpeed) || !Number.isFinite(this.tiltSensitivity)) this.validateSettings();
    else {
      this.validTiltSpeed = this.tiltSpeed;
      this.validTiltSensitivity = this.tiltSensitivity;
    }
    const deltaTime = this.clock.deltaTime;
    const f = this.frame;
    const fw = f.forward;
    const up = f.up;
    const last = this.lastForward;
    if (!this.started) {
      copy(last, fw);
      this.started = true;
    }
    // signed yaw from the last forward to this one about the character's up (right turn positive); the dot
    // products written out (see ARCHITECTURE.md, "Doubles across calls")
    const dUp = last.x * up.x + last.y * up.y + last.z * up.z;
    last.x -= up.x * dUp;
    last.y -= up.y * dUp;
    last.z -= up.z * dUp;
    cross(tCross, last, fw);
    const sin = (tCross.x * up.x + tCross.y * up.y + tCross.z * up.z) * f.determinant;
    const cos = last.x * fw.x + last.y * fw.y + last.z * fw.z;
    const angle = sin === 0 && cos === 0 ? 0 : (Math.atan2(sin, cos) * 180) / Math.PI;
    copy(last, fw);
    // a paused frame (dt 0) keeps the rate and the tilt: a turn while time stands still is no yaw rate
    if (deltaTime > 0) {
      this.yawRate = angle / deltaTime;
      let target = this.yawRate * this.tiltSensitivity * 0.01;
      target = target > 1 ? 1 : target < -1 ? -1 : target;
      // exponential easing: a rate-independent share of the gap each second (dt × speed was not at 30 FPS)
      const e = 1 - Math.exp(-deltaTime * this.tiltSpeed);
      const tilt = this.tiltAngle + (target - this.tiltAngle) * (e > 0 ? (e < 1 ? e : 1) : 0);
      // a non-finite step (a non-finite root turn) must not stay in the eased tilt
      if (Number.isFinite(tilt)) this.tiltAngle = tilt;
    }
    const t = this.tiltAngle;
    this.scalars.s = (t < 0 ? -t : t) * this.clock.weight;
    if (t > 0) this.poseRight._apply(this.ik, this.scalars, f);
    else if (t < 0) this.poseLeft._apply(this.ik, this.scalars, f);
  }
}
