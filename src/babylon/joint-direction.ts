/**
 * Directions of the scene in a joint's own frame: the frame a rotation limit's axis, a hinge's axis and a
 * polygon's points are given in.
 * @module
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import {
  type ReadonlyVec3,
  Vec3,
  cross,
  dot,
  fromArray,
  isFiniteVec,
  normalize,
  scale,
  scaleAndAdd,
} from "../math/vec3.js";
import { FBBIKError } from "../solver/errors.js";
import { boneWorldMatrixToRef, hasRotation, isMirror, skinnedMeshOf } from "./world-matrix.js";
import { moduleMatrix } from "./module-matrix.js";

const world = moduleMatrix();
const axisX = new Vec3();
const axisY = new Vec3();
const axisZ = new Vec3();

/**
 * `worldDirection` (a direction in the scene: the character's forward or right, toward a child bone) in `bone`'s
 * own frame as the bone stands now, normalised, into `result`: what a rotation limit's axis and a
 * `RotationLimitPolygonal`'s points are given in. A limit works about its joint's rest rotation, so read the
 * directions with the bones in the pose the component takes as rest (the pose it was created in, or the one
 * `readRestPose()` read). The frame is the one the solvers read from the bone: its Z axis, its Y axis made
 * square to it, and X completing them; a glTF root mirrored into a left-handed scene and a scaled parent are
 * accounted for, and a bone without a linked node is read through the mesh it skins. Not for per-frame use on
 * bones without linked nodes (it recomputes their skeleton's matrices).
 *
 * ```ts
 * // an elbow that bends about the character's right, whatever the rig's axes and the scene's handedness
 * arm.solver.setLimit(1, new RotationLimitHinge(jointDirection(forearm, right), 0, 150));
 * ```
 *
 * @param bone - The joint.
 * @param worldDirection - A direction in world space; its length does not matter.
 * @param result - Receives the unit direction in the joint's frame.
 * @returns `result`.
 * @throws FBBIKError when the direction has no length or is not finite, or the bone has no rotation to read
 * (scaled to 0, or NaN in its transforms).
 */
export function jointDirectionToRef(bone: Bone, worldDirection: ReadonlyVec3, result: Vec3): Vec3 {
  if (!isFiniteVec(worldDirection) || dot(worldDirection, worldDirection) === 0) {
    throw new FBBIKError([`${bone.name}: the direction has no length or is not finite`], "jointDirection");
  }
  const m = boneWorldMatrixToRef(bone, skinnedMeshOf(bone), world).m;
  if (!hasRotation(m)) throw new FBBIKError([`${bone.name}: the bone has no rotation to read`], "jointDirection");
  // the rows' Z and Y, squared up as the solvers' lookRotation reads a bone; X from them, flipped under a mirror
  normalize(axisZ, fromArray(axisZ, m, 8));
  fromArray(axisY, m, 4);
  normalize(axisY, scaleAndAdd(axisY, axisY, axisZ, -dot(axisY, axisZ)));
  cross(axisX, axisY, axisZ);
  if (isMirror(m)) scale(axisX, axisX, -1);
  const x = dot(worldDirection, axisX);
  const y = dot(worldDirection, axisY);
  const z = dot(worldDirection, axisZ);
  result.x = x;
  result.y = y;
  result.z = z;
  return normalize(result, result);
}

/**
 * {@link jointDirectionToRef} into a new vector, for setting limits up.
 *
 * @param bone - The joint.
 * @param worldDirection - A direction in world space; its length does not matter.
 * @returns The unit direction in the joint's frame.
 * @throws FBBIKError as {@link jointDirectionToRef}.
 */
export function jointDirection(bone: Bone, worldDirection: ReadonlyVec3): Vec3 {
  return jointDirectionToRef(bone, worldDirection, new Vec3());
}
