import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { BabylonRig } from "./babylon-rig.js";
import { currentWorldMatrix } from "./world-matrix.js";
import { Vec3, normalize } from "../math/vec3.js";
import type { BendConstraint } from "../solver/bend-constraint.js";
import type { FBIKChain } from "../solver/chain.js";
import type { Smoothing } from "../solver/smoothing.js";

const tv = new Vec3();
const tvBabylon = new Vector3();

/**
 * A limb's bend constraint in Babylon terms: a `bendGoal` node the elbow or knee turns toward, or a
 * world `direction`, blended with the animated bend by `weight`.
 */
export class BabylonBendConstraint {
  /** The elbow/knee turns toward this node (with `weight`). Null: use `direction`. */
  bendGoal: TransformNode | null = null;
  /** World bend direction used with `weight` when there is no bend goal. Follows the bend goal when there is one. */
  readonly direction = new Vector3();
  /** The solver's constraint (component space). */
  readonly inner: BendConstraint;
  private readonly rig: BabylonRig;
  private readonly goal = new Vec3();
  private readonly warn: (cause: string, message: string) => void;
  private readonly name: string;

  /** Wraps `inner`. */
  constructor(inner: BendConstraint, rig: BabylonRig, name: string, warn: (cause: string, message: string) => void) {
    this.inner = inner;
    this.rig = rig;
    this.name = name;
    this.warn = warn;
    rig.componentToWorldVector(inner.direction, this.direction);
    this.direction.normalize();
  }

  /** [0, 1] Weight of the bend goal / direction against the animated bend. Default 0. */
  get weight(): number {
    return this.inner.weight;
  }
  set weight(v: number) {
    this.inner.weight = v;
  }

  /**
   * [0, 1] For an arm: how far its elbow turns toward the side real arms hold it for this reach (a table fitted to
   * motion capture, as LimbIK's `bendModifier = "arm"`) when the hand effector takes the hand away from where the
   * animation has it, instead of keeping the animation's bend (FinalIK's). For hands driven where the clip has no say
   * (VR controllers, reaching props); a hand near the clip's keeps the clip's elbow. Default 0. Legs ignore it.
   */
  get naturalElbowWeight(): number {
    return this.inner.naturalElbowWeight;
  }
  set naturalElbowWeight(v: number) {
    this.inner.naturalElbowWeight = v;
  }

  /** @internal Converts the goal and direction into the solver's constraint. */
  _syncToSolver(): void {
    const goal = this.bendGoal;
    if (goal?.isDisposed()) {
      this.warn(
        `${this.name}:bend-goal-disposed`,
        `${this.name} bend goal ${goal.name} was disposed; the bend goal is cleared.`,
      );
      this.bendGoal = null;
    }
    if (this.bendGoal !== null) {
      const m = currentWorldMatrix(this.bendGoal);
      m.getTranslationToRef(tvBabylon);
      const g = this.rig.worldToComponentPoint(tvBabylon, this.goal);
      if (Number.isFinite(g.x) && Number.isFinite(g.y) && Number.isFinite(g.z)) {
        this.inner.bendGoal = g;
      } else {
        this.warn(
          `${this.name}:bend-goal-position`,
          `${this.name} bend goal ${this.bendGoal.name} is not at a finite position; ignored.`,
        );
        this.inner.bendGoal = null;
      }
    } else {
      this.inner.bendGoal = null;
      // without a goal the direction counts only with a weight: at exactly 0 skip converting it
      if (this.inner.weight === 0) return;
      const d = this.rig.worldToComponentVector(this.direction, tv);
      if (!(Number.isFinite(d.x) && Number.isFinite(d.y) && Number.isFinite(d.z))) {
        this.warn(`${this.name}:bend-direction`, `${this.name} bend direction is not finite; ignored.`);
      } else if (d.x !== 0 || d.y !== 0 || d.z !== 0) {
        normalize(this.inner.direction, d);
      }
    }
  }

  /**
   * @internal Reflects the direction the solver used back into world space, while a bend goal drives it.
   * Without a goal the world direction is the user's: it is left alone (it may not even have been converted
   * this frame, see _syncToSolver).
   */
  _syncFromSolver(): void {
    if (this.inner.bendGoal === null) return;
    this.rig.componentToWorldVector(this.inner.direction, this.direction);
    const l = this.direction.length();
    if (l > 0 && Number.isFinite(l)) this.direction.scaleInPlace(1 / l);
  }
}

/** A limb chain in Babylon terms: FinalIK's pull, push, pushParent, reach and the bend constraint. */
export class BabylonChain {
  /** The solver's chain. */
  readonly inner: FBIKChain;
  /** The limb's bend constraint. */
  readonly bendConstraint: BabylonBendConstraint;
  /** The limb's name: "left arm", "right arm", "left leg" or "right leg". */
  readonly name: string;

  /** Wraps `inner`. */
  constructor(inner: FBIKChain, rig: BabylonRig, name: string, warn: (cause: string, message: string) => void) {
    this.inner = inner;
    this.name = name;
    this.bendConstraint = new BabylonBendConstraint(inner.bendConstraint, rig, name, warn);
  }

  /** [0, 1] How much this limb pulls the body when its end effector is out of reach. Default 1. */
  get pull(): number {
    return this.inner.pull;
  }
  set pull(v: number) {
    this.inner.pull = v;
  }
  /** [0, 1] How much the end effector pushes the shoulder/thigh when the limb is compressed. Default 0. */
  get push(): number {
    return this.inner.push;
  }
  set push(v: number) {
    this.inner.push = v;
  }
  /** [−1, 1] Fraction of the push passed on to the body. Default 0. */
  get pushParent(): number {
    return this.inner.pushParent;
  }
  set pushParent(v: number) {
    this.inner.pushParent = v;
  }
  /** [0, 1] Pulls the shoulder/thigh toward the end effector before the limb straightens. Default 0.1. */
  get reach(): number {
    return this.inner.reach;
  }
  set reach(v: number) {
    this.inner.reach = v;
  }
  /** Shaping of the reach force. */
  get reachSmoothing(): Smoothing {
    return this.inner.reachSmoothing;
  }
  set reachSmoothing(v: Smoothing) {
    this.inner.reachSmoothing = v;
  }
  /** Shaping of the push force. */
  get pushSmoothing(): Smoothing {
    return this.inner.pushSmoothing;
  }
  set pushSmoothing(v: Smoothing) {
    this.inner.pushSmoothing = v;
  }
}
