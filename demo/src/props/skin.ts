/**
 * Where a character's skin lies: its skinned vertices in world space, as posed now (all of them, or those that
 * follow one bone and the bones under it most). Props are fitted to them where the joints say too little: a
 * chibi's fist is four times a realistic one and swallows a pistol sized from the height, its belly reaches
 * into a table placed from the joints.
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton";
import { VertexBuffer } from "@babylonjs/core/Buffers/buffer";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";

/** Whether `bone` is `ancestor` or lies below it. */
export function isUnder(bone: Bone, ancestor: Bone): boolean {
  for (let b: Bone | null = bone; b !== null; b = b.getParent()) if (b === ancestor) return true;
  return false;
}

/**
 * The world positions of `skeleton`'s skinned vertices; with `keep`, only those whose largest skin weight is
 * on a bone it keeps (a hand and its fingers: `(b) => isUnder(b, hand)`). None without skin weights.
 */
export function skinVertices(skeleton: Skeleton, keep?: (bone: Bone) => boolean): Vector3[] {
  // skin weights name a bone by its index in the skinning matrices
  const kept = new Set(skeleton.bones.filter((b) => keep?.(b) ?? true).map((b) => b.getIndex()));
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
      if (keep !== undefined && !kept.has(mainBone(indices, weights, v))) continue;
      const p = new Vector3(positions[i]!, positions[i + 1]!, positions[i + 2]!);
      out.push(Vector3.TransformCoordinates(p, world));
    }
  }
  return out;
}

/** The skinning index of the bone with vertex `v`'s largest skin weight (of its four). */
export function mainBone(indices: ArrayLike<number>, weights: ArrayLike<number>, v: number): number {
  let best = 0;
  for (let k = 1; k < 4; k++) if (weights[4 * v + k]! > weights[4 * v + best]!) best = k;
  return indices[4 * v + best]!;
}

/** The `q` quantile (0…1) of `values` (sorted in place); NaN when empty. */
export function quantile(values: number[], q: number): number {
  values.sort((a, b) => a - b);
  return values.length === 0 ? Number.NaN : values[Math.round(q * (values.length - 1))]!;
}

/** A realistic fist's smallest extent (× height): about 9 cm for 1.8 m. */
const REAL_FIST = 0.07;

/**
 * How many times a realistic fist the one whose skin lies at `points` is, for a character of height `h`: its
 * smallest extent along x, y and z (5th to 95th percentile) over a realistic one's; 1 for a fist no bigger (or
 * no skin). Props held in the hand grow by it.
 */
export function fistScale(points: Vector3[], h: number): number {
  if (points.length === 0) return 1;
  const spread = (axis: "x" | "y" | "z") => {
    const v = points.map((p) => p[axis]);
    return quantile(v, 0.95) - quantile(v, 0.05);
  };
  return Math.max(1, Math.min(spread("x"), spread("y"), spread("z")) / (REAL_FIST * h));
}
