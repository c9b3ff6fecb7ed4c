/**
 * Clips for a model that has none: the UAL character's, retargeted onto it with Babylon's AnimatorAvatar and the
 * library's bipedNameMap (the bones paired by what they are, whatever either file calls them). They join the
 * model's container under their own names plus " (UAL)", so the clip menu offers them and every instance gets
 * them, while the scenarios, which look clips up by their plain names, keep their procedural motion.
 *
 * AnimatorAvatar carries each bone's turn away from the source's rest pose onto the target's, so the model's rest
 * limbs are first turned to point as UAL's do (alignRestPose): an A-posed model, or one whose arms hang, swings
 * them as UAL does.
 */
import { AnimatorAvatar } from "@babylonjs/core/Animations/animatorAvatar";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { AssetContainer } from "@babylonjs/core/assetContainer";
import type { Scene } from "@babylonjs/core/scene";
import { alignRestPose } from "../../src/babylon/align-rest-pose";
import { bipedNameMap } from "../../src/babylon/biped-name-map";
import { COMMITTED, loadModel } from "./models";

/** What a borrowed clip's name ends with. */
export const BORROWED = " (UAL)";

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
    } catch {
      return 0;
    }
    // not renamed, and nothing of the model disposed with it
    const avatar = new AnimatorAvatar("borrowed clips", root, false, false);
    avatar.showWarnings = false;
    const restore = alignRestPose(library.skeletons[0]!, skeleton);
    try {
      for (const clip of library.animationGroups) {
        const g = avatar.retargetAnimationGroup(clip, { animationGroupName: clip.name + BORROWED, mapNodeNames: map });
        // the container's, like a clip of its own: instantiating the model clones it onto each instance
        scene.removeAnimationGroup(g);
        container.animationGroups.push(g);
      }
    } finally {
      restore();
    }
    return library.animationGroups.length;
  } finally {
    library.dispose();
  }
}
