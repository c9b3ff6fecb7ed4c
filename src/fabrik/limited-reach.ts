/**
 * FABRIK's forward reach with the joints' limits inside it: as the reach goes from the tip to the root, each joint's
 * limit is kept from its child's side, so a bend the limits refuse near the tip moves toward the root in the same
 * reach instead of being clamped away after it.
 * @module
 */
import type { JointBone } from "../joints/joint-bone.js";
import { isSingleAxisLimit } from "../joints/limits/rotation-limit.js";
import {
  Quat,
  conjugateMultiply,
  fromToRotation,
  multiply,
  multiplyConjugate,
  normalizeQuat,
  quatFromArray,
  quatToArray,
  rotateVector,
} from "../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";
import { placeFrom } from "./reach-step.js";

const bone = new Quat();
const child = new Quat();
const local = new Quat();
const turn = new Quat();
const tipRot = new Quat();
const from = new Vec3();
const to = new Vec3();

/**
 * The forward reach (the tip onto `target`, then every joint toward the root to its bone's length from the next) on
 * positions `P` (3 per joint), keeping rotations `R` (4 per joint) with them: each bone turns from its last rotation
 * by the shortest arc onto its new direction (`O`: each bone's vector in its joint's frame; `L`: the lengths). Where
 * the next joint's rotation relative to this one leaves its limit, this joint turns instead (the next one's rotation
 * kept), which puts the bend the limit refuses into the joints nearer the root. The tip's rotation turns with its
 * parent. Limits of the tip (no bone to move) and the root (its parent stays) are left to the rotation pass; so are
 * single-axis limits (hinges), which the rotation pass's hinge help aims. Allocation-free.
 */
export function forwardReachWithinLimits(
  P: Float64Array,
  R: Float64Array,
  O: Float64Array,
  L: Float64Array,
  bones: readonly JointBone[],
  target: ReadonlyVec3,
): void {
  const n = bones.length;
  let k = 3 * (n - 1);
  P[k] = target.x;
  P[k + 1] = target.y;
  P[k + 2] = target.z;
  for (let i = n - 2; i >= 0; i--) {
    k = 3 * i;
    if (!placeFrom(P, k, k + 3, L, i)) continue;
    const nx = P[k + 3]!;
    const ny = P[k + 4]!;
    const nz = P[k + 5]!;
    quatFromArray(bone, R, 4 * i);
    from.x = O[k]!;
    from.y = O[k + 1]!;
    from.z = O[k + 2]!;
    rotateVector(from, bone, from);
    to.x = nx - P[k]!;
    to.y = ny - P[k + 1]!;
    to.z = nz - P[k + 2]!;
    fromToRotation(turn, from, to);
    multiply(turn, turn, bone);
    normalizeQuat(turn, turn);
    if (i === n - 2) {
      // the tip has no bone to aim: it keeps its rotation relative to its parent
      multiplyConjugate(local, turn, bone);
      quatFromArray(tipRot, R, 4 * (n - 1));
      multiply(tipRot, local, tipRot);
      normalizeQuat(tipRot, tipRot);
      quatToArray(R, 4 * (n - 1), tipRot);
    } else {
      const limit = bones[i + 1]!.limit;
      if (limit !== null && !isSingleAxisLimit(limit)) {
        quatFromArray(child, R, 4 * i + 4);
        conjugateMultiply(local, turn, child);
        if (limit.apply(local)) {
          // this joint = child · local⁻¹: the child's rotation relative to it is the clamped one
          multiplyConjugate(turn, child, local);
          normalizeQuat(turn, turn);
          from.x = O[k]!;
          from.y = O[k + 1]!;
          from.z = O[k + 2]!;
          rotateVector(from, turn, from);
          P[k] = nx - from.x;
          P[k + 1] = ny - from.y;
          P[k + 2] = nz - from.z;
        }
      }
    }
    quatToArray(R, 4 * i, turn);
  }
}
