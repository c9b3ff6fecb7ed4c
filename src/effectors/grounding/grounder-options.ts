import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { GroundPredicate } from "./babylon-ground-raycast.js";
import type { GroundingQuality, GroundingRaycast } from "./grounding-common.js";
import type { OptionKinds } from "../../babylon/option-check.js";

/**
 * What every grounder takes ({@link GrounderFBBIK}, {@link GrounderIK}). Lengths are world units at create; any left
 * out takes FinalIK's default scaled by `height / 1.8` (FinalIK's defaults are for a human of about 1.8 m). They
 * follow the character's scale since create (the grounder's `lengthScale`).
 */
export interface GrounderOptions {
  /**
   * Which meshes are ground. Default: enabled, visible, pickable meshes that are neither skinned by the
   * character's skeleton nor under its root node.
   */
  predicate?: GroundPredicate;
  /** Probe with this function instead of Babylon picking (`predicate` is then unused). */
  raycast?: GroundingRaycast;
  /**
   * The character's root: it is expected to stand on the ground, and its forward orients the Simple
   * rays (the IK's character root: the axis it faces, `FullBodyBipedIK.characterForward`; another node: its +z).
   * Default: the IK rig's character root (glTF's `__root__`), or the world origin when there is none.
   */
  root?: TransformNode | null;
  /**
   * The character's height, for the default lengths and the speed unit (`lengthUnit = height / 1.8`).
   * Default: the vertical extent of the skeleton's joints when the grounder is created.
   */
  height?: number;
  /** [0, 1] Master weight. Default 1. */
  weight?: number;
  /** Probe quality. Default Best. */
  quality?: GroundingQuality;
  /** The largest step the feet follow. Default 0.5 × height / 1.8. */
  maxStep?: number;
  /** Raises the feet above the ground. Default 0. */
  heightOffset?: number;
  /** Feet speed (see {@link Grounding.footSpeed}). Default 2.5. */
  footSpeed?: number;
  /** Foot radius for the probes. Default 0.15 × height / 1.8. */
  footRadius?: number;
  /** Foot centre offset along the root's forward. Default 0. */
  footCenterOffset?: number;
  /** Seconds of foot velocity to probe ahead. Default 0.05 (a time: not scaled). */
  prediction?: number;
  /** [0, 1] Foot rotation weight. Default 1. */
  footRotationWeight?: number;
  /** Foot rotation speed. Default 7. */
  footRotationSpeed?: number;
  /** [0, 90] Most the feet turn, degrees. Default 45. */
  maxFootRotationAngle?: number;
  /** Use the root's up instead of the world's. Default false. */
  rotateSolver?: boolean;
  /** Pelvis speed. Default 5. */
  pelvisSpeed?: number;
  /** [0, 1] Pelvis damper. Default 0. */
  pelvisDamper?: number;
  /** Lower pelvis weight. Default 1. */
  lowerPelvisWeight?: number;
  /** Lift pelvis weight. Default 0. */
  liftPelvisWeight?: number;
  /**
   * [0, 1] The pelvis lowers at once for feet beyond their legs' reach, and goes back up at `pelvisSpeed` (see
   * {@link Grounding.pelvisReachWeight}).
   * Default 1 (0 is FinalIK's).
   */
  pelvisReachWeight?: number;
  /** Best quality root probe radius. Default 0.1 × height / 1.8. */
  rootSphereCastRadius?: number;
  /** A foot over nothing goes down by maxStep. Default true. */
  overstepFallsDown?: boolean;
  /** Rays on the Best quality probe's circle. Default 8. */
  sphereProbeRays?: number;
  /** Seconds `enabled` takes to fade out or in (default 0: at once): the grounder's `enableFadeSeconds`. */
  enableFadeSeconds?: number;
}

/** The kinds of {@link GrounderOptions}, which each grounder's own table spreads. */
export const GROUNDER_OPTION_KINDS: OptionKinds<GrounderOptions> = {
  predicate: "function",
  raycast: "function",
  root: "object|null",
  height: "number",
  weight: "number",
  quality: "number",
  maxStep: "number",
  heightOffset: "number",
  footSpeed: "number",
  footRadius: "number",
  footCenterOffset: "number",
  prediction: "number",
  footRotationWeight: "number",
  footRotationSpeed: "number",
  maxFootRotationAngle: "number",
  rotateSolver: "boolean",
  pelvisSpeed: "number",
  pelvisDamper: "number",
  lowerPelvisWeight: "number",
  liftPelvisWeight: "number",
  pelvisReachWeight: "number",
  rootSphereCastRadius: "number",
  overstepFallsDown: "boolean",
  sphereProbeRays: "number",
  enableFadeSeconds: "number",
};
