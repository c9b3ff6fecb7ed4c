import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { PelvisConstraint } from "../limb/pelvis-constraint.js";
import { Quat, identity, multiplyConjugate } from "../math/quat.js";
import { Vec3 } from "../math/vec3.js";
import { setUpAs } from "../solver/errors.js";
import { PELVIS_FIELDS } from "./family-settings.js";
import type { IKSettingsGroup } from "./ik-settings.js";
import { type InspectorSetting, weightSetting } from "./inspector-settings.js";
import type { OptionKinds } from "./option-check.js";
import { type IKTarget, RIG_COMPONENT_OPTION_KINDS, RigComponent, type RigComponentOptions } from "./rig-component.js";
import { IKUpdateOrder } from "./scene-updater.js";
import { checkSkeletonScene } from "./skeleton-scene.js";

const tv = new Vec3();
const tq = new Quat();
const now = new Quat();
const world = new Quaternion();

/** Options of {@link BipedPelvis.create}. */
export interface BipedPelvisOptions extends RigComponentOptions {
  /** The node the pelvis moves to (by `solver.positionWeight`) and turns to (by `solver.rotationWeight`). */
  target?: IKTarget | null;
}

/** The kinds of {@link BipedPelvisOptions}, for the check at create. */
export const BIPED_PELVIS_OPTION_KINDS: OptionKinds<BipedPelvisOptions> = {
  ...RIG_COMPONENT_OPTION_KINDS,
  target: "object|null",
};

/**
 * BipedIK's pelvis (FinalIK's `solvers.pelvis`): moves the pelvis by {@link positionOffset} and turns it by
 * {@link rotationOffset} (both in world space, on top of the animation), then toward its target by
 * `solver.positionWeight` and `solver.rotationWeight`. Nothing is solved: the legs and spine follow because they
 * hang from it. Made by {@link BipedIK}; usable alone on any bone.
 *
 * ```ts
 * const pelvis = BipedPelvis.create(scene, hips);
 * pelvis.positionOffset.set(0, -0.1, 0); // crouch a little
 * ```
 */
export class BipedPelvis extends RigComponent {
  /** The engine-neutral constraint: weights (offsets and targets are copied in from the fields below per frame). */
  readonly solver: PelvisConstraint;
  /** The pelvis bone. */
  readonly bone: Bone;
  /** The node the pelvis moves and turns to, or null to use {@link targetPosition}/{@link targetRotation}. */
  target: IKTarget | null;
  /** World position the pelvis moves to when there is no {@link target} (default: where it was created). */
  readonly targetPosition = new Vector3();
  /** World rotation the pelvis turns to when there is no {@link target} (default: as created). */
  readonly targetRotation = new Quaternion();
  /** World offset added to the animated position every frame (default zero). */
  readonly positionOffset = new Vector3();
  /** World rotation applied on top of the animated rotation every frame (default identity). */
  readonly rotationOffset = new Quaternion();
  private readonly id: number;

  private constructor(bone: Bone, options: BipedPelvisOptions) {
    super(bone.getSkeleton(), [bone], options, IKUpdateOrder.Biped, BIPED_PELVIS_OPTION_KINDS);
    const rig = this.rig;
    this.bone = bone;
    this.id = rig.idOf(bone);
    // the pelvis moves: FixTransforms takes its position off too
    rig.storeDefaultLocalState([{ bone: this.id, position: true }]);
    this.solver = new PelvisConstraint(rig, this.id);
    this.target = options.target ?? null;
    rig.getWorldPosition(this.id, this.targetPosition);
    rig.getWorldRotation(this.id, this.targetRotation);
    this.attach([bone]);
  }

  /** Attaches a BipedPelvis to `bone` of a skeleton in `scene`, the skeleton's (else an {@link FBBIKError}). */
  static create(scene: Scene, bone: Bone, options: BipedPelvisOptions = {}): BipedPelvis {
    return setUpAs("BipedPelvis", () => {
      checkSkeletonScene(scene, bone);
      return new BipedPelvis(bone, options);
    });
  }

  /** Creates a BipedPelvis ({@link create}) and loads the settings `parsed` into it: Babylon's `Parse`. */
  static Parse(parsed: unknown, scene: Scene, bone: Bone, options: BipedPelvisOptions = {}): BipedPelvis {
    const ik = BipedPelvis.create(scene, bone, options);
    ik.applySettings(parsed);
    return ik;
  }

  /** "BipedPelvis". */
  getClassName(): string {
    return "BipedPelvis";
  }

  /** @internal */
  protected override settingsFinite(): boolean {
    return super.settingsFinite() && Number.isFinite(this.solver.positionWeight + this.solver.rotationWeight);
  }

  /** The component's settings, then the constraint's two weights. */
  protected override settingsGroups(): IKSettingsGroup[] {
    return [...super.settingsGroups(), { key: "solver", target: this.solver, fields: PELVIS_FIELDS }];
  }

  /** Its two weights in the Inspector (it has no `ikPositionWeight`). */
  protected override inspectorExtras(label: string): InspectorSetting[] {
    const s = this.solver;
    return [
      weightSetting(
        "positionWeight",
        `${label} position weight`,
        () => s.positionWeight,
        (v) => {
          s.positionWeight = v;
        },
      ),
      weightSetting(
        "rotationWeight",
        `${label} rotation weight`,
        () => s.rotationWeight,
        (v) => {
          s.rotationWeight = v;
        },
      ),
    ];
  }

  /** @internal */
  protected override solveTargetOwners(): void {
    if (this.solver.positionWeight > 0 || this.solver.rotationWeight > 0) this.solveTargetOwner(this.target);
  }

  /** @inheritdoc */
  protected solve(): void {
    const s = this.solver;
    const rig = this.rig;
    if (this.target?.isDisposed())
      this.target = this.letGoOf(this.target, "target", this.targetPosition, this.targetRotation);
    const node = this.target;
    const o = this.positionOffset;
    tv.x = o.x;
    tv.y = o.y;
    tv.z = o.z;
    rig.worldToComponentVector(tv, s.positionOffset);
    const r = this.rotationOffset;
    if (r.x === 0 && r.y === 0 && r.z === 0) {
      identity(s.rotationOffset);
    } else {
      // the world turn as the pelvis takes it (mirrored frames included): offset · world, back into component space
      rig.getWorldRotation(this.id, world);
      r.multiplyToRef(world, world);
      rig.worldToBoneRotation(this.id, world, tq);
      rig.getRotation(this.id, now);
      multiplyConjugate(s.rotationOffset, tq, now);
    }
    if (s.positionWeight > 0) {
      this.readTargetPosition(node, node === null ? this.targetPosition : null, s.position, "target");
    }
    if (s.rotationWeight > 0) {
      this.readTargetRotation(node, node === null ? this.targetRotation : null, s.rotation, "target", this.id);
    }
    s.solve();
  }
}
