import {
  Quat,
  conjugateMultiply,
  copyQuat,
  fromToRotation,
  multiply,
  quatFromArray,
  rotateVector,
} from "../math/quat.js";
import { Vec3, fromArray, normalize } from "../math/vec3.js";
import type { JacobianKinematics } from "./jacobian-kinematics.js";

const dir = new Vec3();
const bone = new Vec3();
const world = new Quat();
const parentRot = new Quat();
const turn = new Quat();

/**
 * Reachability first: straightens the path from effector `e`'s root joint to it so that every bone points
 * at the effector's (clamped, unreachable) target, root to tip, each joint turned the shortest way. Only
 * free (three-angle) joints turn, and their limits clamp them, so a path with hinges or tight limits may
 * stay bent (the iterations then go on from there). Allocation-free.
 */
export function straightenToward(k: JacobianKinematics, e: number): void {
  const path = k.path;
  let len = 0;
  for (let j = k.fx.effJoint[e]!; j >= 0; j = k.parent[j]!) path[len++] = j;
  const root = path[len - 1]!;
  dir.x = k.fx.tgt[e * 3]! - k.wPos[root * 3]!;
  dir.y = k.fx.tgt[e * 3 + 1]! - k.wPos[root * 3 + 1]!;
  dir.z = k.fx.tgt[e * 3 + 2]! - k.wPos[root * 3 + 2]!;
  normalize(dir, dir);
  for (let i = len - 1; i >= 1; i--) {
    const joint = path[i]!;
    if (k.dofCount[joint] !== 3) continue;
    const child = path[i - 1]!;
    // the joint's world rotation as its (already straightened) ancestors leave it
    k.forward();
    quatFromArray(world, k.wRot, joint * 4);
    fromArray(bone, k.localPos, child * 3);
    rotateVector(bone, world, bone);
    fromToRotation(turn, bone, dir);
    multiply(world, turn, world);
    const p = k.parent[joint]!;
    if (p < 0) copyQuat(parentRot, k.parentFrame);
    else quatFromArray(parentRot, k.wRot, p * 4);
    conjugateMultiply(world, parentRot, world);
    k.setAnglesFrom(joint, world);
  }
  k.forward();
}
