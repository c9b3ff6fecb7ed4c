/**
 * Automatic detection of a humanoid skeleton's biped references (FinalIK's
 * BipedReferences.AutoDetectReferences), engine-neutral: it reads bone names, the hierarchy and rest
 * positions, never an engine object.
 *
 * Order of evidence, one stage (and file) each:
 * 1. **Names** ({@link limbsByName}, `parseBoneName`): each limb is the tightest upper → middle → end
 *    chain of bones named for those roles on one side; twist, roll, end and IK helpers are ignored. A limb
 *    with one bone unnamed is completed from the hierarchy (`completeByHierarchy`: the only bone
 *    between, the only child, the parent).
 * 2. **Topology** ({@link fillFromTopology}, `detectTopology`) for limbs names do not give: the pelvis
 *    is where two leg chains and the spine meet, the arms branch from the upper spine; sides come from names
 *    on the limb's bones when they disagree, else from geometry (left = up × forward, forward from the toes
 *    or knees). When names gave every limb, {@link checkNamedSides} checks their sides against geometry.
 * 3. **FinalIK's structural rules** for the rest ({@link assembleTrunk}): the pelvis is the deepest bone
 *    named like one above both thighs and the arms (else their common ancestor); the spine runs from the
 *    pelvis (excluded) to the first common ancestor of the upper arms; a clavicle is an upper arm's parent
 *    unless that is a spine bone; the head is named, else the spine's continuation above the arms.
 * 4. **Validation** ({@link validateBipedReferences}) of the result, when nothing was missing.
 *
 * The stages share a {@link DetectorContext}: the skeleton, the parsed names, the problems and warnings.
 * @module
 */
import type { BipedBones } from "../../solver/biped-bones.js";
import { assembleTrunk, clavicleOf } from "./assemble-trunk.js";
import type { BoneSide } from "./bone-naming.js";
import { DetectorContext, type LimbKind, type LimbSlots, SIDES } from "./detector-context.js";
import { checkNamedSides, fillFromTopology } from "./fill-from-topology.js";
import { limbsByName } from "./limbs-by-name.js";
import { type RigBoneInfo, skeletonInputProblems } from "./rig-skeleton.js";
import { validateBipedReferences } from "./validate-references.js";

export type { RigBoneInfo } from "./rig-skeleton.js";
export { dropZeroLengthSpineBones, validateBipedReferences } from "./validate-references.js";

/**
 * Indices into the {@link RigBoneInfo} array: the solver's {@link BipedBones} without the character root
 * (detection does not choose it), plus clavicles and eyes. -1 marks an absent optional bone. The spine is
 * bottom to top, 1..n bones, up to the first common ancestor of the upper arms.
 */
export type DetectedBipedReferences = Omit<BipedBones, "root" | "spine"> & {
  spine: number[];
  /** The upper arm's parent unless that parent is a spine bone (FinalIK), -1 when absent. */
  leftClavicle: number;
  /** The upper arm's parent unless that parent is a spine bone (FinalIK), -1 when absent. */
  rightClavicle: number;
  /** Eye bones (left first), may be empty. */
  eyes: number[];
};

/** What {@link detectBipedReferences} found. */
export interface DetectionResult {
  /** The references, or null when anything required is missing or bad (then `problems` says what). */
  references: DetectedBipedReferences | null;
  /** Everything that was found, -1 / empty where nothing was (useful to complete by hand). */
  partial: DetectedBipedReferences;
  /** Every problem in words, naming what is missing or bad and the bones that were considered. */
  problems: string[];
  /** Things that worked but deserve a look: guesses, straight limbs, assumed facing, helpers used. */
  warnings: string[];
  /** What decided the references: bone names, the hierarchy's shape, or both. */
  method: "names" | "topology" | "mixed";
}

/** Options of {@link detectBipedReferences}. */
export interface DetectionOptions {
  /**
   * The positions are in a left-handed frame (Babylon's default scene space) rather than a
   * right-handed one (glTF; the default). Only matters when geometry has to tell left from right.
   * `FullBodyBipedIK.create` and `resolveBipedReferences` set it from the scene: the skeleton's frame is
   * left-handed when exactly one of the scene (not `useRightHandedSystem`) and the skeleton's parent space
   * (a negative determinant, as glTF's `__root__` in a left-handed scene) is mirrored.
   */
  leftHanded?: boolean;
}

/** Problems (the references cannot be used) and warnings (they can, but look). */
export interface ReferenceValidation {
  /** Why the references cannot be used, one line each (empty: they can). */
  problems: string[];
  /** What looks wrong but still works, one line each. */
  warnings: string[];
}

/** The single-bone fields of the references. */
type BoneKey = Exclude<keyof DetectedBipedReferences, "spine" | "eyes">;

/** The reference fields of each limb slot, upper → middle → end. */
const LIMB_KEYS: Readonly<Record<LimbKind, Record<BoneSide, readonly [BoneKey, BoneKey, BoneKey]>>> = {
  leg: { left: ["leftThigh", "leftCalf", "leftFoot"], right: ["rightThigh", "rightCalf", "rightFoot"] },
  arm: { left: ["leftUpperArm", "leftForearm", "leftHand"], right: ["rightUpperArm", "rightForearm", "rightHand"] },
};

/** An empty reference set (every bone -1). */
function emptyReferences(): DetectedBipedReferences {
  return {
    pelvis: -1,
    spine: [],
    head: -1,
    leftThigh: -1,
    leftCalf: -1,
    leftFoot: -1,
    rightThigh: -1,
    rightCalf: -1,
    rightFoot: -1,
    leftUpperArm: -1,
    leftForearm: -1,
    leftHand: -1,
    rightUpperArm: -1,
    rightForearm: -1,
    rightHand: -1,
    leftClavicle: -1,
    rightClavicle: -1,
    eyes: [],
  };
}

/** Some limb slot is still empty. */
const anyMissing = (slots: LimbSlots): boolean =>
  (["leg", "arm"] as const).some((k) => SIDES.some((s) => slots[k][s].limb === null));

/** Moves the problems of the empty slots into `ctx.problems` (legs first, left first). */
function reportEmptySlots(ctx: DetectorContext, slots: LimbSlots): void {
  for (const k of ["leg", "arm"] as const) {
    for (const s of SIDES) {
      const slot = slots[k][s];
      if (slot.limb === null && slot.problem !== null) ctx.problems.push(slot.problem);
    }
  }
}

/** References holding the limbs' best-known bones (the partial ones where a slot is empty). */
function limbReferences(slots: LimbSlots): DetectedBipedReferences {
  const refs = emptyReferences();
  for (const kind of ["leg", "arm"] as const) {
    for (const side of SIDES) {
      const bones = slots[kind][side].partial;
      LIMB_KEYS[kind][side].forEach((key, i) => (refs[key] = bones[i]!));
    }
  }
  return refs;
}

/** One detection run: the stages in order. */
function run(ctx: DetectorContext): DetectionResult {
  const slots: LimbSlots = { leg: limbsByName(ctx, "leg"), arm: limbsByName(ctx, "arm") };
  let topologyFailure: string | null = null;
  if (anyMissing(slots)) topologyFailure = fillFromTopology(ctx, slots);
  else checkNamedSides(ctx, slots);
  reportEmptySlots(ctx, slots);
  if (topologyFailure !== null) ctx.problems.push(topologyFailure);

  const refs = limbReferences(slots);
  assembleTrunk(ctx, refs);

  if (ctx.problems.length === 0) {
    const validation = validateBipedReferences(ctx.rig.bones, refs);
    ctx.problems.push(...validation.problems);
    ctx.warnings.push(...validation.warnings);
  }
  const method = !ctx.byNames ? "topology" : ctx.byShape ? "mixed" : "names";
  const references = ctx.problems.length === 0 ? refs : null;
  return { references, partial: refs, problems: ctx.problems, warnings: ctx.warnings, method };
}

/**
 * The trunk (pelvis, spine, head, clavicles, eyes) above given limbs, by the rules detection uses
 * ({@link assembleTrunk}): `limbs` holds the twelve limb bones; the rest of it is ignored.
 */
export function detectTrunk(
  bones: readonly RigBoneInfo[],
  limbs: DetectedBipedReferences,
  options: DetectionOptions = {},
): { references: DetectedBipedReferences; problems: string[]; warnings: string[] } {
  const ctx = new DetectorContext(bones, options.leftHanded);
  const refs = emptyReferences();
  for (const kind of ["leg", "arm"] as const)
    for (const side of SIDES) for (const k of LIMB_KEYS[kind][side]) refs[k] = limbs[k];
  assembleTrunk(ctx, refs);
  return { references: refs, problems: ctx.problems, warnings: ctx.warnings };
}

/**
 * FinalIK's clavicles for `refs` (its pelvis, spine and upper arms): each upper arm's parent unless that is the
 * pelvis or a spine bone, helpers between passed over; -1 for none.
 */
export function detectClavicles(
  bones: readonly RigBoneInfo[],
  refs: DetectedBipedReferences,
): { leftClavicle: number; rightClavicle: number } {
  const ctx = new DetectorContext(bones, undefined);
  return {
    leftClavicle: clavicleOf(ctx, refs, refs.leftUpperArm),
    rightClavicle: clavicleOf(ctx, refs, refs.rightUpperArm),
  };
}

/**
 * Detects the biped references of a humanoid skeleton from bone names, the hierarchy and rest
 * positions. `references` is null when anything required is missing or bad; `problems` then names every
 * issue and the bones that were considered, and `partial` holds what was found.
 */
export function detectBipedReferences(bones: readonly RigBoneInfo[], options: DetectionOptions = {}): DetectionResult {
  const inputProblems = skeletonInputProblems(bones);
  if (inputProblems.length > 0) {
    return { references: null, partial: emptyReferences(), problems: inputProblems, warnings: [], method: "names" };
  }
  return run(new DetectorContext(bones, options.leftHanded));
}
