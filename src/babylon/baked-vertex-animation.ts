import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";

/** The cause of the warning that the character plays baked vertex animation, so nothing an IK writes shows. */
export const BAKED_VERTEX_ANIMATION = "baked-vertex-animation";

/**
 * True when every mesh of `meshes` that `skeleton` skins and that shows (enabled, not disposed) plays baked vertex
 * animation (its `bakedVertexAnimationManager` enabled), and there is one: Babylon's shader then takes the bone
 * matrices from the baked texture and never reads the bones. Allocation-free, and O(1) for a character skinned by its
 * bones: the first mesh that shows without it answers.
 */
export function playsBakedVertexAnimation(meshes: readonly AbstractMesh[], skeleton: Skeleton): boolean {
  let baked = false;
  for (let i = 0; i < meshes.length; i++) {
    const m = meshes[i]!;
    if (m.skeleton !== skeleton || m.isDisposed() || !m.isEnabled()) continue;
    if (m.bakedVertexAnimationManager?.isEnabled !== true) return false;
    baked = true;
  }
  return baked;
}

/** The warning's text for {@link playsBakedVertexAnimation}'s `meshes`, naming those that play it. */
export function bakedVertexAnimationMessage(meshes: readonly AbstractMesh[], skeleton: Skeleton): string {
  const names = meshes.filter((m) => m.skeleton === skeleton && !m.isDisposed() && m.isEnabled()).map((m) => m.name);
  return (
    `every mesh the skeleton skins (${names.join(", ")}) plays baked vertex animation ` +
    "(bakedVertexAnimationManager enabled): Babylon skins them from the baked texture, not from the bones, so " +
    "nothing the IK writes shows. Turn the manager off (isEnabled = false) while the IK is to show, or dispose the IK."
  );
}
