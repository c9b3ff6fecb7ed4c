import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";

/**
 * The triangles of `mesh` (its position and index buffers), 9 numbers each, transformed by the Babylon
 * matrix elements `m` (row vectors: p × m, with the projective divide), or as they are when `m` is null.
 */
export function meshTriangles(mesh: AbstractMesh, m: ArrayLike<number> | null): Float64Array {
  const positions = mesh.getVerticesData("position");
  if (positions === null) return new Float64Array(0);
  const indices = mesh.getIndices();
  const indexed = indices !== null && indices.length > 0;
  const count = indexed ? indices.length : positions.length / 3;
  const out = new Float64Array(Math.floor(count / 3) * 9);
  let o = 0;
  for (let k = 0; k + 2 < count; k += 3) {
    for (let c = 0; c < 3; c++) {
      const i = (indexed ? indices[k + c]! : k + c) * 3;
      const x = positions[i]!;
      const y = positions[i + 1]!;
      const z = positions[i + 2]!;
      if (m === null) {
        out[o++] = x;
        out[o++] = y;
        out[o++] = z;
        continue;
      }
      const w = x * m[3]! + y * m[7]! + z * m[11]! + m[15]!;
      const iw = w !== 0 && w !== 1 ? 1 / w : 1;
      out[o++] = (x * m[0]! + y * m[4]! + z * m[8]! + m[12]!) * iw;
      out[o++] = (x * m[1]! + y * m[5]! + z * m[9]! + m[13]!) * iw;
      out[o++] = (x * m[2]! + y * m[6]! + z * m[10]! + m[14]!) * iw;
    }
  }
  return out;
}

interface ThinInstanceStorage {
  instancesCount: number;
  matrixData: Float32Array | null;
}

function thinStorage(mesh: AbstractMesh): ThinInstanceStorage | undefined {
  return (mesh as unknown as { _thinInstanceDataStorage?: ThinInstanceStorage })._thinInstanceDataStorage;
}

/** How many thin instances the mesh has (0 when none). */
export function thinInstanceCount(mesh: AbstractMesh): number {
  const storage = thinStorage(mesh);
  return storage === undefined || storage.matrixData === null || !(storage.instancesCount > 0)
    ? 0
    : storage.instancesCount;
}

/**
 * The mesh's thin instances' matrices, 16 numbers each in Babylon's layout, relative to the mesh (an
 * instance's world matrix is its matrix × the mesh's), or null when it has none. Babylon's own storage,
 * which `thinInstanceSetMatrixAt` writes: live, not a copy.
 */
export function thinInstanceMatrices(mesh: AbstractMesh): Float32Array | null {
  return thinInstanceCount(mesh) > 0 ? thinStorage(mesh)!.matrixData : null;
}

/**
 * Throws a RangeError naming every mesh of `meshes` whose surface its position and index buffers do not
 * describe (a skeleton, morph targets): `who` would probe the wrong shape without a word.
 */
export function checkGroundMeshes(meshes: readonly AbstractMesh[], who: string): void {
  const problems: string[] = [];
  for (const mesh of meshes) {
    if (mesh.skeleton !== null)
      problems.push(`mesh "${mesh.name}" is skinned (its rest shape would be probed, not the animated one)`);
    if (mesh.morphTargetManager !== null)
      problems.push(`mesh "${mesh.name}" has morph targets (its base shape would be probed)`);
  }
  if (problems.length === 0) return;
  const list = problems.length === 1 ? problems[0]! : `\n- ${problems.join("\n- ")}`;
  throw new RangeError(
    `${who} cannot probe these meshes; use BabylonGroundRaycast (Babylon picking) for them: ${list}`,
  );
}
