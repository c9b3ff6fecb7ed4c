import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FBBIKError } from "../solver/errors.js";

/**
 * Throws an {@link FBBIKError} when `scene` is not the scene of `skeleton` (or of a bone's skeleton): a
 * component lives on its skeleton's scene's frame, so another scene, given by mistake, was silently ignored by
 * the family's `create` and made FullBodyBipedIK solve on that other scene's frames. Nothing to check without
 * a bone (the component reports the missing bones itself).
 */
export function checkSkeletonScene(scene: Scene, of: Skeleton | Bone | undefined): void {
  if (of === undefined) return;
  const skeleton = "getSkeleton" in of ? of.getSkeleton() : of;
  if (scene === skeleton.getScene()) return;
  throw new FBBIKError([
    `the scene given is not skeleton "${skeleton.name}"'s: pass the scene the skeleton was loaded into ` +
      "(skeleton.getScene())",
  ]);
}
