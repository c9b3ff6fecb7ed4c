/**
 * How far a climbing character's root sits below where the holds would put it, so that each foot on its hold
 * stays within reach of its hip: ClimbSequencer's `root` moves with the holds' centroid, which rises with the
 * hands too, and a leg that stood straight at the start (a ladder mounted from the ground) lifts its foot off.
 * @module
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Matrix } from "@babylonjs/core/Maths/math.vector.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { boneWorldMatrixToRef, currentWorldMatrix, transformVector3InPlace } from "../../babylon/world-matrix.js";
import { copyVector3Fields } from "../../babylon/babylon-fields.js";
import type { InteractionEffector } from "./interaction-effector.js";
import { positionOfMatrix } from "./node-pose.js";
import type { InteractionSystem } from "./interaction-system.js";
import { moduleMatrix } from "../../babylon/module-matrix.js";

/** Share of the leg's length within which a foot counts as reached (a knee never quite straight). */
const REACH = 0.93;
/** Largest sink, as a share of the leg's length. */
const MAX_SINK = 0.5;
/** Top speed of the sink (leg lengths per second). */
const SINK_SPEED = 2;

const m = moduleMatrix();
const v = new Vector3();
const v2 = new Vector3();
/**
 * The root's sink for the feet's reach (world units along the character's up), moved frame by frame. Per frame:
 * {@link begin}, {@link addFoot} for each foot with a hold, {@link update}. No double crosses a call (see
 * ARCHITECTURE.md, "Doubles across calls"): each result is a field.
 */
export class ClimbFootReach {
  /** How far the root sits below its goal now. */
  sink = 0;
  /** The most a foot needs this frame (−∞: none counts). */
  private target = Number.NEGATIVE_INFINITY;
  /** What {@link needOf} found. */
  private need = 0;
  private legLength = 0;
  /** Each hip (left, right) minus the root as the climb started, in the climb's space (see {@link measure}). */
  private readonly hipsAtStart = [new Vector3(), new Vector3()];
  /** The same in world space this frame: {@link begin} turns them with the climb's space. */
  private readonly hips = [new Vector3(), new Vector3()];

  /**
   * Measures a leg (thigh to calf to foot; the longer leg is kept) and where its hip is from the root's world
   * position `root`, in the current pose. `side` 0 left, 1 right. `toSpace`: the inverse world matrix of the space
   * the climb is carried in (a deck the character stands on; null: the world), which turns the hips with it.
   */
  measure(
    side: 0 | 1,
    thigh: Bone,
    calf: Bone,
    foot: Bone,
    space: TransformNode | null,
    root: Vector3,
    toSpace: Matrix | null = null,
  ): void {
    const hip = this.hipsAtStart[side]!;
    this.position(thigh, space, hip);
    this.position(calf, space, v);
    this.position(foot, space, v2);
    const l = Vector3.Distance(hip, v) + Vector3.Distance(v, v2);
    if (l > this.legLength) this.legLength = l;
    hip.subtractInPlace(root);
    if (toSpace !== null) transformVector3InPlace(hip, toSpace, false);
    this.hips[side]!.copyFrom(hip);
  }

  /** Forgets the measured legs and the sink (a new climb). */
  reset(): void {
    this.legLength = 0;
    this.sink = 0;
  }

  /** Starts a frame's feet; `space`: the world matrix of the climb's space now (null: the world). */
  begin(space: Matrix | null = null): void {
    this.target = Number.NEGATIVE_INFINITY;
    if (space === null) return;
    transformVector3InPlace(copyVector3Fields(this.hips[0]!, this.hipsAtStart[0]!), space, false);
    transformVector3InPlace(copyVector3Fields(this.hips[1]!, this.hipsAtStart[1]!), space, false);
  }

  /**
   * Folds in what the foot of `side` needs with the root at `rootGoal` (world, unsunk): on `hold` when `moving`
   * is null; else on its way from `from` (null: from the ground, mounting) to `hold`, the two blended by the
   * move's weight, so the body sinks as the foot goes down to a lower rung rather than when it lands.
   */
  addFoot(
    side: 0 | 1,
    rootGoal: Vector3,
    up: Vector3,
    hold: TransformNode,
    from: TransformNode | null,
    moving: InteractionEffector | null,
  ): void {
    this.needOf(side, rootGoal, hold, up);
    let d = this.need;
    if (moving !== null) {
      const w = moving.weight;
      let before = 0;
      if (from !== null) {
        this.needOf(side, rootGoal, from, up);
        if (this.need > 0) before = this.need;
      }
      d = before * (1 - w) + (d > 0 ? d : 0) * w;
    }
    if (d > this.target) this.target = d;
  }

  /**
   * Moves the sink to what the feet need (within [0, half a leg]) at a top speed, over the system's frame time:
   * the needs are already smooth (blended by the moves), and easing them left a foot short of a lower rung as it
   * landed; the cap only keeps a sudden change (a hold moved away) from popping the body.
   */
  update(system: InteractionSystem): void {
    const l = this.legLength;
    const t = this.target;
    const goal = t < 0 ? 0 : t > MAX_SINK * l ? MAX_SINK * l : t;
    const top = SINK_SPEED * l * system.lastDeltaTime;
    const step = goal - this.sink;
    this.sink += step > top ? top : step < -top ? -top : step;
  }

  /**
   * Into `need`: how far the root must sink below `rootGoal` for the foot of `side` to reach `hold`, the hip
   * where the root's move takes it; −∞ when the hold does not count (not below the hip: sinking would take the
   * hip away, and the feedback would run away).
   */
  private needOf(side: 0 | 1, rootGoal: Vector3, hold: TransformNode, up: Vector3): void {
    const hm = currentWorldMatrix(hold).m;
    const hip = this.hips[side]!;
    // Babylon's fields read directly: a getter V8 does not inline returns its double boxed
    const x = rootGoal._x + hip._x - hm[12]!;
    const y = rootGoal._y + hip._y - hm[13]!;
    const z = rootGoal._z + hip._z - hm[14]!;
    const along = x * up._x + y * up._y + z * up._z;
    if (along <= 0) {
      this.need = Number.NEGATIVE_INFINITY;
      return;
    }
    const r = REACH * this.legLength;
    const across = x * x + y * y + z * z - along * along;
    // beyond reach sideways, the best is the hip at the hold's height
    this.need = across >= r * r ? along : along - Math.sqrt(r * r - across);
  }

  private position(bone: Bone, space: TransformNode | null, out: Vector3): void {
    positionOfMatrix(boneWorldMatrixToRef(bone, space, m), out);
  }
}
