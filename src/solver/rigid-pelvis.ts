/**
 * The pelvis as the bones will have it: thigh nodes put back where a rigid pelvis carries them (with
 * preserveBoneLengths the mapping leaves the thighs on the pelvis, so the legs must solve from there).
 * @module
 */
import { NumberRef } from "../math/number-ref.js";
import { Quat, copyQuat, multiply, multiplyConjugate, rotateVector, slerpByRef } from "../math/quat.js";
import { Vec3, add, sub } from "../math/vec3.js";
import type { IKNode } from "./node.js";
import { symmetricPlaneRotation } from "./plane.js";
import { addReachCurvature } from "./reach-curvature.js";

const solved = new Quat();
const turn = new Quat();
const offset = new Vec3();

/** The animated pelvis triangle's frame (root node, left thigh, right thigh), for {@link keepPelvisRigid}. */
export function animatedPelvisFrame(root: IKNode, leftThigh: IKNode, rightThigh: IKNode, out: Quat): Quat {
  return symmetricPlaneRotation(out, root.bonePosition, leftThigh.bonePosition, rightThigh.bonePosition);
}

/**
 * Moves both thigh nodes to where the animated pelvis triangle (its frame `animated`: animatedPelvisFrame), turned
 * onto the solved triangle's symmetric frame (the one the spine mapping gives the pelvis then), puts them.
 */
export function keepPelvisRigid(
  root: IKNode,
  leftThigh: IKNode,
  rightThigh: IKNode,
  animated: Readonly<Quat>,
  out: Quat,
): void {
  rigidThighs(root, leftThigh, rightThigh, animated, leftThigh.solverPosition, rightThigh.solverPosition);
  copyQuat(out, turn);
}

/**
 * Where the rigid pelvis puts the thighs (see {@link keepPelvisRigid}) without moving the nodes: with
 * preserveBoneLengths, where the mapping will write the thigh bones from the solver's nodes as they stand.
 */
export function rigidThighs(
  root: IKNode,
  leftThigh: IKNode,
  rightThigh: IKNode,
  animated: Readonly<Quat>,
  outLeft: Vec3,
  outRight: Vec3,
): void {
  symmetricPlaneRotation(solved, root.solverPosition, leftThigh.solverPosition, rightThigh.solverPosition);
  multiplyConjugate(turn, solved, animated);
  placeThigh(root, leftThigh, outLeft);
  placeThigh(root, rightThigh, outRight);
}

function placeThigh(root: IKNode, thigh: IKNode, out: Vec3): void {
  sub(offset, thigh.bonePosition, root.bonePosition);
  add(out, root.solverPosition, rotateVector(offset, turn, offset));
}

const axis = new Vec3();
const step = new Quat();
const lever = new Vec3();
const goal = new Vec3();
/** The normal equations of the pelvis turn (3 × 3, row-major) and their right side. */
const normal = new Float64Array(9);
const rhs = new Float64Array(3);
/** How far inside its reach (× the leg's length) a leg's step aims. */
const REACH_MARGIN = 1e-3;
/**
 * Levenberg–Marquardt damping, × the summed squared gradients: it keeps the turn a continuous function of the
 * targets (near 0 the steps ended wherever they stood: 50° jumps a frame). 0.48, not 0.5: the legs' curvature adds
 * to the equations too, and 0.48 leaves issue 19's far sets' feet as close as 0.5 did without it.
 */
const DAMPING = 0.48;
/**
 * Damping floor, × the equations' trace: a leg pulled straight at its target has no gradient left but its curvature,
 * and without a floor the equations went singular, the step was rounding noise (a rig ×0.01 ended 1.5e-3 of its
 * height off the scaled solution).
 */
const DAMPING_FLOOR = 1e-6;
/** The damped steps taken (each shrinks the excess along a strong gradient to a third). */
const STEPS = 12;
/** The summed squared gradients of the legs in the equations. */
const leverSize = new Float64Array(1);
/** The legs' summed excess (× weight, without the margin) as addLeg found it. */
const excessSum = new Float64Array(1);
/** A leg's excess in its equation, for addReachCurvature. */
const legExcess = new NumberRef();
/**
 * The remaining excess (× the legs' mean length) at which the pelvis keeps half its turn: feet no turn brings within
 * reach gain little from it (Xbot pulled 0.2 h back: 35° for 1 % h of foot), so the turn fades with what stays out.
 */
const GIVE_UP_EXCESS = 0.05;
const identityTurn = new Quat();
const kept = new NumberRef();

/** A leg for {@link turnPelvisToReach}: its first node, its length and its end effector's target and weight. */
export interface ReachingLeg {
  thigh: IKNode;
  foot: IKNode;
  length: number;
  target: Vec3;
}

/**
 * Turns the rigid pelvis about the root node so that feet out of their legs' reach come within it: a fixed
 * number of Levenberg–Marquardt steps on the turn ω for the legs' excesses (how far, × the foot effector's
 * weight, each thigh stands beyond its leg's reach of its target), from no turn, each leg's curvature in the
 * equations (addReachCurvature) so that steps on a pull no turn meets converge instead of alternating. The damping
 * keeps directions no excess depends on at 0, so the smallest turn that brings the feet within reach is taken, and
 * makes the turn a continuous function of the targets: feet beyond any turn's help get a turn that grows smoothly as
 * they go, not one that jumps between frames. What excess the steps leave then turns the pelvis back toward the
 * animation's (by 1 / (1 + (x / GIVE_UP_EXCESS)²), x the excess over the legs' mean length): a turn that brings the
 * feet within reach is kept, one that cannot does not tip the hips for a centimetre of foot. The thighs are turned
 * about the root and `turn` (the pelvis's turn since the animation) with them.
 */
export function turnPelvisToReach(
  root: IKNode,
  left: ReachingLeg,
  right: ReachingLeg,
  turn: Quat,
  maxStep: Readonly<NumberRef>,
): void {
  for (let k = 0; k < STEPS; k++) {
    normal.fill(0);
    rhs.fill(0);
    leverSize[0] = 0;
    const reaching = addLeg(root, left);
    if (!addLeg(root, right) && !reaching) {
      if (k === 0) return;
      break;
    }
    const damping = DAMPING * leverSize[0]! + DAMPING_FLOOR * (normal[0]! + normal[4]! + normal[8]!);
    normal[0]! += damping;
    normal[4]! += damping;
    normal[8]! += damping;
    // the 3 × 3 solve by Cramer's rule, written out here: a function called only in the frames a foot is out of
    // reach stayed in V8's interpreter, boxing each double (35 B a frame on a ladder climb)
    const a0 = normal[0]!;
    const a1 = normal[1]!;
    const a2 = normal[2]!;
    const a3 = normal[3]!;
    const a4 = normal[4]!;
    const a5 = normal[5]!;
    const a6 = normal[6]!;
    const a7 = normal[7]!;
    const a8 = normal[8]!;
    const c0 = a4 * a8 - a5 * a7;
    const c1 = a5 * a6 - a3 * a8;
    const c2 = a3 * a7 - a4 * a6;
    const det = a0 * c0 + a1 * c1 + a2 * c2;
    // a stall ends the steps as their count does: the fade below must not depend on how they ended
    if (!(Math.abs(det) > 0) || !Number.isFinite(det)) break;
    const b0 = rhs[0]!;
    const b1 = rhs[1]!;
    const b2 = rhs[2]!;
    axis.x = (b0 * c0 + b1 * (a2 * a7 - a1 * a8) + b2 * (a1 * a5 - a2 * a4)) / det;
    axis.y = (b0 * c1 + b1 * (a0 * a8 - a2 * a6) + b2 * (a2 * a3 - a0 * a5)) / det;
    axis.z = (b0 * c2 + b1 * (a1 * a6 - a0 * a7) + b2 * (a0 * a4 - a1 * a3)) / det;
    let angle = Math.sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
    if (!(angle > 1e-12)) break;
    const cap = maxStep.value;
    const s = Math.sin((angle > cap ? cap : angle) / 2) / angle;
    angle = angle > cap ? cap : angle;
    step.x = axis.x * s;
    step.y = axis.y * s;
    step.z = axis.z * s;
    step.w = Math.cos(angle / 2);
    turnAbout(root, left.thigh);
    turnAbout(root, right.thigh);
    multiply(turn, step, turn);
  }
  excessSum[0] = 0;
  addLeg(root, left);
  addLeg(root, right);
  // squared: the small excess left where the turn nearly brings the feet in (issue 19's far sets) keeps it whole
  const x = (2 * excessSum[0]!) / ((left.length + right.length) * GIVE_UP_EXCESS);
  kept.value = 1 / (1 + x * x);
  if (!(kept.value < 1)) return;
  // the pelvis's whole turn (the rigid pelvis's in the iterations too) scaled back: step = turn^kept · turn⁻¹
  slerpByRef(step, identityTurn, turn, kept);
  multiplyConjugate(step, step, turn);
  turnAbout(root, left.thigh);
  turnAbout(root, right.thigh);
  multiply(turn, step, turn);
}

/**
 * Adds a leg's equation when its foot is beyond reach (and its gradient's squared length to `leverSize`); false
 * when it is reached. The excess e (× the foot effector's weight, plus a margin growing in with it) shrinks by
 * ω · (r × u) for a small turn ω, r the lever from the root to the thigh and u the unit direction from the thigh
 * to the target; with it, the positive part of e × the curvature of the thigh's distance to the target in ω.
 * Nothing but a boolean is returned: no double crosses a call (see NumberRef).
 */
function addLeg(root: IKNode, leg: ReachingLeg): boolean {
  const w = leg.foot.effectorPositionWeight;
  if (!(w > 0)) return false;
  const t = leg.thigh.solverPosition;
  sub(goal, leg.target, t);
  const d = Math.sqrt(goal.x * goal.x + goal.y * goal.y + goal.z * goal.z);
  const excess = d - leg.length;
  if (!(excess > 0)) return false;
  excessSum[0]! += excess * (w > 1 ? 1 : w);
  // aim a little inside the reach (the steps then end within it instead of creeping up to its edge); the margin
  // grows in with the excess, so the equation starts from 0 as the foot leaves the reach instead of jumping in
  const margin = REACH_MARGIN * leg.length;
  const e = (excess + (excess < margin ? excess : margin)) * (w > 1 ? 1 : w);
  sub(lever, t, root.solverPosition);
  const gx = (lever.y * goal.z - lever.z * goal.y) / d;
  const gy = (lever.z * goal.x - lever.x * goal.z) / d;
  const gz = (lever.x * goal.y - lever.y * goal.x) / d;
  normal[0]! += gx * gx;
  normal[1]! += gx * gy;
  normal[2]! += gx * gz;
  normal[3]! += gy * gx;
  normal[4]! += gy * gy;
  normal[5]! += gy * gz;
  normal[6]! += gz * gx;
  normal[7]! += gz * gy;
  normal[8]! += gz * gz;
  rhs[0]! += e * gx;
  rhs[1]! += e * gy;
  rhs[2]! += e * gz;
  leverSize[0]! += gx * gx + gy * gy + gz * gz;
  // without the curvature, a pull no turn meets grows the steps into a 2-cycle (Xbot dragged aside: 2.8° a frame)
  legExcess.value = e;
  addReachCurvature(normal, lever, goal, legExcess);
  return true;
}

function turnAbout(root: IKNode, node: IKNode): void {
  sub(offset, node.solverPosition, root.solverPosition);
  add(node.solverPosition, root.solverPosition, rotateVector(offset, step, offset));
}
