/**
 * The camera's target drawn in the middle of the view's free part, right of the panel (which covers a fifth of
 * a 1280 px window and nearly a third of a 960 px one): a view-space shift at the target's depth
 * (`targetScreenOffset`), renewed before each frame from the radius, so the picture keeps its place on the
 * canvas as the user zooms, orbits or resizes the window. On a narrow window the panel lies under the canvas
 * (index.html), which is all free: no shift.
 */
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import type { Scene } from "@babylonjs/core/scene";

/** A scenario's own place for the target (the crowd's box), in normalised device coordinates. */
const pinned = new WeakMap<ArcRotateCamera, { x: number; y: number }>();

/** Below this window width (CSS px) the panel lies under the canvas, not over it (index.html's media query). */
export const NARROW = 760;

/**
 * The part of the canvas's width the panel covers (from the left edge to the panel's right edge), capped so a
 * narrow window still shows the character; 0 where the panel lies under the canvas (a narrow window).
 */
export function panelFraction(): number {
  const panel = document.getElementById("panel");
  const canvas = document.getElementById("canvas");
  const width = canvas?.clientWidth ?? 0;
  if (panel === null || canvas === null || width <= 0) return 0;
  if (panel.offsetTop >= canvas.offsetTop + canvas.clientHeight) return 0;
  return Math.min(0.4, (panel.offsetLeft + panel.offsetWidth) / width);
}

/**
 * The stats overlay's size once it runs (CSS px): four lines (FPS, IK time, the count, the IK) 12 px × 1.3 high
 * and "IK 0.30 ms/frame" wide, with its padding; before its first update it shows "FPS –" alone.
 */
const OVERLAY = { width: 140, height: 4 * 15.6 + 10 };

/**
 * The top right corner the stats overlay covers, in normalised device coordinates: its left edge `x` and the
 * `band` it takes down from the top (2 is the view's height); none without the overlay or the canvas.
 */
export function overlayCorner(): { x: number; band: number } {
  const stats = document.getElementById("stats");
  const canvas = document.getElementById("canvas");
  const [w, h] = [canvas?.clientWidth ?? 0, canvas?.clientHeight ?? 0];
  if (stats === null || canvas === null || w <= 0 || h <= 0) return { x: 1, band: 0 };
  // its size as it will be, whatever it shows yet (it keeps its top right corner)
  const bottom = stats.offsetTop + Math.max(stats.offsetHeight, OVERLAY.height);
  const left = stats.offsetLeft + stats.offsetWidth - Math.max(stats.offsetWidth, OVERLAY.width);
  return { x: -1 + (2 * left) / w, band: (2 * bottom) / h };
}

/** The camera's target drawn at `x`, `y` (normalised device coordinates) instead of the free part's middle. */
export function pinShift(camera: ArcRotateCamera, x: number, y: number): void {
  pinned.set(camera, { x, y });
}

/** The view-space shift that draws the target at `x`, `y` (normalised device coordinates) at the current radius. */
export function applyShift(camera: ArcRotateCamera, x: number, y: number): void {
  const tan = Math.tan(camera.fov / 2);
  const aspect = camera.getEngine().getAspectRatio(camera);
  camera.targetScreenOffset.set(x * camera.radius * tan * aspect, y * camera.radius * tan);
}

/** From now on, before each of the scene's frames: the target in the free part's middle (or where pinned). */
export function keepClearOfPanel(scene: Scene, camera: ArcRotateCamera): void {
  // the panel's width changes with the window only: read on resize, not every frame (reading forces a layout)
  let free = panelFraction();
  const resized = () => (free = panelFraction());
  window.addEventListener("resize", resized);
  scene.onDisposeObservable.add(() => window.removeEventListener("resize", resized));
  applyShift(camera, free, 0);
  scene.onBeforeRenderObservable.add(() => {
    const pin = pinned.get(camera);
    // the middle of the free part, from x = −1 + 2 · free to 1
    applyShift(camera, pin?.x ?? free, pin?.y ?? 0);
  });
}
