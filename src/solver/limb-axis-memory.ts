/**
 * What the full body's per-limb memories of an earlier frame (turn-limit-memory.ts, fold-memory.ts) keep to tell
 * the next update of a moving limb from a fresh start: the update's number and the limb axis.
 * @module
 */

/**
 * Cosine of the turn of the limb axis in one update beyond which it is a jump (a teleport, a new target), not
 * motion: a memory starts afresh rather than easing toward a side far from the last one.
 */
const JUMP_COS = Math.cos((30 * Math.PI) / 180);

/**
 * The update number and unit limb axis of this update (set by the bend constraint) and of the last one remembered.
 * Written through fields: the memories run per limb per frame (see ARCHITECTURE.md, "Doubles across calls").
 */
export class LimbAxisMemory {
  /** The solver's update number (set by the bend constraint before the memory's limit). */
  update = 0;
  /** This update's unit limb axis (first node → end). */
  x = Number.NaN;
  /** @see x */
  y = Number.NaN;
  /** @see x */
  z = Number.NaN;
  private lastUpdate = -1;
  private lastX = Number.NaN;
  private lastY = Number.NaN;
  private lastZ = Number.NaN;

  /**
   * True when this update is the successor of the last one remembered (none was skipped: the first frame, a frame
   * the limb was not driven or the solver's weight was 0, `resetMemory`) and the axis turned less than 30° since.
   */
  protected follows(): boolean {
    const cos = this.x * this.lastX + this.y * this.lastY + this.z * this.lastZ;
    return this.lastUpdate === this.update - 1 && cos > JUMP_COS;
  }

  /** Remembers this update's number and axis. */
  protected rememberAxis(): void {
    this.lastUpdate = this.update;
    this.lastX = this.x;
    this.lastY = this.y;
    this.lastZ = this.z;
  }
}
