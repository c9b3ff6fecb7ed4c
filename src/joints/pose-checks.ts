/**
 * Setup-time checks of the solvers on an IKPose (limb, aim, look-at): bone ids that are usable and distinct, bones
 * named in messages as the pose names them. Setup code, so it may allocate.
 * @module
 */
import { FBBIKError } from "../solver/errors.js";
import type { IKPose } from "../solver/pose.js";

/** The bone's name when the pose knows names (HierarchyPose, BabylonRig), else `bone <id>`. */
export function boneLabel(pose: IKPose, bone: number): string {
  const named = pose as IKPose & { getName?(bone: number): string };
  return typeof named.getName === "function" ? `${named.getName(bone)} (${bone})` : `bone ${bone}`;
}

/**
 * Throws an {@link FBBIKError} listing every id that is not a non-negative integer, every id used twice,
 * and every bone whose pose position or rotation is not finite. `roles[i]` says what `ids[i]` is for; the
 * error names `solver` (a Babylon component that wraps the solver names itself through `setUpAs`).
 */
export function checkBones(pose: IKPose, solver: string, ids: readonly number[], roles: readonly string[]): void {
  const problems: string[] = [];
  const seen = new Map<number, string>();
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const role = roles[i] ?? `bone ${i}`;
    if (!Number.isInteger(id) || id < 0) {
      problems.push(`${role} is not a bone id (${String(id)})`);
      continue;
    }
    const first = seen.get(id);
    if (first !== undefined) problems.push(`${boneLabel(pose, id)} is both ${first} and ${role}`);
    else seen.set(id, role);
  }
  if (problems.length > 0) throw new FBBIKError(problems, solver);
}

/** Throws an {@link FBBIKError} naming `solver` and the bone when `ok` is false. */
export function ensure(ok: boolean, pose: IKPose, bone: number, solver: string, what: string): void {
  if (!ok) throw new FBBIKError([`${boneLabel(pose, bone)} ${what}`], solver);
}
