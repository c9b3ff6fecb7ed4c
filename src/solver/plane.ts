import { type Quat, identity, lookRotation } from "../math/quat.js";
import { type ReadonlyVec3, Vec3, sub } from "../math/vec3.js";

const forward = new Vec3();
const up = new Vec3();
const middle = new Vec3();

/**
 * The frame of the triangle (p1, p2, p3): LookRotation(p2 − p1, p3 − p1). FinalIK drives hands, feet,
 * pelvis, chest and limb bones with such frames. Identity when p1 == p3, as in FinalIK.
 */
export function planeRotation(out: Quat, p1: ReadonlyVec3, p2: ReadonlyVec3, p3: ReadonlyVec3): Quat {
  if (p1.x === p3.x && p1.y === p3.y && p1.z === p3.z) return identity(out);
  return lookRotation(out, sub(forward, p2, p1), sub(up, p3, p1));
}

/**
 * The frame of the triangle (p1, p2, p3) with p2 and p3 alike: planeRotation(p1, midpoint(p2, p3), p2).
 * {@link planeRotation} aligns its forward with p2 exactly and p3 only roughly, so a bone carried by it lands
 * on p2's side and misses p3's; this one splits the difference between them. planeRotation's frame when
 * p1 is the midpoint.
 */
export function symmetricPlaneRotation(out: Quat, p1: ReadonlyVec3, p2: ReadonlyVec3, p3: ReadonlyVec3): Quat {
  middle.x = (p2.x + p3.x) * 0.5;
  middle.y = (p2.y + p3.y) * 0.5;
  middle.z = (p2.z + p3.z) * 0.5;
  if (p1.x === middle.x && p1.y === middle.y && p1.z === middle.z) return planeRotation(out, p1, p2, p3);
  return planeRotation(out, p1, middle, p2);
}
