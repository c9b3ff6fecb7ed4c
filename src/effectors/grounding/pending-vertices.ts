import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";

/**
 * The ground meshes a baking raycast read before they had vertices: `CreateGroundFromHeightMap` with an image URL
 * returns an empty mesh and fills it once the image has loaded. The raycast asks {@link arrived} before each ray
 * and bakes again when it is true, so such ground needs no `refresh()`.
 */
export class PendingVertices {
  private meshes: readonly AbstractMesh[] = [];

  /** Takes, of `meshes`, those that have no vertices yet and are not disposed (at each bake). */
  watch(meshes: readonly AbstractMesh[]): void {
    this.meshes = meshes.filter((mesh) => !mesh.isDisposed() && mesh.getTotalVertices() === 0);
  }

  /** True when a watched mesh has vertices now. Allocates nothing; one length test while none is watched. */
  arrived(): boolean {
    const meshes = this.meshes;
    for (let i = 0; i < meshes.length; i++) if (meshes[i]!.getTotalVertices() > 0) return true;
    return false;
  }
}
