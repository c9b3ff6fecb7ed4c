import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { moduleMatrix } from "../module-matrix.js";
import { transformPoint } from "../world-matrix.js";

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
  source.getWorldMatrix().invertToRef(inverse);
  inverse.multiplyToRef(instance.getWorldMatrix(), relative);
  // not Babylon's TransformCoordinatesToRef: see LodCharacter.place
  transformPoint(relative.m, centre, out);
  // written out: lod-character's scaleOf called from here boxed its doubles (96 B a frame, qa30-instances-frame-heap)
  const m = relative.m;
  const x = m[0]! * m[0]! + m[1]! * m[1]! + m[2]! * m[2]!;
  const y = m[4]! * m[4]! + m[5]! * m[5]! + m[6]! * m[6]!;
  const z = m[8]! * m[8]! + m[9]! * m[9]! + m[10]! * m[10]!;
  const s = Math.sqrt(x > y ? (x > z ? x : z) : y > z ? y : z);
  scale[0] = Number.isFinite(s) ? s : 0;
}
