/**
 * The head effector's ease over `fadeSeconds` (not in FinalIK): what keeps the body from jumping when a
 * headset's tracking is lost and comes back. Allocation-free; numbers travel in fields (ARCHITECTURE.md,
 * "Doubles across calls").
 * @module
 */
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { NumberRef } from "../../math/number-ref.js";
import { Quat, type ReadonlyQuat, copyQuat, slerpByRef } from "../../math/quat.js";
import { Vec3, type ReadonlyVec3, copy, lerpByRef } from "../../math/vec3.js";

/** The effector's own weights of one update (after its master weight, before the IK's). */
export interface HeadWeights {
  position: number;
  rotation: number;
  bend: number;
}

/**
 * The ease of one head effector, by {@link share} of a whole fade per update (dt / fadeSeconds):
 * - its weights move toward the ones set by at most that share (a step eases; a change no faster is used as
 *   it is);
 * - a target that changes source (another node, null → node) or is read again after being held is reached
 *   from the target last used;
 * - while it fades in from no weight, or out after a release, the target is also carried from the head's
 *   own pose by the same share: the weights alone act most at their small end (the torso is pinned by the
 *   weight in each iteration), which would put most of the move into a fade's first or last frames.
 * A target node that keeps its source, and weights that change no faster than the share, are used as they
 * are (FinalIK's).
 */
export class HeadFade {
  /** This update's step: the share of a whole fade it covers (dt / fadeSeconds; ∞ when the fade is off). */
  share = Number.POSITIVE_INFINITY;
  /** How much of the target (against the head's own pose) is used: < 1 while fading in or out. */
  readonly presence = new NumberRef(1);
  /** The own weights used by the last update (position, rotation, bend), then the ones set this update. */
  private readonly shown = new Float64Array(3);
  private readonly wanted = new Float64Array(3);
  /** True until the first update: a new effector starts at its weights (no fade at creation). */
  private fresh = true;
  /** True when this update starts from no weight at all (nothing to carry on from). */
  private fromIdle = true;
  /** The target node of the last read. */
  private source: TransformNode | null = null;
  /** True when the last update held the target last used instead of reading one. */
  private held = false;
  /** True once a target was used. */
  private hasUsed = false;
  /** The target used by the last update, component space (before {@link presence}). */
  private readonly usedPosition = new Vec3();
  private readonly usedRotation = new Quat();
  /** Where the blend toward the live target started, and how much of it is done (1: the live target). */
  private readonly fromPosition = new Vec3();
  private readonly fromRotation = new Quat();
  private readonly blend = new NumberRef(1);

  /** Switched off (the effector disabled): nothing is shown; the next update fades in from nothing. */
  off(): void {
    this.fresh = false;
    this.shown.fill(0);
    this.presence.value = 0;
  }

  /**
   * Eases `w` in place from the weights shown last toward `w` (`released`: every weight set is 0); true when
   * any weight remains.
   */
  ease(w: HeadWeights, released: boolean): boolean {
    const s = this.shown;
    const want = this.wanted;
    want[0] = w.position;
    want[1] = w.rotation;
    want[2] = w.bend;
    const fresh = this.fresh;
    const k = fresh ? Number.POSITIVE_INFINITY : this.share;
    this.fresh = false;
    const wasIdle = !(s[0]! > 0) && !(s[1]! > 0) && !(s[2]! > 0);
    let clipped = false;
    for (let i = 0; i < 3; i++) {
      const d = want[i]! - s[i]!;
      // within a step the weight lands on the one set exactly: weight 0 is bit for bit the IK's pose
      if (d <= k && d >= -k) s[i] = want[i]!;
      else {
        s[i] = d > 0 ? s[i]! + k : s[i]! - k;
        clipped = true;
      }
    }
    w.position = s[0]!;
    w.rotation = s[1]!;
    w.bend = s[2]!;
    this.fromIdle = wasIdle;
    const p = this.presence;
    // from nothing: a step fades the target in with the weights, a change no faster takes it as it is
    if (fresh || (wasIdle && !clipped)) p.value = 1;
    else if (wasIdle) p.value = k < 1 ? k : 1;
    else {
      const goal = released ? 0 : 1;
      const d = goal - p.value;
      p.value = d <= k && d >= -k ? goal : d > 0 ? p.value + k : p.value - k;
    }
    return s[0]! > 0 || s[1]! > 0 || s[2]! > 0;
  }

  /**
   * Holds the target last used (weights fading out after a release, or a target that cannot be read) in
   * `position` and `rotation`; false when no target was ever used.
   */
  hold(position: Vec3, rotation: Quat): boolean {
    if (!this.hasUsed) return false;
    this.held = true;
    copy(position, this.usedPosition);
    copyQuat(rotation, this.usedRotation);
    return true;
  }

  /**
   * The live target just read from `source`, in `position` and `rotation`: blended from the target last used
   * when its source changed or it was held (a change during a blend starts again from where it is), until
   * the blend is done. Remembered as the target used.
   */
  follow(source: TransformNode | null, position: Vec3, rotation: Quat): void {
    const b = this.blend;
    if (this.fromIdle || !this.hasUsed) b.value = 1;
    else if (this.held || source !== this.source) {
      copy(this.fromPosition, this.usedPosition);
      copyQuat(this.fromRotation, this.usedRotation);
      b.value = 0;
    }
    this.held = false;
    this.source = source;
    if (b.value < 1) {
      const v = b.value + this.share;
      b.value = v < 1 ? v : 1;
      // the blend's last step is the live target itself
      if (v < 1) {
        lerpByRef(position, this.fromPosition, position, b);
        slerpByRef(rotation, this.fromRotation, rotation, b);
      }
    }
    this.hasUsed = true;
    copy(this.usedPosition, position);
    copyQuat(this.usedRotation, rotation);
  }

  /** While {@link presence} is below 1: the target carried from the head's own pose by it, in place. */
  present(headPosition: ReadonlyVec3, headRotation: ReadonlyQuat, position: Vec3, rotation: Quat): void {
    const p = this.presence;
    lerpByRef(position, headPosition, position, p);
    slerpByRef(rotation, headRotation, rotation, p);
  }
}
