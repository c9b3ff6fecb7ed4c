/**
 * Which side an elbow or knee bends to, measured on Babylon bones in world space, and an exact analytic
 * two-bone limb to compare the solver's continuity with.
 *
 * The natural side. Let d be the unit limb axis (shoulder → wrist, hip → ankle), F the character's forward
 * and U its up. The knee's pole is d turned by 90° in the character's sagittal plane (the F–U plane) the
 * way the knee flexes, −(d·U)·F + (d·F)·U: a leg hanging down gives F (the knee in front of the hip–ankle
 * line), a leg raised forward gives U (knee up); it vanishes for a leg pointing sideways. The elbow's pole
 * is c = (d·U − (1 − (d·U)²))·F − (1 + d·F)·U made perpendicular to d (src/solver/natural-pole.ts): an arm
 * hanging gives −F (the elbow behind the shoulder–wrist line), an arm reaching forward −U (elbow down), one
 * overhead F (still below the arm as it rose), one raised sideways back and down; it vanishes for an arm
 * reaching straight back or up and 42° behind straight up. The signed offset
 * of the middle joint from the line along the unit pole, in % of the limb's length, is the measure; a
 * limb whose pole is at least 0.5 long is on its natural side when that offset is ≥ −tolerance. Where the
 * pole is shorter the side is not judged.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Quat, conjugateMultiply } from "../../src/math/quat.js";
import { eulerXYZ } from "./limit-reference.js";
import { worldPos } from "./scene-probes.js";

/** Arm or leg. */
export type LimbKind = "arm" | "leg";

/** The character's forward and up in world space. */
export interface CharacterFrame {
  forward: Vector3;
  up: Vector3;
}

/** The pole of a limb (see the file's header), not normalised. */
export function flexionPole(kind: LimbKind, axis: Vector3, frame: CharacterFrame): Vector3 {
  const d = axis.normalizeToNew();
  const f = Vector3.Dot(d, frame.forward);
  const u = Vector3.Dot(d, frame.up);
  if (kind === "leg") return frame.forward.scale(-u).add(frame.up.scale(f));
  const c = frame.forward.scale(u - (1 - u * u)).subtract(frame.up.scale(1 + f));
  return c.subtract(d.scale(Vector3.Dot(c, d)));
}

/** Signed offset result of one limb. */
export interface BendSide {
  /** Offset of the middle joint along the unit pole, % of the limb length (NaN when not judged). */
  offset: number;
  /** Length of the pole (how well the natural side is defined for this limb direction). */
  poleLength: number;
}

/** The middle joint's signed offset from the limb line along the natural pole. */
export function bendSide(
  kind: LimbKind,
  upper: Vector3,
  middle: Vector3,
  end: Vector3,
  frame: CharacterFrame,
): BendSide {
  const axis = end.subtract(upper);
  const l = axis.length();
  const limbLength = Vector3.Distance(upper, middle) + Vector3.Distance(middle, end);
  const pole = flexionPole(kind, axis, frame);
  const poleLength = pole.length();
  if (!(l > 0) || !(poleLength > 1e-9)) return { offset: Number.NaN, poleLength };
  const z = axis.scale(1 / l);
  const m = middle.subtract(upper);
  const o = m.subtract(z.scale(Vector3.Dot(m, z)));
  return { offset: (100 * Vector3.Dot(o, pole.scale(1 / poleLength))) / limbLength, poleLength };
}

/** The natural-side measure on bones (judge it only when poleLength ≥ JUDGED_POLE). */
export function boneBendSide(kind: LimbKind, bones: readonly [Bone, Bone, Bone], frame: CharacterFrame): BendSide {
  return bendSide(kind, worldPos(bones[0]), worldPos(bones[1]), worldPos(bones[2]), frame);
}

/** Smallest pole length at which a limb is judged. */
export const JUDGED_POLE = 0.5;

/**
 * The character's forward and up in world space from its pose: up is world +Y, forward the horizontal
 * direction from the heels to the toes (both feet averaged), which every test model has.
 */
export function characterFrame(leftFoot: Bone, rightFoot: Bone): CharacterFrame {
  const up = new Vector3(0, 1, 0);
  const forward = new Vector3();
  for (const foot of [leftFoot, rightFoot]) {
    const toe = foot.getChildren()[0];
    if (toe === undefined) continue;
    const d = worldPos(toe).subtract(worldPos(foot));
    d.y = 0;
    forward.addInPlace(d.normalize());
  }
  if (!(forward.length() > 0)) throw new Error("characterFrame: no toes to tell the forward");
  return { forward: forward.normalize(), up };
}

/**
 * The exact two-bone solution: with the root at `a`, lengths l1 and l2 and the target `t`, the middle joint
 * lies in the plane of the limb axis and `pole` (the pole's part perpendicular to the axis), on the pole's
 * side. Singular where the pole is parallel to the axis and at full extension, which is what the
 * solver's continuity is compared against.
 */
export function analyticTwoBone(a: Vector3, l1: number, l2: number, t: Vector3, pole: Vector3): Vector3 {
  const axis = t.subtract(a);
  let l = axis.length();
  const z = l > 0 ? axis.scale(1 / l) : new Vector3(0, -1, 0);
  l = Math.min(l, (l1 + l2) * 0.99999);
  const x = (l * l + l1 * l1 - l2 * l2) / (2 * l);
  const y = Math.sqrt(Math.max(0, l1 * l1 - x * x));
  const p = pole.subtract(z.scale(Vector3.Dot(pole, z)));
  const pl = p.length();
  const u = pl > 1e-12 ? p.scale(1 / pl) : new Vector3(0, 0, 0);
  return a.add(z.scale(x)).add(u.scale(y));
}

/** Turns `middle` (in its parent's frame) so that `end` lies on the line of the bone above: a straight limb. */
export function straightenLimb(middle: TransformNode, end: TransformNode): void {
  const q = middle.rotationQuaternion!;
  // the lower bone in the parent's frame, and the upper bone (the middle node's offset in that frame)
  const lower = end.position.multiply(middle.scaling).applyRotationQuaternion(q).normalize();
  const upper = middle.position.normalizeToNew();
  const turn = new Quaternion();
  Quaternion.FromUnitVectorsToRef(lower, upper, turn);
  middle.rotationQuaternion = turn.multiply(q);
}

/** The knee's angle (degrees) from the side it flexes to (`pole`), about the hip–ankle line. */
export function kneeOffSide(hip: Vector3, knee: Vector3, ankle: Vector3, pole: Vector3): number {
  const z = ankle.subtract(hip).normalize();
  const m = knee.subtract(hip);
  const out = m.subtract(z.scale(Vector3.Dot(m, z))).normalize();
  const p = pole.subtract(z.scale(Vector3.Dot(pole, z))).normalize();
  return (Math.acos(Math.max(-1, Math.min(1, Vector3.Dot(out, p)))) * 180) / Math.PI;
}

/**
 * The knee's turn from its rest local rotation `rest`, as X, Y, Z Euler angles (radians): the shin's node is the
 * thigh's child, so its local rotation is the knee's.
 */
export function kneeTurn(shin: Bone, rest: Quat): { x: number; y: number; z: number } {
  const q = shin.getTransformNode()!.rotationQuaternion!;
  const delta = conjugateMultiply(new Quat(), rest, new Quat(q.x, q.y, q.z, q.w));
  return eulerXYZ(delta);
}
