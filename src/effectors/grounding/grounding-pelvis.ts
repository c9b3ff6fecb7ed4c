import { Vec3, copy } from "../../math/vec3.js";
import type { Grounding } from "./grounding.js";

/**
 * The most a grounded leg is stretched, thigh to foot over its length, before the pelvis lowers for it: a knee
 * bent by about 5°, short of the straight leg the solver's limb pass would otherwise leave.
 */
const REACH_LIMIT = 0.999;

/**
 * The pelvis of the grounding solver (FinalIK's Grounding.Pelvis): eases a vertical offset toward the
 * legs' needs (down for a foot on lower ground, up for a foot on higher ground, by the grounding's
 * weights), optionally damping the root's own vertical motion.
 */
export class GroundingPelvis {
  /** Input: the offset the lowered feet ask for (along up, ≤ 0), set by {@link Grounding.update}. */
  lowestOffset = 0;
  /** Input: the offset the lifted feet ask for (along up, ≥ 0), set by {@link Grounding.update}. */
  highestOffset = 0;
  /** Input: whether any leg is grounded (fades the damper in or out), set by {@link Grounding.update}. */
  anyLegGrounded = false;
  /** Output: the world offset to add to the pelvis (along up). */
  readonly ikOffset = new Vec3();
  /**
   * Output: the eased height offset (along up; negative lowers the pelvis). `ikOffset` may lower the pelvis
   * further by the legs' reach ({@link Grounding.pelvisReachWeight}): at once, and back up at `pelvisSpeed`.
   */
  heightOffset = 0;
  /** False until the first update after construction or {@link reset}. */
  initiated = false;
  private readonly grounding: Grounding;
  private readonly lastRootPosition = new Vec3();
  private damperF = 1;
  /** The lowering beyond the ease for the legs' reach (≥ 0, along −up): this frame's, kept for the next. */
  private reachDrop = 0;
  /** This frame's lowering the legs' reach asks for, before easing back (set by lowerForReach). */
  private reachNeed = 0;
  /**
   * The lowest foot's offset (≤ 0) as the reach's drop may use it: a lower one at once, a higher one at
   * `pelvisSpeed`, so the drop is not pulled up with the root's own descent past a planted foot (down a slope).
   */
  private lowestHeld = 0;

  /** The pelvis of `grounding`. */
  constructor(grounding: Grounding) {
    this.grounding = grounding;
  }

  /** Forgets the offset and the root's motion (teleports). */
  reset(): void {
    this.initiated = false;
    this.heightOffset = 0;
    this.damperF = 1;
    this.reachDrop = 0;
    this.lowestHeld = 0;
    this.ikOffset.x = this.ikOffset.y = this.ikOffset.z = 0;
  }

  /**
   * Eases toward `lowestOffset + highestOffset` (0 when the root is not grounded) by the grounding's
   * `deltaTime` (called by {@link Grounding.update}).
   */
  process(): void {
    // written out, no helper calls with doubles: this runs inside the grounding's step, where V8 may not
    // inline them (see ARCHITECTURE.md, "Doubles across calls")
    const g = this.grounding;
    const deltaTime = g.deltaTime;
    const up = g.up;
    const root = g.rootPosition;
    const last = this.lastRootPosition;
    if (!this.initiated) {
      copy(last, root);
      this.initiated = true;
    }
    if (deltaTime > 0) {
      const rootDelta = (root.x - last.x) * up.x + (root.y - last.y) * up.y + (root.z - last.z) * up.z;
      copy(last, root);
      // FinalIK's Interp.LerpValue of the damper toward 1 (a leg grounded) or 0, at 10 a second (lerpValue)
      const goal = this.anyLegGrounded ? 1 : 0;
      let d = this.damperF;
      if (d < goal) {
        d = d + deltaTime * 10;
        if (d > goal) d = goal;
      } else if (d > goal) {
        d = d - deltaTime * 10;
        if (d < goal) d = goal;
      }
      this.damperF = d;
      const target = g.rootGrounded ? this.lowestOffset + this.highestOffset : 0;
      const speed = deltaTime * g.pelvisSpeed;
      const damper = g.pelvisDamper;
      let h = this.heightOffset;
      h += (target - h) * (speed >= 0 ? (speed <= 1 ? speed : 1) : 0);
      // the pelvis does not follow the root's vertical motion at once (stairs): damp it
      h -= rootDelta * (damper >= 0 ? (damper <= 1 ? damper : 1) : 0) * d;
      // a non-finite step (a non-finite root position, an overflow) must not stay in the eased state
      if (Number.isFinite(h)) this.heightOffset = h;
    }
    const o = this.ikOffset;
    const lowest = this.lowestOffset;
    if (lowest < this.lowestHeld) this.lowestHeld = lowest;
    else if (lowest > this.lowestHeld) {
      const speed = deltaTime * g.pelvisSpeed;
      this.lowestHeld += (lowest - this.lowestHeld) * (speed >= 0 ? (speed <= 1 ? speed : 1) : 0);
    }
    this.reachNeed = 0;
    if (g.rootGrounded) this.lowerForReach();
    // lowered at once, raised back at the pelvis's speed: a foot leaving its reach, or the root leaving the
    // ground, would otherwise pop the pelvis up by the whole drop in a frame
    const need = this.reachNeed;
    let drop = this.reachDrop;
    if (need >= drop) drop = need;
    else {
      const speed = deltaTime * g.pelvisSpeed;
      drop += (need - drop) * (speed >= 0 ? (speed <= 1 ? speed : 1) : 0);
      // never lower than the lowest foot has asked lately (lowestHeld): its offset itself rises as the root goes
      // down a slope past a planted foot, and pulled the drop up by the root's descent, a jerk every step
      const rw = g.pelvisReachWeight;
      const most = (-this.lowestHeld + this.heightOffset) * (rw > 0 ? (rw < 1 ? rw : 1) : 0);
      if (drop > most) drop = most > need ? most : need;
    }
    if (Number.isFinite(drop)) this.reachDrop = drop;
    const height = this.heightOffset - this.reachDrop;
    o.x = up.x * height;
    o.y = up.y * height;
    o.z = up.z * height;
  }

  /**
   * Sets {@link reachNeed}: how much lower than the eased offset the pelvis must go for every grounded leg with a
   * known length to reach its foot's ikPosition with the knee bent by at least {@link REACH_LIMIT} (or as much as
   * the animation bends it, if more), by the grounding's `pelvisReachWeight`; never past the lowest foot's own
   * offset. Written to a field, not returned (see ARCHITECTURE.md, "Doubles across calls").
   */
  private lowerForReach(): void {
    const g = this.grounding;
    const rw = g.pelvisReachWeight;
    const weight = rw > 0 ? (rw < 1 ? rw : 1) : 0;
    // the pelvis's eventual lowering, of which the ease has done `−heightOffset` so far
    const room = -this.lowestOffset + this.heightOffset;
    if (!(weight > 0) || !(room > 0)) return;
    const up = g.up;
    const h = this.heightOffset;
    let most = 0;
    const legs = g.legs;
    for (let i = 0; i < legs.length; i++) {
      const leg = legs[i]!;
      const length = leg.legLength;
      if (!leg.isGrounded || !(length > 0)) continue;
      const thigh = leg.thighPosition;
      const foot = leg.footPosition;
      const goal = leg.ikPosition;
      // thigh to foot in the animation: a leg animated straighter than the limit may stay so
      const ax = thigh.x - foot.x;
      const ay = thigh.y - foot.y;
      const az = thigh.z - foot.z;
      const animated = Math.sqrt(ax * ax + ay * ay + az * az) / length;
      const limit = (animated > REACH_LIMIT ? (animated < 1 ? animated : 1) : REACH_LIMIT) * length;
      // the thigh where the eased pelvis puts it, to the foot's goal
      const vx = thigh.x + up.x * h - goal.x;
      const vy = thigh.y + up.y * h - goal.y;
      const vz = thigh.z + up.z * h - goal.z;
      const along = vx * up.x + vy * up.y + vz * up.z;
      const across = vx * vx + vy * vy + vz * vz - along * along;
      const free = limit * limit - across;
      // lowering the thigh by e brings it to the goal while e < along; past the stride's reach, only that far
      const e = free > 0 ? along - Math.sqrt(free) : along;
      if (e > most) most = e;
    }
    const drop = (most < room ? most : room) * weight;
    if (Number.isFinite(drop)) this.reachNeed = drop;
  }
}
