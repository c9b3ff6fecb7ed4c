import type { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { GROUNDER_OPTION_KINDS, type GrounderOptions } from "./grounder-options.js";
import { type OptionKinds, eachOf } from "../../babylon/option-check.js";

/** A spine effector the grounder bends toward the displaced feet (FinalIK's GrounderFBBIK.SpineEffector). */
export class GrounderSpineEffector {
  /** The FBBIK effector that takes the offset (typically the shoulders). */
  effectorType: FullBodyBipedEffector;
  /** Weight of the horizontal spine offset. Default 1. */
  horizontalWeight = 1;
  /** Weight of the vertical part (up × the offset's length). Default 0. */
  verticalWeight = 0;
  /** @internal The last finite horizontalWeight (kept when it turns non-finite). */
  _validHorizontalWeight = 1;
  /** @internal The last finite verticalWeight. */
  _validVerticalWeight = 0;

  /** A spine effector on `effectorType`. */
  constructor(effectorType: FullBodyBipedEffector, horizontalWeight = 1, verticalWeight = 0) {
    this.effectorType = effectorType;
    this.horizontalWeight = horizontalWeight;
    this.verticalWeight = verticalWeight;
    if (Number.isFinite(horizontalWeight)) this._validHorizontalWeight = horizontalWeight;
    if (Number.isFinite(verticalWeight)) this._validVerticalWeight = verticalWeight;
  }
}

/**
 * The kinds of a {@link GrounderSpineEffector}'s settings, for the check at create of a `spine` entry written as
 * an object literal (plain JavaScript) rather than constructed.
 */
const GROUNDER_SPINE_EFFECTOR_KINDS: OptionKinds<
  Pick<GrounderSpineEffector, "effectorType" | "horizontalWeight" | "verticalWeight">
> = {
  effectorType: "number",
  horizontalWeight: "number",
  verticalWeight: "number",
};

/**
 * Options of {@link GrounderFBBIK}: those of every grounder ({@link GrounderOptions}) and the spine bend.
 */
export interface GrounderFBBIKOptions extends GrounderOptions {
  /** Spine bend toward displaced feet. Default 2. */
  spineBend?: number;
  /** Spine bend speed. Default 3. */
  spineSpeed?: number;
  /** The effectors the spine bend moves. Default none (as FinalIK). */
  spine?: GrounderSpineEffector[];
}

/** The kinds of {@link GrounderFBBIKOptions}, for the check at create. */
export const GROUNDER_FBBIK_OPTION_KINDS: OptionKinds<GrounderFBBIKOptions> = {
  ...GROUNDER_OPTION_KINDS,
  spineBend: "number",
  spineSpeed: "number",
  spine: eachOf(GROUNDER_SPINE_EFFECTOR_KINDS),
};
