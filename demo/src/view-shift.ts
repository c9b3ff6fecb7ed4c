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
