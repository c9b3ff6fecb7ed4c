import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { FBBIKError } from "../solver/errors.js";

/** True when `ancestor` is a (strict) ancestor of `bone`. */
export function isAncestorBone(ancestor: Bone, bone: Bone): boolean {
  for (let p = bone.getParent(); p !== null; p = p.getParent()) if (p === ancestor) return true;
  return false;
}

/**
 * What is wrong with `bones` as a chain of one skeleton, root first, each an ancestor of the next (empty when
 * nothing): a solver turning them from the tip to the root turns a parent after its child otherwise, and its
 * weights and clamps mean something else. `minimum`: the fewest bones the component needs.
 */
export function chainProblems(bones: readonly Bone[], minimum: number): string[] {
  const problems: string[] = [];
  if (bones.length < minimum) problems.push(`a chain needs at least ${minimum} bones, got ${bones.length}`);
  const skeleton = bones[0]?.getSkeleton();
  for (let i = 1; i < bones.length; i++) {
    const b = bones[i]!;
    if (b.getSkeleton() !== skeleton) problems.push(`bone "${b.name}" is not in skeleton "${skeleton?.name}"`);
    else if (!isAncestorBone(bones[i - 1]!, b)) {
      problems.push(`bone "${bones[i - 1]!.name}" is not an ancestor of the next bone "${b.name}"`);
    }
  }
  return problems;
}

/** Throws an {@link FBBIKError} listing {@link chainProblems}, if any. */
export function checkChain(bones: readonly Bone[], minimum: number): void {
  const problems = chainProblems(bones, minimum);
  if (problems.length > 0) throw new FBBIKError(problems);
}
