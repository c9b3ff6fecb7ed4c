/**
 * What a bend direction's turn limit keeps of a limb's last update (with fold-memory.ts, the full body's bend's only
 * state): an angle about the limb axis that may turn no faster than the references it is made from. Used twice by
 * the bend constraint: the fitted elbow side's swivel (elbow-swivel.ts) and the effector rotation's blend into the
 * carried bend (bend-constraint.ts `limitRotationBlend`).
 * @module
 */
import { LimbAxisMemory } from "./limb-axis-memory.js";

/**
 * Radians an update the turned angle may turn beyond its references' own turns. Lower, the swivel's elbow lags
 * behind the fitted side where the carried bend stays still and catches up later (at 3°, swings of 38° and 32° on
 * UAL's paths in test/scenario/smooth-paths, 16° and 15° at 10°); without the limit the Mannequin's elbow swung 36°
 * in a frame where the carried bend turned 23°.
 */
const TURN_RATE = (10 * Math.PI) / 180;
const TWO_PI = 2 * Math.PI;

/**
 * A turned angle about the limb axis and the two reference angles it is made from (radians, measured from a zero
 * that moves continuously across updates): this update's (set by the caller, then limited by {@link limit}) and the
 * last update's. Across consecutive updates the turned angle turns by at most the faster reference's turn or 10°,
 * whichever is larger, plus {@link slack}. An update numbered other than the last one's successor (the caller did
 * not act in between: a weight 0, the first frame, `ikPositionWeight` 0, `resetMemory`) or a limb axis that jumped
 * (limb-axis-memory.ts) starts afresh: the limit holds only across consecutive updates of a moving limb, so one
 * solve from a pose has no memory.
 * Written through fields: the limits run per limb per frame (see ARCHITECTURE.md, "Doubles across calls").
 */
export class TurnLimitMemory extends LimbAxisMemory {
  /** This update's first reference angle. */
  reference = Number.NaN;
  /** This update's second reference angle (a memory with one reference sets it to {@link reference}). */
  otherReference = Number.NaN;
  /** This update's turned angle; {@link limit} writes back the limited angle. */
  turned = Number.NaN;
  /** Radians the turned angle may turn this update on top of the limit (the caller's own motion of the blend). */
  slack = 0;
  private lastReference = Number.NaN;
  private lastOtherReference = Number.NaN;
  private lastTurned = Number.NaN;

  /**
   * Limits {@link turned} to within the faster reference's turn since the last update (at least 10°), plus
   * {@link slack}, of the last turned angle, when the last update was the one before this and the axis did not
   * jump; then remembers this update. A turn within the limit passes bit for bit.
   */
  limit(): void {
    if (this.follows()) {
      // angles and their differences wrapped into [−π, π] without branches: a branch taken only on rare frames
      // runs unoptimised there and boxes its doubles (see ARCHITECTURE.md, "Doubles across calls")
      let a = this.reference - this.lastReference;
      a = Math.abs(a - TWO_PI * Math.round(a / TWO_PI));
      let b = this.otherReference - this.lastOtherReference;
      b = Math.abs(b - TWO_PI * Math.round(b / TWO_PI));
      const step = Math.max(a, b, TURN_RATE) + this.slack;
      let turn = this.turned - this.lastTurned;
      turn -= TWO_PI * Math.round(turn / TWO_PI);
      // the excess taken off this angle, not the step added to the last: unlimited, the angle stays bit for bit
      const t = this.turned - (turn - Math.max(-step, Math.min(step, turn)));
      this.turned = t - TWO_PI * Math.round(t / TWO_PI);
    }
    this.rememberAxis();
    this.lastReference = this.reference;
    this.lastOtherReference = this.otherReference;
    this.lastTurned = this.turned;
  }
}
