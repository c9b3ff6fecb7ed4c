import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";

/**
 * How far the thumb lies from the line through the other fingers, past the farthest of them, in lengths of that
 * line: less, and no finger is told the thumb. Measured on UAL, Superhero, Xbot and Soldier, both hands: the
 * thumb of five fingers lies 0.93–1.38 away, of four or three 0.95–4.2; with the thumb gone, the finger lying
 * farthest is at most 0.70 away (three fingers; 0.36 of four).
 */
const THUMB_APART = 0.8;

/** Where a bone lies at rest in the space of `hand`, one of its ancestors: the rest matrices between composed. */
function restInHand(bone: Bone, hand: Bone): Vector3 {
  const m = Matrix.Identity();
  for (let b: Bone | null = bone; b !== null && b !== hand; b = b.getParent()) m.multiplyToRef(b.getRestMatrix(), m);
  return m.getTranslation();
}

/** Where a finger lies: halfway between its first and its last bone at rest, in its hand's space. */
export function fingerPlace(chain: readonly Bone[], hand: Bone): Vector3 {
  return restInHand(chain[0]!, hand)
    .addInPlace(restInHand(chain[chain.length - 1]!, hand))
    .scaleInPlace(0.5);
}

/** A line through points: their centroid and the unit direction they spread most along (zero when they coincide). */
interface Line {
  readonly centre: Vector3;
  readonly along: Vector3;
}

/** The line that fits `points` best (least squares): the principal axis of their spread, by power iteration. */
function fitLine(points: readonly Vector3[]): Line {
  const centre = Vector3.Zero();
  for (const p of points) centre.addInPlace(p);
  centre.scaleInPlace(1 / points.length);
  const offsets = points.map((p) => p.subtract(centre));
  // start from the farthest point's offset: never orthogonal to the axis unless the spread has none
  let along = offsets.reduce((a, b) => (b.lengthSquared() > a.lengthSquared() ? b : a), Vector3.Zero()).clone();
  for (let i = 0; i < 32 && along.lengthSquared() > 0; i++) {
    const next = Vector3.Zero();
    for (const o of offsets) next.addInPlace(o.scale(Vector3.Dot(o, along)));
    along = next.normalize();
  }
  return { centre, along: along.lengthSquared() > 0 ? along.normalize() : along };
}

/** How far `p` lies from `line`. */
function distance(p: Vector3, line: Line): number {
  const o = p.subtract(line.centre);
  return o.subtract(line.along.scale(Vector3.Dot(o, line.along))).length();
}

/** The length of the line's stretch that `points` cover. */
function extent(points: readonly Vector3[], line: Line): number {
  const t = points.map((p) => Vector3.Dot(p.subtract(line.centre), line.along));
  return Math.max(...t) - Math.min(...t);
}

/**
 * Which of `places` (a hand's fingers, each by {@link fingerPlace}) is its thumb: the one lying farthest from the
 * line through the others, by more than they stray from it and by {@link THUMB_APART} of their spread; −1 when none
 * stands out so (fewer than three fingers, or all in a row). Neither side nor handedness enters: left and right
 * hands and mirrored scenes are told alike.
 */
export function thumbByPlace(places: readonly Vector3[]): number {
  if (places.length < 3) return -1;
  let best = -1;
  let bestApart = THUMB_APART;
  places.forEach((p, i) => {
    const others = places.filter((_, j) => j !== i);
    const line = fitLine(others);
    const spread = extent(others, line);
    if (spread === 0) return;
    const stray = Math.max(...others.map((o) => distance(o, line)));
    const apart = (distance(p, line) - stray) / spread;
    if (apart > bestApart) {
      best = i;
      bestApart = apart;
    }
  });
  return best;
}

/**
 * The fingers other than the thumb, as indices into `places`, ordered across the hand from the thumb's side (the
 * index finger) to the far side (the little finger): along the line through them, starting from the end nearer
 * the thumb. The places are first flattened across the hand's length (their mean direction), so that a finger of
 * fewer bones (Mixamo's two-bone little finger), its place nearer the wrist, is still ordered by its side.
 */
export function acrossFromThumb(places: readonly Vector3[], thumb: Vector3): number[] {
  const order = places.map((_, i) => i);
  if (places.length < 2) return order;
  const length = places.reduce((sum, p) => sum.addInPlace(p), Vector3.Zero()).normalize();
  const across = (p: Vector3): Vector3 => p.subtract(length.scale(Vector3.Dot(p, length)));
  const line = fitLine(places.map(across));
  // the thumb lies on the index's side of the others' centre
  const sign = Vector3.Dot(across(thumb).subtract(line.centre), line.along) <= 0 ? 1 : -1;
  const at = places.map((p) => sign * Vector3.Dot(across(p).subtract(line.centre), line.along));
  return order.sort((a, b) => at[a]! - at[b]!);
}
