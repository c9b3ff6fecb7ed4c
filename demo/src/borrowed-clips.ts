/**
 * Clips for a model that has none: the UAL character's, retargeted onto it with Babylon's AnimatorAvatar and the
 * library's bipedNameMap (the bones paired by what they are, whatever either file calls them). They join the
 * model's container under their own names plus " (UAL)", so the clip menu offers them and every instance gets
 * them, while the scenarios, which look clips up by their plain names, keep their procedural motion.
 *
 * AnimatorAvatar carries each bone's turn away from the source's rest pose onto the target's: a model whose arms
 * rest otherwise than UAL's T-pose (RiggedFigure's hang down, a VRM's in an A-pose) would swing them from there,
 * so such a model borrows nothing.
 */
import { AnimatorAvatar } from "@babylonjs/core/Animations/animatorAvatar";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { AssetContainer } from "@babylonjs/core/assetContainer";
import type { Scene } from "@babylonjs/core/scene";
import { bipedNameMap } from "../../src/babylon/biped-name-map";
import { resolveBipedReferences } from "../../src/babylon/biped-references";
import { bonePos } from "./bone-world";
import { COMMITTED, loadModel } from "./models";

/** What a borrowed clip's name ends with. */
export const BORROWED = " (UAL)";
/** The most two rest poses' arms may differ (angle to the spine, degrees) for a clip to carry over. */
const REST_ARMS_DEGREES = 20;

/** The left upper arm's angle to the spine (pelvis to the top spine bone) in the rest pose, degrees. */
function restArmAngle(skeleton: Skeleton): number {
  const r = resolveBipedReferences(skeleton).references;
  const spine = bonePos(r.spine[r.spine.length - 1]!)
    .subtract(bonePos(r.pelvis))
    .normalize();
  const arm = bonePos(r.leftForearm).subtract(bonePos(r.leftUpperArm)).normalize();
  return (Math.acos(Math.max(-1, Math.min(1, Vector3.Dot(spine, arm)))) * 180) / Math.PI;
}

/**
 * Gives `container` the UAL character's clips, retargeted, when it has none of its own and its skeleton is a
 * biped the IK can use; returns how many it got (0 otherwise: a rig the detection refuses keeps no clips).
 */
export async function borrowClips(scene: Scene, container: AssetContainer): Promise<number> {
  const skeleton = container.skeletons[0];
  const root = container.rootNodes[0] as TransformNode | undefined;
  if (container.animationGroups.length > 0 || skeleton === undefined || root === undefined) return 0;
  let library: AssetContainer;
  try {
    library = await loadModel(scene, { entry: COMMITTED[0]! });
  } catch {
    // the clips are a bonus: the model loads without them
    return 0;
  }
  try {
    let map: Map<string, string>;
    try {
      map = bipedNameMap(library.skeletons[0]!, skeleton);
      if (Math.abs(restArmAngle(library.skeletons[0]!) - restArmAngle(skeleton)) > REST_ARMS_DEGREES) return 0;
    } catch {
      return 0;
    }
    // not renamed, and nothing of the model disposed with it
    const avatar = new AnimatorAvatar("borrowed clips", root, false, false);
    avatar.showWarnings = false;
    for (const clip of library.animationGroups) {
      const g = avatar.retargetAnimationGroup(clip, { animationGroupName: clip.name + BORROWED, mapNodeNames: map });
      // the container's, like a clip of its own: instantiating the model clones it onto each instance
      scene.removeAnimationGroup(g);
      container.animationGroups.push(g);
    }
    return library.animationGroups.length;
  } finally {
    library.dispose();
  }
}
