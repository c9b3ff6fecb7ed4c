import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { moduleMatrix } from "../module-matrix.js";
import { currentWorldMatrix, largestAxisLengthToRef, transformPoint } from "../world-matrix.js";

const inverse = moduleMatrix();
const relative = moduleMatrix();

/**
 * Where an instance of a character's skinned mesh (`createInstance`: it shares the skeleton) draws the character:
 * the source's bounds centre `centre` (world) carried by source world⁻¹ · instance world into `out`, and that
 * carry's largest axis scale into `scale[0]` (the instance drawn larger or smaller than the source). Allocation-free;
 * the scale travels in an array (a double returned by a call V8 does not inline is boxed).
 */
export function instancePlacement(
  source: Mesh,
  instance: AbstractMesh,
  centre: Vector3,
  out: Vector3,
  scale: Float64Array,
): void {
  // this frame's matrices: getWorldMatrix gave last frame's of a mesh moved since (see LodCharacter.place)
  currentWorldMatrix(source).invertToRef(inverse);
  inverse.multiplyToRef(currentWorldMatrix(instance), relative);
  // not Babylon's TransformCoordinatesToRef: see LodCharacter.place
  transformPoint(relative.m, centre, out);
  largestAxisLengthToRef(relative.m, scale);
}
