/**
 * What the natural-side fold (bend-constraint.ts `limitToNaturalSide`) keeps of a limb's last update, so that an
 * elbow or knee folds toward its natural side at a bounded rate instead of swinging with the natural pole.
 * @module
 */
import { LimbAxisMemory } from "./limb-axis-memory.js";

/**
 * Radians an update the fold's turn of the bend may change by, beyond a fold fading out. The fold measures the bend
 * from the natural pole, which turns fast where the limb passes near where it vanishes (an arm swinging past the
 * body, a roll), and folds with slope 0.8 against it, so the folded elbow turned 1.8 times the pole's turn: UAL's
 * Sword_Attack's 94° in a frame where the clip's turned 15°, with both hands 5 % of the height above the clip's.
 * UAL's clips with the hands 5 % h above: at 10°, driven elbows more than 81° off the natural pole in 92 limb-frames
 * (the worst 179°) where 24 (131°) at 20°; at 30°, the worst elbow jump 0.079 h where 0.052 h at 20°.
 */
const TURN_RATE = (20 * Math.PI) / 180;
const TWO_PI = 2 * Math.PI;

/**
 * The fold's turn of one limb (signed, radians, about the limb axis: from the carried bend to the folded one): this
 * update's (set by the fold, then limited by {@link limit}) and the last update's. Across consecutive updates the
 * turn changes by at most 20° (more as the end nears a far target, {@link far}), plus π times the fall of the fold's
 * amount, so a weight fading out or a hand coming back to the clip's unfolds with it. An update numbered other than
 * the last one's successor (the limb was not driven in between, the first frame, `ikPositionWeight` 0,
 * `resetMemory`) or a limb axis that turned more than 30° starts afresh.
 * Written through fields: the fold runs per limb per frame (see ARCHITECTURE.md, "Doubles across calls").
 */
export class FoldMemory extends LimbAxisMemory {
  /** This update's turn (radians, in [−π, π]); {@link limit} writes back the limited turn. */
  turn = 0;
  /** This update's fold amount, [0, 1] (the end's move and weight: not the pole's gate, which the limit is for). */
  amount = 0;
  /**
   * How far the end is from the clip's, from 0 (the limit in full) to 1 (none: a target far from the clip's hand
   * folds the elbow at once). Between, the rate is divided by 1 − far.
   */
  far = 0;
  private lastTurn = 0;
  private lastAmount = 0;

  /**
   * Limits {@link turn} to within the rate of the last update's turn when the last update was the one before this,
   * the axis did not jump and the end is not far; then remembers this update.
   */
  limit(): void {
    const near = 1 - this.far;
    if (this.follows() && near > 0) {
      // differences wrapped into [−π, π] and bounds by min/max, without branches: a branch taken only on rare
      // frames runs unoptimised there and boxes its doubles (see ARCHITECTURE.md, "Doubles across calls")
      const rate = TURN_RATE / Math.min(near, 1) + Math.PI * Math.max(0, this.lastAmount - this.amount);
      let step = this.turn - this.lastTurn;
      step -= TWO_PI * Math.round(step / TWO_PI);
      // the excess taken off this turn, not the step added to the last: unlimited, the turn stays bit for bit
      const t = this.turn - (step - Math.max(-rate, Math.min(rate, step)));
      this.turn = t - TWO_PI * Math.round(t / TWO_PI);
    }
    this.rememberAxis();
    this.lastTurn = this.turn;
    this.lastAmount = this.amount;
  }
}
