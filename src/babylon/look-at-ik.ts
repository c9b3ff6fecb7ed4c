import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { IKSolverLookAt } from "../aim/ik-solver-look-at.js";
import { Vec3, normalize } from "../math/vec3.js";
import { FBBIKError, setUpAs } from "../solver/errors.js";
import { chainProblems, isAncestorBone } from "./bone-chain.js";
import { detectBipedFacing } from "./character-forward.js";
import { LOOK_AT_FIELDS } from "./family-settings.js";
import type { IKSettingsGroup } from "./ik-settings.js";
import { RIG_COMPONENT_OPTION_KINDS, RigComponent, type RigComponentOptions, type IKTarget } from "./rig-component.js";
import { IKUpdateOrder } from "./scene-updater.js";
import { checkSkeletonScene } from "./skeleton-scene.js";
import type { OptionKinds } from "./option-check.js";

/** The bones a {@link LookAtIK} turns. */
export interface LookAtBones {
  /** Spine bones, bottom to top, each an ancestor of the next (may be empty). */
  spine?: readonly Bone[];
  /** The head, below the last spine bone. */
  head?: Bone | null;
  /** The eyes, below the head. */
  eyes?: readonly Bone[];
}

/** Options of {@link LookAtIK.create}. */
export interface LookAtIKOptions extends RigComponentOptions {
  /** The node the character looks at (the camera, a point of interest). */
  target?: IKTarget | null;
  /**
   * The direction the character faces as created, in world space. Default: for a skeleton the biped detection
   * recognises, the way its toes point (as FullBodyBipedIK estimates it); otherwise +Z of the skeleton's own
   * space, glTF's front.
   */
  forward?: Vector3;
}

/** The kinds of {@link LookAtIKOptions}, for the check at create. */
export const LOOK_AT_IK_OPTION_KINDS: OptionKinds<LookAtIKOptions> = {
  ...RIG_COMPONENT_OPTION_KINDS,
  target: "object|null",
  forward: "object",
};

const tv = new Vec3();

/**
 * FinalIK's LookAtIK on a Babylon skeleton: the spine, the head and the eyes turn toward {@link target}, each
 * by its weight (`solver.bodyWeight`, `headWeight`, `eyesWeight`), the spine's share spread over its bones,
 * each part clamped so it never turns beyond what its clamp weight allows from the animated direction
 * (`clampWeight`, `clampWeightHead`, `clampWeightEyes`).
 *
 * ```ts
 * const look = LookAtIK.create(scene, { spine: [spine, chest], head, eyes: [leftEye, rightEye] }, { target: camera });
 * look.solver.headWeight = 0.8;
 * ```
 */
export class LookAtIK extends RigComponent {
  /** The engine-neutral solver: weights and clamps. */
  readonly solver: IKSolverLookAt;
  /** The node looked at, or null to use {@link targetPosition}. */
  target: IKTarget | null;
  /** World point looked at when there is no {@link target} (default: ahead of the head as created). */
  readonly targetPosition = new Vector3();

  private constructor(bones: LookAtBones, options: LookAtIKOptions) {
    const all = [...(bones.spine ?? []), ...(bones.head ? [bones.head] : []), ...(bones.eyes ?? [])];
    const skeleton = all[0]?.getSkeleton();
    if (skeleton === undefined) throw new FBBIKError(["LookAtIK needs a spine, a head or eyes"]);
    const spine = bones.spine ?? [];
    const problems = chainProblems(spine, 0);
    const top = spine[spine.length - 1];
    if (top !== undefined && bones.head && !isAncestorBone(top, bones.head)) {
      problems.push(`the head "${bones.head.name}" is not under the spine's last bone "${top.name}"`);
    }
    if (problems.length > 0) throw new FBBIKError(problems);
    super(skeleton, all, options, IKUpdateOrder.LookAt, LOOK_AT_IK_OPTION_KINDS);
    const rig = this.rig;
    let forward: Vec3 | undefined;
    // a Z-up armature (Mixamo exports, .babylon files) or a character facing −Z makes +Z a poor guess
    const world = options.forward ?? detectBipedFacing(skeleton, options.mesh ?? null)?.forward;
    if (world !== undefined) {
      tv.x = world.x;
      tv.y = world.y;
      tv.z = world.z;
      forward = normalize(new Vec3(), rig.worldToComponentVector(tv, tv));
    }
    this.solver = new IKSolverLookAt(rig, {
      spine: (bones.spine ?? []).map((b) => rig.idOf(b)),
      head: bones.head ? rig.idOf(bones.head) : undefined,
      eyes: (bones.eyes ?? []).map((b) => rig.idOf(b)),
      forward,
    });
    this.target = options.target ?? null;
    rig.componentToWorldPoint(this.solver.ikPosition, this.targetPosition);
    this.attach(all);
  }

  /**
   * Attaches LookAtIK to a spine, a head and eyes (any of them may be left out; one skeleton) in `scene`, the
   * skeleton's (another scene throws an {@link FBBIKError}).
   */
  static create(scene: Scene, bones: LookAtBones, options: LookAtIKOptions = {}): LookAtIK {
    return setUpAs("LookAtIK", () => {
      checkSkeletonScene(scene, bones.spine?.[0] ?? bones.head ?? bones.eyes?.[0] ?? undefined);
      return new LookAtIK(bones, options);
    });
  }

  /** Creates a LookAtIK ({@link create}) and loads the settings `parsed` into it: Babylon's `Parse`. */
  static Parse(parsed: unknown, scene: Scene, bones: LookAtBones, options: LookAtIKOptions = {}): LookAtIK {
    const ik = LookAtIK.create(scene, bones, options);
    ik.applySettings(parsed);
    return ik;
  }

  /** "LookAtIK". */
  getClassName(): string {
    return "LookAtIK";
  }

  /** @internal */
  protected override settingsFinite(): boolean {
    const s = this.solver;
    const sum = s.ikPositionWeight + s.bodyWeight + s.headWeight + s.eyesWeight + s.clampSmoothing;
    return super.settingsFinite() && Number.isFinite(sum + s.clampWeight + s.clampWeightHead + s.clampWeightEyes);
  }

  /** The component's settings, then the solver's weights and clamps. */
  protected override settingsGroups(): IKSettingsGroup[] {
    return [...super.settingsGroups(), { key: "solver", target: this.solver, fields: LOOK_AT_FIELDS }];
  }

  /** @internal */
  protected override solveTargetOwners(): void {
    this.solveTargetOwner(this.target);
  }

  /** @inheritdoc */
  protected solve(): void {
    const s = this.solver;
    if (this.target?.isDisposed()) this.target = this.letGoOf(this.target, "target", this.targetPosition, null);
    const node = this.target;
    if (!this.readTargetPosition(node, node === null ? this.targetPosition : null, s.ikPosition, "target")) return;
    s.solve();
  }
}
