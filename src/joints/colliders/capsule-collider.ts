import { type ReadonlyVec3, Vec3 } from "../../math/vec3.js";

/**
 * A capsule hanging on a bone: the points within `radius` of the segment from `start` to `end`, both given
 * in the bone's frame (local positions). Equal end points make it a sphere.
 */
export class CapsuleCollider {
  /** Discriminant for {@link Collider}. */
  readonly kind = "capsule" as const;
  /** Id of the bone it hangs on (an {@link IKPose} bone id). */
  bone: number;
  /** First end of the axis, in the bone's frame. */
  readonly start: Vec3;
  /** Second end of the axis, in the bone's frame. */
  readonly end: Vec3;
  /** Radius (≥ 0). */
  radius: number;

  /** A capsule of `radius` on `bone` around the local segment `start`–`end`. */
  constructor(bone: number, start: ReadonlyVec3, end: ReadonlyVec3, radius: number) {
    this.bone = bone;
    this.start = new Vec3(start.x, start.y, start.z);
    this.end = new Vec3(end.x, end.y, end.z);
    this.radius = radius;
  }
}
