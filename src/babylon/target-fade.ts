/**
 * The ease over `fadeSeconds` of an effector's weights and target (not in FinalIK): what keeps the body from
 * jumping when a headset's or a controller's tracking is lost and comes back. Shared by the FBBIK's own
 * effectors (`BabylonEffector`) and the head effector. Allocation-free; numbers travel in fields
 * (ARCHITECTURE.md, "Doubles across calls").
 * @module
 */
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { NumberRef } from "../math/number-ref.js";
import { Quat, copyQuat, slerpByRef } from "../math/quat.js";
import { Vec3, type ReadonlyVec3, copy, lerpByRef } from "../math/vec3.js";
import { FadeClock } from "./scene-time.js";

/** What owns an ease: its length in seconds is read from it (a double handed to a call may be boxed). */
export interface FadeOwner {
  /** Seconds of a whole fade; ≤ 0 (or not a number): none, every change at once. */
  readonly fadeSeconds: number;
}

/**
 * The ease of one effector, by {@link share} of a whole fade per update (dt / fadeSeconds):
 * - its weights move toward the ones set by at most that share (a step eases; a change no faster is used as
 *   it is);
 * - a target that changes source (another node, null → node) or is read again after being held is reached
 *   from the target last used;
 * - while it fades in from no weight, or out after a release, the target's position is also carried from the
 *   bone's own by the same share: weights that act most at their small end (the head's torso is pinned by the
 *   weight in each iteration) would otherwise put most of the move into a fade's first or last frames.
 * A target node that keeps its source, and weights that change no faster than the share, are used as they
 * are (FinalIK's).
 */
export class TargetFade {
  /** This update's step: the share of a whole fade it covers (dt / fadeSeconds; ∞ when the fade is off). */
  share = Number.POSITIVE_INFINITY;
  /** How much of the target (against the bone's own pose) is used: < 1 while fading in or out. */
  readonly presence = new NumberRef(1);
  /** In: the weights set, each in [0, 1]; out of {@link ease}: the weights to use this update. */
  readonly weights: Float64Array;
  /** The weights used by the last update. */
  private readonly shown: Float64Array;
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
  /** The scene time since the last {@link step}. */
  private readonly time = new FadeClock();
  /** The target used by the last update, component space (before {@link presence}). */
  private readonly usedPosition = new Vec3();
  private readonly usedRotation = new Quat();
  /** Where the blend toward the live target started, and how much of it is done (1: the live target). */
  private readonly fromPosition = new Vec3();
  private readonly fromRotation = new Quat();
  private readonly blend = new NumberRef(1);

  /**
   * Whether fading in or out also carries the target from the bone's own pose ({@link presence}): for weights
   * that do not act in proportion (the head's); an effector whose weight blends its node linearly already
   * starts from the bone's pose, and carrying it too would double the fade's fastest step.
   */
  private readonly carry: boolean;

  /** An ease of `count` weights; `carry`: see {@link carry}. */
  constructor(count: number, carry: boolean) {
    this.weights = new Float64Array(count);
    this.shown = new Float64Array(count);
    this.carry = carry;
  }

  /**
   * Sets {@link share} for this update from the scene's clock: the scene time since the last step (frames
   * the solve skipped count), one frame's after {@link off} or at the first; a second update in the same
   * scene frame does not move the fade. The owner's `fadeSeconds` ≤ 0 turns it off (every change at once).
   */
  step(scene: Scene, owner: FadeOwner): void {
    const fadeSeconds = owner.fadeSeconds;
    const time = this.time;
    time.step(scene);
    const dt = time.dt;
    this.share = fadeSeconds > 0 ? (dt > 0 ? dt / fadeSeconds : 0) : Number.POSITIVE_INFINITY;
  }

  /** Switched off (the effector disabled): nothing is shown; the next update fades in from nothing. */
  off(): void {
    // the time it stays off is not fading time: back on, the fade in starts with one frame's step
    this.time.restart();
    this.fresh = false;
    this.shown.fill(0);
    this.presence.value = this.carry ? 0 : 1;
  }

  /** Not used this update (the ease turned off): the next update starts at its weights, as a new one. */
  forget(): void {
    // called every frame for every effector left at FinalIK's default: a crowd's stay unwritten
    if (this.fresh && !this.held && !this.hasUsed) return;
    this.fresh = true;
    this.held = false;
    this.hasUsed = false;
  }

  /**
   * Eases {@link weights} in place from the weights used last (`released`: every weight set is 0); true when
   * any weight remains.
   */
  ease(released: boolean): boolean {
    const s = this.shown;
    const want = this.weights;
    const fresh = this.fresh;
    const k = fresh ? Number.POSITIVE_INFINITY : this.share;
    this.fresh = false;
    let wasIdle = true;
    let clipped = false;
    let any = false;
    for (let i = 0; i < s.length; i++) {
      if (s[i]! > 0) wasIdle = false;
      const d = want[i]! - s[i]!;
      // within a step the weight lands on the one set exactly: weight 0 is bit for bit the IK's pose
      if (d <= k && d >= -k) s[i] = want[i]!;
      else {
        s[i] = d > 0 ? s[i]! + k : s[i]! - k;
        want[i] = s[i]!;
        clipped = true;
      }
      if (s[i]! > 0) any = true;
    }
    this.fromIdle = wasIdle;
    const p = this.presence;
    // from nothing: a step fades the target in with the weights, a change no faster takes it as it is
    if (fresh || (wasIdle && !clipped) || !this.carry) p.value = 1;
    else if (wasIdle) p.value = k < 1 ? k : 1;
    else {
      const goal = released ? 0 : 1;
      const d = goal - p.value;
      p.value = d <= k && d >= -k ? goal : d > 0 ? p.value + k : p.value - k;
    }
    return any;
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

  /**
   * While the presence is below 1: the target's position carried from the bone's own by it, in place (`p`:
   * {@link presence}, or it scaled by another fade). Not its rotation: rotation weights turn in proportion, and a
   * target rotation carried from the bone's passes through the clamps' bends (a headset far from the head's
   * rest turned the spine most in the fade's first frames).
   */
  present(bonePosition: ReadonlyVec3, position: Vec3, p: NumberRef): void {
    lerpByRef(position, bonePosition, position, p);
  }
}
