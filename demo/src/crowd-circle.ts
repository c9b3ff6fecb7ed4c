/**
 * Where the crowd's right hands circle: in front of the right shoulder, within the arm's reach, and clear of the
 * head as the crowd's camera sees it from above. A realistic figure's hand circles at shoulder height a long way
 * ahead of its face; a chibi's arm is shorter than its head is deep (the Mannequin's head starts at the shoulders
 * and overhangs the chest by 0.46 m, its arm 0.50 m long), so there the circle goes lower and smaller, under the
 * head's shadow, and the wand leans forward so its ball shows ahead of the face instead of inside the head.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { type HeadBox, clearUnderHead } from "./head-box";

/** The circle's place and size, and the wand's lean. */
export interface WandCircle {
  /** The circle's centre in the character's frame (x right, y up, z forward, from the root). */
  centre: Vector3;
  radius: number;
  /** The wand's lean from upright toward the character's front and outward (radians). */
  lean: number;
  /** The wand's direction from the grip in the character's frame (unit; up when it does not lean). */
  up: Vector3;
}

/** How far, in arm lengths, the circle's farthest point may be from the shoulder (a little short of straight). */
const REACH = 0.92;
/** Forward distances and radii tried (× arm length), the realistic figure's first. */
const FORWARD = [0.75, 0.7, 0.65, 0.6, 0.55, 0.5];
const RADII = [0.35, 0.3, 0.25, 0.2, 0.15];
const LEANS = [0, 0.3, 0.6, 0.9, 1.2];

/** The farthest point of the vertical circle (in the right-up plane) at `centre` of `radius` from `shoulder`. */
function farthest(centre: Vector3, radius: number, shoulder: Vector3): number {
  let best = 0;
  for (let k = 0; k < 24; k++) {
    const a = (k / 24) * 2 * Math.PI;
    const p = centre.add(new Vector3(radius * Math.cos(a), radius * Math.sin(a), 0));
    best = Math.max(best, Vector3.Distance(p, shoulder));
  }
  return best;
}

/**
 * The circle for a character whose right shoulder is at `shoulder` (its frame), arm `L` long, head `box`, fist
 * reaching `fist` from the wrist, wand ball `ballAbove` over the grip and `ball` in radius, seen from a camera
 * `elevation` radians above the horizon: the largest circle, the farthest forward, whose wrist stays clear of the
 * head (half a fist to spare) and within reach; the smallest wand lean that shows the ball at the circle's top.
 */
export function wandCircle(
  shoulder: Vector3,
  L: number,
  box: HeadBox,
  fist: number,
  ballAbove: number,
  ball: number,
  elevation: number,
): WandCircle {
  // the fist hangs ahead of and under the wrist: a tenth of its reach above it
  const margin = 0.1 * fist;
  let circle: WandCircle | null = null;
  search: for (const r of RADII)
    for (const a of FORWARD) {
      const z = shoulder.z + a * L;
      const top = clearUnderHead(box, z - margin, elevation) - margin;
      const centre = new Vector3(shoulder.x + 0.1 * L, Math.min(shoulder.y - 0.12 * L, top - r * L), z);
      if (farthest(centre, r * L, shoulder) <= REACH * L) {
        circle = { centre, radius: r * L, lean: 0, up: Vector3.Up() };
        break search;
      }
    }
  // none within reach: the smallest, nearest one, as low as the arm reaches
  circle ??= {
    centre: new Vector3(shoulder.x + 0.1 * L, shoulder.y - 0.45 * L, shoulder.z + 0.5 * L),
    radius: 0.15 * L,
    lean: 0,
    up: Vector3.Up(),
  };
  const top = circle.centre.add(new Vector3(0, circle.radius, 0));
  for (const lean of LEANS) {
    // ahead and outward: the ball beside the fist, not in front of it, where the camera looks from
    circle.lean = lean;
    circle.up = new Vector3(0.6 * Math.sin(lean), Math.cos(lean), 0.8 * Math.sin(lean));
    const at = top.add(circle.up.scale(ballAbove));
    if (at.y + ball <= clearUnderHead(box, at.z - ball, elevation) || at.x - ball >= box.hi.x) break;
  }
  return circle;
}
