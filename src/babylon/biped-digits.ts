import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { EXCLUDED_WORDS, nameWords } from "../mapping/detection/bone-naming.js";

/** The five fingers, thumb first, each by the words its bones' names carry. */
const FINGER_WORDS: readonly (readonly string[])[] = [
  ["thumb"],
  ["index", "pointer", "fore"],
  ["middle", "mid"],
  ["ring"],
  ["pinky", "pinkie", "little", "small"],
];

/** Words of a bone between the hand and a finger's first phalanx (UE5's `index_metacarpal_l`). */
const METACARPAL_WORDS: ReadonlySet<string> = new Set(["metacarpal", "meta", "palm"]);

/** The most bones a finger keeps: three phalanges (a fourth is a tip marker: Mixamo's `…Index4`, `…_leaf`). */
const PHALANGES = 3;

/** The words of a bone's name, without a namespace (`mixamorig:`). */
const wordsOf = (bone: Bone): string[] => nameWords(bone.name.slice(bone.name.lastIndexOf(":") + 1));

/** Which finger (0 the thumb … 4 the little one) a bone's name says, or −1 (none, or a helper's name). */
function fingerOf(bone: Bone): number {
  const words = wordsOf(bone);
  if (words.some((w) => EXCLUDED_WORDS.has(w))) return -1;
  return FINGER_WORDS.findIndex((names) => words.some((w) => names.includes(w)));
}

/** A bone's one child, or null (none, or several). */
function onlyChild(bone: Bone): Bone | null {
  const children = bone.getChildren();
  return children.length === 1 ? children[0]! : null;
}

/** A foot's toe: its one child bone (none when it has several: toes apart, helpers, IK targets). */
export function toeOf(foot: Bone): Bone | null {
  return onlyChild(foot);
}

/**
 * The fingers of `hand` by name, thumb first (null: not found): each finger's bones from its first phalanx out,
 * at most three, stopping at a tip marker (`end`, `nub`, `leaf`, `tip`) or where the chain branches. A metacarpal
 * between the hand and a finger (not the thumb: VRM's thumb starts at its metacarpal) is passed over.
 */
export function fingersOf(hand: Bone): (Bone[] | null)[] {
  const fingers: (Bone[] | null)[] = FINGER_WORDS.map(() => null);
  for (const child of hand.getChildren()) {
    const k = fingerOf(child);
    if (k < 0 || fingers[k] !== null) continue;
    let first: Bone | null = child;
    const next = onlyChild(child);
    if (k > 0 && next !== null && wordsOf(child).some((w) => METACARPAL_WORDS.has(w)) && fingerOf(next) === k)
      first = next;
    const chain: Bone[] = [];
    for (let b: Bone | null = first; b !== null && chain.length < PHALANGES && fingerOf(b) === k; b = onlyChild(b))
      chain.push(b);
    fingers[k] = chain;
  }
  return fingers;
}
