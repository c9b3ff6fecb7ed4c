/**
 * An end effector's target hanging from one of the character's own bones (a left hand on the grip of a rifle the right
 * hand holds, a hand on the character's own hip): read before the solve, it stands where the animation put that bone,
 * and the solve moves the bone. Before the solve the target is placed under the bone where the solve will about put it
 * (at the target of the hand or foot the bone is, when that effector has full weights; else where the last
 * solve left it relative to its animated pose, or half of that when the limb was straight), so the body is pulled
 * toward the right place; after it, under the bone as solved, and the limb bends and turns to follow it (its end by the
 * weight the solve used): the end lands on the target where the bone ends, at the cost of two bone turns. The bone is
 * taken as the rig read it, before the hooks that move bones ahead of the solve (the grounder's pelvis): the target was
 * placed by Babylon's animated bone. Used by plain effector targets and by interaction targets. Not in FinalIK, whose
 * one pass leaves the error. Allocation-free; found again only when a target or its parent changes.
 * @module
 */
import type { Node } from "@babylonjs/core/node.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { BabylonRig } from "./babylon-rig.js";
import type { IKMappingLimb } from "../mapping/mapping-limb.js";
import { ANY_TURN } from "../mapping/bone-map.js";
import { NumberRef } from "../math/number-ref.js";
import {
  Quat,
  conjugateMultiply,
  copyQuat,
  identity,
  inverseRotateVector,
  multiply,
  multiplyConjugate,
  nlerpByRef,
  rotateVector,
} from "../math/quat.js";
import { Vec3, add, sub } from "../math/vec3.js";
import type { IKEffector } from "../solver/effector.js";

const share = new NumberRef(0);
/**
 * The share of where the last solve left the bone that the next placement takes, by how straight the solve left
 * the effector's limb: all of it while the limb bends (a hand reaching the other hand's object), half once it is
 * straight. A straight limb pulls the body, and all of it chased a target on a bone that pull moves (a hand's
 * target under the spine, out of reach): each frame the body was pulled one pull further, UAL's pelvis 0.24 h off
 * the clip's in 30 frames of a jog, then its fingers 0.87 h in one frame. Half settles at twice one frame's pull;
 * the end still lands on the target where it can (`correct`). The share falls over the limb's reach from 95 % to
 * 99.5 % of its length, so the placement does not switch between frames.
 */
const STRAIGHT_SHARE = 0.5;
const BENT_REACH = 0.95;
const STRAIGHT_REACH = 0.995;
const s1 = new Vec3();
const s2 = new Vec3();
const s3 = new Vec3();
const v1 = new Vec3();
const v2 = new Vec3();
const q1 = new Quat();
const q2 = new Quat();
const q3 = new Quat();

/** The part of a Babylon node walked here: its parent (a Bone is a Node too). */
interface Hanging {
  readonly parent: Node | null;
}

/** How many anchors of a solver have a bone: its per-frame passes over them run only then. */
export class AnchorCount {
  /** Anchors with a bone. */
  value = 0;
}

/** Where an end effector's target hangs from the rig, found again only when the target or its parent changes. */
export class TargetAnchor {
  /** The solver's count of anchors with a bone. */
  private readonly count: AnchorCount;
  /** The effector's limb: what bends to follow the target, and the bones it cannot hang from. */
  private readonly limb: IKMappingLimb;
  private _bone = -1;
  /** The target and its parent when {@link bone} was found. */
  private target: TransformNode | null = null;
  private parent: Node | null = null;
  /** The target used by the solve, in the bone's frame (component space, unscaled) as the pose was read. */
  private readonly localPosition = new Vec3();
  private readonly localRotation = new Quat();
  /** True when the target's rotation was read (the effector has a rotation weight). */
  private rotated = false;
  /** The bone as read (animated), component space. */
  private readonly animatedPosition = new Vec3();
  private readonly animatedRotation = new Quat();
  /** The bone as the last solve left it, in its animated frame ({@link hasLag}: one is known). */
  private readonly lagPosition = new Vec3();
  private readonly lagRotation = new Quat();
  private hasLag = false;
  /** True from a capture to its correction (a capture without one: the solve was skipped). */
  private pending = false;
  /** The bone {@link note} read this update (its pose in animatedPosition/Rotation), or -1. */
  private notedBone = -1;
  /** True from a correction to the next update: {@link carry} may carry a pose of this update's capture. */
  private corrected = false;

  /** The anchor of the end effector of `limb`, counted in `count`. */
  constructor(limb: IKMappingLimb, count: AnchorCount) {
    this.limb = limb;
    this.count = count;
  }

  /** The rig bone the target hangs from (the nearest one above it), or -1. */
  get bone(): number {
    return this._bone;
  }

  private setBone(id: number): void {
    if (id >= 0 !== this._bone >= 0) this.count.value += id >= 0 ? 1 : -1;
    this._bone = id;
    this.corrected = false;
  }

  /**
   * Right after the rig read the skeleton, before the hooks: notes the bone as read, the pose Babylon placed
   * the target by (a grounder moves the pelvis in the rig before {@link capture}, not in Babylon).
   */
  note(rig: BabylonRig): void {
    const bone = this._bone;
    this.corrected = false;
    this.notedBone = bone;
    rig.getPosition(bone, this.animatedPosition);
    rig.getRotation(bone, this.animatedRotation);
  }

  /**
   * Finds the bone again when `target` or its parent changed (a target hanging from the effector's own limb
   * follows the limb: nothing to place again).
   */
  follow(target: TransformNode | null, rig: BabylonRig): void {
    if (target === null) {
      if (this.target !== null) {
        this.target = null;
        this.parent = null;
        this.setBone(-1);
      }
      return;
    }
    const parent = target.parent;
    if (target === this.target && parent === this.parent) return;
    this.target = target;
    this.parent = parent;
    this.setBone(-1);
    this.hasLag = false;
    const id = rigBoneAbove(rig, parent);
    const l = this.limb;
    if (id > 0 && id !== l.bone1.bone && id !== l.bone2.bone && id !== l.bone3.bone) this.setBone(id);
  }

  /** After the target was read: notes the one the solve uses in the bone's frame, as the pose was read. */
  capture(rig: BabylonRig, inner: IKEffector): void {
    // the last capture had no solve after it: where that solve put the bone says nothing now
    if (this.pending) this.hasLag = false;
    this.pending = true;
    // the bone as read when it was noted this update; else as it stands (a solver updated without the rig's read)
    const bone = this._bone;
    if (this.notedBone !== bone) {
      rig.getPosition(bone, this.animatedPosition);
      rig.getRotation(bone, this.animatedRotation);
    }
    this.notedBone = -1;
    const p = this.animatedPosition;
    const r = this.animatedRotation;
    inverseRotateVector(this.localPosition, r, sub(v2, inner.position, p));
    this.rotated = inner.rotationWeight !== 0;
    if (this.rotated) conjugateMultiply(this.localRotation, r, inner.rotation);
  }

  /**
   * After every target was read: places the target under the bone where the solve will about put it, so the
   * body is pulled toward the right place. `driver`: the effector of the limb the bone ends (a hand holding the
   * rifle), or null; at full weights the bone goes to its target, else where the last solve left it relative to its
   * animated pose (half of that for a straight limb: lagShare). `solver` gives the master weight (read here: no
   * double crosses a call).
   */
  place(inner: IKEffector, driver: IKEffector | null, solver: { readonly ikPositionWeight: number }): void {
    if (!this.pending) return;
    const ikw = solver.ikPositionWeight;
    let p: Vec3;
    let q: Quat;
    if (driver !== null && driver.positionWeight * ikw >= 1 && driver.rotationWeight * ikw >= 1) {
      p = add(v1, driver.position, driver.positionOffset);
      q = copyQuat(q1, driver.rotation);
    } else if (this.hasLag) {
      const r = this.animatedRotation;
      q = multiply(q1, r, this.lagRotation);
      p = add(v1, this.animatedPosition, rotateVector(v1, r, this.lagPosition));
    } else return;
    add(inner.position, p, rotateVector(v2, q, this.localPosition));
    if (this.rotated) multiply(inner.rotation, q, this.localRotation);
  }

  /**
   * After the solve's write into the rig: the target placed again under the bone as solved, and the limb's
   * end moved as far toward it by the position weight the solve used, its rotation turned with it by the
   * rotation weight. Nothing when the bone did not move. (Weights read here: no double crosses a call.)
   */
  correct(rig: BabylonRig, inner: IKEffector, solver: { readonly ikPositionWeight: number }): void {
    if (!this.pending) return;
    this.pending = false;
    const p = rig.getPosition(this._bone, v1);
    const r = rig.getRotation(this._bone, q1);
    // the bone as solved, in its animated frame (by lagShare): where the next frame places the target
    const ar = this.animatedRotation;
    inverseRotateVector(this.lagPosition, ar, sub(v2, p, this.animatedPosition));
    conjugateMultiply(this.lagRotation, ar, r);
    const lag = lagShareToRef(this.limb, share).value;
    if (lag < 1) {
      this.lagPosition.x *= lag;
      this.lagPosition.y *= lag;
      this.lagPosition.z *= lag;
      share.value = lag;
      nlerpByRef(this.lagRotation, identity(q2), this.lagRotation, share);
    }
    this.hasLag = true;
    this.corrected = true;
    const limb = this.limb;
    const ikw = solver.ikPositionWeight;
    let w = inner.positionWeight;
    const positionWeight = (w > 0 ? (w < 1 ? w : 1) : 0) * ikw;
    w = inner.rotationWeight;
    const rotationWeight = (w > 0 ? (w < 1 ? w : 1) : 0) * ikw;
    if (!(positionWeight > 0) && !(rotationWeight > 0)) return;
    // the target under the bone now, and how far it moved
    add(v1, p, rotateVector(v2, r, this.localPosition));
    const d = sub(v1, v1, inner.position);
    const turn = this.rotated && rotationWeight > 0;
    if (turn) multiplyConjugate(q2, multiply(q2, r, this.localRotation), inner.rotation);
    if ((d.x === 0 && d.y === 0 && d.z === 0 && !turn) || !(limb.weight > 0)) return;
    const end = limb.bone3;
    const endRotation = end.rotation(q3);
    if (positionWeight > 0) {
      const reach = end.position(v2);
      reach.x += d.x * positionWeight;
      reach.y += d.y * positionWeight;
      reach.z += d.z * positionWeight;
      limb.bone2.bendToReach(limb.bone1, end, reach, ANY_TURN);
      limb.bone1.aimChildAt(end, reach);
    }
    // the end keeps the rotation the solve gave it, turned as its target turned by the rotation weight
    if (turn) {
      share.value = rotationWeight;
      nlerpByRef(q2, identity(q1), q2, share);
      multiply(endRotation, q2, endRotation);
    }
    rig.setRotation(end.bone, endRotation);
  }

  /**
   * After this update's correction: carries a component-space pose read with this update's targets (a pick-up
   * pose) from the bone as read to the bone as solved, in place; false (nothing done) without one.
   */
  carry(rig: BabylonRig, position: Vec3, rotation: Quat): boolean {
    if (!this.corrected) return false;
    const ar = this.animatedRotation;
    inverseRotateVector(v2, ar, sub(v2, position, this.animatedPosition));
    const r = rig.getRotation(this._bone, q1);
    add(position, rig.getPosition(this._bone, v1), rotateVector(v2, r, v2));
    multiply(rotation, r, conjugateMultiply(q2, ar, rotation));
    return true;
  }
}

/**
 * Into `out.value`, the share of the bone's lag the next placement takes, by the limb's reach as solved (see
 * STRAIGHT_SHARE). Lengths written out and the share by reference: a double a call returns is boxed where V8 does
 * not inline it (`distance` three times, 48 B a frame for a target under the spine; ARCHITECTURE.md, "Doubles across
 * calls").
 */
function lagShareToRef(limb: IKMappingLimb, out: NumberRef): NumberRef {
  const a = limb.bone1.position(s1);
  const b = limb.bone2.position(s2);
  const c = limb.bone3.position(s3);
  let x = a.x - b.x;
  let y = a.y - b.y;
  let z = a.z - b.z;
  const upper = Math.sqrt(x * x + y * y + z * z);
  x = b.x - c.x;
  y = b.y - c.y;
  z = b.z - c.z;
  const lower = Math.sqrt(x * x + y * y + z * z);
  x = a.x - c.x;
  y = a.y - c.y;
  z = a.z - c.z;
  const reach = Math.sqrt(x * x + y * y + z * z) / (upper + lower);
  const t = (reach - BENT_REACH) / (STRAIGHT_REACH - BENT_REACH);
  // NaN (a limb of no length) reads as bent: the lag as before
  out.value = t > 0 ? 1 - (1 - STRAIGHT_SHARE) * (t < 1 ? t : 1) : 1;
  return out;
}

/** The rig id of the nearest bone of the rig at or above `node` (a linked node or a Bone), or -1. */
export function rigBoneAbove(rig: BabylonRig, node: Node | null): number {
  for (let n: Node | null = node; n !== null; n = (n as Hanging).parent) {
    const id = rigId(rig, n);
    if (id > 0) return id;
  }
  return -1;
}

/** The rig id of a node or bone of it, or -1. */
function rigId(rig: BabylonRig, n: Node): number {
  const nodeId = rig.nodes.indexOf(n as TransformNode);
  if (nodeId > 0) return nodeId;
  return n.getClassName() === "Bone" ? rig.idOf(n as never) : -1;
}
