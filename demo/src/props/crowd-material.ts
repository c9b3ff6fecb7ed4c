/**
 * A cheaper look for a crowd: each glTF (PBR) material of the characters replaced by one StandardMaterial of
 * the same base colour and texture, culling back faces, frozen. A thousand skinned characters shade about
 * half as much per pixel on software GL.
 */
import type { BaseTexture } from "@babylonjs/core/Materials/Textures/baseTexture";
import type { Material } from "@babylonjs/core/Materials/material";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";

/** What is read off a PBR material (duck-typed: importing PBRMaterial would pull its shaders into the bundle). */
interface PbrLike {
  albedoColor?: Color3;
  albedoTexture?: BaseTexture | null;
}

/** Swaps the meshes' PBR materials for cheap ones, one per original (kept in `cache` across characters). */
export function useCheapMaterials(meshes: AbstractMesh[], cache: Map<Material, Material>): void {
  for (const m of meshes) {
    const original = m.material;
    if (original === null) continue;
    let cheap = cache.get(original);
    if (cheap === undefined) {
      const pbr = original as unknown as PbrLike;
      if (pbr.albedoColor === undefined) continue;
      const s = new StandardMaterial(`${original.name} (crowd)`, original.getScene());
      // glTF colours are linear; a StandardMaterial's are in gamma space
      s.diffuseColor = pbr.albedoColor.toGammaSpace();
      s.diffuseTexture = pbr.albedoTexture ?? null;
      s.specularColor = new Color3(0.08, 0.08, 0.08);
      s.backFaceCulling = true;
      s.freeze();
      cheap = s;
      cache.set(original, cheap);
    }
    m.material = cheap;
  }
}
