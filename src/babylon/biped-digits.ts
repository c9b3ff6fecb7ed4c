import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { EXCLUDED_WORDS, nameWords } from "../mapping/detection/bone-naming.js";
import { acrossFromThumb, fingerPlace, thumbByPlace } from "./finger-place.js";

/** The five fingers, thumb first, each by the words its bones' names carry. */
const FINGER_WORDS: readonly (readonly string[])[] = [
  ["thumb"],
  ["index", "pointer", "fore"],
  ["middle", "mid"],
  ["ring"],
  ["pinky", "pinkie", "little", "small"],
];

/** The word a numbered finger's name carries before its number (`finger_2.L`, `Bip01 L Finger2`). */
const NUMBERED_WORD = "finger";

/** How a naming convention numbers its fingers. */
interface FingerNumbering {
  /** Whether a name (its words) is of the convention. */
  readonly isOf: (words: readonly string[]) => boolean;
  /** The number of the thumb (the others count up across the hand to the little finger), or null: unsaid. */
  readonly thumb: number | null;
}

/**
 * What the number after {@link NUMBERED_WORD} says, per convention, the first that fits (the number's first digit:
 * a second is the phalanx, as Biped's `Finger01`). A number with no finger word (`hand_l_01`) makes no finger.
 */
const FINGER_NUMBERINGS: readonly FingerNumbering[] = [
  /** 3ds Max Biped (`Bip01 L Finger0` … `Finger4`, `Bip001 R Finger12`): 0 is the thumb, 4 the little finger. */
  { isOf: (words) => words[0] === "bip", thumb: 0 },
  /** Any other (`finger_0.L`, `Finger1_L_1`, `hand.L.finger.2.1`): counted from the thumb or the index, from 0
   * or 1, so the number only tells which bones make one finger, and where that finger lies tells which it is. */
  { isOf: () => true, thumb: null },
];

/** Words of a bone between the hand and a finger's first phalanx (UE5's `index_metacarpal_l`). */
const METACARPAL_WORDS: ReadonlySet<string> = new Set(["metacarpal", "meta", "palm"]);

/** The most bones a finger keeps: three phalanges (a fourth is a tip marker: Mixamo's `…Index4`, `…_leaf`). */
const PHALANGES = 3;

/** The words of a bone's name, without a namespace (`mixamorig:`). */
const wordsOf = (bone: Bone): string[] => nameWords(bone.name.slice(bone.name.lastIndexOf(":") + 1));

/** What a bone's name says of its finger: which one (0 the thumb … 4 the little one, −1 unsaid) and a key its
 * finger's bones share (its word, or its number). */
interface FingerName {
  readonly finger: number;
  readonly key: string;
}

/** What a bone's name says of its finger, or null: no finger's name, or a helper's (`…Nub`, `…_end`). */
function fingerName(bone: Bone): FingerName | null {
  const words = wordsOf(bone);
  if (words.some((w) => EXCLUDED_WORDS.has(w))) return null;
  const k = FINGER_WORDS.findIndex((names) => words.some((w) => names.includes(w)));
  if (k >= 0) return { finger: k, key: FINGER_WORDS[k]![0]! };
  const at = words.indexOf(NUMBERED_WORD);
  if (at < 0) return null;
  const n = /^\d/.test(words[at + 1] ?? "") ? Number(words[at + 1]![0]) : -1;
  if (n < 0) return { finger: -1, key: NUMBERED_WORD };
  const thumb = FINGER_NUMBERINGS.find((c) => c.isOf(words))!.thumb;
  const finger = thumb === null ? -1 : n - thumb;
  return { finger: finger < FINGER_WORDS.length ? finger : -1, key: `${NUMBERED_WORD}${n}` };
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

/** A finger's bones from `start` out, at most three, while their names say the same finger. */
function chainFrom(start: Bone, name: FingerName): Bone[] {
  let first = start;
  const next = onlyChild(start);
  // VRM's thumb starts at its metacarpal; the other fingers' metacarpals are passed over
  if (
    name.finger !== 0 &&
    next !== null &&
    wordsOf(start).some((w) => METACARPAL_WORDS.has(w)) &&
    fingerName(next)?.key === name.key
  )
    first = next;
  const chain: Bone[] = [];
  for (let b: Bone | null = first; b !== null && chain.length < PHALANGES; b = onlyChild(b)) {
    if (fingerName(b)?.key !== name.key) break;
    chain.push(b);
  }
  return chain;
}

/**
 * The fingers of `hand`, thumb first (null: not found): each finger's bones from its first phalanx out, at most
 * three, stopping at a tip marker (`end`, `nub`, `leaf`, `tip`) or where the chain branches. A metacarpal between
 * the hand and a finger (not the thumb: VRM's thumb starts at its metacarpal) is passed over.
 *
 * A finger is told by its name's word (thumb; index, pointer, fore; middle; ring; pinky, little), or by 3ds Max
 * Biped's number (`Finger0` the thumb … `Finger4`). Fingers whose names say no more than a number (`finger_2.L`)
 * are told by where they lie at rest: the thumb lies apart from the line of the others (unless a name says which
 * is the thumb), and the others follow across the hand from its side, index first; a hand of three or four fingers
 * leaves its last fingers (little, ring) null, and one with no finger lying apart tells none by place.
 */
export function fingersOf(hand: Bone): (Bone[] | null)[] {
  const fingers: (Bone[] | null)[] = FINGER_WORDS.map(() => null);
  const unsaid: Bone[][] = [];
  for (const child of hand.getChildren()) {
    const name = fingerName(child);
    if (name === null) continue;
    const chain = chainFrom(child, name);
    if (chain.length === 0) continue;
    if (name.finger < 0) unsaid.push(chain);
    else if (fingers[name.finger] === null) fingers[name.finger] = chain;
  }
  if (unsaid.length > 0) byPlace(hand, fingers, unsaid);
  return fingers;
}

/** Puts each of the `unsaid` chains in the slot of `fingers` where it lies on `hand`, or in none. */
function byPlace(hand: Bone, fingers: (Bone[] | null)[], unsaid: Bone[][]): void {
  let thumb = fingers[0];
  const others = [...fingers.slice(1).filter((f): f is Bone[] => f !== null), ...unsaid];
  if (thumb === null) {
    const all = [...fingers.filter((f): f is Bone[] => f !== null), ...unsaid];
    const k = thumbByPlace(all.map((f) => fingerPlace(f, hand)));
    // only an unsaid finger can be the thumb; a finger named otherwise lying apart leaves the thumb untold
    if (k < 0 || !unsaid.includes(all[k]!)) return;
    thumb = all[k]!;
    fingers[0] = thumb;
    others.splice(others.indexOf(thumb), 1);
  }
  const order = acrossFromThumb(
    others.map((f) => fingerPlace(f, hand)),
    fingerPlace(thumb, hand),
  );
  // each unsaid finger takes the next free slot after those across the hand from the thumb before it
  let slot = 1;
  for (const i of order) {
    const f = others[i]!;
    const named = fingers.indexOf(f);
    if (named > 0) slot = named + 1;
    else {
      while (slot < fingers.length && fingers[slot] !== null) slot++;
      if (slot < fingers.length) fingers[slot++] = f;
    }
  }
}
