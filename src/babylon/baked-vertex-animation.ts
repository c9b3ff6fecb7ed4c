import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";

/**
 * A warning when every mesh `skeleton` skins that draws plays baked vertex animation (its
 * `bakedVertexAnimationManager` enabled): Babylon's shader then takes the bone matrices from the baked texture and
 * never reads the bones, so nothing an IK writes shows. Null otherwise (no such mesh, or one skinned by the bones).
 */
export function bakedVertexAnimationWarning(skeleton: Skeleton): string | null {
  const meshes = skeleton.getScene().meshes.filter((m) => m.skeleton === skeleton && m.getTotalVertices() > 0);
  if (meshes.length === 0 || !meshes.every((m) => m.bakedVertexAnimationManager?.isEnabled === true)) return null;
  return (
    `every mesh the skeleton skins (${meshes.map((m) => m.name).join(", ")}) plays baked vertex animation ` +
    "(bakedVertexAnimationManager enabled): Babylon skins them from the baked texture, not from the bones, so " +
    "nothing the IK writes shows. Turn the manager off (isEnabled = false) while the IK is to show, or dispose the IK."
  );
}
