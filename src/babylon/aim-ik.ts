import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { IKSolverAim } from "../aim/ik-solver-aim.js";
import { Quat, conjugate, rotateVector } from "../math/quat.js";
import { Vec3, normalize } from "../math/vec3.js";
import { FBBIKError, setUpAs } from "../solver/errors.js";
import { chainProblems, isAncestorBone } from "./bone-chain.js";
import { AIM_FIELDS, linkWeightGroups } from "./family-settings.js";
import type { IKSettingsGroup } from "./ik-settings.js";
import { RIG_COMPONENT_OPTION_KINDS, RigComponent, type RigComponentOptions, type IKTarget } from "./rig-component.js";
import { IKUpdateOrder } from "./scene-updater.js";
import { currentWorldMatrix } from "./world-matrix.js";
import { checkSkeletonScene } from "./skeleton-scene.js";
import type { OptionKinds } from "./option-check.js";

/** Options of {@link AimIK.create}. */
export interface AimIKOptions extends RigComponentOptions {
  /** The node the aim points at. */
  target?: IKTarget | null;
  /** The bone that carries the aim (default: the chain's last bone); it must follow the last bone rigidly. */
  aimBone?: Bone;
  /**
   * A node under the aim bone that aims (a gun's barrel): the aim axis and its origin are taken from it at
   * creation (its `axis`, default +Z, and its position, relative to the aim bone).
   */
  aimTransform?: TransformNode;
  /** The aim axis: in `aimTransform`'s own frame when given, else in the aim bone's (default +Z). */
  axis?: Vector3;
  /** The node the pole axis (the aim bone's +Y unless `poleAxis`) turns toward, by `solver.poleWeight`. */
  poleTarget?: IKTarget | null;
  /** The axis turned toward the pole target, in the aim bone's frame (default +Y). */
  poleAxis?: Vector3;
}

/** The kinds of {@link AimIKOptions}, for the check at create. */
export const AIM_IK_OPTION_KINDS: OptionKinds<AimIKOptions> = {
  ...RIG_COMPONENT_OPTION_KINDS,
  target: "object|null",
  aimBone: "object",
  aimTransform: "object",
  axis: "object",
  poleTarget: "object|null",
  poleAxis: "object",
};

const tq = new Quat();
const tv = new Vec3();
const tw = new Vec3();
const bone3 = new Vec3();

/**
 * FinalIK's AimIK on a Babylon skeleton: turns a chain of bones (a spine and an arm, a neck, a turret) so
 * that an axis of its last bone, or of a node under it (a gun's barrel), points at {@link target}. Each bone
 * turns by its weight (`solver.bones[i].weight`), iterated from the tip to the root; `solver.clampWeight`
 * keeps the aim within reach of the animated direction, `solver.poleWeight` twists it about the axis.
 *
 * ```ts
 * const aim = AimIK.create(scene, [spine, chest, upperArm, forearm, hand], { target: enemy, aimTransform: barrel });
 * aim.solver.clampWeight = 0.2;
 * ```
 */
export class AimIK extends RigComponent {
  /** The engine-neutral solver: weights, iterations, tolerance, clamp, pole. */
  readonly solver: IKSolverAim;
  /** The chain's bones, root first. */
  readonly bones: readonly Bone[];
  /** The node the aim points at, or null to use {@link targetPosition}. */
  target: IKTarget | null;
  /** The node the pole axis turns toward, or null to use {@link polePosition}. */
  poleTarget: IKTarget | null;
  /** World point the aim points at when there is no {@link target} (default: along the axis as created). */
  readonly targetPosition = new Vector3();
  /** World point the pole axis turns toward when there is no {@link poleTarget}. */
  readonly polePosition = new Vector3();

  private constructor(bones: readonly Bone[], options: AimIKOptions) {
    const skeleton = bones[0]?.getSkeleton();
    if (skeleton === undefined) throw new FBBIKError(["AimIK needs at least one bone"]);
    const aimBone = options.aimBone ?? bones[bones.length - 1]!;
    const last = bones[bones.length - 1]!;
    const problems = chainProblems(bones, 1);
    if (aimBone !== last && !isAncestorBone(last, aimBone)) {
      problems.push(`aimBone "${aimBone.name}" is not the chain's last bone "${last.name}" or under it`);
    }
    if (problems.length > 0) throw new FBBIKError(problems);
    super(
      skeleton,
      aimBone === bones[bones.length - 1] ? bones : [...bones, aimBone],
      options,
      IKUpdateOrder.Aim,
      AIM_IK_OPTION_KINDS,
    );
    const rig = this.rig;
    this.bones = [...bones];
    const aimId = rig.idOf(aimBone);
    const axis = new Vec3(0, 0, 1);
    const offset = new Vec3();
    rig.getRotation(aimId, tq);
    conjugate(tq, tq);
    if (options.aimTransform !== undefined) {
      // the barrel's axis and origin, from the world into the aim bone's frame (component space, unscaled)
      const m = currentWorldMatrix(options.aimTransform);
      const a = options.axis ?? new Vector3(0, 0, 1);
      const world = Vector3.TransformNormal(a, m);
      tv.x = world.x;
      tv.y = world.y;
      tv.z = world.z;
      rotateVector(axis, tq, normalize(tv, rig.worldToComponentVector(tv, tv)));
      tv.x = m.m[12]!;
      tv.y = m.m[13]!;
      tv.z = m.m[14]!;
      rig.worldToComponentPoint(tv, tw);
      rig.getPosition(aimId, bone3);
      tw.x -= bone3.x;
      tw.y -= bone3.y;
      tw.z -= bone3.z;
      rotateVector(offset, tq, tw);
    } else if (options.axis !== undefined) {
      axis.x = options.axis.x;
      axis.y = options.axis.y;
      axis.z = options.axis.z;
    }
    const poleAxis =
      options.poleAxis !== undefined ? new Vec3(options.poleAxis.x, options.poleAxis.y, options.poleAxis.z) : undefined;
    const ids = bones.map((b) => rig.idOf(b));
    // the frame of the first bone's rotation limit, as the chain solvers take it
    const parent = rig.parents[ids[0]!]!;
    this.solver = new IKSolverAim(rig, ids, {
      aimBone: aimId,
      axis,
      aimOffset: offset,
      poleAxis,
      rootParent: parent > 0 ? parent : undefined,
    });
    this.target = options.target ?? null;
    this.poleTarget = options.poleTarget ?? null;
    rig.componentToWorldPoint(this.solver.ikPosition, this.targetPosition);
    rig.componentToWorldPoint(this.solver.polePosition, this.polePosition);
    this.attach(bones);
  }

  /**
   * Attaches AimIK to `bones` (root first, each an ancestor of the next, one skeleton) in `scene`, the skeleton's
   * (another scene throws an {@link FBBIKError}).
   */
  static create(scene: Scene, bones: readonly Bone[], options: AimIKOptions = {}): AimIK {
    return setUpAs("AimIK", () => {
      checkSkeletonScene(scene, bones[0]);
      return new AimIK(bones, options);
    });
  }

  /** Creates an AimIK ({@link create}) and loads the settings `parsed` into it: Babylon's `Parse` (see `serialize`). */
  static Parse(parsed: unknown, scene: Scene, bones: readonly Bone[], options: AimIKOptions = {}): AimIK {
    const ik = AimIK.create(scene, bones, options);
    ik.applySettings(parsed);
    return ik;
  }

  /** "AimIK". */
  getClassName(): string {
    return "AimIK";
  }

  /** @internal */
  protected override settingsFinite(): boolean {
    const s = this.solver;
    let sum = s.ikPositionWeight + s.poleWeight + s.tolerance + s.maxIterations + s.clampWeight + s.clampSmoothing;
    for (let i = 0; i < s.bones.length; i++) sum += s.bones[i]!.weight;
    return super.settingsFinite() && Number.isFinite(sum);
  }

  /** The component's settings, then the solver's weights, clamp and iterations and each bone's weight. */
  protected override settingsGroups(): IKSettingsGroup[] {
    return [
      ...super.settingsGroups(),
      { key: "solver", target: this.solver, fields: AIM_FIELDS },
      ...linkWeightGroups("solver.links", this.solver.bones),
    ];
  }

  /**
   * Takes the bones' pose as it stands now (as the animation or your code left it; this component's output, and
   * between frames the output of the character's other IKs, taken off) as the rest the rotation limits work from:
   * each bone's rotation relative to the one before it.
   * `solver.readRestPose()` alone reads the solver's pose as last solved, not the bones. The limits of a component
   * created mid-clip work from that frame's pose; to have them work from the bind pose:
   * `skeleton.returnToRest(); ik.readRestPose();` (the animation takes the bones back the next frame).
   */
  readRestPose(): void {
    this.withBonesAsTheyStand(() => this.solver.readRestPose());
  }

  /** @internal */
  protected override solveTargetOwners(): void {
    this.solveTargetOwner(this.target);
    if (this.solver.poleWeight > 0) this.solveTargetOwner(this.poleTarget);
  }

  /** @inheritdoc */
  protected solve(): void {
    const s = this.solver;
    if (this.target?.isDisposed()) this.target = this.letGoOf(this.target, "target", this.targetPosition, null);
    if (this.poleTarget?.isDisposed())
      this.poleTarget = this.letGoOf(this.poleTarget, "poleTarget", this.polePosition, null);
    const node = this.target;
    if (!this.readTargetPosition(node, node === null ? this.targetPosition : null, s.ikPosition, "target")) return;
    if (s.poleWeight > 0) {
      const pole = this.poleTarget;
      this.readTargetPosition(pole, pole === null ? this.polePosition : null, s.polePosition, "poleTarget");
    }
    s.solve();
    if (s.skipReason === "target on aim point") {
      this.warn(
        "target:on-aim-point",
        "The target is on the aim point (no way to aim): the bones keep the animated pose.",
      );
    }
  }
}
