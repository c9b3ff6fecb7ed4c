/**
 * The body effector's rotation (not in FinalIK, whose body effector ignores it): the animated body turned
 * before the solver reads it.
 * @module
 */
import { NumberRef } from "../math/number-ref.js";
import {
  Quat,
  conjugateMultiply,
  identity,
  isUsableRotation,
  multiply,
  multiplyConjugate,
  normalizeQuat,
  rotateVector,
  slerpByRef,
} from "../math/quat.js";
import { Vec3, add, sub } from "../math/vec3.js";
import type { EffectorSolver, IKEffector } from "./effector.js";
import type { IKPose } from "./pose.js";
import { spineCounterTurn } from "./spine-counter-turn.js";

/** What the turn reads from the solver. */
export interface BodyTurnSolver extends EffectorSolver {
  /** [0, 1] How much of the turn the spine above the root node takes (NaN: none). */
  readonly spineStiffness: number;
}

const target = new Quat();
const turn = new Quat();
const back = new Quat();
const unit = new Quat();
const rotation = new Quat();
const pivot = new Vec3();
const position = new Vec3();
const spineAxis = new Vec3();
const weight = new NumberRef();
const carried = new NumberRef();

/**
 * Turns the animated body about the body effector's bone so that bone takes `effector.rotation` by
 * `effector.rotationWeight` × the master weight: the pelvis and everything under it turn, and the spine
 * above the root node (`upperSpine`, −1 for none) takes back all but `spineStiffness` of the turn, so a
 * stiff spine turns with the hips and a supple one keeps facing where it faced (of a tilt, only a few degrees:
 * spineCounterTurn). The turned body is also carried toward the effector's position, by its position weight ×
 * the turn's weight, so that the torso starts where the body will be. The solver then reads the turned pose: the
 * limbs hang from it, the effectors pull hands and feet. Returns true when it turned the body (false at weight 0
 * or with an unusable rotation, warned once under the effector's own causes).
 */
export function turnBody(
  pose: IKPose,
  effector: IKEffector,
  pelvis: number,
  upperSpine: number,
  solver: BodyTurnSolver,
): boolean {
  const rw = effector.rotationWeight;
  // the effector validates and clamps its own weight later in the frame; this only has to be safe
  if (!(rw > 0) || !Number.isFinite(rw)) return false;
  const ikw = solver.ikPositionWeight;
  const w = (rw > 1 ? 1 : rw) * (ikw > 1 ? 1 : ikw);
  if (!(w > 0)) return false;
  const r = effector.rotation;
  if (!isUsableRotation(r)) {
    solver.warn(
      `${effector.name}:rotation`,
      `${effector.name} effector: rotation is not a usable quaternion; ignored.`,
    );
    return false;
  }
  normalizeQuat(target, r);
  const bone = effector.node.bone;
  pose.getRotation(bone, rotation);
  pose.getPosition(bone, pivot);
  // the turn that brings the bone's animated rotation onto the target, by the weight
  multiplyConjugate(turn, target, rotation);
  weight.value = w;
  slerpByRef(turn, identity(unit), turn, weight);
  // the spine's axis at the turned bone, before the turn (what its counter-turn twists about)
  if (upperSpine >= 0) sub(spineAxis, pose.getPosition(upperSpine, spineAxis), pivot);
  pose.getRotation(pelvis, rotation);
  pose.getPosition(pelvis, position);
  add(position, pivot, rotateVector(position, turn, sub(position, position, pivot)));
  // carried to the target by positionWeight × the turn's weight (0 for a target the effector will ignore)
  effector.usablePositionWeightToRef(solver, carried);
  const c = carried.value * w;
  if (c > 0) {
    const p = effector.position;
    position.x += (p.x - pivot.x) * c;
    position.y += (p.y - pivot.y) * c;
    position.z += (p.z - pivot.z) * c;
  }
  pose.setPosition(pelvis, position);
  pose.setRotation(pelvis, multiply(rotation, turn, rotation));
  // the spine above the root node follows by the spine stiffness (the rest of the turn is taken back there)
  const stiffness = solver.spineStiffness;
  const follow = stiffness > 0 ? (stiffness < 1 ? stiffness : 1) : 0;
  if (follow < 1 && upperSpine >= 0) {
    weight.value = 1 - follow;
    spineCounterTurn(back, turn, spineAxis, weight);
    pose.getRotation(upperSpine, rotation);
    pose.setRotation(upperSpine, conjugateMultiply(rotation, back, rotation));
  }
  return true;
}
