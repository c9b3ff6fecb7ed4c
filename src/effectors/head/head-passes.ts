/**
 * The head effector's bone passes, on any {@link IKPose} in component space: the spine bend toward the
 * head target's rotation and the CCD pass toward its position (before the full-body solve), the stretch
 * after it. Allocation-free.
 * @module
 */
import { Quat, type ReadonlyQuat, fromToRotation, multiply, multiplyConjugate } from "../../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../../math/vec3.js";
import type { IKPose } from "../../solver/pose.js";
import { RotationIO, clampRotation, partialRotation } from "./head-rotation.js";

const io = new RotationIO();
const tq = new Quat();
const tq2 = new Quat();
const boneRotation = new Quat();
const bonePosition = new Vec3();
const headPosition = new Vec3();
const from = new Vec3();
const to = new Vec3();

/** The numbers of one pass, set by the caller before the call (fields: no double crosses a call). */
export class HeadPassInput {
  /** The pass's weight (already multiplied by the master weights). */
  weight = 0;
  /** bodyClampWeight (bend) */
  clampWeight = 0;
  /** roll (CCD) */
  roll = 0;
  /** damper (CCD), degrees */
  damper = 0;
}

/**
 * FinalIK's spine bend: the rotation from the head's rest rotation (carried by the character root) to the
 * target rotation, clamped by `input.clampWeight`, is spread over `ids`: each bone turns in component space
 * by `input.weight × weights[i] / ids.length` of it, in list order (children follow their parents).
 *
 * @param restHead the head's rest rotation relative to the character root (`root⁻¹ · head` at setup)
 * @param root the character root's rotation now (component space)
 * @param target the head target's rotation (component space)
 */
export function bendSpine(
  pose: IKPose,
  ids: Int32Array,
  weights: Float64Array,
  restHead: ReadonlyQuat,
  root: ReadonlyQuat,
  target: ReadonlyQuat,
  input: HeadPassInput,
): void {
  const n = ids.length;
  if (n === 0) return;
  multiply(tq, root, restHead);
  multiplyConjugate(tq, target, tq);
  io.t = input.clampWeight;
  clampRotation(tq, tq, io, 2);
  const step = input.weight / n;
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    io.t = step * weights[i]!;
    if (id <= 0 || !(io.t !== 0)) continue;
    partialRotation(tq2, tq, io);
    multiply(boneRotation, tq2, pose.getRotation(id, boneRotation));
    pose.setRotation(id, boneRotation);
  }
}

/**
 * The CCD pass: from the last bone of `ids` to the first, each bone turns so that the head moves toward
 * `target`, by `input.weight` × `lerp((n − i)/n, 1, roll)` (with roll 0 the bones nearer the end turn less)
 * of the angle, the angle first damped by `(damper − a)/damper` (a in degrees; damper ≤ 0: no damping).
 */
export function ccdPass(pose: IKPose, ids: Int32Array, head: number, target: ReadonlyVec3, input: HeadPassInput): void {
  const n = ids.length;
  const roll = input.roll;
  const damper = input.damper;
  for (let i = n - 1; i >= 0; i--) {
    const id = ids[i]!;
    if (id <= 0) continue;
    pose.getPosition(id, bonePosition);
    pose.getPosition(head, headPosition);
    from.x = headPosition.x - bonePosition.x;
    from.y = headPosition.y - bonePosition.y;
    from.z = headPosition.z - bonePosition.z;
    to.x = target.x - bonePosition.x;
    to.y = target.y - bonePosition.y;
    to.z = target.z - bonePosition.z;
    fromToRotation(tq, from, to);
    const share = (n - i) / n;
    let t = input.weight * (share + (1 - share) * roll);
    if (damper > 0) {
      io.t = 0;
      partialRotation(tq2, tq, io);
      const degrees = (io.angle * 180) / Math.PI;
      const d = (damper - degrees) / damper;
      t *= d < 0 ? 0 : d > 1 ? 1 : d;
    }
    if (!(t > 0)) continue;
    io.t = t > 1 ? 1 : t;
    partialRotation(tq, tq, io);
    multiply(boneRotation, tq, pose.getRotation(id, boneRotation));
    pose.setRotation(id, boneRotation);
  }
}

/**
 * Moves `ids` (in list order) by `stretch / ids.length` each (component space), so a chain of them carries
 * its end by `stretch` in all.
 */
export function stretchBones(pose: IKPose, ids: Int32Array, stretch: ReadonlyVec3): void {
  const n = ids.length;
  if (n === 0) return;
  const k = 1 / n;
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    if (id <= 0) continue;
    pose.getPosition(id, bonePosition);
    bonePosition.x += stretch.x * k;
    bonePosition.y += stretch.y * k;
    bonePosition.z += stretch.z * k;
    pose.setPosition(id, bonePosition);
  }
}
