/** The meshes of a model's instance. */
import { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";

/**
 * The instance's meshes under `root`, and `root` itself when it is a mesh with vertices: a .babylon
 * character's root is its skinned mesh, while a glTF's is the empty `__root__`.
 */
export function modelMeshes(root: TransformNode): AbstractMesh[] {
  const own = root instanceof AbstractMesh && root.getTotalVertices() > 0 ? [root] : [];
  return [...own, ...root.getChildMeshes(false)];
}
