import {
  Quat,
  conjugateMultiply,
  fromToRotation,
  inverseRotateVector,
  multiply,
  nlerpByRef,
  quatFromArray,
  quatToArray,
  rotateVector,
} from "../math/quat.js";
import { orthoNormalize } from "../math/direction.js";
import { NumberRef } from "../math/number-ref.js";
import { type ReadonlyVec3, Vec3, add, copy, fromArray, lerpByRef, sub, toArray } from "../math/vec3.js";
import type { IKNode } from "../solver/node.js";
import type { EndRotationMemory } from "./end-rotation-memory.js";
import { planeRotation, symmetricPlaneRotation } from "../solver/plane.js";
import { planeRotationPair } from "../solver/plane-pair.js";
import type { IKPose } from "../solver/pose.js";

const v1 = new Vec3();
const v2 = new Vec3();
const v3 = new Vec3();
const q1 = new Quat();
const q2 = new Quat();
const q3 = new Quat();
const planeA = new Quat();
const planeB = new Quat();
const effectorWeight = new NumberRef();

/** What the mappings read from the solver while writing. */
export interface MappingSolver {
  /** The solver's master weight. */
  readonly ikPositionWeight: number;
  /** Keep every parent–child distance of the mapped bones (see IKSolverFullBodyBiped.preserveBoneLengths). */
  readonly preserveBoneLengths?: boolean;
  /** The solver's update number (IKSolverFullBody.updateCount): tells consecutive updates for the mapping's memory. */
  readonly updateCount?: number;
}

/** Weight 1, for the mapping steps that always apply fully. */
export const FULL_WEIGHT: Readonly<NumberRef> = new NumberRef(1);
/** No cap on {@link BoneMap.bendToReach}'s turn (π): keeping the bone lengths may need any bend. */
export const ANY_TURN: Readonly<NumberRef> = new NumberRef(Math.PI);

// Where each number of a BoneMap lives in its store's block (see BoneMapStore).
const LENGTH = 0;
const SWING_AXIS = 1;
const TWIST_AXIS = 4;
const DEFAULT_ROTATION = 7;
const PLANE_POSITION = 11;
const IK_POSITION = 14;
const MAINTAIN_ROTATION = 17;
/** Doubles per BoneMap in a {@link BoneMapStore}. */
export const BONE_MAP_STRIDE = 21;

/**
 * The numbers of several BoneMaps in one flat block (a mapping's; the biped's whole mapping shares one).
 * Every double of a heap object is a separate 16-byte box in V8, so a BoneMap holding seven vectors and
 * quaternions spread its 21 numbers over some 700 bytes; here they take 168 contiguous bytes. In a crowd
 * each character's data has left the caches by its next frame, so what counts is the lines a frame
 * touches: `npm run bench:touch` counted 61 fewer a character (1,177 → 1,116) with this store.
 */
export class BoneMapStore {
  /** The numbers, {@link BONE_MAP_STRIDE} per BoneMap. */
  readonly data: Float64Array;
  private used = 0;

  /** A store for `capacity` BoneMaps. */
  constructor(capacity: number) {
    this.data = new Float64Array(Math.max(1, capacity) * BONE_MAP_STRIDE);
  }

  /** Reserves the block of one BoneMap and returns its offset; throws when the store is full. */
  take(): number {
    const o = this.used * BONE_MAP_STRIDE;
    if (o + BONE_MAP_STRIDE > this.data.length) throw new RangeError(`BoneMapStore: full (${this.used} BoneMaps)`);
    this.used++;
    return o;
  }
}

/**
 * One bone of the skeleton as the mapping sees it (FinalIK's IKMapping.BoneMap): its pose in the
 * {@link IKPose}, the solver node it stands for (if any) and what writing it back needs — its rotation
 * relative to a plane of three nodes, swing and twist axes, an IK position, a maintained rotation. Those
 * numbers live in a {@link BoneMapStore}; the `…ToRef` methods copy them out.
 */
export class BoneMap {
  /** Pose id of the bone. */
  readonly bone: number;
  /** The plane's frame splits the difference between its second and third node (see symmetricPlaneRotation). */
  symmetricPlane = false;
  /** The solver node of this bone, or null when it is not a node (spine bones other than the root node). */
  node: IKNode | null = null;
  private plane1: IKNode | null = null;
  private plane2: IKNode | null = null;
  private plane3: IKNode | null = null;
  private readonly pose: IKPose;
  /** The store's numbers and this BoneMap's offset in them. */
  private readonly d: Float64Array;
  private readonly o: number;

  /** Creates the map of pose bone `bone`, its numbers in `store` (a store of its own by default). */
  constructor(pose: IKPose, bone: number, node: IKNode | null = null, store: BoneMapStore = new BoneMapStore(1)) {
    this.pose = pose;
    this.bone = bone;
    this.node = node;
    this.d = store.data;
    this.o = store.take();
    const d = this.d;
    const o = this.o;
    d[o + TWIST_AXIS] = 1; // twist reference (1, 0, 0) until setLocalTwistAxis
    d[o + DEFAULT_ROTATION + 3] = 1;
    d[o + MAINTAIN_ROTATION + 3] = 1;
  }

  /** Distance to the next bone of its chain (spine FABRIK). */
  get length(): number {
    return this.d[this.o + LENGTH]!;
  }

  /** The bone's axis toward the next bone, in the bone's space, into `out`. */
  localSwingAxisToRef(out: Vec3): Vec3 {
    return fromArray(out, this.d, this.o + SWING_AXIS);
  }

  /** The bone's twist reference axis, in the bone's space, into `out`. */
  localTwistAxisToRef(out: Vec3): Vec3 {
    return fromArray(out, this.d, this.o + TWIST_AXIS);
  }

  /** Bone rotation relative to its plane's frame, read from the animation, into `out`. */
  defaultLocalTargetRotationToRef(out: Quat): Quat {
    return quatFromArray(out, this.d, this.o + DEFAULT_ROTATION);
  }

  /** Bone position relative to its plane's frame, read from the animation, into `out`. */
  planePositionToRef(out: Vec3): Vec3 {
    return fromArray(out, this.d, this.o + PLANE_POSITION);
  }

  /** Where the spine FABRIK wants the bone, into `out`. */
  ikPositionToRef(out: Vec3): Vec3 {
    return fromArray(out, this.d, this.o + IK_POSITION);
  }

  /** Sets where the spine FABRIK wants the bone. */
  setIKPosition(p: ReadonlyVec3): void {
    toArray(this.d, this.o + IK_POSITION, p);
  }

  /** The world rotation stored for maintainRotation, into `out`. */
  maintainRotationValueToRef(out: Quat): Quat {
    return quatFromArray(out, this.d, this.o + MAINTAIN_ROTATION);
  }

  /** Current component-space position of the bone. */
  position(out: Vec3): Vec3 {
    return this.pose.getPosition(this.bone, out);
  }

  /** Current component-space rotation of the bone. */
  rotation(out: Quat): Quat {
    return this.pose.getRotation(this.bone, out);
  }

  /** Uses the triangle of three solver nodes as this bone's plane, and reads the plane-relative pose. */
  setPlane(n1: IKNode, n2: IKNode, n3: IKNode): void {
    this.plane1 = n1;
    this.plane2 = n2;
    this.plane3 = n3;
    this.updatePlane(true, true);
  }

  /** Re-reads the bone's rotation and/or position relative to its plane's animated frame. */
  updatePlane(rotation: boolean, position: boolean): void {
    this.updatePlaneIn(this.animatedPlaneRotation(q1), rotation, position);
  }

  /**
   * {@link updatePlane} of two BoneMaps, their planes' animated frames computed side by side
   * (`planeRotationPair`: the same bits, in less time).
   */
  static updatePlanes(
    a: BoneMap,
    aRotation: boolean,
    aPosition: boolean,
    b: BoneMap,
    bRotation: boolean,
    bPosition: boolean,
  ): void {
    // the pair computes FinalIK's frames only
    if (a.symmetricPlane || b.symmetricPlane) {
      a.updatePlane(aRotation, aPosition);
      b.updatePlane(bRotation, bPosition);
      return;
    }
    planeRotationPair(
      planeA,
      a.plane1!.bonePosition,
      a.plane2!.bonePosition,
      a.plane3!.bonePosition,
      planeB,
      b.plane1!.bonePosition,
      b.plane2!.bonePosition,
      b.plane3!.bonePosition,
    );
    a.updatePlaneIn(planeA, aRotation, aPosition);
    b.updatePlaneIn(planeB, bRotation, bPosition);
  }

  /**
   * The solved frames of two BoneMaps' planes ({@link solverPlaneRotation} of each) into `outA` and `outB`,
   * computed side by side (`planeRotationPair`).
   */
  static solverPlaneRotations(a: BoneMap, outA: Quat, b: BoneMap, outB: Quat): void {
    if (a.symmetricPlane || b.symmetricPlane) {
      a.solverPlaneRotation(outA);
      b.solverPlaneRotation(outB);
      return;
    }
    planeRotationPair(
      outA,
      a.plane1!.solverPosition,
      a.plane2!.solverPosition,
      a.plane3!.solverPosition,
      outB,
      b.plane1!.solverPosition,
      b.plane2!.solverPosition,
      b.plane3!.solverPosition,
    );
  }

  /** {@link updatePlane} with the plane's animated frame `t` already computed (not q2 or v1 of this file). */
  private updatePlaneIn(t: Quat, rotation: boolean, position: boolean): void {
    if (rotation) quatToArray(this.d, this.o + DEFAULT_ROTATION, conjugateMultiply(q2, t, this.rotation(q2)));
    if (position)
      toArray(
        this.d,
        this.o + PLANE_POSITION,
        inverseRotateVector(v1, t, sub(v1, this.position(v1), this.plane1!.bonePosition)),
      );
  }

  /** Where the plane's solved frame carries the bone. */
  getPlanePosition(out: Vec3): Vec3 {
    return this.getPlanePositionIn(this.solverPlaneRotation(q1), out);
  }

  /** {@link getPlanePosition} with the plane's solved frame already computed ({@link solverPlaneRotation}). */
  getPlanePositionIn(planeRotation: Quat, out: Vec3): Vec3 {
    rotateVector(out, planeRotation, fromArray(v3, this.d, this.o + PLANE_POSITION));
    return add(out, out, this.plane1!.solverPosition);
  }

  /** Rotates the bone with its plane's solved frame, by `weight.value`. */
  rotateToPlane(weight: Readonly<NumberRef>): void {
    this.rotateToPlaneIn(this.solverPlaneRotation(q1), weight);
  }

  /** {@link rotateToPlane} with the plane's solved frame already computed ({@link solverPlaneRotation}). */
  rotateToPlaneIn(planeRotation: Quat, weight: Readonly<NumberRef>): void {
    const target = multiply(q2, planeRotation, quatFromArray(q3, this.d, this.o + DEFAULT_ROTATION));
    if (weight.value < 1) nlerpByRef(target, this.rotation(q3), target, weight);
    this.pose.setRotation(this.bone, target);
  }

  /** Stores the length to `next` and the local axis pointing at it. */
  setLengthAndSwingAxis(next: BoneMap): void {
    const p = this.position(v1);
    const d = sub(v2, next.position(v3), p);
    this.d[this.o + LENGTH] = Math.sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    toArray(this.d, this.o + SWING_AXIS, inverseRotateVector(v3, this.rotation(q1), d));
  }

  /** Stores the local axis along `a − b` (two other bones' positions). */
  setLocalSwingAxisBetween(a: BoneMap, b: BoneMap): void {
    sub(v1, a.position(v1), b.position(v2));
    toArray(this.d, this.o + SWING_AXIS, inverseRotateVector(v1, this.rotation(q1), v1));
  }

  /** Stores the local twist axis: `twistDirection` made perpendicular to `normalDirection`. */
  setLocalTwistAxis(twistDirection: ReadonlyVec3, normalDirection: ReadonlyVec3): void {
    const normal = copy(v1, normalDirection);
    const twist = copy(v2, twistDirection);
    orthoNormalize(normal, twist);
    toArray(this.d, this.o + TWIST_AXIS, inverseRotateVector(v2, this.rotation(q1), twist));
  }

  /** Rotates the bone so its swing axis points from its current position at `target`, by `weight.value`. */
  swing(target: ReadonlyVec3, weight: Readonly<NumberRef>): void {
    if (!(weight.value > 0)) return;
    const r = this.rotation(q1);
    rotateVector(v1, r, fromArray(v1, this.d, this.o + SWING_AXIS));
    sub(v2, target, this.position(v3));
    fromToRotation(q2, v1, v2);
    multiply(q2, q2, r);
    if (weight.value < 1) nlerpByRef(q2, r, q2, weight);
    this.pose.setRotation(this.bone, q2);
  }

  /** Rotates the bone about `normalDirection` so its twist axis follows `twistDirection`, by `weight.value`. */
  twist(twistDirection: ReadonlyVec3, normalDirection: ReadonlyVec3, weight: Readonly<NumberRef>): void {
    if (!(weight.value > 0)) return;
    const normal = copy(v1, normalDirection);
    const twist = copy(v2, twistDirection);
    orthoNormalize(normal, twist);
    const r = this.rotation(q1);
    rotateVector(v3, r, fromArray(v3, this.d, this.o + TWIST_AXIS));
    fromToRotation(q2, v3, twist);
    multiply(q2, q2, r);
    if (weight.value < 1) nlerpByRef(q2, r, q2, weight);
    this.pose.setRotation(this.bone, q2);
  }

  /** Stores the bone's current world rotation. */
  maintainRotation(): void {
    quatToArray(this.d, this.o + MAINTAIN_ROTATION, this.rotation(q1));
  }

  /** Rotates back toward the stored rotation by `weight.value`. */
  rotateToMaintain(weight: Readonly<NumberRef>): void {
    const w = weight.value;
    if (!(w > 0)) return;
    const stored = quatFromArray(q2, this.d, this.o + MAINTAIN_ROTATION);
    if (w >= 1) {
      this.pose.setRotation(this.bone, stored);
      return;
    }
    nlerpByRef(q1, this.rotation(q1), stored, weight);
    this.pose.setRotation(this.bone, q1);
  }

  /**
   * Rotates toward the node's effector rotation by `weight.value` × the effector's rotation weight; a fractional
   * blend goes through `memory` (when given), which keeps it from changing sides at once near a half turn.
   */
  rotateToEffector(weight: Readonly<NumberRef>, memory: EndRotationMemory | null = null): void {
    const node = this.node;
    if (node === null) return;
    const w = weight.value * node.effectorRotationWeight;
    if (!(w > 0)) return;
    if (w >= 1) {
      this.pose.setRotation(this.bone, node.solverRotation);
      return;
    }
    effectorWeight.value = w;
    const from = this.rotation(q2);
    nlerpByRef(q1, from, node.solverRotation, effectorWeight);
    if (memory !== null) {
      memory.weight = w;
      memory.limit(q1, from, node.solverRotation);
    }
    this.pose.setRotation(this.bone, q1);
  }

  /**
   * Turns the bone about its position so that `child` (a bone below it) lies in the direction of `target`:
   * the shortest arc from where the child is to where it should be.
   */
  aimChildAt(child: BoneMap, target: ReadonlyVec3): void {
    const p = this.position(v3);
    sub(v1, child.position(v1), p);
    sub(v2, target, p);
    fromToRotation(q2, v1, v2);
    multiply(q2, q2, this.rotation(q1));
    this.pose.setRotation(this.bone, q2);
  }

  /**
   * Turns the bone (a limb's middle bone) about its bend axis so that `end` lies as far from `root` as
   * `target` does (law of cosines on the bones' current lengths), by at most `maxTurn` radians; nothing
   * when the limb is straight.
   */
  bendToReach(root: BoneMap, end: BoneMap, target: ReadonlyVec3, maxTurn: Readonly<NumberRef>): void {
    // written out: no double crosses a call (see ARCHITECTURE.md, "Doubles across calls")
    const p = this.position(v3);
    const u = sub(v1, root.position(v1), p);
    const v = sub(v2, end.position(v2), p);
    const a = Math.sqrt(u.x * u.x + u.y * u.y + u.z * u.z);
    const b = Math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    const nx = u.y * v.z - u.z * v.y;
    const ny = u.z * v.x - u.x * v.z;
    const nz = u.x * v.y - u.y * v.x;
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (!(nl > 1e-12 * a * b)) return;
    const current = Math.atan2(nl, u.x * v.x + u.y * v.y + u.z * v.z);
    const r = sub(v1, target, root.position(v1));
    let c = Math.sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    // a distance already right to rounding: near full extension acos would magnify the rounding into a turn
    const ex = u.x - v.x;
    const ey = u.y - v.y;
    const ez = u.z - v.z;
    const now = Math.sqrt(ex * ex + ey * ey + ez * ez);
    if (Math.abs(c - now) <= 1e-9 * (a + b)) return;
    const min = a > b ? a - b : b - a;
    c = c < min ? min : c > a + b ? a + b : c;
    let cos = (a * a + b * b - c * c) / (2 * a * b);
    cos = cos < -1 ? -1 : cos > 1 ? 1 : cos;
    const cap = maxTurn.value;
    let turn = Math.acos(cos) - current;
    turn = turn < -cap ? -cap : turn > cap ? cap : turn;
    // the turn about the unit bend axis n, as a quaternion
    const sh = Math.sin(turn / 2) / nl;
    q2.x = nx * sh;
    q2.y = ny * sh;
    q2.z = nz * sh;
    q2.w = Math.cos(turn / 2);
    multiply(q2, q2, this.rotation(q1));
    this.pose.setRotation(this.bone, q2);
  }

  /** Moves the bone toward its node's solved position by `weight.value`. */
  fixToNode(weight: Readonly<NumberRef>): void {
    const node = this.node;
    if (node === null || !(weight.value > 0)) return;
    lerpByRef(v1, this.position(v1), node.solverPosition, weight);
    this.pose.setPosition(this.bone, v1);
  }

  /** Moves the bone to its IK position. */
  setToIKPosition(): void {
    this.pose.setPosition(this.bone, fromArray(v1, this.d, this.o + IK_POSITION));
  }

  /** The plane's frame from the animated positions of its nodes (identity when nodes 1 and 3 coincide). */
  private animatedPlaneRotation(out: Quat): Quat {
    const frame = this.symmetricPlane ? symmetricPlaneRotation : planeRotation;
    return frame(out, this.plane1!.bonePosition, this.plane2!.bonePosition, this.plane3!.bonePosition);
  }

  /**
   * The plane's frame from the solved positions of its nodes. Constant while the mapping writes (the
   * mapping never moves solver nodes): compute it once and pass it to the `…In` methods.
   */
  solverPlaneRotation(out: Quat): Quat {
    const frame = this.symmetricPlane ? symmetricPlaneRotation : planeRotation;
    return frame(out, this.plane1!.solverPosition, this.plane2!.solverPosition, this.plane3!.solverPosition);
  }
}
