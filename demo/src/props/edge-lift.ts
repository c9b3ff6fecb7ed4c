/**
 * The reaching hand lifted over the tabletop, as a person's is. The InteractionSystem blends the hand on a
 * straight line from where the animation holds it (beside the board, a chibi's fist as low as the top) to the
 * grip, and its Y offset curve, scaled by the same small weight early and late, lifts it too little where it
 * crosses the board's edge (the Mannequin's fist went 3.3 cm into the near edge on its way back from a far
 * cup). Each frame, once the interaction has set the effector and before the solve, where the hand will be is
 * estimated (the animated wrist toward the effector by its weight); over the board, or within the fist's reach
 * of it, the effector is raised until the fist's skin clears the top.
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { BabylonEffector } from "../../../src/babylon/babylon-effector";
import type { InteractionSystem } from "../../../src/effectors/interaction/interaction-system";
import { boneWorldMatrix } from "../bone-world";
import { isUnder, skinVertices } from "./skin";

/** The fist around the wrist as the character rests: how far its skin hangs below, and reaches aside. */
export interface Fist {
  below: number;
  reach: number;
}

/** The hand's skin about its wrist, as posed now (the arm hanging), of a character `h` tall. */
export function fistOf(hand: Bone, h: number): Fist {
  const wrist = boneWorldMatrix(hand).getTranslation();
  let [below, reach] = [0, 0];
  for (const p of skinVertices(hand.getSkeleton(), (b) => isUnder(b, hand))) {
    below = Math.max(below, wrist.y - p.y);
    reach = Math.max(reach, Math.hypot(p.x - wrist.x, p.z - wrist.z));
  }
  // a rig without skin weights on the hand: a realistic fist for its height
  return reach > 0 ? { below, reach } : { below: 0.1 * h, reach: 0.06 * h };
}

// scratch (per frame, nothing allocated): the wrist and the estimate in the board's frame, the board's inverse
const [wrist, local] = [new Matrix(), new Vector3()];
const [aim, toBoard] = [new Vector3(), new Matrix()];

/** Where the hand reaches: the board, its top's world y, the grip, the fist, the skin's clearance. */
export interface Reach {
  board: AbstractMesh;
  top: number;
  /** The hand's target at the grip: at full rotation weight the fist rests on the top from there. */
  grip: TransformNode;
  fist: Fist;
  margin: number;
  /** True while the hand holds what it grasped: then it moves with the clip, not on the reach's line. */
  held: () => boolean;
}

/**
 * From now on, while `effector`'s hand reaches: lifted over the board by as much as the fist needs, eased in
 * with the effector's weight and out over half the fist's reach outside the board's edge. Returns the remover.
 */
export function liftOverBoard(
  system: InteractionSystem,
  effector: BabylonEffector,
  hand: Bone,
  { board, top, grip, fist, margin, held }: Reach,
): () => void {
  const half = board.getBoundingInfo().boundingBox.extendSize;
  const observer = system.onPostInteractionUpdateObservable.add(() => {
    const pw = effector.positionWeight;
    if (pw <= 0 || held()) return;
    // the skeleton is read, not yet solved: the hand bone is where the animation holds it
    boneWorldMatrix(hand, wrist).getTranslationToRef(aim);
    Vector3.LerpToRef(aim, effector.position, pw, aim);
    board.getWorldMatrix().invertToRef(toBoard);
    Vector3.TransformCoordinatesToRef(aim, toBoard, local);
    const out = Math.hypot(Math.max(0, Math.abs(local.x) - half.x), Math.max(0, Math.abs(local.z) - half.z));
    if (out >= 1.5 * fist.reach) return;
    // full within the fist's reach of the board, eased out over half as far again; eased in with the weight,
    // since at weight 0 the hand hangs where the animation holds it, beside the board
    const s = Math.min(1, 3 - (2 * out) / fist.reach) * Math.min(1, pw / 0.15);
    const rw = effector.rotationWeight;
    // the hand turns toward its grip with the rotation weight: its hang goes from the resting fist's to the grip's
    const below = (1 - rw) * fist.below + rw * Math.min(fist.below, grip.getAbsolutePosition().y - top);
    const lift = top + below + (1 - rw) * margin - aim.y;
    // the hand goes to the effector by its weight: the effector is raised by the lift over that weight
    if (lift > 0) effector.position.y += (lift * s * s * (3 - 2 * s)) / pw;
  });
  return () => system.onPostInteractionUpdateObservable.remove(observer);
}
