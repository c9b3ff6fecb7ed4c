/**
 * A heightfield mesh for ground in scenario tests: y = f(x, z) over a square grid of quads, with a material (Babylon
 * picks a mesh without one by its bounds only).
 */
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { VertexData } from "@babylonjs/core/Meshes/mesh.vertexData.js";
import type { Scene } from "@babylonjs/core/scene.js";

/** A mesh named `name` of `cells` × `cells` quads over a square `size` wide centred on the origin, at y = f(x, z). */
export function heightfield(
  scene: Scene,
  size: number,
  cells: number,
  f: (x: number, z: number) => number,
  name = "ground",
): Mesh {
  const positions: number[] = [];
  const indices: number[] = [];
  const step = size / cells;
  for (let j = 0; j <= cells; j++)
    for (let i = 0; i <= cells; i++) {
      const x = -size / 2 + i * step;
      const z = -size / 2 + j * step;
      positions.push(x, f(x, z), z);
    }
  for (let j = 0; j < cells; j++)
    for (let i = 0; i < cells; i++) {
      const a = j * (cells + 1) + i;
      indices.push(a, a + cells + 1, a + 1, a + 1, a + cells + 1, a + cells + 2);
    }
  const mesh = new Mesh(name, scene);
  const data = new VertexData();
  data.positions = positions;
  data.indices = indices;
  data.applyToMesh(mesh);
  mesh.material = new StandardMaterial(name, scene);
  return mesh;
}
