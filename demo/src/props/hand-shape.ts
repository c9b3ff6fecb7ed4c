/**
 * Where a hand's skin lies: the skinned vertices that follow the hand bone or its fingers most, in world space,
 * as posed now. A prop held in the hand is fitted to them: a chibi's fist is four times a realistic one and
 * swallows a prop sized from the character's height.
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { VertexBuffer } from "@babylonjs/core/Buffers/buffer";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";

/** The world positions of the vertices whose largest skin weight is on `hand` or a bone under it (none: []). */
export function handVertices(hand: Bone): Vector3[] {
  const skeleton = hand.getSkeleton();
  const own = new Set<number>();
  const walk = (b: Bone) => {
    own.add(b.getIndex());
    for (const c of b.children) walk(c);
  };
  walk(hand);
  // the bones' skinning matrices as the transform nodes stand now (the clip's pose may be newer than the last frame)
  skeleton.prepare(true);
  const out: Vector3[] = [];
  for (const mesh of skeleton.getScene().meshes) {
    if (mesh.skeleton !== skeleton || !mesh.isEnabled()) continue;
    const indices = mesh.getVerticesData(VertexBuffer.MatricesIndicesKind);
    const weights = mesh.getVerticesData(VertexBuffer.MatricesWeightsKind);
    const positions = mesh.getPositionData(true, true);
    if (indices === null || weights === null || positions === null) continue;
    const world = mesh.computeWorldMatrix(true);
    for (let v = 0, i = 0; i < positions.length; v++, i += 3) {
      let best = 0;
      for (let k = 1; k < 4; k++) if (weights[4 * v + k]! > weights[4 * v + best]!) best = k;
      if (!own.has(indices[4 * v + best]!)) continue;
      const p = new Vector3(positions[i]!, positions[i + 1]!, positions[i + 2]!);
      out.push(Vector3.TransformCoordinates(p, world));
    }
  }
  return out;
}

/** The `q` quantile (0…1) of `values` (sorted in place); NaN when empty. */
export function quantile(values: number[], q: number): number {
  values.sort((a, b) => a - b);
  return values.length === 0 ? Number.NaN : values[Math.round(q * (values.length - 1))]!;
}
