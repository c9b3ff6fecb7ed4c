/**
 * The fixed-step clock (`?step=<ms>`): scene time advances by `step` ms per `scene.render()` instead of by
 * the wall clock, as fast as the machine runs the steps, and a step draws every `drawEvery` ms at most. The
 * scripts, the animations and the IK run every step exactly as at `1000 / step` FPS; only the GPU work of the
 * steps in between is skipped. The e2e test uses it: on SwiftShader a drawn frame costs 50–1000 ms, a step without drawing 1–15 ms,
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
/** How often held steps look whether the hold is over. */
const HELD_POLL_MS = 30;

export class FixedClock {
  private now: number;
  /** The scene whose steps run (one task after another on a message channel), or null. */
  private stepping: Scene | null = null;
  private drawnAt = Number.NEGATIVE_INFINITY;
  private drawCost = 0;
  private drawPending = false;
  private holdWhen: (() => boolean) | null = null;

  /** Babylon's clock (`PrecisionDate.Now`: the animations, the engine's frame time) reads this clock from now on. */
  constructor(
    private readonly stepMs: number,
    private readonly drawEveryMs: number,
  ) {
    this.now = performance.now();
    // Babylon reads time only here; the page's own performance.now() stays real (the overlay's IK ms, budgets)
    Object.defineProperty(PrecisionDate, "Now", { get: () => this.now, configurable: true });
  }

  /**
   * Holds scene time while `when()` is true (checked before each step), or never (null). Held, a step a
   * browser frame runs at the held time, so the IK still answers the page (a test's pointer, its settings).
   */
  hold(when: (() => boolean) | null): void {
    this.holdWhen = when;
  }

  private held(): boolean {
    return this.holdWhen?.() === true;
  }

  /** Advances scene time by a step, unless held. */
  private tick(): void {
    if (!this.held()) this.now += this.stepMs;
  }

  /**
   * The render loop's frame. Until the scene is `running` (ready: its shaders compiled) there is no step:
   * scene time starts when the scene can be seen, and the frame renders at the start time (drawing only when
   * a draw is due; Babylon compiles the shaders on its readiness checks). Then the steps run in their own
   * tasks, a held clock takes one step a frame, and a frame draws one more step when a draw is due; otherwise
   * the canvas keeps its picture.
   */
  frame(scene: Scene, running: boolean): void {
    const t = performance.now();
    if (this.drawPending) this.drawCost = t - this.drawnAt;
    this.drawPending = false;
    if (running) this.step(scene);
    if (t - this.drawnAt < Math.max(this.drawEveryMs, DRAW_SHARE * this.drawCost)) {
      if (!running || this.held()) renderWithoutDrawing(scene);
      return;
    }
    this.drawnAt = t;
    this.drawPending = true;
    if (running) this.tick();
    scene.render();
  }

  /** Starts `scene`'s steps (once); they stop when it is disposed or another scene's start. */
  private step(scene: Scene): void {
    if (this.stepping === scene) return;
    this.stepping = scene;
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      if (this.stepping !== scene || scene.isDisposed) {
        channel.port1.close();
        return;
      }
      // held: the frames' own steps are enough; look again a little later
      if (this.held()) {
        setTimeout(() => channel.port2.postMessage(null), HELD_POLL_MS);
        return;
      }
      const t0 = performance.now();
      let last = 0;
      for (let t = t0; t - t0 + last <= STEPS_MS && !this.held(); t = performance.now()) {
        this.now += this.stepMs;
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
 * sees no layer, no render target (shadow map) renders, and the colour buffer is not cleared, so the canvas
 * keeps the last drawn frame (the demo's context preserves its drawing buffer).
 */
function renderWithoutDrawing(scene: Scene): void {
  const camera = scene.activeCamera;
  const mask = camera?.layerMask ?? 0;
  const { renderTargetsEnabled, autoClear } = scene;
  if (camera !== null) camera.layerMask = 0;
  scene.renderTargetsEnabled = false;
  scene.autoClear = false;
  try {
    scene.render();
  } finally {
    if (camera !== null) camera.layerMask = mask;
    scene.renderTargetsEnabled = renderTargetsEnabled;
    scene.autoClear = autoClear;
  }
}
