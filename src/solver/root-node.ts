import { Vec3, add, dot, length, project, scale, sub } from "../math/vec3.js";
import type { BipedBones } from "./biped-bones.js";
import type { IKPose } from "./pose.js";

/**
 * Picks the root node among the spine bones (FinalIK's DetectRootNodeBone): the highest spine bone that
 * still lies in the lower half of the way from the hips (mid-thighs) to the neck (mid-upper-arms).
 * Returns -1 when there is no spine bone. The pelvis is never picked.
 */
export function detectRootNodeBone(pose: IKPose, bones: BipedBones): number {
  const spine = bones.spine;
  if (spine.length === 0) return -1;
  if (spine.length === 1) return spine[0]!;
  const a = new Vec3();
  const b = new Vec3();
  const hip = scale(
    new Vec3(),
    add(a, pose.getPosition(bones.leftThigh, a), pose.getPosition(bones.rightThigh, b)),
    0.5,
  );
  const neck = scale(
    new Vec3(),
    add(a, pose.getPosition(bones.leftUpperArm, a), pose.getPosition(bones.rightUpperArm, b)),
    0.5,
  );
  const axis = sub(new Vec3(), neck, hip);
  const axisLength = length(axis);
  let index = 0;
  if (!(axisLength > 0)) return spine[0]!;
  for (let i = 1; i < spine.length; i++) {
    sub(a, pose.getPosition(spine[i]!, a), hip);
    project(b, a, axis);
    if (dot(b, axis) > 0 && length(b) / axisLength < 0.5) index = i;
  }
  return spine[index]!;
}
