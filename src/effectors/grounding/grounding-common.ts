/**
 * Shared pieces of the engine-neutral grounding solver: quality levels, the hit record the probes fill,
 * the raycast signature and the constant-rate interpolation.
 * @module
 */
import { Vec3 } from "../../math/vec3.js";
import type { ReadonlyVec3 } from "../../math/vec3.js";

/** How the ground under each foot is probed (FinalIK's Grounding.Quality). */
export enum GroundingQuality {
  /** One ray per foot: the ground height and normal under the (predicted) foot. */
  Fastest = 0,
  /** Three rays per foot (heel, toe, side): the ground plane through the three hits. */
  Simple = 1,
  /**
   * A heel ray plus a sphere probe of `footRadius` around the foot centre. FinalIK casts a capsule (a
   * sphere with `footCenterOffset` 0); here a sphere cast where the raycast has one, else a sphere sampled
   * by vertical rays (see {@link Grounding.probeSphere}).
   */
  Best = 2,
}

/**
 * What a ray hit, as a raycast may name it ({@link GroundingHit.ground}): something whose current world transform
 * can be read, so that a foot standing on it is carried by its motion (a ship's deck, a lift, a platform).
 */
export interface GroundingBody {
  /**
   * Writes the current world transform into `out` (affine, 16 numbers in Babylon's row-vector layout:
   * p' = p · m) and returns true; false when it has none usable now (disposed, disabled). Must not allocate.
   */
  worldMatrixToRef(out: Float64Array): boolean;
}

/** A ground contact: world point, unit normal facing the probe, and the distance travelled by the probe. */
export class GroundingHit {
  /** The contact point. */
  readonly point = new Vec3();
  /** The unit surface normal at the contact, turned toward the probe's origin. */
  readonly normal = new Vec3(0, 1, 0);
  /** Distance from the probe's origin to the contact (along the probe's direction). */
  distance = 0;
  /**
   * The ground the ray hit, when the raycast names it (null: not named, or static): a foot standing on it has
   * its velocity measured over it (`GroundingLeg.velocity`). The library's raycasts set it on every
   * ray's hit (`StaticGroundRaycast` to null); sphere casts set it to null.
   */
  ground: GroundingBody | null = null;
}

/**
 * Puts `out.point` at `out.distance` along the ray from `origin` along unit `direction`: where the triangle raycasts
 * report their contact. The distance travels in `out`, not as an argument (ARCHITECTURE.md, "Doubles across calls").
 */
export function placeOnRay(out: GroundingHit, origin: ReadonlyVec3, direction: ReadonlyVec3): void {
  const d = out.distance;
  out.point.x = origin.x + direction.x * d;
  out.point.y = origin.y + direction.y * d;
  out.point.z = origin.z + direction.z * d;
}

/**
 * Casts a ray from `origin` along the unit `direction` up to `maxDistance` and, when it hits the
 * ground, writes the closest contact into `out` (point, normal, distance) and returns true. Must not
 * keep references to its arguments; should not allocate (it runs several times per foot per frame).
 *
 * A raycast may also carry a {@link GroundingSphereCast} as its `sphereCast` property: the `Best` quality's
 * sphere probes then use it instead of sampling the sphere with rays. The triangle raycasts
 * (`StaticGroundRaycast`, `MovingGroundRaycast`, `BabylonGroundRaycast`, and `nearestGroundRaycast` of
 * raycasts that all have one) carry one, and so does `HavokGroundRaycast` over a plugin with `shapeCast`.
 */
export interface GroundingRaycast {
  (origin: ReadonlyVec3, direction: ReadonlyVec3, maxDistance: number, out: GroundingHit): boolean;
  /** The sphere cast over the same ground, when there is one. */
  sphereCast?: GroundingSphereCast | undefined;
}

/**
 * Sweeps a sphere of `radius` from `origin` (its centre) along the unit `direction` up to `maxDistance`
 * and, when it touches the ground, writes the first contact into `out` and returns true: `distance` is how
 * far the centre travelled, `point` the contact on the ground, `normal` the touched surface's unit normal
 * turned toward the cast's origin (where it touches several surfaces at once, an edge they share, the one
 * whose plane the centre's line meets first). Ground the sphere already overlaps at `origin` is ignored.
 * The same rules as {@link GroundingRaycast}: no references kept, no allocation.
 */
export type GroundingSphereCast = (
  origin: ReadonlyVec3,
  direction: ReadonlyVec3,
  radius: number,
  maxDistance: number,
  out: GroundingHit,
) => boolean;

/**
 * Steps `value` toward `target` by at most `deltaTime × increaseSpeed` (upward) or
 * `deltaTime × decreaseSpeed` (downward), never overshooting (FinalIK's Interp.LerpValue).
 */
export function lerpValue(
  value: number,
  target: number,
  increaseSpeed: number,
  decreaseSpeed: number,
  deltaTime: number,
): number {
  if (value === target) return target;
  if (value < target) {
    const v = value + deltaTime * increaseSpeed;
    return v > target ? target : v;
  }
  const v = value - deltaTime * decreaseSpeed;
  return v < target ? target : v;
}

/**
 * The longest frame the grounders ease by, seconds: 1/3, Unity's `maximumDeltaTime`, by which FinalIK's grounders
 * step. Their eases never overshoot (each factor is clamped to 1): a shorter cap only left the pose behind after a
 * hitch (0.1 s: UAL walking over bumps 3.6 % of its height off after a 0.5 s frame; now 0.31 %).
 */
export const MAX_GROUNDER_DELTA_TIME = 1 / 3;

/** Clamps `v` to [lo, hi]; NaN becomes `lo`. */
export function clampNumber(v: number, lo: number, hi: number): number {
  return v >= lo ? (v <= hi ? v : hi) : lo;
}
