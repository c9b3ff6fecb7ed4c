/**
 * The fixed-step clock (`?step=<ms>`): scene time advances by `step` ms per `scene.render()` instead of by the
 * wall clock, at most `timeScale` times as fast as the wall clock (as fast as the machine runs the steps, if it
 * cannot keep up), and a step draws every `drawEvery` ms at most. The scripts, the animations and the IK run every
 * step exactly as at `1000 / step` FPS; only the GPU work of the steps in between is skipped. The e2e test uses
 * it: on SwiftShader a drawn frame costs 50–1000 ms, a step without drawing about 1 ms (15 for a crowd of 40),
 * and scene time no longer depends on the machine's speed.
 */
import { PrecisionDate } from "@babylonjs/core/Misc/precisionDate";
import type { Scene } from "@babylonjs/core/scene";

/** Wall time one task of steps takes before it yields to the page's other tasks (loading, the test's calls). */
const STEPS_MS = 40;
/**
 * Wall time between two drawn steps: at least `drawEvery`, and this many times what the last drawn step took
 * until the next browser frame (GPU, present).
 */
const DRAW_SHARE = 4;
/** How often the steps look again whether they may go on (held, or ahead of `timeScale`). */
const POLL_MS = 30;
/** Wall time between two steps at a held time (or before the scene runs): the IK still answers, cheaply. */
const IDLE_STEP_MS = 50;

/** Options of {@link FixedClock}, in ms and times the wall clock. */
export interface FixedClockOptions {
  step: number;
  timeScale: number;
  drawEvery: number;
}

export class FixedClock {
  private now: number;
  /** Wall and scene time when the pace was last set (the scene started, or let go): the speed counts from there. */
  private paceWall = 0;
  private paceScene = 0;
  /** The scene whose steps run (one task after another on a message channel), or null. */
  private stepping: Scene | null = null;
  private drawnAt = Number.NEGATIVE_INFINITY;
  private drawCost = 0;
  private drawPending = false;
  /** When the frames last took a step of their own (held, or before the scene runs). */
  private steppedAt = Number.NEGATIVE_INFINITY;
  private holdWhen: (() => boolean) | null = null;

  /** Babylon's clock (`PrecisionDate.Now`: the animations, the engine's frame time) reads this clock from now on. */
  constructor(private readonly options: FixedClockOptions) {
    this.now = performance.now();
    // Babylon reads time only here; the page's own performance.now() stays real (the overlay's IK ms, budgets)
    Object.defineProperty(PrecisionDate, "Now", { get: () => this.now, configurable: true });
  }

  /**
   * Holds scene time while `when()` is true (checked before each step), or never (null). Held, a step runs at
   * the held time every IDLE_STEP_MS, so the IK still answers the page (a test's pointer, its settings).
   */
  hold(when: (() => boolean) | null): void {
    this.holdWhen = when;
  }

  private held(): boolean {
    return this.holdWhen?.() === true;
  }

  /** The speed counts from now (time held or not yet running does not make up for itself later). */
  private pace(): void {
    this.paceWall = performance.now();
    this.paceScene = this.now;
  }

  /** Whether one more step would put scene time ahead of `timeScale` × the wall time since the pace was set. */
  private ahead(t: number): boolean {
    return this.now + this.options.step > this.paceScene + (t - this.paceWall) * this.options.timeScale;
  }

  /**
   * The render loop's frame. Until the scene is `running` (ready: its shaders compiled) there is no step:
   * scene time starts when the scene can be seen, and the frame renders at the start time (drawing only when
   * a draw is due; Babylon compiles the shaders on its readiness checks). Then the steps run in their own
   * tasks, and a frame draws one more step when a draw is due; otherwise the canvas keeps its picture.
   */
  frame(scene: Scene, running: boolean): void {
    const t = performance.now();
    if (this.drawPending) this.drawCost = t - this.drawnAt;
    this.drawPending = false;
    if (running) this.run(scene);
    else this.pace();
    const idle = !running || this.held();
    if (t - this.drawnAt < Math.max(this.options.drawEvery, DRAW_SHARE * this.drawCost)) {
      if (idle && t - this.steppedAt >= IDLE_STEP_MS) {
        this.steppedAt = t;
        renderWithoutDrawing(scene);
      }
      return;
    }
    this.drawnAt = t;
    this.drawPending = true;
    if (!idle && !this.ahead(t)) this.now += this.options.step;
    scene.render();
  }

  /** Starts `scene`'s steps (once); they stop when it is disposed or another scene's start. */
  private run(scene: Scene): void {
    if (this.stepping === scene) return;
    this.stepping = scene;
    this.pace();
    const channel = new MessageChannel();
    const later = () => setTimeout(() => channel.port2.postMessage(null), POLL_MS);
    channel.port1.onmessage = () => {
      if (this.stepping !== scene || scene.isDisposed) {
        channel.port1.close();
        return;
      }
      // held: the frames' own steps are enough; look again a little later
      if (this.held()) {
        this.pace();
        later();
        return;
      }
      const t0 = performance.now();
      let last = 0;
      for (let t = t0; t - t0 + last <= STEPS_MS; t = performance.now()) {
        if (this.held()) break;
        if (this.ahead(t)) {
          later();
          return;
        }
        this.now += this.options.step;
        renderWithoutDrawing(scene);
        last = performance.now() - t;
      }
      channel.port2.postMessage(null);
    };
    channel.port2.postMessage(null);
  }
}

/**
 * One `scene.render()` (animations, observers, the IK's solve, cameras) that draws nothing: the active camera
 * sees no layer, no render target (shadow map) renders, and no buffer is cleared, so the canvas keeps the last
 * drawn frame (the demo's context preserves its drawing buffer).
 */
function renderWithoutDrawing(scene: Scene): void {
  const camera = scene.activeCamera;
  const mask = camera?.layerMask ?? 0;
  const { renderTargetsEnabled, autoClear, autoClearDepthAndStencil } = scene;
  if (camera !== null) camera.layerMask = 0;
  scene.renderTargetsEnabled = false;
  scene.autoClear = false;
  scene.autoClearDepthAndStencil = false;
  try {
    scene.render();
  } finally {
    if (camera !== null) camera.layerMask = mask;
    scene.renderTargetsEnabled = renderTargetsEnabled;
    scene.autoClear = autoClear;
    scene.autoClearDepthAndStencil = autoClearDepthAndStencil;
  }
}
