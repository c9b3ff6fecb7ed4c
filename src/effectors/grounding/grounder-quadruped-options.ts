import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { OptionKinds } from "../../babylon/option-check.js";
import { GROUNDER_OPTION_KINDS, type GrounderOptions } from "./grounder-options.js";

/**
 * Options of {@link GrounderQuadruped}: those of every grounder ({@link GrounderOptions}, for both of its grounding
 * solvers), the body's pitch, the limits of the pelvis's and the chest's moves, and the head.
 */
export interface GrounderQuadrupedOptions extends GrounderOptions {
  /**
   * The node pitched toward the ground under the legs (FinalIK's `characterRoot`). Default: the grounder's `root`;
   * null: the body is not pitched, only the pelvis and the chest move.
   */
  characterRoot?: TransformNode | null;
  /** The head, whose world rotation is kept by `maintainHeadRotationWeight`. Default none. */
  head?: Bone | null;
  /** [0, 1] How much the body pitches toward the ground under the legs. Default 0.5. */
  rootRotationWeight?: number;
  /** [-90, 0] The most the body pitches down (nose first), degrees. Default -25. */
  minRootRotation?: number;
  /** [0, 90] The most the body pitches up, degrees. Default 45. */
  maxRootRotation?: number;
  /** How fast the pitch follows (rate per second). Default 5. */
  rootRotationSpeed?: number;
  /** The most the pelvis moves up or down for the hind legs, world units. Default 0.5 × height / 1.8. */
  maxLegOffset?: number;
  /** The most the chest (`lastSpineBone`) moves up or down for the forelegs. Default 0.5 × height / 1.8. */
  maxForeLegOffset?: number;
  /** [0, 1] How much the head keeps its animated world rotation. Default 0.5. */
  maintainHeadRotationWeight?: number;
  /** For skeletons without linked TransformNodes: the mesh the skeleton deforms (default: the first one). */
  mesh?: AbstractMesh;
  /**
   * The axis of `root`, in its own frame, the creature faces ({@link GrounderQuadruped.characterForward}). Default:
   * the root's axis nearest the way from the hind hips to the fore hips.
   */
  characterForward?: Vector3;
}

/** The kinds of {@link GrounderQuadrupedOptions}, for the check at create. */
export const GROUNDER_QUADRUPED_OPTION_KINDS: OptionKinds<GrounderQuadrupedOptions> = {
  ...GROUNDER_OPTION_KINDS,
  characterRoot: "object|null",
  head: "object|null",
  rootRotationWeight: "number",
  minRootRotation: "number",
  maxRootRotation: "number",
  rootRotationSpeed: "number",
  maxLegOffset: "number",
  maxForeLegOffset: "number",
  maintainHeadRotationWeight: "number",
  mesh: "object",
  characterForward: "object",
};
