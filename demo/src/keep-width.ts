/**
 * The width a scenario framed kept in view as the view changes shape: Babylon's field of view is vertical, so a
 * view made narrower after the framing (a phone's panel folded, a window resized) cut the subject's sides (the
 * free scenario's arms and goals on a phone). The field of view opens so the framed width stays whole, and
 * closes back to the framed one as the view widens again.
 */
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import type { Scene } from "@babylonjs/core/scene";

/** The field of view and the view's aspect when the scenario framed the camera. */
const framed = new WeakMap<ArcRotateCamera, { fov: number; aspect: number }>();

/** The camera's field of view for the view's current aspect, the framed width whole in it. */
function widenForShape(camera: ArcRotateCamera): void {
  const f = framed.get(camera);
  if (f === undefined) return;
  const aspect = camera.getEngine().getAspectRatio(camera);
  camera.fov = 2 * Math.atan(Math.tan(f.fov / 2) * Math.max(1, f.aspect / aspect));
}

/** The scenario framed the camera at the view's current shape: that width is kept from now on. */
export function markFramed(camera: ArcRotateCamera): void {
  framed.set(camera, { fov: camera.fov, aspect: camera.getEngine().getAspectRatio(camera) });
}

/** From now on, as the view's size changes: the framed width kept in view (`markFramed`). */
export function keepFramedWidth(scene: Scene, camera: ArcRotateCamera): void {
  const engine = scene.getEngine();
  const resized = engine.onResizeObservable.add(() => widenForShape(camera));
  scene.onDisposeObservable.add(() => engine.onResizeObservable.remove(resized));
}
