import type { PickingInfo } from "@babylonjs/core/Collisions/pickingInfo.js";
import { PickWithRay, Ray } from "@babylonjs/core/Culling/ray.core.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { currentWorldMatrix } from "../../babylon/world-matrix.js";
import type { ReadonlyVec3 } from "../../math/vec3.js";
import type { GroundingHit } from "./grounding-common.js";

/** Selects the meshes that count as ground. */
export type GroundPredicate = (mesh: AbstractMesh) => boolean;

const v0 = new Vector3();
const v1 = new Vector3();
const v2 = new Vector3();
const thin = new Matrix();
const combined = new Matrix();

/**
 * A {@link GroundingRaycast} over a Babylon scene's meshes with `PickWithRay` (Babylon's own triangle
 * picking, imported from `Culling/ray.core.js` so nothing is registered on the Scene prototype).
 *
 * Allocation: Babylon's picking allocates on every call (a closure in PickWithRay, a PickingInfo per mesh
 * whose bounds the ray crosses or one for the miss, intersection records, Vector3s): about 0.9 KB per ray
 * with two ground meshes under the ray (measured on Node 20 with V8's sampling heap profiler), growing
 * with the meshes the ray's bounds test passes. `getVerticesData` returns a new Float32Array view (about
 * 80 B) per hit. The ray, the predicate wrapper and the normal computation allocate nothing. GrounderFBBIK
 * casts 3 rays a frame (Fastest), 7 (Simple) or 29 (Best, with 8 rays on each probe circle): about 3 KB,
 * 6.5 KB and 26 KB a frame. A custom {@link GroundingRaycast} that writes into its `out` avoids all of it.
 *
 * The normal is the picked triangle's face normal, computed from the mesh's index and position buffers
 * (not skinned or morphed: ground meshes are expected to be static), turned toward the ray's origin.
 *
 * Each ground mesh is probed at its current world matrix (recomputed when it or a parent moved since it was
 * computed), not at the one Babylon cached in the previous frame, so a lift moved before the frame carries
 * the feet with it. Thin instances are probed only with the mesh's `thinInstanceEnablePicking` set.
 */
export class BabylonGroundRaycast {
  /** The scene whose meshes are probed. */
  readonly scene: Scene;
  /** Which meshes are ground (called for every mesh of the scene on every ray). */
  predicate: GroundPredicate;
  private readonly ray = new Ray(new Vector3(), new Vector3(0, -1, 0), 1);
  private readonly pickPredicate: (mesh: AbstractMesh) => boolean;
  /**
   * Called (at most once per mesh) when a mesh accepted as ground can only be picked by its bounds: Babylon
   * intersects triangles only for meshes with a material (or a scene default material, which needs
   * `StandardMaterial` imported). Such a hit is ignored.
   */
  onWarning: ((cause: string, message: string) => void) | null = null;
  /** The raycast as a function (bound once). */
  readonly raycast: (origin: ReadonlyVec3, direction: ReadonlyVec3, maxDistance: number, out: GroundingHit) => boolean;

  /** Probes `scene`'s meshes that `predicate` accepts. */
  constructor(scene: Scene, predicate: GroundPredicate) {
    this.scene = scene;
    this.predicate = predicate;
    this.pickPredicate = (mesh: AbstractMesh) => {
      if (!this.predicate(mesh)) return false;
      // picking trusts a world matrix computed in the same render id, and at the IK's hook that is still the
      // previous frame's: a ground mesh moved since (a lift, a platform) would be probed where it was
      currentWorldMatrix(mesh);
      return true;
    };
    this.raycast = (origin, direction, maxDistance, out) => this.cast(origin, direction, maxDistance, out);
  }

  /** Casts one ray; writes the closest accepted contact into `out`. */
  cast(origin: ReadonlyVec3, direction: ReadonlyVec3, maxDistance: number, out: GroundingHit): boolean {
    const ray = this.ray;
    ray.origin.set(origin.x, origin.y, origin.z);
    ray.direction.set(direction.x, direction.y, direction.z);
    ray.length = maxDistance;
    const info = PickWithRay(this.scene, ray, this.pickPredicate, false);
    if (info === null || !info.hit || info.pickedMesh === null || !(info.distance <= maxDistance)) return false;
    if (info.faceId < 0) {
      // a bounding-box pick (no material to intersect triangles with): not a ground contact
      const name = info.pickedMesh.name;
      this.onWarning?.(
        `ground-no-material:${name}`,
        `Ground mesh "${name}" has no material, so Babylon picks only its bounding box; the grounder ignores it. ` +
          `Give it a material (or import StandardMaterial so the scene has a default one).`,
      );
      return false;
    }
    const d = info.distance;
    out.distance = d;
    out.point.x = origin.x + direction.x * d;
    out.point.y = origin.y + direction.y * d;
    out.point.z = origin.z + direction.z * d;
    if (!faceNormal(info, out.normal)) {
      out.normal.x = -direction.x;
      out.normal.y = -direction.y;
      out.normal.z = -direction.z;
    }
    // toward the ray's origin (Babylon picks both sides of a triangle)
    if (out.normal.x * direction.x + out.normal.y * direction.y + out.normal.z * direction.z > 0) {
      out.normal.x = -out.normal.x;
      out.normal.y = -out.normal.y;
      out.normal.z = -out.normal.z;
    }
    return true;
  }
}

/** The picked triangle's unit world normal (either side), or false when the mesh data is not available. */
function faceNormal(info: PickingInfo, out: { x: number; y: number; z: number }): boolean {
  const mesh = info.pickedMesh;
  const face = info.faceId;
  if (mesh === null || face < 0) return false;
  const positions = mesh.getVerticesData("position");
  if (positions === null) return false;
  const indices = mesh.getIndices();
  const base = face * 3;
  let i0: number;
  let i1: number;
  let i2: number;
  if (indices !== null && indices.length > 0) {
    if (base + 2 >= indices.length) return false;
    i0 = indices[base]!;
    i1 = indices[base + 1]!;
    i2 = indices[base + 2]!;
  } else {
    i0 = base;
    i1 = base + 1;
    i2 = base + 2;
  }
  if (i0 * 3 + 2 >= positions.length || i1 * 3 + 2 >= positions.length || i2 * 3 + 2 >= positions.length) return false;
  let world = mesh.getWorldMatrix();
  const instance = info.thinInstanceIndex;
  if (instance >= 0) {
    const data = (mesh as unknown as { _thinInstanceDataStorage?: { matrixData?: Float32Array | null } })
      ._thinInstanceDataStorage?.matrixData;
    if (data && data.length >= (instance + 1) * 16) {
      Matrix.FromArrayToRef(data, instance * 16, thin);
      thin.multiplyToRef(world, combined);
      world = combined;
    }
  }
  // the triangle in world space: correct under any scale or mirror
  Vector3.TransformCoordinatesFromFloatsToRef(
    positions[i0 * 3]!,
    positions[i0 * 3 + 1]!,
    positions[i0 * 3 + 2]!,
    world,
    v0,
  );
  Vector3.TransformCoordinatesFromFloatsToRef(
    positions[i1 * 3]!,
    positions[i1 * 3 + 1]!,
    positions[i1 * 3 + 2]!,
    world,
    v1,
  );
  Vector3.TransformCoordinatesFromFloatsToRef(
    positions[i2 * 3]!,
    positions[i2 * 3 + 1]!,
    positions[i2 * 3 + 2]!,
    world,
    v2,
  );
  const ax = v1.x - v0.x;
  const ay = v1.y - v0.y;
  const az = v1.z - v0.z;
  const bx = v2.x - v0.x;
  const by = v2.y - v0.y;
  const bz = v2.z - v0.z;
  const nx = ay * bz - az * by;
  const ny = az * bx - ax * bz;
  const nz = ax * by - ay * bx;
  const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(l > 0) || l === Infinity) return false;
  out.x = nx / l;
  out.y = ny / l;
  out.z = nz / l;
  return true;
}
