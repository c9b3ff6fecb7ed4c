import { Vec3, copy, dot, scale, sub } from "../../math/vec3.js";
import { clampNumber, lerpValue } from "./grounding-common.js";
import type { Grounding } from "./grounding.js";

const tv = new Vec3();

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
    const g = this.grounding;
    const deltaTime = g.deltaTime;
    const up = g.up;
    if (!this.initiated) {
      copy(this.lastRootPosition, g.rootPosition);
      this.initiated = true;
    }
    if (deltaTime > 0) {
      const rootDelta = dot(sub(tv, g.rootPosition, this.lastRootPosition), up);
      copy(this.lastRootPosition, g.rootPosition);
      this.damperF = lerpValue(this.damperF, this.anyLegGrounded ? 1 : 0, 10, 10, deltaTime);
      const target = g.rootGrounded ? this.lowestOffset + this.highestOffset : 0;
      let h = this.heightOffset;
      h += (target - h) * clampNumber(deltaTime * g.pelvisSpeed, 0, 1);
      // the pelvis does not follow the root's vertical motion at once (stairs): damp it
      h -= rootDelta * clampNumber(g.pelvisDamper, 0, 1) * this.damperF;
      // a non-finite step (a non-finite root position, an overflow) must not stay in the eased state
      if (Number.isFinite(h)) this.heightOffset = h;
    }
    scale(this.ikOffset, up, this.heightOffset);
  }
}
