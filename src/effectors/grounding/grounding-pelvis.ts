import { Vec3, copy } from "../../math/vec3.js";
import type { Grounding } from "./grounding.js";

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
  /** Output: the eased height offset (along up; negative lowers the pelvis). */
  heightOffset = 0;
  /** False until the first update after construction or {@link reset}. */
  initiated = false;
  private readonly grounding: Grounding;
  private readonly lastRootPosition = new Vec3();
  private damperF = 1;

  /** The pelvis of `grounding`. */
  constructor(grounding: Grounding) {
    this.grounding = grounding;
  }

  /** Forgets the offset and the root's motion (teleports). */
  reset(): void {
    this.initiated = false;
    this.heightOffset = 0;
    this.damperF = 1;
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
    const height = this.heightOffset;
    o.x = up.x * height;
    o.y = up.y * height;
    o.z = up.z * height;
  }
}
