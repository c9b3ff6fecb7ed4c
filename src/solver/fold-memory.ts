/**
 * What the natural-side fold (bend-constraint.ts `limitToNaturalSide`) keeps of a limb's last update, so that an
 * elbow or knee folds toward its natural side at a bounded rate instead of swinging with the natural pole.
 * @module
 */
import { LimbAxisMemory } from "./limb-axis-memory.js";

/**
 * Radians an update the fold's turn of the bend may change by, beyond a fold fading out. The fold measures the bend
 * from the natural pole, which turns fast where the limb passes near where it vanishes (an arm swinging past the
 * body, a roll), and folds with slope 0.8 against it, so the folded elbow turned 1.8 times the pole's turn: without
 * a limit, both hands 5 % of the height above the clip's, Roll's elbow swivelled 80° a frame beyond the clip's.
 * UAL's 46 clips with the hands 5 % h above (robustness/natural-fold-all-clips.test.ts): at 10°, elbows more than
 * 81° off the natural pole in 70 arm-frames (the worst 179°) where 51 (166°) at 20°; at 30°, the worst elbow jump a
 * frame beyond the clip's 0.075 h where 0.056 h at 20° (without a limit 26 arm-frames, 0.162 h).
 */
const TURN_RATE = (20 * Math.PI) / 180;
const TWO_PI = 2 * Math.PI;
/**
 * Radians an update the folded bend itself may turn about the limb axis while a partial fold changes side, from the
 * last update's direction carried to this axis. The turn's limit alone let the bend's own turn add to it: UAL jogging
 * (test/scenario/jog-elbow-fold-flip) turned elbows 37° and 44° a frame in a change of side, 0.096 h and 0.106 h
 * beyond the clip's (whose elbows move 0.049 h a frame); at 25°, 0.067 h and 0.062 h; at 20°, 0.054 h and 0.050 h but
 * Roll's elbows more than 81° off the natural pole in 4 more arm-frames of 8,136 with the hands 20 % h above (2 at
 * 25°); at 30°, 0.079 h and 0.075 h.
 */
const DIRECTION_RATE = (25 * Math.PI) / 180;

/**
 * The fold's turn of one limb (signed, radians, about the limb axis: from the carried bend to the folded one): this
 * update's (set by the fold, then limited by {@link limit}) and the last update's. Across consecutive updates the
 * turn changes by at most 20° (more as the end nears a far target, {@link far}), plus π times the fall of the fold's
 * amount, so a weight fading out or a hand coming back to the clip's unfolds with it. A partial fold's change of side
 * (the turn's sign swapped: a bend passing opposite the pole, where a partial fold folds one way or the other) comes
 * round at 20° an update and the fall, however far the end (UAL jogging, its hands' targets 170° off the clip's hands
 * and their weights ramped over 24 frames: elbows turned 171° in a frame, then 44°), and meanwhile the folded
 * direction itself turns at most 25° an update ({@link limitDirection}: the bend's own turn added to the turn's; now
 * 25°). An update numbered other than the last one's successor (the limb was not driven in between, the first frame,
 * `ikPositionWeight` 0, `resetMemory`) or a limb axis that turned more than 30° starts afresh.
 * Written through fields: the fold runs per limb per frame (see ARCHITECTURE.md, "Doubles across calls").
 */
export class FoldMemory extends LimbAxisMemory {
  /** This update's turn (radians, in [−π, π]); {@link limit} writes back the limited turn. */
  turn = 0;
  /** This update's fold amount, [0, 1] (the end's move and weight: not the pole's gate, which the limit is for). */
  amount = 0;
  /**
   * How far the end is from the clip's, from 0 (the limit in full) to 1 (none: a target far from the clip's hand
   * folds the elbow at once, but for a partial fold's change of side). Between, the rate is divided by 1 − far.
   */
  far = 0;
  /**
   * This update's share of the full fold, [0, 1] (the pole's gate, the end's move and weight): below 1 a bend passing
   * opposite the pole folds one way or the other, and a change of side begun then is limited however far the end.
   */
  share = 0;
  /**
   * This update's bend direction after the fold (any length; set by the bend constraint after {@link limit});
   * {@link limitDirection} turns it back about the axis toward the last update's while a side change is under way.
   */
  fx = 0;
  /** @see fx */
  fy = 0;
  /** @see fx */
  fz = 0;
  /** 1 when {@link limitDirection} turned the direction back this update (the caller rewrites its bend), else 0. */
  held = 0;
  private lastTurn = 0;
  private lastAmount = 0;
  // 1 while a partial fold's change of side has not yet reached the turn wanted, else 0 (a number, not a boolean)
  private changing = 0;
  // 1 when this update follows the last one remembered and a side change is under way in it, else 0
  private sideChange = 0;
  // the last update's bend direction after the fold, across its axis (0 before any: carried, it holds nothing)
  private lastFx = 0;
  private lastFy = 0;
  private lastFz = 0;

  /**
   * Limits {@link turn} to within the rate of the last update's turn when the last update was the one before this
   * and the axis did not jump, then remembers this update. An end far from the clip's takes its turn at once, but not
   * a partial fold's change of side (the turn's sign against the last one's), nor the rest of one.
   */
  limit(): void {
    const near = 1 - this.far;
    // a partial fold's change of side: this turn's sign the opposite of the last's (a turn of 0, no fold, has no
    // side); a full fold lands on the pole from either side, so only a partial one starts one, which then runs to
    // its end (booleans as numbers: 0 or 1, and 0 for NaN)
    const changing = Math.max(this.changing, +(this.share < 1) * +(this.turn * this.lastTurn < 0));
    let left = 0;
    const follows = this.follows();
    this.sideChange = +follows * changing;
    if (follows && (near > 0 || changing > 0)) {
      // differences wrapped into [−π, π] and bounds by min/max, without branches: a branch taken only on rare
      // frames runs unoptimised there and boxes its doubles (see ARCHITECTURE.md, "Doubles across calls"); a side
      // change at the plain rate however far the end (the denominator 1 then, exactly)
      const rate =
        TURN_RATE / (changing + (1 - changing) * Math.min(near, 1)) +
        Math.PI * Math.max(0, this.lastAmount - this.amount);
      let step = this.turn - this.lastTurn;
      step -= TWO_PI * Math.round(step / TWO_PI);
      const excess = step - Math.max(-rate, Math.min(rate, step));
      // the excess taken off this turn, not the step added to the last: unlimited, the turn stays bit for bit
      const t = this.turn - excess;
      this.turn = t - TWO_PI * Math.round(t / TWO_PI);
      left = changing * +(excess !== 0);
    }
    this.changing = left;
    this.rememberAxis();
    this.lastTurn = this.turn;
    this.lastAmount = this.amount;
  }

  /**
   * While a side change is under way (set by {@link limit}), limits the turn of the folded direction
   * ({@link fx}, …) about the axis to 25° from the last update's, carried to this axis (its part across it), keeping
   * its part along the axis and its length across, and keeps the side change going while it holds; then remembers
   * the direction. Otherwise passes it bit for bit.
   */
  limitDirection(): void {
    const x = this.x;
    const y = this.y;
    const z = this.z;
    // the last direction carried to this axis: its part across it (the axis turned less than 30°)
    const d = this.lastFx * x + this.lastFy * y + this.lastFz * z;
    let cx = this.lastFx - x * d;
    let cy = this.lastFy - y * d;
    let cz = this.lastFz - z * d;
    const cl = Math.sqrt(cx * cx + cy * cy + cz * cz);
    // none (no last direction, or one along the axis): atan2(0, 0) below, 0, and nothing held
    const n = cl > 0 ? cl : 1;
    cx /= n;
    cy /= n;
    cz /= n;
    // a quarter turn on about the axis: the direction's part across the axis is (u, v) in the carried one's frame
    const wx = y * cz - z * cy;
    const wy = z * cx - x * cz;
    const wz = x * cy - y * cx;
    const u = this.fx * cx + this.fy * cy + this.fz * cz;
    const v = this.fx * wx + this.fy * wy + this.fz * wz;
    const a = Math.atan2(v, u);
    const kept = Math.max(-DIRECTION_RATE, Math.min(DIRECTION_RATE, a));
    // booleans as numbers (NaN compares false: a direction that is not one holds nothing)
    const held = this.sideChange * +(Math.abs(a - kept) > 0);
    const along = this.fx * x + this.fy * y + this.fz * z;
    if (held > 0) {
      const across = Math.sqrt(u * u + v * v);
      const c = Math.cos(kept) * across;
      const s = Math.sin(kept) * across;
      this.fx = x * along + cx * c + wx * s;
      this.fy = y * along + cy * c + wy * s;
      this.fz = z * along + cz * c + wz * s;
    }
    this.held = held;
    this.changing = Math.max(this.changing, held);
    // its part across this axis: the part along it would turn into the plane across the next one
    this.lastFx = this.fx - x * along;
    this.lastFy = this.fy - y * along;
    this.lastFz = this.fz - z * along;
  }
}
