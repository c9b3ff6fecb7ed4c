/**
 * A target node hung under a tracker (a VR headset or controller, a prop, a gizmo's node) for an effector whose
 * rotation is its bone's world rotation: a tracker's axes are seldom the bone's (UAL's head bone is rolled 177°
 * from the world's axes), and taken as they are they would turn the head or the hand by that much.
 * @module
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Matrix, Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Node } from "@babylonjs/core/node.js";
import { Quat } from "../math/quat.js";
import { boneWorldMatrixToRef, rotationFromMatrix, skinnedMeshOf } from "./world-matrix.js";
import { type OptionKinds, checkChoice, checkLoggedOptions } from "./option-check.js";

/** Options of {@link createTrackerTarget}. */
export interface TrackerTargetOptions {
  /** The node's name (default: the bone's name and " target"). */
  name?: string;
  /**
   * Where the target sits under the tracker: `"bone"` (default) where the bone is now, so the bone keeps its
   * place relative to the tracker (a head below and behind a headset, with the character standing under the
   * user); `"tracker"` on the tracker's origin (a controller's grip, where the hand holds it).
   */
  position?: "bone" | "tracker";
}

/** The kinds of {@link TrackerTargetOptions}, for the check at create. */
export const TRACKER_TARGET_OPTION_KINDS: OptionKinds<TrackerTargetOptions> = {
  name: "string",
  position: "string",
};

/**
 * A new TransformNode, child of `tracker`, turned as `bone` is now in the world (and placed as
 * {@link TrackerTargetOptions.position} says): give it as the effector's target (`FBBIKHeadEffector`'s
 * `target`, a hand effector's `target`), and the tracker's moves and turns from now on move and turn the bone
 * as they move the tracker. Call it once, in the pose the tracker and the character are to match (a VR
 * calibration: the character turned to the headset's yaw and standing under it). The tracker may be a camera
 * (a `WebXRCamera`) or a mesh (a controller's `grip`); the target goes with it when it is disposed.
 */
export function createTrackerTarget(tracker: Node, bone: Bone, options: TrackerTargetOptions = {}): TransformNode {
  checkLoggedOptions("createTrackerTarget", options, TRACKER_TARGET_OPTION_KINDS);
  checkChoice("createTrackerTarget", "position", options.position, ["bone", "tracker"]);
  const world = boneWorldMatrixToRef(bone, skinnedMeshOf(bone), new Matrix());
  // the library's rotation convention for a bone's world rotation (a mirrored root's sign taken out)
  const q = rotationFromMatrix(world.m, new Quat());
  const target = new TransformNode(options.name ?? `${bone.name} target`, tracker.getScene());
  target.rotationQuaternion = new Quaternion(q.x, q.y, q.z, q.w);
  target.position.copyFrom(world.getTranslation());
  tracker.computeWorldMatrix(true);
  target.setParent(tracker);
  if (options.position === "tracker") target.position.setAll(0);
  return target;
}
