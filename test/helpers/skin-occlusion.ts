/**
 * What a character's skin hides from a camera, as posed now: its skinned triangles in world space (the CPU's
 * skinning, as the renderer draws them) and whether the line of sight from the camera's eye to a point crosses one.
 * For framing checks that a projection cannot make: a prop held in front of the chest, behind a chibi's fist.
 */
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { mainBone } from "../../demo/src/props/skin.js";

/** A character's skin as posed now: triangles (3 corners each, world space), and which follow the kept bones. */
export interface PosedSkin {
  /** x, y, z of each triangle's three corners. */
  corners: Float64Array;
  /** Per triangle: 1 where its corners' largest skin weights are all on bones `part` keeps. */
  inPart: Uint8Array;
  /** The world positions of the vertices whose largest skin weight is on a bone `part` keeps. */
  partVertices: Vector3[];
}

/** The skin of `skeleton`'s enabled meshes as posed now; `part` picks a part of it (a hand: its bone and below). */
export function posedSkin(skeleton: Skeleton, part: (bone: Bone) => boolean): PosedSkin {
  const kept = new Set(skeleton.bones.filter(part).map((b) => b.getIndex()));
  skeleton.prepare(true);
  const corners: number[] = [];
  const inPart: number[] = [];
  const partVertices: Vector3[] = [];
  for (const mesh of skeleton.getScene().meshes) {
    if (mesh.skeleton !== skeleton || !mesh.isEnabled()) continue;
    const bones = mesh.getVerticesData(VertexBuffer.MatricesIndicesKind);
    const weights = mesh.getVerticesData(VertexBuffer.MatricesWeightsKind);
    const positions = mesh.getPositionData(true, true);
    const indices = mesh.getIndices();
    if (bones === null || weights === null || positions === null || indices === null) continue;
    const world = mesh.computeWorldMatrix(true);
    const n = positions.length / 3;
    const at: Vector3[] = [];
    const tagged = new Uint8Array(n);
    for (let v = 0; v < n; v++) {
      const p = Vector3.TransformCoordinates(
        new Vector3(positions[3 * v]!, positions[3 * v + 1]!, positions[3 * v + 2]!),
        world,
      );
      at.push(p);
      if (kept.has(mainBone(bones, weights, v))) {
        tagged[v] = 1;
        partVertices.push(p);
      }
    }
    for (let t = 0; t + 2 < indices.length; t += 3) {
      const [a, b, c] = [indices[t]!, indices[t + 1]!, indices[t + 2]!];
      for (const v of [a, b, c]) corners.push(at[v]!.x, at[v]!.y, at[v]!.z);
      inPart.push(tagged[a]! & tagged[b]! & tagged[c]!);
    }
  }
  return { corners: Float64Array.from(corners), inPart: Uint8Array.from(inPart), partVertices };
}

/** The camera's eye in world space, its screen shift included (a view-space shift moves the eye). */
export function eyeOf(camera: ArcRotateCamera): Vector3 {
  return camera.getViewMatrix(true).clone().invert().getTranslation();
}

/**
 * Whether a triangle of `skin` (those of its part left out when `skipPart`) crosses the segment from `eye` to `p`,
 * short of `p` by `gap` (the point's own surface is not in its way).
 */
export function occluded(skin: PosedSkin, eye: Vector3, p: Vector3, skipPart: boolean, gap = 1e-4): boolean {
  const c = skin.corners;
  const [dx, dy, dz] = [p.x - eye.x, p.y - eye.y, p.z - eye.z];
  const len = Math.hypot(dx, dy, dz);
  const [ux, uy, uz] = [dx / len, dy / len, dz / len];
  const far = len - gap;
  for (let t = 0; t < skin.inPart.length; t++) {
    if (skipPart && skin.inPart[t] === 1) continue;
    const o = 9 * t;
    // Möller–Trumbore: the ray from the eye along u against the triangle
    const [e1x, e1y, e1z] = [c[o + 3]! - c[o]!, c[o + 4]! - c[o + 1]!, c[o + 5]! - c[o + 2]!];
    const [e2x, e2y, e2z] = [c[o + 6]! - c[o]!, c[o + 7]! - c[o + 1]!, c[o + 8]! - c[o + 2]!];
    const [px, py, pz] = [uy * e2z - uz * e2y, uz * e2x - ux * e2z, ux * e2y - uy * e2x];
    const det = e1x * px + e1y * py + e1z * pz;
    if (Math.abs(det) < 1e-12) continue;
    const inv = 1 / det;
    const [sx, sy, sz] = [eye.x - c[o]!, eye.y - c[o + 1]!, eye.z - c[o + 2]!];
    const u = (sx * px + sy * py + sz * pz) * inv;
    if (u < 0 || u > 1) continue;
    const [qx, qy, qz] = [sy * e1z - sz * e1y, sz * e1x - sx * e1z, sx * e1y - sy * e1x];
    const v = (ux * qx + uy * qy + uz * qz) * inv;
    if (v < 0 || u + v > 1) continue;
    const d = (e2x * qx + e2y * qy + e2z * qz) * inv;
    if (d > 0 && d < far) return true;
  }
  return false;
}

/** The share of `points` (0…1) no triangle of `skin` hides from the camera (its part's own left out when `skipPart`). */
export function visibleShare(
  camera: ArcRotateCamera,
  skin: PosedSkin,
  points: readonly Vector3[],
  skipPart: boolean,
): number {
  if (points.length === 0) return 0;
  const eye = eyeOf(camera);
  return points.filter((p) => !occluded(skin, eye, p, skipPart)).length / points.length;
}
