import type { Camera } from "@babylonjs/core/Cameras/camera.js";
import type { BoundingInfo } from "@babylonjs/core/Culling/boundingInfo.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { InstancedMesh } from "@babylonjs/core/Meshes/instancedMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { MeshLODLevel } from "@babylonjs/core/Meshes/meshLODLevel.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { currentWorldMatrix, transformPoint } from "./world-matrix.js";

/** Babylon's `Camera.ORTHOGRAPHIC_CAMERA` (not imported: the constant alone does not need the camera module). */
const ORTHOGRAPHIC = 1;

/** The bounding sphere Babylon picks a level from: its centre (world) and, in `radius[0]`, its radius (world). */
const centre = new Vector3();
const radius = new Float64Array(1);

/** No levels, for a mesh that cannot have any. */
const NO_LEVELS: readonly MeshLODLevel[] = [];

/**
 * The LOD levels Babylon picks from for `mesh` (an instance's: its source's), Babylon's own array: `addLODLevel` and
 * `removeLODLevel` change it in place, so a list kept from here stays current. Empty for a mesh without any.
 */
export function lodLevelsOf(mesh: AbstractMesh): readonly MeshLODLevel[] {
  const source: AbstractMesh = (mesh as Partial<Pick<InstancedMesh, "sourceMesh">>).sourceMesh ?? mesh;
  const getLevels = (source as Partial<Pick<Mesh, "getLODLevels">>).getLODLevels;
  return getLevels === undefined ? NO_LEVELS : getLevels.call(source);
}

/**
 * True when Babylon's mesh level of detail draws nothing of `mesh` for `camera`: the level it picks is a null one
 * (`mesh.addLODLevel(distance, null)`), as `mesh.getLOD(camera)` or the scene's `customLODSelector` would pick it
 * when the scene is drawn. An instance (`createInstance`) is judged as Babylon judges it: its source's levels at the
 * instance's own bounding sphere. False for a mesh without levels. Babylon's own choice is read again without calling
 * `getLOD`, which allocates a vector and activates the level it picks: the same distance (or screen coverage) from
 * the same bounding sphere, compared with the same levels.
 */
export function lodDrawsNothing(mesh: AbstractMesh, camera: Camera): boolean {
  // Babylon asks the scene's selector about every mesh, with levels or not
  const selector = mesh.getScene().customLODSelector;
  if (selector !== undefined && selector !== null) return selector(mesh, camera) === null;
  // an instance has no levels of its own: Babylon picks from its source's, at the instance's place
  const instanceOf = (mesh as Partial<Pick<InstancedMesh, "sourceMesh">>).sourceMesh;
  const levels = lodLevelsOf(mesh);
  const n = levels.length;
  if (n === 0) return false;
  if (instanceOf === undefined) {
    const sphere = mesh.getBoundingInfo().boundingSphere;
    centre.copyFrom(sphere.centerWorld);
    radius[0] = sphere.radiusWorld;
  } else instanceSphere(mesh);
  let value = camera.minZ;
  if (camera.mode !== ORTHOGRAPHIC) {
    const e = camera.globalPosition;
    const dx = centre._x - e._x;
    const dy = centre._y - e._y;
    const dz = centre._z - e._z;
    value = Math.sqrt(dx * dx + dy * dy + dz * dz);
  }
  let sign = 1;
  if (((instanceOf ?? mesh) as Mesh).useLODScreenCoverage) {
    const r = (radius[0]! * camera.minZ) / value;
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

/**
 * An instance's world bounding sphere into {@link centre} and {@link radius}, as Babylon's BoundingSphere update
 * makes it from its local one at the instance's world matrix now. Not `getBoundingInfo()`: on an instance moved
 * since its bounds were updated it updates the whole box, whose Babylon code boxes doubles (96 B a frame measured
 * with UAL's instances moving).
 */
function instanceSphere(instance: AbstractMesh): void {
  const info = (instance as unknown as { _boundingInfo: BoundingInfo | null })._boundingInfo;
  const sphere = (info ?? instance.getBoundingInfo()).boundingSphere;
  const m = currentWorldMatrix(instance).m;
  transformPoint(m, sphere.center, centre);
  // Babylon's radius: the largest component of (1, 1, 1) carried as a direction, times the local radius
  const x = Math.abs(m[0]! + m[4]! + m[8]!);
  const y = Math.abs(m[1]! + m[5]! + m[9]!);
  const z = Math.abs(m[2]! + m[6]! + m[10]!);
  radius[0] = (x > y ? (x > z ? x : z) : y > z ? y : z) * sphere.radius;
}
