import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Node } from "@babylonjs/core/node.js";

/** The glTF loader's name for a model's top node (a clone's name keeps it, before or after what it adds). */
const GLTF_ROOT = "__root__";

/**
 * The node that places the character: the nearest node above both the skeleton (`componentRoot`, the root
 * bone's parent or the skinned mesh) and every mesh the skeleton skins, raised to the glTF loader's
 * `__root__` when that sits above it. Nodes the application puts the model under (a level, a group of
 * characters, a ship) are not the character: it may walk and turn under them. Null without `componentRoot`.
 */
export function defaultCharacterRoot(skeleton: Skeleton, componentRoot: TransformNode | null): TransformNode | null {
  if (componentRoot === null) return null;
  const chain: Node[] = [];
  for (let n: Node | null = componentRoot; n !== null; n = n.parent) chain.push(n);
  let top = 0;
  for (const mesh of skeleton.getScene().meshes) {
    if (mesh.skeleton !== skeleton) continue;
    const i = chain.findIndex((a) => mesh === a || mesh.isDescendantOf(a));
    // a skinned mesh outside the model's hierarchy says nothing about where the model ends
    if (i > top) top = i;
  }
  for (let i = top; i < chain.length; i++) if (chain[i]!.name.includes(GLTF_ROOT)) return chain[i] as TransformNode;
  return chain[top] as TransformNode;
}
