/**
 * What the fitted elbow side's swivel (elbow-swivel.ts) keeps of an arm's last update (with fold-memory.ts, the full
 * body's bend's only state), so that the elbow's angle from the fitted side turns no faster than the carried bend's.
 * @module
 */
import { LimbAxisMemory } from "./limb-axis-memory.js";

/**
 * Radians a frame the elbow's angle from the fitted side may turn beyond the carried bend's own turn. Lower, the
 * elbow lags behind the fitted side where the carried bend stays still and catches up later (at 3°, swings of 38°
 * and 32° on UAL's paths in test/scenario/smooth-paths, 16° and 15° at 10°); without the limit the Mannequin's elbow
 * swung 36° in a frame where the carried bend turned 23°.
 */
const TURN_RATE = (10 * Math.PI) / 180;
const TWO_PI = 2 * Math.PI;

/**
 * The swivel's angles of one arm: this update's (set by the swivel, then limited by {@link limit}) and the last
 * update's. An update numbered other than the last one's successor (the swivel did not act in between: a weight
 * or the hand's move 0, the first frame, `ikPositionWeight` 0) or a hand that jumped (limb-axis-memory.ts) starts
 * afresh: the limit holds only across consecutive updates of moving hands, so one solve from a pose gives the elbow
 * of no memory.
 * Written through fields: the swivel runs per arm per frame (see ARCHITECTURE.md, "Doubles across calls").
 */
export class ElbowSwivelMemory extends LimbAxisMemory {
  /** This update's carried bend: its angle (radians) from the fitted side about the limb axis, toward q. */
  carried = Number.NaN;
  /** This update's turned bend: its angle from the fitted side; {@link limit} writes back the limited angle. */
  turned = Number.NaN;
  private lastCarried = Number.NaN;
  private lastTurned = Number.NaN;

  /**
   * Limits {@link turned} to within the carried bend's turn since the last update (at least 10°)
   * of the last turned angle, when the last update was the one before this and the hand did not jump; then
   * remembers this update.
   */
  limit(): void {
    if (this.follows()) {
      // angles and their differences wrapped into [−π, π] without branches: a branch taken only on rare frames
      // runs unoptimised there and boxes its doubles (see ARCHITECTURE.md, "Doubles across calls")
      let step = this.carried - this.lastCarried;
      step = Math.max(Math.abs(step - TWO_PI * Math.round(step / TWO_PI)), TURN_RATE);
      let turn = this.turned - this.lastTurned;
      turn -= TWO_PI * Math.round(turn / TWO_PI);
      const t = this.lastTurned + Math.max(-step, Math.min(step, turn));
      this.turned = t - TWO_PI * Math.round(t / TWO_PI);
    }
    this.rememberAxis();
    this.lastCarried = this.carried;
    this.lastTurned = this.turned;
  }
}
