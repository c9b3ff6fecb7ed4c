import type { Scene } from "@babylonjs/core/scene.js";
import { NumberRef } from "../math/number-ref.js";

/**
 * The seconds the scene's animations advanced in this frame, into `out.value`: `scene.deltaTime`
 * (16 ms with `useConstantAnimationDeltaTime`, else the measured frame time × `animationTimeScale`), or
 * the engine's delta time while the scene's animations are disabled; under deterministic lockstep, the fixed
 * steps Babylon took this frame × the step (its `scene.deltaTime` is one step's, however many ran). The one clock
 * of every component around the IK (interactions, grounding, offset modifiers), so they keep pace with the
 * animations they sit on, as FinalIK's all follow Unity's scaled `Time.deltaTime`. Written into a
 * {@link NumberRef} (see ARCHITECTURE.md, "Doubles across calls").
 */
export function sceneDeltaSecondsToRef(scene: Scene, out: NumberRef): NumberRef {
  if (scene.getEngine().isDeterministicLockStep()) {
    // the steps are counted between frames: the scene's clock keeps the last count
    const clock = sceneClock(scene);
    clock.tick();
    out.value = clock.delta;
    return out;
  }
  // a second render of the engine's frame that skipped the animations (`render(_, true)`) adds no time
  if (sceneClock(scene).skippedAnimations()) out.value = 0;
  else frameSecondsToRef(scene, out);
  return out;
}

/**
 * The seconds of this frame for what follows the view rather than the clips (the level of detail's cross-fades):
 * {@link sceneDeltaSecondsToRef}'s, except while the scene's animation time stands still by `animationTimeScale` 0
 * outside lockstep (a paused game whose camera still moves), when it is the engine's frame time, so a character
 * the camera comes to still fades to its level.
 */
export function viewDeltaSecondsToRef(scene: Scene, out: NumberRef): NumberRef {
  sceneDeltaSecondsToRef(scene, out);
  if (out.value > 0 || scene.animationTimeScale !== 0 || !scene.animationsEnabled) return out;
  const engine = scene.getEngine();
  if (!engine.isDeterministicLockStep()) out.value = engine.getDeltaTime() / 1000;
  return out;
}

/**
 * The animations' time of this frame in seconds, outside lockstep (see {@link sceneDeltaSecondsToRef}), into
 * `out.value`: returned, the double was boxed whenever V8 did not inline the call (16 B an update).
 */
function frameSecondsToRef(scene: Scene, out: NumberRef): void {
  out.value =
    (scene.animationsEnabled && Number.isFinite(scene.deltaTime) ? scene.deltaTime : scene.getEngine().getDeltaTime()) /
    1000;
}
/** {@link SceneClock.tick}'s scratch for {@link frameSecondsToRef}: one for all clocks, as ticks never nest. */
const frameSeconds = new NumberRef(0);

/**
 * A scene's animation time summed frame by frame, once per scene frame: the seconds its animations advanced
 * (`scene.deltaTime`; under deterministic lockstep the steps taken × the step, as `scene.deltaTime` is then one
 * step's however many ran). For what does not run every frame (an ease under a skipped solve, a manual
 * `update()` every few frames) to advance by the time since it last ran. Ticked by the scene updater's solve
 * pass each frame and by every reader (the first tick of a frame adds it). Your own eases around the IK (a
 * weight faded in an `onPreUpdateObservable` observer) keep pace with the animations too: call {@link tick},
 * then read {@link delta}. A render that skips the animations (`scene.render(_, true)`) after one that ran them in
 * the same engine frame (a second view or a mirror rendered by hand) adds no time: the animations stood still.
 */
export class SceneClock {
  /** Seconds summed over the frames ticked. */
  seconds = 0;
  /** The last frame's delta time, seconds. */
  delta = 0;
  /** Frames ticked (a reader one tick behind takes {@link delta} exactly, without a subtraction's rounding). */
  ticks = 0;
  private frame = -1;
  /** The scene's lockstep step count at the last tick. */
  private step: number;
  /** `scene.animate()` calls seen (`onAfterAnimationsObservable`), and their count at the last tick. */
  private animations = 0;
  private animationsAtTick = 0;
  /** The engine frame of the last `scene.animate()`, and whether the frame ticked last skipped the animations. */
  private animatedEngineFrame = -1;
  private skipped = false;
  /**
   * True once animations ran in two engine frames: the engine counts frames (a render loop). A NullEngine driven by
   * `scene.render()` alone stays in frame 0, where a render without animations cannot be told from the next frame.
   */
  private framed = false;

  constructor(private readonly scene: Scene) {
    this.step = scene.getStepId();
    const engine = scene.getEngine();
    // kept by the scene for its life, as the clock is: Babylon notifies it from every animate(), lockstep or not
    scene.onAfterAnimationsObservable.add(() => {
      this.animations++;
      const frame = engine.frameId;
      if (this.animatedEngineFrame >= 0 && frame !== this.animatedEngineFrame) this.framed = true;
      this.animatedEngineFrame = frame;
    });
  }

  /**
   * True when this scene frame ran no `scene.animate()` though one ran earlier in the engine's frame: a render with
   * `ignoreAnimations` after the one that stepped them (ticks the clock). Only where the engine counts frames.
   */
  skippedAnimations(): boolean {
    this.tick();
    return this.skipped;
  }

  /** Adds the frame's delta time on the first call in a scene frame; later calls in it do nothing. */
  tick(): void {
    const scene = this.scene;
    const frame = scene.getFrameId();
    if (frame === this.frame) return;
    this.frame = frame;
    const engine = scene.getEngine();
    const step = scene.getStepId();
    this.skipped =
      this.framed && this.animations === this.animationsAtTick && this.animatedEngineFrame === engine.frameId;
    this.animationsAtTick = this.animations;
    // lockstep: the steps taken since the last tick (none in some frames of a fast display, several in a slow one)
    let dt = 0;
    if (engine.isDeterministicLockStep()) dt = ((step - this.step) * engine.getTimeStep()) / 1000;
    else if (!this.skipped) {
      frameSecondsToRef(scene, frameSeconds);
      dt = frameSeconds.value;
    }
    this.step = step;
    this.delta = dt > 0 ? dt : 0;
    this.seconds += this.delta;
    this.ticks++;
  }
}

const clocks = new WeakMap<Scene, SceneClock>();

/** The {@link SceneClock} of `scene` (created on first use): the one clock of the IK and its components. */
export function sceneClock(scene: Scene): SceneClock {
  let c = clocks.get(scene);
  if (c === undefined) {
    c = new SceneClock(scene);
    clocks.set(scene, c);
  }
  return c;
}

/**
 * A fade's time on its scene's {@link SceneClock}: {@link dt} is one frame's for the first step (and after
 * {@link restart}), the scene time since the last step after it (frames the owner skipped count), 0 for a
 * second step in one scene frame. For the eases that do not run every frame (TargetFade, EnableFade).
 */
export class FadeClock {
  /** The last step's seconds (a field: a double returned by a call may be boxed). */
  dt = 0;
  private clock: SceneClock | null = null;
  /** The clock's tick at the last step (-1: none to go by) and its seconds then. */
  private lastTick = -1;
  private lastSeconds = 0;

  /** Sets {@link dt} from `scene`'s clock. */
  step(scene: Scene): void {
    let clock = this.clock;
    if (clock === null) {
      clock = sceneClock(scene);
      this.clock = clock;
    }
    clock.tick();
    const ticks = clock.ticks;
    if (ticks === this.lastTick) {
      this.dt = 0;
      return;
    }
    this.dt = this.lastTick < 0 || ticks === this.lastTick + 1 ? clock.delta : clock.seconds - this.lastSeconds;
    this.lastTick = ticks;
    this.lastSeconds = clock.seconds;
  }

  /** The next step is one frame's: the time until then is not fading time. Writes only on a change. */
  restart(): void {
    if (this.lastTick !== -1) this.lastTick = -1;
  }
}
