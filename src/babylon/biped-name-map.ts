import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import {
  BIPED_REFERENCES_INPUT_KINDS,
  type BipedReferences,
  type BipedReferencesInput,
  resolveReferences,
} from "./biped-references.js";
import { fingersOf, toeOf } from "./biped-digits.js";
import { type OptionKinds, checkLoggedOptions, objectOf } from "./option-check.js";

/** Options of {@link bipedNameMap}. The toes and fingers are looked for under the feet and hands these give. */
export interface BipedNameMapOptions {
  /** Overrides for the source's detected references (as FullBodyBipedIK's `references` option). */
  sourceReferences?: BipedReferencesInput;
  /** Overrides for the target's detected references. */
  targetReferences?: BipedReferencesInput;
}

/** The kinds of {@link BipedNameMapOptions}, for the check at create. */
export const BIPED_NAME_MAP_OPTION_KINDS: OptionKinds<BipedNameMapOptions> = {
  sourceReferences: objectOf(BIPED_REFERENCES_INPUT_KINDS),
  targetReferences: objectOf(BIPED_REFERENCES_INPUT_KINDS),
};

/**
 * Pairs a chain of `length` bones with one of `count`, both ends kept: bone `k` of the shorter chain (of `n`)
 * pairs with bone `round(k × (m − 1) / (n − 1))` of the longer (of `m`), whose other bones pair with none; a chain
 * of one bone pairs with the other's first. Calls `pair(i, j)` with `i` an index of the first chain and `j` of the
 * second, each index at most once.
 */
export function pairChains(length: number, count: number, pair: (i: number, j: number) => void): void {
  if (length === 0 || count === 0) return;
  const spread = (from: number, to: number, emit: (longer: number, shorter: number) => void): void => {
    if (to === 1) {
      emit(0, 0);
      return;
    }
    for (let k = 0; k < to; k++) emit(Math.round((k * (from - 1)) / (to - 1)), k);
  };
  if (length >= count) spread(length, count, (i, j) => pair(i, j));
  else spread(count, length, (j, i) => pair(i, j));
}

/** The bones strictly between the last spine bone and the head, bottom up (none without a head). */
function neckOf(refs: BipedReferences): Bone[] {
  const out: Bone[] = [];
  const top = refs.spine[refs.spine.length - 1];
  if (refs.head === null || top === undefined) return out;
  for (let b = refs.head.getParent(); b !== null && b !== top; b = b.getParent()) out.unshift(b);
  return out;
}

/** The name an animation targets the bone by: its linked TransformNode's (glTF), else the bone's own. */
const animatedName = (bone: Bone): string => bone.getTransformNode()?.name ?? bone.name;

/**
 * Pairs the bones of two humanoid skeletons by what they are, whatever each one's naming convention (the
 * detection FullBodyBipedIK uses): pelvis, spine, neck, head, clavicles, the limbs' three bones, the toes (a foot's
 * one child bone, when both feet have one), the fingers (three bones each, a metacarpal before them or a tip marker
 * after them left out; told by name, thumb, index, middle, ring, little, or 3ds Max Biped's `Finger0` … `Finger4`,
 * and where names give only a number, `finger_2.L`, by where they lie at rest: the thumb apart from the line of
 * the others, which follow across the hand from its side, index first) and the eyes.
 * The result maps a source bone's animated name (its TransformNode's in a glTF file) to the target's, the shape
 * Babylon's `AnimatorAvatar.retargetAnimationGroup` takes as `mapNodeNames`, so a clip made for one character
 * plays on another:
 *
 * ```ts
 * const avatar = new AnimatorAvatar("hero", heroRoot, false, false); // keeps heroRoot's name
 * const walk = avatar.retargetAnimationGroup(mixamoWalk, { mapNodeNames: bipedNameMap(mixamoSkeleton, heroSkeleton) });
 * walk.start(true);
 * ```
 *
 * Spines (and necks) of other lengths keep their ends: each bone of the shorter one takes the bone at the same
 * place along the longer one, and the longer one's other bones are left out: a source bone left out loses its
 * rotation, a target bone left out keeps its own. A finger one rig lacks (a cartoon hand of four) is left out, and
 * a thumb is never paired with another finger. Bones the map does not name (fingers told neither way, several
 * toes, twist and other helpers) are matched by Babylon by their own names, so they retarget between files of one
 * convention. A skeleton whose references cannot be found throws the FBBIKError FullBodyBipedIK's `create` would.
 */
export function bipedNameMap(
  source: Skeleton,
  target: Skeleton,
  options: BipedNameMapOptions = {},
): Map<string, string> {
  checkLoggedOptions("bipedNameMap", options, BIPED_NAME_MAP_OPTION_KINDS);
  const s = resolveReferences(source, options.sourceReferences ?? {}).references;
  const t = resolveReferences(target, options.targetReferences ?? {}).references;
  const map = new Map<string, string>();
  const pair = (a: Bone | null | undefined, b: Bone | null | undefined): void => {
    if (a !== null && a !== undefined && b !== null && b !== undefined) map.set(animatedName(a), animatedName(b));
  };
  const chains = (a: readonly Bone[], b: readonly Bone[]): void =>
    pairChains(a.length, b.length, (i, j) => pair(a[i], b[j]));
  pair(s.pelvis, t.pelvis);
  chains(s.spine, t.spine);
  chains(neckOf(s), neckOf(t));
  pair(s.head, t.head);
  const sided = ["Clavicle", "UpperArm", "Forearm", "Hand", "Thigh", "Calf", "Foot"] as const;
  for (const side of ["left", "right"] as const) {
    for (const part of sided) pair(s[`${side}${part}`], t[`${side}${part}`]);
    pair(toeOf(s[`${side}Foot`]), toeOf(t[`${side}Foot`]));
    const a = fingersOf(s[`${side}Hand`]);
    const b = fingersOf(t[`${side}Hand`]);
    for (let k = 0; k < a.length; k++) {
      const from = a[k];
      const to = b[k];
      if (from !== null && from !== undefined && to !== null && to !== undefined) chains(from, to);
    }
  }
  // eyes are listed left, right when both are found; a single eye's side is not told
  if (s.eyes.length === 2 && t.eyes.length === 2) for (let i = 0; i < 2; i++) pair(s.eyes[i], t.eyes[i]);
  return map;
}
