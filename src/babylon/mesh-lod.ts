import type { Camera } from "@babylonjs/core/Cameras/camera.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";

/** Babylon's `Camera.ORTHOGRAPHIC_CAMERA` (not imported: the constant alone does not need the camera module). */
const ORTHOGRAPHIC = 1;

/**
 * True when Babylon's mesh level of detail draws nothing of `mesh` for `camera`: the level it picks is a null one
 * (`mesh.addLODLevel(distance, null)`), as `mesh.getLOD(camera)` or the scene's `customLODSelector` would pick it
 * when the scene is drawn. False for a mesh without levels. Babylon's own choice is read again without calling
 * `getLOD`, which allocates a vector and activates the level it picks: the same distance (or screen coverage) from
 * the same bounding sphere, compared with the same levels.
 */
export function lodDrawsNothing(mesh: AbstractMesh, camera: Camera): boolean {
  // Babylon asks the scene's selector about every mesh, with levels or not
  const selector = mesh.getScene().customLODSelector;
  if (selector !== undefined && selector !== null) return selector(mesh, camera) === null;
  const getLevels = (mesh as Partial<Pick<Mesh, "getLODLevels">>).getLODLevels;
  if (getLevels === undefined) return false;
  const levels = getLevels.call(mesh);
  const n = levels.length;
  if (n === 0) return false;
  const sphere = mesh.getBoundingInfo().boundingSphere;
  let value = camera.minZ;
  if (camera.mode !== ORTHOGRAPHIC) {
    const c = sphere.centerWorld;
    const e = camera.globalPosition;
    const dx = c._x - e._x;
    const dy = c._y - e._y;
    const dz = c._z - e._z;
    value = Math.sqrt(dx * dx + dy * dy + dz * dz);
  }
  let sign = 1;
  if ((mesh as Mesh).useLODScreenCoverage) {
    const r = (sphere.radiusWorld * camera.minZ) / value;
    value = (r * r * Math.PI) / camera.screenArea;
    sign = -1;
  }
  // Babylon's rule: the mesh itself up to the last level's threshold, else the first level past its threshold
  if (sign * levels[n - 1]!.distanceOrScreenCoverage > sign * value) return false;
  for (let i = 0; i < n; i++) {
    const level = levels[i]!;
    if (sign * level.distanceOrScreenCoverage < sign * value) return level.mesh === null;
  }
  return false;
}
