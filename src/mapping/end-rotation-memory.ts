/**
 * What a hand's or foot's blend toward its effector rotation keeps of the last update: the blend's offset from the
 * rotation it starts from, so that the blend cannot change sides at once as the two rotations pass a half turn apart.
 * @module
 */
import { Quat, type ReadonlyQuat, conjugateMultiply, copyQuat, multiply, slerpByRef } from "../math/quat.js";
import { NumberRef } from "../math/number-ref.js";

/** Radians an update the blend's offset may turn beyond the target's own turn against the rotation it starts from. */
const TURN_RATE = (10 * Math.PI) / 180;
/**
 * |cos| of half the angle between the two rotations below which they are near a half turn apart (more than 135°):
 * only there may the shortest arc change sides between updates.
 */
const HALF_TURN_COS = Math.cos((67.5 * Math.PI) / 180);

const offset = new Quat();
const target = new Quat();
const fraction = new NumberRef();

/**
 * The blend's offset (the blended rotation in the frame of the rotation it starts from) and the target's (the
 * effector rotation in that frame) at the last update, with its number and weight. Across consecutive updates
 * where the two rotations are near a half turn apart (or the last update was held back), the offset turns by no
 * more than the target's own turn or 10°, whichever is larger, plus the weight's change times the angle between
 * them: the shortest arc's change of side then comes round over a few updates instead of at once. Elsewhere the
 * blend passes bit for bit. An update numbered other than the last one's successor (a fractional weight not met
 * last update, the first frame, `resetMemory`) starts afresh.
 * Written through fields: it runs per limb per frame (see ARCHITECTURE.md, "Doubles across calls").
 */
export class EndRotationMemory {
  /** The solver's update number (set by the mapping before {@link limit}). */
  update = 0;
  /** This update's blend weight in (0, 1) (set before {@link limit}). */
  weight = 0;
  private lastUpdate = -1;
  private lastWeight = 0;
  /** The last update's offset was held back: the limit holds until it has caught up, near a half turn or not. */
  private held = false;
  private readonly lastOffset = new Quat();
  private readonly lastTarget = new Quat();

  /**
   * Limits `out`, the blend of `from` toward `to` by {@link weight}, as the class says; then remembers this update.
   * A blend within the limit passes bit for bit.
   */
  limit(out: Quat, from: ReadonlyQuat, to: ReadonlyQuat): void {
    conjugateMultiply(offset, from, out);
    conjugateMultiply(target, from, to);
    const last = this.lastTarget;
    const nearHalfTurn = Math.abs(target.w) < HALF_TURN_COS || Math.abs(last.w) < HALF_TURN_COS;
    let held = false;
    if (this.lastUpdate === this.update - 1 && (nearHalfTurn || this.held)) {
      const t = Math.abs(target.x * last.x + target.y * last.y + target.z * last.z + target.w * last.w);
      const targetTurn = 2 * Math.acos(t < 1 ? t : 1);
      const d = Math.abs(target.w);
      const span = 2 * Math.acos(d < 1 ? d : 1);
      const step = Math.max(targetTurn, TURN_RATE) + Math.abs(this.weight - this.lastWeight) * span;
      const lo = this.lastOffset;
      const o = Math.abs(offset.x * lo.x + offset.y * lo.y + offset.z * lo.z + offset.w * lo.w);
      const turn = 2 * Math.acos(o < 1 ? o : 1);
      if (turn > step) {
        fraction.value = step / turn;
        slerpByRef(offset, lo, offset, fraction);
        multiply(out, from, offset);
        held = true;
      }
    }
    this.held = held;
    this.lastUpdate = this.update;
    this.lastWeight = this.weight;
    copyQuat(this.lastOffset, offset);
    copyQuat(this.lastTarget, target);
  }
}
