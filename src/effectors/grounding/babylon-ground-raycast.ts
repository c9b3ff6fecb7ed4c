import type { PickingInfo } from "@babylonjs/core/Collisions/pickingInfo.js";
import { PickWithRay, Ray } from "@babylonjs/core/Culling/ray.core.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { currentWorldMatrix } from "../../babylon/world-matrix.js";
import type { ReadonlyVec3 } from "../../math/vec3.js";
import { type GroundingHit, type GroundingRaycast, placeOnRay } from "./grounding-common.js";
import { thinInstanceCount, thinInstanceMatrices } from "./mesh-triangles.js";
import { groundBodyOf } from "./node-ground-body.js";
import { SphereSweep } from "./sphere-sweep.js";
import { moduleMatrix } from "../../babylon/module-matrix.js";

/** Selects the meshes that count as ground. */
export type GroundPredicate = (mesh: AbstractMesh) => boolean;

const v0 = new Vector3();
const v1 = new Vector3();
const v2 = new Vector3();
const thin = moduleMatrix();
const combined = moduleMatrix();
const inverse = moduleMatrix();
// a triangle in world space, for the sweep
const corners = new Float64Array(9);
// the sweep's box in a mesh's space: min x, y, z, max x, y, z
const localBox = new Float64Array(6);

/** The positions Babylon picks a mesh's triangles at (its own cache: `_generatePointsArray`). */
interface PickablePoints {
  _generatePointsArray(): boolean;
  readonly _positions: readonly { x: number; y: number; z: number }[] | null;
  readonly _unIndexed?: boolean;
}

/**
 * A {@link GroundingRaycast} over a Babylon scene's meshes with `PickWithRay` (Babylon's own triangle
 * picking, imported from `Culling/ray.core.js` so nothing is registered on the Scene prototype).
 *
 * Allocation: Babylon's picking allocates on every call (a closure in PickWithRay, a PickingInfo per mesh
 * whose bounds the ray crosses or one for the miss, intersection records, Vector3s): about 0.9 KB per ray
 * with two ground meshes under the ray (measured on Node 20 with V8's sampling heap profiler), growing
 * with the meshes the ray's bounds test passes. `getVerticesData` returns a new Float32Array view (about
 * 80 B) per hit. The ray, the predicate wrapper and the normal computation allocate nothing. GrounderFBBIK
 * casts 3 rays a frame (Fastest), 7 (Simple) or 2 and 3 sphere casts (Best): about 3 KB, 6.5 KB and 1.2 KB a
 * frame. A custom {@link GroundingRaycast} that writes into its `out` avoids all of it.
 *
 * The normal is the picked triangle's face normal, computed from the mesh's index and position buffers
 * (not skinned or morphed: ground meshes are expected to be static), turned toward the ray's origin.
 *
 * Its `raycast` carries a sphere cast (`raycast.sphereCast`, {@link sphereCast}) for the `Best` quality:
 * a sweep over the triangles Babylon would pick (the same positions, the sub-meshes with a triangle-list
 * material), mesh by mesh, of the meshes the predicate accepts whose bounds the sweep crosses. It reads
 * each such mesh's triangles once per sweep, about what one ray's picking costs, and allocates nothing.
 *
 * Each ground mesh is probed at its current world matrix (recomputed when it or a parent moved since it was
 * computed), not at the one Babylon cached in the previous frame, so a lift moved before the frame carries
 * the feet with it. Thin instances are probed only with the mesh's `thinInstanceEnablePicking` set. Each ray's
 * hit names the mesh (or thin instance) it hit (`GroundingHit.ground`), over which the feet's velocity is measured.
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
  /** The raycast as a function (bound once), with the sphere cast as its `sphereCast`. */
  readonly raycast: GroundingRaycast;
  private readonly sweep = new SphereSweep();

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
    const raycast: GroundingRaycast = (origin, direction, maxDistance, out) =>
      this.cast(origin, direction, maxDistance, out);
    raycast.sphereCast = (origin, direction, radius, maxDistance, out) =>
      this.sphereCast(origin, direction, radius, maxDistance, out);
    this.raycast = raycast;
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
      this.warnNoMaterial(info.pickedMesh);
      return false;
    }
    out.distance = info.distance;
    placeOnRay(out, origin, direction);
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
    // the mesh (or thin instance) hit: a foot standing on it is carried by its motion
    out.ground = groundBodyOf(info.pickedMesh, info.thinInstanceIndex);
    return true;
  }

  /**
   * Sweeps a sphere of `radius` from `origin` along the unit `direction` up to `maxDistance` over the
   * triangles of the accepted meshes (see the class notes and `GroundingSphereCast`); writes the first
   * contact into `out` and returns true, or returns false.
   */
  sphereCast(
    origin: ReadonlyVec3,
    direction: ReadonlyVec3,
    radius: number,
    maxDistance: number,
    out: GroundingHit,
  ): boolean {
    const sweep = this.sweep;
    const io = sweep.io;
    io[0] = radius;
    io[1] = maxDistance;
    if (!sweep.begin(origin, direction)) return false;
    const meshes = this.scene.meshes;
    for (let i = 0; i < meshes.length; i++) {
      const mesh = meshes[i]!;
      // the predicate brought the matrix up to date (and with it Babylon's lazily updated world bounds)
      if (!this.pickPredicate(mesh) || mesh.subMeshes === undefined) continue;
      const world = mesh.getWorldMatrix();
      const picksThin = (mesh as unknown as { thinInstanceEnablePicking?: boolean }).thinInstanceEnablePicking;
      const thinData = picksThin === true ? thinInstanceMatrices(mesh) : null;
      if (thinData === null) {
        const box = mesh.getBoundingInfo().boundingBox;
        const lo = box.minimumWorld;
        const hi = box.maximumWorld;
        if (lo.x > io[20]! || hi.x < io[17]! || lo.y > io[21]! || hi.y < io[18]! || lo.z > io[22]! || hi.z < io[19]!)
          continue;
        this.sweepMesh(mesh, world);
        continue;
      }
      const count = Math.min(thinInstanceCount(mesh), thinData.length >> 4);
      for (let k = 0; k < count; k++) {
        Matrix.FromArrayToRef(thinData, k * 16, thin);
        thin.multiplyToRef(world, combined);
        this.sweepMesh(mesh, combined);
      }
    }
    return sweep.finish(out);
  }

  /** Sweeps over the triangles Babylon would pick of `mesh` placed by `world`. */
  private sweepMesh(mesh: AbstractMesh, world: Matrix): void {
    const points = mesh as unknown as PickablePoints;
    if (!points._generatePointsArray()) return;
    const positions = points._positions;
    if (positions === null) return;
    const indices = mesh.getIndices();
    const indexed = indices !== null && indices.length > 0;
    if (!indexed && points._unIndexed !== true) return;
    world.invertToRef(inverse);
    toLocalBox(this.sweep.io, inverse);
    const m = world.m;
    let picked = false;
    const subMeshes = mesh.subMeshes;
    for (let s = 0; s < subMeshes.length; s++) {
      const sub = subMeshes[s]!;
      const material = sub.getMaterial();
      if (material === null) continue;
      picked = true;
      // triangle lists only (the fill modes Babylon intersects as separate triangles)
      if (material.fillMode > 2) continue;
      const first = indexed ? sub.indexStart : sub.verticesStart;
      const end = first + (indexed ? sub.indexCount : sub.verticesCount);
      for (let k = first; k + 2 < end; k += 3) {
        const p0 = positions[indexed ? indices[k]! : k];
        const p1 = positions[indexed ? indices[k + 1]! : k + 1];
        const p2 = positions[indexed ? indices[k + 2]! : k + 2];
        if (p0 === undefined || p1 === undefined || p2 === undefined) continue;
        // outside the sweep's box in the mesh's space: no contact
        if (
          (p0.x < localBox[0]! && p1.x < localBox[0]! && p2.x < localBox[0]!) ||
          (p0.x > localBox[3]! && p1.x > localBox[3]! && p2.x > localBox[3]!) ||
          (p0.y < localBox[1]! && p1.y < localBox[1]! && p2.y < localBox[1]!) ||
          (p0.y > localBox[4]! && p1.y > localBox[4]! && p2.y > localBox[4]!) ||
          (p0.z < localBox[2]! && p1.z < localBox[2]! && p2.z < localBox[2]!) ||
          (p0.z > localBox[5]! && p1.z > localBox[5]! && p2.z > localBox[5]!)
        )
          continue;
        for (let c = 0; c < 3; c++) {
          const p = c === 0 ? p0 : c === 1 ? p1 : p2;
          corners[c * 3] = p.x * m[0]! + p.y * m[4]! + p.z * m[8]! + m[12]!;
          corners[c * 3 + 1] = p.x * m[1]! + p.y * m[5]! + p.z * m[9]! + m[13]!;
          corners[c * 3 + 2] = p.x * m[2]! + p.y * m[6]! + p.z * m[10]! + m[14]!;
        }
        this.sweep.test(corners, 0);
      }
    }
    if (!picked) this.warnNoMaterial(mesh);
  }

  private warnNoMaterial(mesh: AbstractMesh): void {
    const name = mesh.name;
    this.onWarning?.(
      `ground-no-material:${name}`,
      `Ground mesh "${name}" has no material, so Babylon picks only its bounding box; the grounder ignores it. ` +
        `Give it a material (or import StandardMaterial so the scene has a default one).`,
    );
  }
}

/**
 * The XYZ box `io[17…22]` (a sweep's, in world space) in the space of `world`'s inverse `inv`: its centre
 * carried over, its half extents through |inv|; into localBox.
 */
function toLocalBox(io: Float64Array, inv: Matrix): void {
  const m = inv.m;
  const cx = 0.5 * (io[17]! + io[20]!);
  const cy = 0.5 * (io[18]! + io[21]!);
  const cz = 0.5 * (io[19]! + io[22]!);
  const hx = 0.5 * (io[20]! - io[17]!);
  const hy = 0.5 * (io[21]! - io[18]!);
  const hz = 0.5 * (io[22]! - io[19]!);
  for (let j = 0; j < 3; j++) {
    const c = cx * m[j]! + cy * m[4 + j]! + cz * m[8 + j]! + m[12 + j]!;
    const e = hx * Math.abs(m[j]!) + hy * Math.abs(m[4 + j]!) + hz * Math.abs(m[8 + j]!);
    localBox[j] = c - e;
    localBox[j + 3] = c + e;
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
  // current: the pick ran the mesh through the predicate, which brought it up to date
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
