import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { INTERACTION_CURVE_TYPE_COUNT, type InteractionCurveType } from "./interaction-curves.js";
import { positionOfMatrix, rotateNodeAround } from "./node-pose.js";

/** Options of {@link InteractionTarget}. */
export interface InteractionTargetOptions {
  /** Node rotated by {@link InteractionTarget.rotateTo} so the target faces the bone (default none). */
  pivot?: TransformNode | null;
  /** Twist axis in the pivot's local space (default up, (0, 1, 0)). */
  twistAxis?: Vector3;
  /** [0, 1] How much the pivot twists about `twistAxis` toward the bone (default 1). */
  twistWeight?: number;
  /** [0, 1] How much the pivot then swings freely toward the bone (default 0). */
  swingWeight?: number;
  /** Rotate the pivot only when the interaction starts (default true); false: every frame. */
  rotateOnce?: boolean;
  /** Multiplier of the interaction's speed for this effector (default 1). */
  interactionSpeedMlp?: number;
  /** Per-channel multipliers of the curves' weights (default 1 each). */
  multipliers?: Partial<Record<InteractionCurveType, number>>;
}

const pivotPos = new Vector3();
const targetPos = new Vector3();
const axis = new Vector3();
const from = new Vector3();
const to = new Vector3();
const cross = new Vector3();
const delta = new Quaternion();
const identity = Quaternion.Identity();

/**
 * Where one effector goes on an {@link InteractionObject} (FinalIK's InteractionTarget): a node giving the
 * hand's or foot's world pose (its position, and its Y/Z axes for the rotation), optionally under a
 * `pivot` that turns toward the character when the interaction starts so the hand approaches from the
 * natural side (a door knob grabbed from whichever side the character stands).
 *
 * Children of `node` named like the hand's finger bones are the pose a {@link HandPoser} blends toward.
 */
export class InteractionTarget {
  /** The effector this target is for. */
  readonly effectorType: FullBodyBipedEffector;
  /** The target pose node. */
  readonly node: TransformNode;
  /** Twist axis in the pivot's local space. */
  twistAxis: Vector3;
  /** [0, 1] Twist of the pivot about `twistAxis` toward the bone. */
  twistWeight: number;
  /** [0, 1] Free swing of the pivot toward the bone after the twist. */
  swingWeight: number;
  /** Rotate the pivot only when the interaction starts. */
  rotateOnce: boolean;
  /** Multiplier of the interaction's speed. */
  interactionSpeedMlp: number;
  private _pivot: TransformNode | null = null;
  private readonly pivotDefault = new Quaternion();
  private readonly pivotDefaultPosition = new Vector3();
  private readonly multipliers = new Float64Array(INTERACTION_CURVE_TYPE_COUNT).fill(1);

  /** A target for `effectorType` at `node`. */
  constructor(effectorType: FullBodyBipedEffector, node: TransformNode, options: InteractionTargetOptions = {}) {
    this.effectorType = effectorType;
    this.node = node;
    this.twistAxis = options.twistAxis?.clone() ?? new Vector3(0, 1, 0);
    this.twistWeight = options.twistWeight ?? 1;
    this.swingWeight = options.swingWeight ?? 0;
    this.rotateOnce = options.rotateOnce ?? true;
    this.interactionSpeedMlp = options.interactionSpeedMlp ?? 1;
    this.pivot = options.pivot ?? null;
    if (options.multipliers !== undefined) {
      for (const [k, v] of Object.entries(options.multipliers)) {
        if (typeof v === "number") this.multipliers[Number(k)] = v;
      }
    }
  }

  /** The pivot node; assigning one stores its current local rotation as the default. */
  get pivot(): TransformNode | null {
    return this._pivot;
  }
  set pivot(p: TransformNode | null) {
    this._pivot = p;
    if (p !== null) {
      if (p.rotationQuaternion === null) p.rotationQuaternion = Quaternion.FromEulerVector(p.rotation);
      this.pivotDefault.copyFrom(p.rotationQuaternion);
      this.pivotDefaultPosition.copyFrom(p.position);
    }
  }

  /** The multiplier of the curve weight of `type` (default 1). */
  getMultiplier(type: InteractionCurveType): number {
    return this.multipliers[type]!;
  }

  /** Sets the multiplier of the curve weight of `type`. */
  setMultiplier(type: InteractionCurveType, value: number): void {
    this.multipliers[type] = value;
  }

  /** Puts the pivot back to its default local rotation. */
  resetRotation(): void {
    const p = this._pivot;
    if (p === null) return;
    p.rotationQuaternion!.copyFrom(this.pivotDefault);
    p.position.copyFrom(this.pivotDefaultPosition);
    p.computeWorldMatrix(true);
  }

  /**
   * Turns the pivot (from its default rotation) so the target faces `bonePosition` (world): a twist about
   * the pivot's `twistAxis` by `twistWeight`, then a free swing by `swingWeight`. No-op without a pivot.
   */
  rotateTo(bonePosition: Vector3): void {
    const p = this._pivot;
    if (p === null) return;
    this.resetRotation();
    if (this.twistWeight > 0) {
      const pw = p.computeWorldMatrix(true);
      positionOfMatrix(pw, pivotPos);
      positionOfMatrix(this.node.computeWorldMatrix(true), targetPos);
      Vector3.TransformNormalToRef(this.twistAxis, pw, axis);
      const al = axis.length();
      if (al > 0) {
        axis.scaleInPlace(1 / al);
        targetPos.subtractToRef(pivotPos, from);
        bonePosition.subtractToRef(pivotPos, to);
        // onto the plane normal to the axis
        from.addInPlace(axis.scaleToRef(-Vector3.Dot(from, axis), cross));
        to.addInPlace(axis.scaleToRef(-Vector3.Dot(to, axis), cross));
        if (from.lengthSquared() > 0 && to.lengthSquared() > 0) {
          Vector3.CrossToRef(from, to, cross);
          const angle = Math.atan2(Vector3.Dot(cross, axis), Vector3.Dot(from, to)) * clampWeight(this.twistWeight);
          Quaternion.RotationAxisToRef(axis, angle, delta);
          rotateNodeAround(p, delta, pivotPos);
        }
      }
    }
    if (this.swingWeight > 0) {
      positionOfMatrix(p.computeWorldMatrix(true), pivotPos);
      positionOfMatrix(this.node.computeWorldMatrix(true), targetPos);
      targetPos.subtractToRef(pivotPos, from);
      bonePosition.subtractToRef(pivotPos, to);
      const lf = from.length();
      const lt = to.length();
      if (lf > 0 && lt > 0) {
        from.scaleInPlace(1 / lf);
        to.scaleInPlace(1 / lt);
        fromToRotation(from, to, delta);
        Quaternion.SlerpToRef(identity, delta, clampWeight(this.swingWeight), delta);
        rotateNodeAround(p, delta, pivotPos);
      }
    }
  }
}

function clampWeight(w: number): number {
  return w < 0 ? 0 : w > 1 ? 1 : w;
}

/** Shortest-arc rotation taking unit `a` onto unit `b` (half a turn about a perpendicular when opposite). */
function fromToRotation(a: Vector3, b: Vector3, out: Quaternion): Quaternion {
  const d = Vector3.Dot(a, b);
  if (d < -0.999999) {
    if (Math.abs(a.x) < 0.9) cross.set(0, a.z, -a.y);
    else cross.set(-a.z, 0, a.x);
    cross.normalize();
    return out.set(cross.x, cross.y, cross.z, 0);
  }
  Vector3.CrossToRef(a, b, cross);
  out.set(cross.x, cross.y, cross.z, 1 + d);
  return out.normalize();
}
