/**
 * The demo's speed knobs, read once from the page's URL (the e2e test uses them; a user may too):
 * `?timeScale=k` plays the clips, the IK's clock and the scenarios' scripts k times faster;
 * `?renderScale=s` renders at 1/s of the canvas's resolution (Babylon's hardware scaling level);
 * `?step=ms` runs scene time in fixed steps of `ms` (timeScale then caps its pace: the machine may be slower),
 * drawing a step every `?drawEvery=ms` of wall time at most (200 by default; fixed-clock.ts).
 */
export interface UrlOptions {
  /** Multiplies scene time (animations, scripts, the IK's modifiers); 1 by default. */
  timeScale: number;
  /** Babylon's hardware scaling level; 1 by default. */
  renderScale: number;
  /** Fixed scene-time step in ms; 0 (default): scene time follows the wall clock. */
  step: number;
  /** With `step`: wall time between two drawn steps, at least (ms). */
  drawEvery: number;
}

function positive(value: string | null, fallback: number): number {
  const v = Number(value);
  return value !== null && Number.isFinite(v) && v > 0 ? v : fallback;
}

export function urlOptions(search: string): UrlOptions {
  const p = new URLSearchParams(search);
  return {
    timeScale: positive(p.get("timeScale"), 1),
    renderScale: positive(p.get("renderScale"), 1),
    step: positive(p.get("step"), 0),
    drawEvery: positive(p.get("drawEvery"), 200),
  };
}
