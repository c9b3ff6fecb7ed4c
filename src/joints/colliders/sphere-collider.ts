import { type ReadonlyVec3, Vec3 } from "../../math/vec3.js";

/**
 * A sphere hanging on a bone: its centre is `offset` in the bone's frame (local position), its radius is in
 * component-space units. A {@link ColliderSet} keeps chain joints and segments outside it.
 */
export class SphereCollider {
  /** Discriminant for {@link Collider}. */
  readonly kind = "sphere" as const;
  /** Id of the bone it hangs on (an {@link IKPose} bone id). */
  bone: number;
  /** Centre in the bone's frame. */
  readonly offset: Vec3;
  /** Radius (≥ 0). */
  radius: number;

  /** A sphere of `radius` on `bone`, centred at `offset` in the bone's frame (the bone's origin by default). */
  constructor(bone: number, radius: number, offset: ReadonlyVec3 = { x: 0, y: 0, z: 0 }) {
    this.bone = bone;
    this.radius = radius;
    this.offset = new Vec3(offset.x, offset.y, offset.z);
  }
}
