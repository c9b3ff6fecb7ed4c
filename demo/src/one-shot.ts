/** Playing one of the model's clips once (a hit, a shot) over what the character plays, then going back to it. */
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup";
import type { Observer } from "@babylonjs/core/Misc/observable";
import type { Character } from "./kit";

/**
 * Plays a clip once in place of the character's looping animation (its clip or the procedural idle) and
 * then resumes that animation where it was, paused again if the demo is paused. Keeps `c.clip` true, so
 * the shell's pause and clip menu see what plays.
 */
export class OneShot {
  /** The clip index playing once, or −1. */
  private current = -1;
  /** What plays between one-shots (an index in `c.clips`, −1: the procedural idle) and its frame. */
  private home = -1;
  private homeFrame = 0;
  private switching = false;
  private readonly observers: { group: AnimationGroup; observer: Observer<AnimationGroup> }[] = [];

  constructor(
    private readonly c: Character,
    private readonly paused: () => boolean,
  ) {}

  /** True while a one-shot clip plays. */
  get playing(): boolean {
    return this.current >= 0 && this.c.clip === this.current;
  }

  /** Plays the clip whose name starts with `name` once; false (nothing changes) when the model has none. */
  play(name: string): boolean {
    const c = this.c;
    const i = c.clips.findIndex((g) => g.name === name || g.name.startsWith(`${name}#`));
    if (i < 0) return false;
    const g = c.clips[i]!;
    if (!this.observers.some((o) => o.group === g)) {
      // blend into the clip from the pose shown (Babylon's blending, per frame)
      g.enableBlending = true;
      g.blendingSpeed = 0.2;
      const observer = g.onAnimationGroupEndObservable.add(() => {
        if (!this.switching && c.clip === i) this.goHome();
      });
      this.observers.push({ group: g, observer });
    }
    this.switching = true;
    if (!this.playing) {
      // leaving what the user or the scenario chose: remember it and where it was
      this.home = c.clip;
      this.homeFrame = this.group(c.clip)?.animatables[0]?.masterFrame ?? 0;
    }
    this.group(c.clip)?.stop();
    c.clip = i;
    this.current = i;
    g.start(false, 1);
    this.switching = false;
    return true;
  }

  private group(i: number): AnimationGroup | null {
    return i >= 0 ? (this.c.clips[i] ?? null) : this.c.idle;
  }

  private goHome(): void {
    const c = this.c;
    this.current = -1;
    c.clip = this.home;
    const g = this.group(this.home);
    if (g === null) return;
    g.start(true, 1);
    g.goToFrame(this.homeFrame);
    if (this.paused()) g.pause();
  }

  /** Removes the end observers. */
  dispose(): void {
    for (const o of this.observers) o.group.onAnimationGroupEndObservable.remove(o.observer);
  }
}
