import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { IKSolverLimb, LIMB_BEND_MODIFIERS, type LimbBendModifier } from "../limb/ik-solver-limb.js";
import { Vec3, cross, dot, length, lengthSq, normalize, scale, sub } from "../math/vec3.js";
import { FBBIKError, setUpAs } from "../solver/errors.js";
import { checkChain } from "./bone-chain.js";
import { detectBipedFacing } from "./character-forward.js";
import { LIMB_FIELDS } from "./family-settings.js";
import type { IKSettingsGroup } from "./ik-settings.js";
import { RIG_COMPONENT_OPTION_KINDS, RigComponent, type RigComponentOptions, type IKTarget } from "./rig-component.js";
import { IKUpdateOrder } from "./scene-updater.js";
import { checkSkeletonScene } from "./skeleton-scene.js";
import { type OptionKinds, checkChoice } from "./option-check.js";

const tv = new Vec3();

/** Options of {@link LimbIK.create}. */
export interface LimbIKOptions extends RigComponentOptions {
  /** The node the end bone (hand or foot) follows: position, and rotation by `solver.ikRotationWeight`. */
  target?: IKTarget | null;
  /** The node the middle joint (elbow or knee) bends toward, by `solver.bendGoalWeight` (FinalIK's bendGoal). */
  bendGoal?: IKTarget | null;
  /**
   * How the bend plane follows the animation when there is no bend goal (default `"animation"`). `"arm"` bends an
   * arm's elbow (a leg's knee) to its natural side for the reach, for an arm or leg the biped detection finds.
   */
  bendModifier?: LimbBendModifier;
  /**
   * The bend plane's normal in world space at creation. Default: the plane of the limb as created; for a limb
   * straight as created (a T-posed arm), the plane that bends an elbow toward the character's back and a knee
   * toward its front when the limb is an arm or leg of a skeleton the biped detection recognises.
   */
  bendNormal?: Vector3;
}

/** The kinds of {@link LimbIKOptions}, for the check at create. */
export const LIMB_IK_OPTION_KINDS: OptionKinds<LimbIKOptions> = {
  ...RIG_COMPONENT_OPTION_KINDS,
  target: "object|null",
  bendGoal: "object|null",
  bendModifier: "string",
  bendNormal: "object",
};

/**
 * FinalIK's LimbIK on a Babylon skeleton: an arm or a leg (upper, middle and end bone) solved exactly by the
 * law of cosines. The end bone reaches {@link target} (and takes its rotation by `solver.ikRotationWeight`);
 * the middle joint bends in a plane chosen by the bend goal or the bend modifier (keep the animated bend,
 * follow the target's rotation, follow the parent bone). A target beyond reach straightens the limb toward
 * it; one closer than the bones allow folds it.
 *
 * ```ts
 * const arm = LimbIK.create(scene, upperArm, forearm, hand, { target: grip, bendGoal: elbowHint });
 * arm.solver.bendGoalWeight = 1;
 * ```
 */
export class LimbIK extends RigComponent {
  /** The engine-neutral solver: weights, bend modifier, bend goal weight, maintainRotationWeight. */
  readonly solver: IKSolverLimb;
  /** Upper, middle and end bone. */
  readonly bones: readonly [Bone, Bone, Bone];
  /** The end bone's id in the rig (its target rotation is read as the end bone takes it). */
  private readonly endId: number;
  /** The node the end bone follows, or null to use {@link targetPosition}/{@link targetRotation}. */
  target: IKTarget | null;
  /** The node the middle joint bends toward, or null to use {@link bendGoalPosition}. */
  bendGoal: IKTarget | null;
  /** World position the end bone follows when there is no {@link target} (default: where it was created). */
  readonly targetPosition = new Vector3();
  /** World rotation the end bone takes when there is no {@link target} (default: as created). */
  readonly targetRotation = new Quaternion();
  /** World position the middle joint bends toward when there is no {@link bendGoal}. */
  readonly bendGoalPosition = new Vector3();
  /** The last {@link bendGoal} a solve saw (its weight checked once: a goal at weight 0 does nothing). */
  private goalSeen: IKTarget | null = null;

  private constructor(upper: Bone, middle: Bone, end: Bone, options: LimbIKOptions) {
    const skeleton = upper.getSkeleton();
    checkChain([upper, middle, end], 3);
    const parent = upper.getParent();
    super(
      skeleton,
      parent !== null ? [upper, middle, end, parent] : [upper, middle, end],
      options,
      IKUpdateOrder.Limb,
      LIMB_IK_OPTION_KINDS,
    );
    const rig = this.rig;
    this.bones = [upper, middle, end];
    const facing = detectBipedFacing(this.skeleton, options.mesh ?? null);
    const r = facing?.references;
    const kind =
      r === undefined
        ? null
        : (upper === r.leftUpperArm && middle === r.leftForearm) ||
            (upper === r.rightUpperArm && middle === r.rightForearm)
          ? "arm"
          : (upper === r.leftThigh && middle === r.leftCalf) || (upper === r.rightThigh && middle === r.rightCalf)
            ? "leg"
            : null;
    let bendNormal: Vec3 | undefined;
    if (options.bendNormal !== undefined) {
      tv.x = options.bendNormal.x;
      tv.y = options.bendNormal.y;
      tv.z = options.bendNormal.z;
      bendNormal = rig.worldToComponentVector(tv, new Vec3());
    } else {
      bendNormal =
        this.straightLimbNormal(upper, middle, end, kind === null ? null : facing!.forward, kind) ?? undefined;
    }
    this.solver = new IKSolverLimb(rig, rig.idOf(upper), rig.idOf(middle), rig.idOf(end), {
      parent: parent !== null ? rig.idOf(parent) : undefined,
      bendNormal,
    });
    if (kind !== null) {
      // the `arm` bend modifier's frame: the character's forward and up, in component space
      const forward = rig.worldToComponentVector(facing!.forward, new Vec3());
      const up = rig.worldToComponentVector(facing!.up, new Vec3());
      this.solver.setNaturalFrame(kind === "arm" ? -1 : 1, forward, up, this.armOutward(kind, parent, forward, up));
    }
    const bendModifier = checkChoice("LimbIK", "bendModifier", options.bendModifier, LIMB_BEND_MODIFIERS);
    if (bendModifier !== undefined) this.solver.bendModifier = bendModifier;
    this.target = options.target ?? null;
    this.bendGoal = options.bendGoal ?? null;
    rig.getWorldPosition(rig.idOf(end), this.targetPosition);
    this.endId = rig.idOf(end);
    rig.getWorldRotation(this.endId, this.targetRotation);
    rig.getWorldPosition(rig.idOf(middle), this.bendGoalPosition);
    this.attach(this.bones);
  }

  /**
   * Attaches LimbIK to three bones of one skeleton: `upper` an ancestor of `middle`, `middle` of `end`, in `scene`,
   * the skeleton's. Throws {@link FBBIKError} naming the bones when they are not a limb, or when `scene` is not the
   * skeleton's.
   */
  static create(scene: Scene, upper: Bone, middle: Bone, end: Bone, options: LimbIKOptions = {}): LimbIK {
    return setUpAs("LimbIK", () => {
      checkSkeletonScene(scene, upper);
      return new LimbIK(upper, middle, end, options);
    });
  }

  /**
   * Creates a LimbIK ({@link create}) and loads the settings `parsed` into it (`applySettings`): Babylon's `Parse`
   * for settings saved by `serialize`, from this limb or another one.
   */
  static Parse(
    parsed: unknown,
    scene: Scene,
    upper: Bone,
    middle: Bone,
    end: Bone,
    options: LimbIKOptions = {},
  ): LimbIK {
    const ik = LimbIK.create(scene, upper, middle, end, options);
    ik.applySettings(parsed);
    return ik;
  }

  /** "LimbIK". */
  getClassName(): string {
    return "LimbIK";
  }

  /** @internal */
  protected override settingsFinite(): boolean {
    const s = this.solver;
    const sum = s.ikPositionWeight + s.ikRotationWeight + s.bendModifierWeight + s.bendGoalWeight;
    return super.settingsFinite() && Number.isFinite(sum + s.maintainRotationWeight);
  }

  /** The component's settings, then the solver's weights and bend modifier. */
  protected override settingsGroups(): IKSettingsGroup[] {
    return [...super.settingsGroups(), { key: "solver", target: this.solver, fields: LIMB_FIELDS }];
  }

  /**
   * For a limb straight as created, which has no bend plane of its own: the normal that bends it the way a
   * biped's elbow (back) or knee (front) bends, or null (warned) when the limb is not one a detection finds.
   */
  private straightLimbNormal(
    upper: Bone,
    middle: Bone,
    end: Bone,
    forward: Vector3 | null,
    kind: "arm" | "leg" | null,
  ): Vec3 | null {
    const rig = this.rig;
    const p1 = rig.positions[rig.idOf(upper)]!;
    const p2 = rig.positions[rig.idOf(middle)]!;
    const p3 = rig.positions[rig.idOf(end)]!;
    const u = sub(new Vec3(), p2, p1);
    const v = sub(new Vec3(), p3, p2);
    const n = cross(new Vec3(), u, v);
    // FullBodyBipedIK's threshold: bones within about 0.06° of a line
    if (lengthSq(n) > 1e-6 * lengthSq(u) * lengthSq(v)) return null;
    if (forward !== null && kind !== null) {
      tv.x = forward.x;
      tv.y = forward.y;
      tv.z = forward.z;
      const side = rig.worldToComponentVector(tv, new Vec3());
      if (kind === "arm") scale(side, side, -1);
      // the normal whose bend side, cross(limb, normal), is `side`
      cross(n, side, sub(u, p3, p1));
      if (lengthSq(n) > 1e-12 * lengthSq(side) * lengthSq(u)) return normalize(n, n);
    }
    this.warn(
      "straight-limb",
      `${upper.name} → ${middle.name} → ${end.name} is straight in this pose, so its bend plane is a guess: ` +
        "give bendNormal or a bend goal.",
    );
    return null;
  }

  /**
   * For an arm, the side it hangs on, across the component-space `forward` and `up`: the shoulder seen from its
   * parent (clavicle or chest); undefined when that offset is not sideways, so the elbow keeps the rule.
   */
  private armOutward(kind: "arm" | "leg", parent: Bone | null, forward: Vec3, up: Vec3): Vec3 | undefined {
    if (kind !== "arm" || parent === null) return undefined;
    const rig = this.rig;
    const across = cross(new Vec3(), forward, up);
    const offset = sub(new Vec3(), rig.positions[rig.idOf(this.bones[0])]!, rig.positions[rig.idOf(parent)]!);
    const d = dot(offset, across);
    // a shoulder less than a fifth of its offset to the side of its parent: no side to read
    if (!(Math.abs(d) > 0.2 * length(offset) * length(across))) return undefined;
    return scale(across, across, Math.sign(d));
  }

  /** @internal */
  protected override solveTargetOwners(): void {
    this.solveTargetOwner(this.target);
    if (this.solver.bendGoalWeight > 0 || this.solver.bendModifier === "goal") this.solveTargetOwner(this.bendGoal);
  }

  /** @inheritdoc */
  protected solve(): void {
    const s = this.solver;
    if (this.target?.isDisposed())
      this.target = this.letGoOf(this.target, "target", this.targetPosition, this.targetRotation);
    if (this.bendGoal?.isDisposed())
      this.bendGoal = this.letGoOf(this.bendGoal, "bendGoal", this.bendGoalPosition, null);
    const node = this.target;
    if (!this.readTargetPosition(node, node === null ? this.targetPosition : null, s.ikPosition, "target")) return;
    if (s.ikRotationWeight > 0) {
      this.readTargetRotation(node, node === null ? this.targetRotation : null, s.ikRotation, "target", this.endId);
    }
    if (this.bendGoal !== this.goalSeen) this.checkGoalWeight();
    if (s.bendGoalWeight > 0 || s.bendModifier === "goal") {
      const goal = this.bendGoal;
      this.readTargetPosition(goal, goal === null ? this.bendGoalPosition : null, s.bendGoal, "bendGoal");
    }
    const driver = this._legDriver;
    if (driver !== null) driver._beforeLegSolve(this);
    s.solve();
    if (driver !== null) driver._afterLegSolve(this);
    if (s.skipReason === "target unusable") {
      this.warn(
        "target:on-root",
        "The target is on the limb's root (no way to reach it) or not usable: the bones keep the animated pose.",
      );
    }
  }

  /** Warns once when a new bend goal node arrives with nothing to weigh it (FinalIK's bendGoal needs its weight). */
  private checkGoalWeight(): void {
    this.goalSeen = this.bendGoal;
    const s = this.solver;
    if (this.bendGoal === null || s.bendGoalWeight > 0 || s.bendModifier === "goal") return;
    this.warn(
      "bendGoal:no-weight",
      'bendGoal is set but solver.bendGoalWeight is 0 (and bendModifier is not "goal"): the elbow or knee ignores ' +
        "it until the weight is raised.",
    );
  }
}
