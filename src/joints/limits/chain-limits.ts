/**
 * What every chain solver with rotation limits does alike (the joint frame's IKSolverJoints, IKSolverAim): read
 * the rest pose the limits work from, and clamp a joint's rotation relative to the one before it.
 * @module
 */
import {
  Quat,
  type ReadonlyQuat,
  conjugateMultiply,
  copyQuat,
  identity,
  multiply,
  normalizeQuat,
} from "../../math/quat.js";
import { FBBIKError } from "../../solver/errors.js";
import type { IKPose } from "../../solver/pose.js";
import type { RotationLimit } from "./rotation-limit.js";

const parentRot = new Quat();
const rot = new Quat();
const local = new Quat();

/**
 * Writes into `out[i]` the pose's current rotation of bone `ids[i]` relative to `ids[i − 1]` (the first relative to
 * `rootParent`, or to component space when it is −1): the rest rotations the limits of a chain work from.
 */
export function readRestLocals(pose: IKPose, rootParent: number, ids: readonly number[], out: readonly Quat[]): void {
  if (rootParent >= 0) normalizeQuat(parentRot, pose.getRotation(rootParent, parentRot));
  else identity(parentRot);
  for (let i = 0; i < ids.length; i++) {
    normalizeQuat(rot, pose.getRotation(ids[i]!, rot));
    conjugateMultiply(out[i]!, parentRot, rot);
    copyQuat(parentRot, rot);
  }
}

/**
 * Clamps the component-space `rotation` (in place) by `limit`, its local rotation taken relative to `parent` (the
 * previous joint's rotation, or the root parent's). True when it changed. Allocation-free.
 */
export function clampToLimit(limit: RotationLimit, parent: ReadonlyQuat, rotation: Quat): boolean {
  conjugateMultiply(local, parent, rotation);
  if (!limit.apply(local)) return false;
  multiply(rotation, parent, local);
  normalizeQuat(rotation, rotation);
  return true;
}

/**
 * Throws an {@link FBBIKError} when `limit` is already the limit of another of `joints` than `index`: a limit keeps
 * one rest rotation, its joint's, so one object on two joints clamps the first about the second's rest.
 */
export function checkLimitUnshared(
  joints: readonly { readonly limit: RotationLimit | null }[],
  index: number,
  limit: RotationLimit | null,
  component: string,
): void {
  if (limit === null) return;
  const other = joints.findIndex((j, i) => i !== index && j.limit === limit);
  if (other < 0) return;
  throw new FBBIKError(
    [
      `joint ${index} is given the limit object joint ${other} already has: a limit keeps one rest rotation, ` +
        "its joint's, so give each joint its own (new RotationLimit…(…) per joint)",
    ],
    component,
  );
}
