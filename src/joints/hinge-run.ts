/**
 * FABRIK's help for a run of hinges (a finger): FABRIK may leave the joints inside the run on the side the hinges
 * cannot bend to, where the clamps hold them at their ends. Before the run turns onto them, they move to where the run
 * ends nearest the point after it, hinges clamped: for two hinges the inner joint's two places in the first hinge's
 * plane, for more the joints mirrored about the line from the run's first joint to that point (every bone keeps its
 * length, the bends flip).
 * @module
 */
import {
  Quat,
  type ReadonlyQuat,
  copyQuat,
  fromToRotation,
  multiply,
  multiplyConjugate,
  normalizeQuat,
  quatFromArray,
  rotateVector,
} from "../math/quat.js";
import { Vec3, cross } from "../math/vec3.js";
import { clampToLimit } from "./limits/chain-limits.js";
import { type RotationLimit, isSingleAxisLimit } from "./limits/rotation-limit.js";

const u = new Vec3();
const p = new Vec3();
const cur = new Vec3();
const want = new Vec3();
const next = new Vec3();
const change = new Quat();
const parent = new Quat();
const old = new Quat();
const rot = new Quat();
const turn = new Quat();

/** What a run's trial reports, in an object so no double crosses a call. */
class RunEnd {
  /** Squared distance of the run's end, hinges clamped, from where it must reach. */
  miss = 0;
}
const trialEnd = new RunEnd();

/** True when joint `j` of `joints` exists and has a single-axis limit. */
function isHinge(joints: readonly { readonly limit: RotationLimit | null }[], j: number): boolean {
  const limit = j >= 0 && j < joints.length ? joints[j]!.limit : null;
  return limit !== null && isSingleAxisLimit(limit);
}

/**
 * The end of the run of hinges starting at joint `i` of `joints`: the first joint after `i` that is no hinge, or the
 * tip; `i` itself when joint `i` starts no run of two or more (no hinge, or one after a hinge; a single hinge has no
 * joint inside to mirror: the roll before it picks its bend's side).
 */
export function hingeRunEnd(joints: readonly { readonly limit: RotationLimit | null }[], i: number): number {
  const n = joints.length;
  if (isHinge(joints, i - 1)) return i;
  let end = i;
  while (end < n - 1 && isHinge(joints, end)) end++;
  return end - i >= 2 ? end : i;
}

/**
 * Where the run's inner joints are tried: as FABRIK put them or mirrored about the line from the run's first joint to
 * its end (a longer run); the two places in the first hinge's plane at both bones' lengths from the run's first joint
 * and from its end projected onto that plane (a run of two).
 */
const AS_IS = 0;
const MIRRORED = 1;
const IN_PLANE = 2;
const IN_PLANE_MIRRORED = 3;

const axis = new Vec3();
const e = new Vec3();
const f = new Vec3();
/** The two in-plane places of a two-hinge run's inner joint. */
const inPlane = [new Vec3(), new Vec3()] as const;

/**
 * For the run of hinges from joint `i` to joint `end` (exclusive; joint `i`'s position rebuilt, the others where
 * FABRIK put them), moves the joints inside the run to where the run, turned onto them and onto joint `end` hinge by
 * hinge and clamped, ends nearest joint `end`: for a run of two hinges the better of the inner joint's two places in
 * the first hinge's plane; for a longer run as they are or mirrored about the line from joint `i` to joint `end`
 * (every bone keeps its length, the bends flip). `turnOfParent` is joint `i`'s parent's turn this pass and
 * `parentRot` that parent's rotation (the rotation pass's); `R`, `O` and `P` the solver's rotations, bone vectors and
 * positions. True when it moved them. Allocation-free.
 */
export function placeHingeRun(
  joints: readonly { readonly limit: RotationLimit | null }[],
  i: number,
  end: number,
  turnOfParent: ReadonlyQuat,
  parentRot: ReadonlyQuat,
  R: Float64Array,
  O: Float64Array,
  P: Float64Array,
): boolean {
  const i3 = 3 * i;
  const e3 = 3 * end;
  u.x = P[e3]! - P[i3]!;
  u.y = P[e3 + 1]! - P[i3 + 1]!;
  u.z = P[e3 + 2]! - P[i3 + 2]!;
  const len = Math.sqrt(u.x * u.x + u.y * u.y + u.z * u.z);
  if (!(len > 0)) return false;
  u.x /= len;
  u.y /= len;
  u.z /= len;
  // two hinges: the inner joint goes to one of its places in the first hinge's plane; longer runs may mirror
  const two = end - i === 2 && placesInPlane(joints, i, turnOfParent, R, O, P);
  const first = two ? IN_PLANE : AS_IS;
  const last = two ? IN_PLANE_MIRRORED : MIRRORED;
  runEnd(trialEnd, joints, i, end, turnOfParent, parentRot, R, O, P, first);
  let best = first;
  let bestMiss = trialEnd.miss;
  for (let mode = first + 1; mode <= last; mode++) {
    runEnd(trialEnd, joints, i, end, turnOfParent, parentRot, R, O, P, mode);
    // another place must gain more than rounding, so a straight run (its own mirror) stays as it is
    if (trialEnd.miss < bestMiss * (1 - 1e-9)) {
      best = mode;
      bestMiss = trialEnd.miss;
    }
  }
  if (best === AS_IS) return false;
  for (let j = i + 1; j < end; j++) {
    innerJoint(next, P, i3, j, best);
    P[3 * j] = next.x;
    P[3 * j + 1] = next.y;
    P[3 * j + 2] = next.z;
  }
  return true;
}

/**
 * Sets {@link inPlane} for the two-hinge run at joint `i`: joint `i + 1` at bone `i`'s length from joint `i` and bone
 * `i + 1`'s from joint `i + 2` projected onto joint `i`'s hinge plane (its axis as joint `i` turns with its parent),
 * either side of the line between them (on it when out of reach). False when the plane or the line has no direction.
 */
function placesInPlane(
  joints: readonly { readonly limit: RotationLimit | null }[],
  i: number,
  turnOfParent: ReadonlyQuat,
  R: Float64Array,
  O: Float64Array,
  P: Float64Array,
): boolean {
  const hinge = joints[i]!.limit;
  if (hinge === null || !isSingleAxisLimit(hinge) || !hinge.singleAxis(axis)) return false;
  // the hinge's axis in component space does not depend on its angle: take it from the rotation before the turn
  quatFromArray(old, R, 4 * i);
  multiply(rot, turnOfParent, old);
  rotateVector(axis, rot, axis);
  const i3 = 3 * i;
  const e3 = i3 + 6;
  let dx = P[e3]! - P[i3]!;
  let dy = P[e3 + 1]! - P[i3 + 1]!;
  let dz = P[e3 + 2]! - P[i3 + 2]!;
  const off = dx * axis.x + dy * axis.y + dz * axis.z;
  dx -= off * axis.x;
  dy -= off * axis.y;
  dz -= off * axis.z;
  const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(d > 0)) return false;
  e.x = dx / d;
  e.y = dy / d;
  e.z = dz / d;
  cross(f, axis, e);
  const a = Math.sqrt(O[i3]! * O[i3]! + O[i3 + 1]! * O[i3 + 1]! + O[i3 + 2]! * O[i3 + 2]!);
  const b = Math.sqrt(O[i3 + 3]! * O[i3 + 3]! + O[i3 + 4]! * O[i3 + 4]! + O[i3 + 5]! * O[i3 + 5]!);
  let x = (a * a - b * b + d * d) / (2 * d);
  if (x > a) x = a;
  if (x < -a) x = -a;
  const y = Math.sqrt(a * a - x * x);
  for (let k = 0; k < 2; k++) {
    const side = k === 0 ? y : -y;
    const q = inPlane[k];
    q.x = P[i3]! + x * e.x + side * f.x;
    q.y = P[i3 + 1]! + x * e.y + side * f.y;
    q.z = P[i3 + 2]! + x * e.z + side * f.z;
  }
  return true;
}

/** Inner joint `j`'s place in `mode` (see {@link AS_IS}), into `out`. */
function innerJoint(out: Vec3, P: Float64Array, i3: number, j: number, mode: number): void {
  if (mode === MIRRORED) mirrorPoint(out, P, i3, 3 * j);
  else if (mode === IN_PLANE || mode === IN_PLANE_MIRRORED) {
    const q = inPlane[mode - IN_PLANE];
    out.x = q.x;
    out.y = q.y;
    out.z = q.z;
  } else {
    out.x = P[3 * j]!;
    out.y = P[3 * j + 1]!;
    out.z = P[3 * j + 2]!;
  }
}
/** Joint `j3 / 3`'s position turned half a turn about the unit line `u` through joint `i3 / 3`, into `out`. */
function mirrorPoint(out: Vec3, P: Float64Array, i3: number, j3: number): void {
  const dx = P[j3]! - P[i3]!;
  const dy = P[j3 + 1]! - P[i3 + 1]!;
  const dz = P[j3 + 2]! - P[i3 + 2]!;
  const along = 2 * (dx * u.x + dy * u.y + dz * u.z);
  out.x = P[i3]! + along * u.x - dx;
  out.y = P[i3 + 1]! + along * u.y - dy;
  out.z = P[i3 + 2]! + along * u.z - dz;
}

/**
 * The run turned, hinge by hinge, the shortest way onto the joints inside it (placed as `mode` says) and onto joint
 * `end`, each clamped by its hinge and its child rebuilt: how far the run's end lands from joint `end`.
 */
function runEnd(
  out: RunEnd,
  joints: readonly { readonly limit: RotationLimit | null }[],
  i: number,
  end: number,
  turnOfParent: ReadonlyQuat,
  parentRot: ReadonlyQuat,
  R: Float64Array,
  O: Float64Array,
  P: Float64Array,
  mode: number,
): void {
  const i3 = 3 * i;
  copyQuat(change, turnOfParent);
  copyQuat(parent, parentRot);
  p.x = P[i3]!;
  p.y = P[i3 + 1]!;
  p.z = P[i3 + 2]!;
  for (let j = i; j < end; j++) {
    const j3 = 3 * j;
    quatFromArray(old, R, 4 * j);
    multiply(rot, change, old);
    cur.x = O[j3]!;
    cur.y = O[j3 + 1]!;
    cur.z = O[j3 + 2]!;
    rotateVector(cur, rot, cur);
    innerJoint(next, P, i3, j + 1, j + 1 < end ? mode : AS_IS);
    want.x = next.x - p.x;
    want.y = next.y - p.y;
    want.z = next.z - p.z;
    fromToRotation(turn, cur, want);
    multiply(rot, turn, rot);
    normalizeQuat(rot, rot);
    clampToLimit(joints[j]!.limit!, parent, rot);
    cur.x = O[j3]!;
    cur.y = O[j3 + 1]!;
    cur.z = O[j3 + 2]!;
    rotateVector(cur, rot, cur);
    p.x += cur.x;
    p.y += cur.y;
    p.z += cur.z;
    multiplyConjugate(change, rot, old);
    copyQuat(parent, rot);
  }
  const e3 = 3 * end;
  const dx = p.x - P[e3]!;
  const dy = p.y - P[e3 + 1]!;
  const dz = p.z - P[e3 + 2]!;
  out.miss = dx * dx + dy * dy + dz * dz;
}
