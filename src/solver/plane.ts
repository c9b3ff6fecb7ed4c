import { type Quat, identity, lookRotation } from "../math/quat.js";
import { type ReadonlyVec3, Vec3, sub } from "../math/vec3.js";

const forward = new Vec3();
const up = new Vec3();

/**
 * The frame of the triangle (p1, p2, p3): LookRotation(p2 − p1, p3 − p1). FinalIK drives hands, feet,
 * pelvis, chest and limb bones with such frames. Identity when p1 == p3, as in FinalIK.
 */
export function planeRotation(out: Quat, p1: ReadonlyVec3, p2: ReadonlyVec3, p3: ReadonlyVec3): Quat {
  if (p1.x === p3.x && p1.y === p3.y && p1.z === p3.z) return identity(out);
  return lookRotation(out, sub(forward, p2, p1), sub(up, p3, p1));
}
