import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { INTERACTION_CURVE_TYPE_COUNT, type InteractionCurveType } from "./interaction-curves.js";
import { positionOfMatrix, rotateNodeAround } from "./node-pose.js";
import { type OptionKinds, checkLoggedOptions } from "../../babylon/option-check.js";

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

/** The kinds of {@link InteractionTargetOptions}, for the check at create. */
export const INTERACTION_TARGET_OPTION_KINDS: OptionKinds<InteractionTargetOptions> = {
  pivot: "object|null",
  twistAxis: "object",
  twistWeight: "number",
  swingWeight: "number",
  rotateOnce: "boolean",
  interactionSpeedMlp: "number",
  multipliers: "object",
};

const pivotPos = new Vector3();
const targetPos = new Vector3();
const from = new Vector3();
const to = new Vector3();
const delta = new Quaternion();

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
    checkLoggedOptions("InteractionTarget", options, INTERACTION_TARGET_OPTION_KINDS);
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

  /** @internal The multipliers by curve type, read in the per-frame path (a double returned by a call is boxed). */
  get _multipliers(): Float64Array {
    return this.multipliers;
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
    // written out on numbers and into Babylon's fields: a computed double handed to Babylon's math (an angle,
    // a scale, `set`) is boxed whenever V8 does not inline the call, 320 B a frame with rotateOnce false
    let tw = this.twistWeight;
    if (tw > 0) {
      if (tw > 1) tw = 1;
      const pw = p.computeWorldMatrix(true);
      positionOfMatrix(pw, pivotPos);
      positionOfMatrix(this.node.computeWorldMatrix(true), targetPos);
      // the twist axis into the world (Babylon's row vectors: x' = x·m0 + y·m4 + z·m8)
      const a = this.twistAxis;
      const m = pw.m;
      let ax = a._x * m[0]! + a._y * m[4]! + a._z * m[8]!;
      let ay = a._x * m[1]! + a._y * m[5]! + a._z * m[9]!;
      let az = a._x * m[2]! + a._y * m[6]! + a._z * m[10]!;
      const al = Math.sqrt(ax * ax + ay * ay + az * az);
      if (al > 0) {
        ax /= al;
        ay /= al;
        az /= al;
        let fx = targetPos._x - pivotPos._x;
        let fy = targetPos._y - pivotPos._y;
        let fz = targetPos._z - pivotPos._z;
        let tx = bonePosition._x - pivotPos._x;
        let ty = bonePosition._y - pivotPos._y;
        let tz = bonePosition._z - pivotPos._z;
        // onto the plane normal to the axis
        const df = fx * ax + fy * ay + fz * az;
        fx -= ax * df;
        fy -= ay * df;
        fz -= az * df;
        const dt = tx * ax + ty * ay + tz * az;
        tx -= ax * dt;
        ty -= ay * dt;
        tz -= az * dt;
        if (fx * fx + fy * fy + fz * fz > 0 && tx * tx + ty * ty + tz * tz > 0) {
          const cx = fy * tz - fz * ty;
          const cy = fz * tx - fx * tz;
          const cz = fx * ty - fy * tx;
          const half = 0.5 * Math.atan2(cx * ax + cy * ay + cz * az, fx * tx + fy * ty + fz * tz) * tw;
          const sh = Math.sin(half);
          delta._x = ax * sh;
          delta._y = ay * sh;
          delta._z = az * sh;
          delta._w = Math.cos(half);
          delta._isDirty = true;
          rotateNodeAround(p, delta, pivotPos);
        }
      }
    }
    let sw = this.swingWeight;
    if (sw > 0) {
      if (sw > 1) sw = 1;
      positionOfMatrix(p.computeWorldMatrix(true), pivotPos);
      positionOfMatrix(this.node.computeWorldMatrix(true), targetPos);
      from._x = targetPos._x - pivotPos._x;
      from._y = targetPos._y - pivotPos._y;
      from._z = targetPos._z - pivotPos._z;
      to._x = bonePosition._x - pivotPos._x;
      to._y = bonePosition._y - pivotPos._y;
      to._z = bonePosition._z - pivotPos._z;
      if (fromToRotation(from, to, delta)) {
        // the swing by its weight: the same axis, the angle scaled (a slerp from the identity)
        const x = delta._x;
        const y = delta._y;
        const z = delta._z;
        const sh = Math.sqrt(x * x + y * y + z * z);
        const half = Math.atan2(sh, delta._w) * sw;
        const k = sh > 0 ? Math.sin(half) / sh : 0;
        delta._x = x * k;
        delta._y = y * k;
        delta._z = z * k;
        delta._w = Math.cos(half);
        delta._isDirty = true;
        rotateNodeAround(p, delta, pivotPos);
      }
    }
  }
}

/**
 * Shortest-arc rotation taking `a` onto `b` (half a turn about a perpendicular when opposite) into `out`,
 * field by field; false when either is of length 0.
 */
function fromToRotation(a: Vector3, b: Vector3, out: Quaternion): boolean {
  const la = Math.sqrt(a._x * a._x + a._y * a._y + a._z * a._z);
  const lb = Math.sqrt(b._x * b._x + b._y * b._y + b._z * b._z);
  if (!(la > 0 && lb > 0)) return false;
  const ax = a._x / la;
  const ay = a._y / la;
  const az = a._z / la;
  const bx = b._x / lb;
  const by = b._y / lb;
  const bz = b._z / lb;
  const d = ax * bx + ay * by + az * bz;
  let x: number;
  let y: number;
  let z: number;
  let w: number;
  if (d < -0.999999) {
    if (Math.abs(ax) < 0.9) {
      x = 0;
      y = az;
      z = -ay;
    } else {
      x = -az;
      y = 0;
      z = ax;
    }
    w = 0;
  } else {
    x = ay * bz - az * by;
    y = az * bx - ax * bz;
    z = ax * by - ay * bx;
    w = 1 + d;
  }
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  out._x = x / l;
  out._y = y / l;
  out._z = z / l;
  out._w = w / l;
  out._isDirty = true;
  return true;
}
