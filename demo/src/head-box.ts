/**
 * The head's size and place from its skin, in the character's own frame: a chibi's head (the Mannequin's) is a
 * box as wide as the arms are long that starts at the shoulders and overhangs the chest, where the joints put a
 * small head on the neck. Props worn on the face (the VR headset) and hands held in front of the body (the crowd's
 * wands, the VR controllers) are placed from it, so the head neither hides them nor swallows them.
 */
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { type Character, bonePos } from "./kit";
import type { Bone } from "@babylonjs/core/Bones/bone";
import { isUnder, quantile, skinVertices } from "./props/skin";

/**
 * A head's skin box in its character's frame, from the root: x along `c.right`, y up, z along `c.forward`; the
 * bulk of the skin (3rd to 97th percentile), so a thin neck stub under a chibi's head does not count as head.
 */
export interface HeadBox {
  lo: Vector3;
  hi: Vector3;
  /** The eyes' height above the root: the eye bones', else where the face's proportions put them. */
  eyes: number;
}

/** The character's side axis square to its forward (its shoulders' line need not be: the Soldier's feet turn out). */
function side(c: Character): Vector3 {
  return c.right.subtract(c.forward.scale(Vector3.Dot(c.right, c.forward))).normalize();
}

/** A point in the character's frame (x right, y up, z forward, from the root). */
export function toCharacter(c: Character, p: Vector3): Vector3 {
  const d = p.subtract(c.root.getAbsolutePosition());
  return new Vector3(Vector3.Dot(d, side(c)), d.y, Vector3.Dot(d, c.forward));
}

/** A point of the character's frame in world space. */
export function toWorld(c: Character, p: Vector3): Vector3 {
  return c.root
    .getAbsolutePosition()
    .add(side(c).scale(p.x))
    .addInPlaceFromFloats(0, p.y, 0)
    .addInPlace(c.forward.scale(p.z));
}

/**
 * The head's box as posed now (a box of 0.16 h about the head bone without skin weights there). Without eye
 * bones the eyes sit halfway up a realistic head and lower on a big one: a chibi's face is drawn on the lower
 * third of its head (the Mannequin's, whose head is 40 % of its height).
 */
export function headBox(c: Character): HeadBox {
  const head = c.ik.references.head ?? c.ik.references.spine[c.ik.references.spine.length - 1]!;
  const skin = skinVertices(c.skeleton, (b) => isUnder(b, head)).map((p) => toCharacter(c, p));
  let lo: Vector3;
  let hi: Vector3;
  if (skin.length === 0) {
    const at = toCharacter(c, bonePos(head));
    const e = new Vector3(0.08 * c.h, 0.08 * c.h, 0.08 * c.h);
    [lo, hi] = [at.subtract(e), at.add(e)];
  } else {
    const q = (axis: "x" | "y" | "z", k: number) =>
      quantile(
        skin.map((p) => p[axis]),
        k,
      );
    lo = new Vector3(q("x", 0.03), q("y", 0.03), q("z", 0.03));
    hi = new Vector3(q("x", 0.97), q("y", 0.97), q("z", 0.97));
  }
  const eyeBones = c.skeleton.bones.filter((b) => /eye(?!brow|lid|lash)/i.test(b.name) && isUnder(b, head));
  let eyes: number;
  if (eyeBones.length > 0) eyes = eyeBones.reduce((a, b) => a + toCharacter(c, bonePos(b)).y, 0) / eyeBones.length;
  else {
    const share = (hi.y - lo.y) / Math.max(c.h, hi.y);
    const low = Math.min(1, Math.max(0, (share - 0.15) / 0.25));
    eyes = lo.y + (0.5 - 0.2 * low) * (hi.y - lo.y);
  }
  return { lo, hi, eyes };
}

/**
 * How high (above the root) a point `forward` ahead of the root can be before the head hides it from a camera
 * in front of the character, `elevation` radians above the horizon: a point ahead of the face never is; one under
 * the head's overhang must stay below the line from the camera grazing the head's lower front edge.
 */
export function clearUnderHead(box: HeadBox, forward: number, elevation: number): number {
  if (forward >= box.hi.z) return Number.POSITIVE_INFINITY;
  return box.lo.y - (box.hi.z - forward) * Math.tan(elevation);
}

/**
 * Whether the head's box (`box`, as posed when taken) lies between the camera's eye and `p` (world), or passes
 * within `margin` of the line of sight: what the viewer sees of a hand behind a chibi's head.
 */
export function behindHeadBox(camera: ArcRotateCamera, c: Character, box: HeadBox, p: Vector3, margin = 0): boolean {
  const a = toCharacter(c, camera.globalPosition);
  const b = toCharacter(c, p);
  const d = b.subtract(a);
  // the slabs' overlap along the line from the eye (t 0) to the point (t 1), the box grown by the margin
  let [t0, t1] = [0, 1];
  for (const axis of ["x", "y", "z"] as const) {
    const lo = box.lo[axis] - margin;
    const hi = box.hi[axis] + margin;
    if (Math.abs(d[axis]) < 1e-12) {
      if (a[axis] < lo || a[axis] > hi) return false;
      continue;
    }
    const [u, v] = [(lo - a[axis]) / d[axis], (hi - a[axis]) / d[axis]];
    t0 = Math.max(t0, Math.min(u, v));
    t1 = Math.min(t1, Math.max(u, v));
  }
  // the point itself inside the box counts: it is in the head
  return t0 <= t1;
}

/** How far the skin of `hand` (its fingers included) reaches from the wrist: most of it (95th percentile). */
export function handReach(c: Character, hand: Bone): number {
  const skin = skinVertices(c.skeleton, (b) => isUnder(b, hand));
  const wrist = bonePos(hand);
  return skin.length > 0
    ? quantile(
        skin.map((p) => Vector3.Distance(p, wrist)),
        0.95,
      )
    : 0;
}
