/**
 * The optional fade of an IK component's `enabled` (not in FinalIK): switched off, its output eases back to the
 * animated pose over `enableFadeSeconds` before it stops; switched on, it eases in from the animated pose. One
 * implementation for FullBodyBipedIK, every RigComponent and the hooks on a FullBodyBipedIK's solve (the head
 * effector, the grounder, the offset modifiers: they scale what they add by its {@link EnableFade.weight}).
 * Allocation-free per frame; numbers travel in fields (ARCHITECTURE.md, "Doubles across calls").
 * @module
 */
import type { Scene } from "@babylonjs/core/scene.js";
import type { BabylonRig } from "./babylon-rig.js";
import { OutputFade } from "./lod/output-fade.js";
import { FadeClock } from "./scene-time.js";

/** What owns the fade: `enabled` is read from it; its `enableFadeSeconds` lives in {@link EnableFade.seconds}. */
export interface EnableFadeOwner {
  /** What the user set. */
  readonly enabled: boolean;
}

/** What an update does this frame ({@link EnableFade.begin}). */
export const EnablePass = {
  /** Nothing: off. */
  Off: 0,
  /** Solve and write as without a fade. */
  Solve: 1,
  /** Solve, then write the output at the fade's weight ({@link EnableFade.weigh}). */
  Fade: 2,
  /** Faded out this frame: take the output off (the bones show the animation alone) and stop. */
  Done: 3,
} as const;
/** One of {@link EnablePass}'s values. */
export type EnablePass = (typeof EnablePass)[keyof typeof EnablePass];

/**
 * One component's enable fade: a weight that moves by dt / `enableFadeSeconds` a frame toward 1 (enabled) or 0,
 * and, while it is between, the output written at that weight (per bone, the local offset from the animated
 * pose slerped from none by the weight). The IK solves all along, so a reversal mid-fade turns back from the
 * pose shown, and a moving target is followed while the hand lets go. It weighs whatever the update wrote, the
 * level of detail's blend included: a weight, not a second blend that would lag the first and catch up. The time
 * is the scene's animation clock, so a fade keeps pace with the clips under it; frames an update skipped count.
 */
export class EnableFade {
  /** The weighting (an OutputFade from no offset, by the weight), made at the first fade. */
  private output: OutputFade | null = null;
  /**
   * The owner's `enableFadeSeconds` (its accessor's storage): seconds of a whole fade; ≤ 0 (or not a number):
   * `enabled` switches at once. Kept here because owners are of many classes, and a double read from an object
   * of many shapes is boxed (16 B a read).
   */
  seconds = 0;
  /** How much of the output shows: 1 on, 0 off, in between while fading. Read-only to the owner. */
  weight = 1;
  /** The state it goes toward: `enabled` as last seen. */
  private on = true;
  /** True when nothing of the IK is on the bones (it was not shown, or off by level of detail). */
  private clean = false;
  /** The scene time since the last step. */
  private readonly time = new FadeClock();
  /** The scene frame of the last {@link weigh} (a fade goes on from it in the next frame). */
  private weighed = -2;
  /** True in the update a fade in starts with nothing shown (set by {@link begin}). */
  fromNothing = false;

  /** `rig`: the one whose output {@link weigh} weighs; null for a hook, which weighs what it adds itself. */
  constructor(
    private readonly scene: Scene,
    private readonly rig: BabylonRig | null,
  ) {}

  /**
   * True while the output blends in or out, from the moment `enabled` changes: the next update starts the fade
   * (it switches at once without a time, or when nothing of the owner shows to fade out).
   */
  fading(owner: EnableFadeOwner): boolean {
    const on = owner.enabled;
    if (on !== this.on) return this.seconds > 0 && (on || !this.clean);
    return on ? this.weight < 1 : this.weight > 0;
  }

  /**
   * Whether the owner runs this frame (FixTransforms, the update): enabled, or fading out. With a fade of 0 it
   * is `enabled`, as without the fade.
   */
  active(owner: EnableFadeOwner): boolean {
    return owner.enabled || (this.weight > 0 && this.seconds > 0);
  }

  /**
   * Nothing of the IK can show this frame (not shown, off by level of detail, detached, or off): `enabled`
   * takes effect at once, and a fade starts later from the animated pose. Writes only on a change (a crowd's).
   */
  settle(owner: EnableFadeOwner): void {
    const on = owner.enabled;
    const weight = on ? 1 : 0;
    if (this.on === on && this.weight === weight && this.clean) return;
    this.on = on;
    this.weight = weight;
    this.clean = true;
  }

  /**
   * The start of an update that can show the IK: follows `enabled`, moves the weight by the scene time since
   * the last step (a second update in one frame does not move it) and says what the update does.
   */
  begin(owner: EnableFadeOwner): EnablePass {
    const on = owner.enabled;
    const seconds = this.seconds;
    if (this.fromNothing) this.fromNothing = false;
    if (on === this.on && this.weight === (on ? 1 : 0)) return this.settled(on);
    // no fade (or its time set to 0 mid-fade), or nothing of the IK on the bones to fade out: at once
    if (!(seconds > 0) || (!on && this.clean)) {
      this.on = on;
      this.weight = on ? 1 : 0;
      return this.settled(on);
    }
    if (on !== this.on) {
      this.on = on;
      // the time spent settled is not fading time: the first step is one frame's
      if (this.weight === 0 || this.weight === 1) this.time.restart();
      if (on && this.weight === 0) this.fromNothing = true;
    }
    this.clean = false;
    const time = this.time;
    time.step(this.scene);
    const moved = time.dt / seconds;
    let w = this.weight;
    w = on ? (1 - w > moved ? w + moved : 1) : w > moved ? w - moved : 0;
    this.weight = w;
    if (w === 0) return EnablePass.Done;
    if (w === 1) return EnablePass.Solve;
    if (this.output === null && this.rig !== null) this.output = new OutputFade(this.rig.count);
    return EnablePass.Fade;
  }

  /** After the solve of a {@link EnablePass.Fade} pass: the local pose about to be written, at the weight. */
  weigh(): void {
    const output = this.output!;
    // from no offset toward this frame's output by the weight: the output's offsets, slerped by it; cleared when a
    // fade starts only, so each bone keeps its way round from frame to frame (see OutputFade)
    const frame = this.scene.getFrameId();
    if (frame !== this.weighed && frame !== this.weighed + 1) output.clear();
    this.weighed = frame;
    output.step = this.weight;
    output.toAnimated = false;
    this.rig!._fadeOutput(output);
  }

  /**
   * The start of a hook's run inside its IK's update (`resumed`: the IK skipped the frames before, so nothing
   * of the hook showed and `enabled` takes effect at once); the hook scales what it adds by {@link weight}.
   */
  beginHook(owner: EnableFadeOwner, resumed: boolean): EnablePass {
    if (resumed) this.settle(owner);
    return this.begin(owner);
  }

  /** The pass of a settled state (shown, unless off). */
  private settled(on: boolean): EnablePass {
    if (!on) return EnablePass.Off;
    if (this.clean) this.clean = false;
    return EnablePass.Solve;
  }
}
