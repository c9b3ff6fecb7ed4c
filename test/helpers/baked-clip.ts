/**
 * A scene's playing animations baked into poses, for heap tests: Babylon's animation step allocates about
 * 8.6 KB a frame on its own (UAL's Walk_Loop, measured on Babylon 9.28), so a heap test replays the poses it
 * wrote, which the IK cannot tell from the clip playing.
 */
import type { Scene } from "@babylonjs/core/scene.js";

/** One animated property: its owner, its name and its value after each baked frame. */
interface Channel {
  owner: Record<string, unknown>;
  property: string;
  values: { copyFrom(v: unknown): unknown }[];
}

/** The poses of `frames` animation steps (16 ms each under useConstantAnimationDeltaTime), replayed by frame. */
export class BakedClip {
  private constructor(
    private readonly channels: readonly Channel[],
    /** How many frames were baked. */
    readonly frames: number,
  ) {}

  /**
   * Steps the scene's animations `frames` times, keeping every animated property's value after each, then
   * stops them (the replay takes their place).
   */
  static bake(scene: Scene, frames: number): BakedClip {
    const channels: Channel[] = [];
    // a runtime animation knows its target (a skeleton's animatable animates its bones) once it has run
    scene.animate();
    for (const animatable of scene.animatables)
      for (const run of animatable.getAnimations()) {
        const path = run.animation.targetPropertyPath;
        let owner = (run.target ?? animatable.target) as Record<string, unknown>;
        for (let i = 0; i < path.length - 1; i++) owner = owner[path[i]!] as Record<string, unknown>;
        channels.push({ owner, property: path[path.length - 1]!, values: [] });
      }
    for (let f = 0; f < frames; f++) {
      if (f > 0) scene.animate();
      for (const c of channels) c.values.push((c.owner[c.property] as { clone(): Channel["values"][0] }).clone());
    }
    scene.stopAllAnimations();
    return new BakedClip(channels, frames);
  }

  /** Writes the pose of baked frame `f % frames`, as the animation step would. */
  apply(f: number): void {
    const k = f % this.frames;
    for (let i = 0; i < this.channels.length; i++) {
      const c = this.channels[i]!;
      // a Bone's _matrix is a setter that copies and marks the bone dirty; other values are copied in place
      if (c.property === "_matrix") c.owner._matrix = c.values[k];
      else (c.owner[c.property] as Channel["values"][0]).copyFrom(c.values[k]);
    }
  }
}

/** What scene.render() runs of the IKs' frame without drawing, the animation step replayed from `clip`'s frame `f`. */
export function renderReplaying(scene: Scene, clip: BakedClip, f: number): void {
  (scene as unknown as { _frameId: number })._frameId++;
  scene.onBeforeAnimationsObservable.notifyObservers(scene);
  clip.apply(f);
  scene.onBeforeRenderObservable.notifyObservers(scene);
  scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
}
