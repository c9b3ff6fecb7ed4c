import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { TwistRelaxerSolver } from "../limb/twist-relaxer-solver.js";
import { Quat } from "../math/quat.js";
import { Vec3 } from "../math/vec3.js";
import { FBBIKError, setUpAs } from "../solver/errors.js";
import { isAncestorBone } from "./bone-chain.js";
import { TWIST_RELAXER_FIELDS } from "./family-settings.js";
import type { FullBodyBipedIK } from "./full-body-biped-ik.js";
import type { IKSettingsGroup } from "./ik-settings.js";
import { type InspectorSetting, weightSetting } from "./inspector-settings.js";
import type { OptionKinds } from "./option-check.js";
import { RIG_COMPONENT_OPTION_KINDS, RigComponent, type RigComponentOptions } from "./rig-component.js";
import { IKUpdateOrder } from "./scene-updater.js";
import { checkSkeletonScene } from "./skeleton-scene.js";

/** Options of {@link TwistRelaxer.create}. */
export interface TwistRelaxerOptions extends RigComponentOptions {
  /** The bone whose twist is one end of the mix (default: the bone's parent; the upper arm for a forearm). */
  parent?: Bone;
  /**
   * The bone whose twist is the other end, which keeps its rotation (default: the bone's child with the most bones
   * under it; the hand for a forearm). For a twist bone beside the hand (Unreal's `lowerarm_twist_01_l`), the hand.
   */
  child?: Bone;
  /** `solver.weight` (default 1). */
  weight?: number;
  /** `solver.parentChildCrossfade`: 0 follows the parent's twist, 1 the child's (default 0.5). */
  parentChildCrossfade?: number;
  /** `solver.twistAngleOffset`, radians about the twist axis (default 0). */
  twistAngleOffset?: number;
}

/** The kinds of {@link TwistRelaxerOptions}, for the check at create. */
export const TWIST_RELAXER_OPTION_KINDS: OptionKinds<TwistRelaxerOptions> = {
  ...RIG_COMPONENT_OPTION_KINDS,
  parent: "object",
  child: "object",
  weight: "number",
  parentChildCrossfade: "number",
  twistAngleOffset: "number",
};

/** The two forearms' relaxers of {@link TwistRelaxer.createForArms}. */
export interface ArmTwistRelaxers {
  /** The left forearm's. */
  readonly left: TwistRelaxer;
  /** The right forearm's. */
  readonly right: TwistRelaxer;
}

/**
 * FinalIK's TwistRelaxer on a Babylon skeleton: after the IK, turns a bone about its own axis so that its twist
 * lies between its parent's and its child's (measured from the rest pose, the most relaxed one). A hand turned by
 * the IK twists the wrist alone, and the skin there pinches; relaxing the forearm (parent the upper arm, child the
 * hand) or a twist bone spreads that twist along the forearm. The child keeps its world rotation and the bone its
 * direction: only the twist changes. A hand carried past a half turn keeps the bone's side for 45° more, so it does
 * not flip at 180°. Solves after every other IK of the scene ({@link IKUpdateOrder}.Twist).
 *
 * ```ts
 * const relax = TwistRelaxer.create(scene, forearm, { parentChildCrossfade: 0.5 });
 * relax.solver.weight = 1;
 * ```
 */
export class TwistRelaxer extends RigComponent {
  /** The engine-neutral relaxer: weight, parentChildCrossfade, twistAngleOffset. */
  readonly solver: TwistRelaxerSolver;
  /** The twisted bone, its parent and its child (the ends of the mix). */
  readonly bones: readonly [parent: Bone, bone: Bone, child: Bone];

  private constructor(bone: Bone, options: TwistRelaxerOptions) {
    const parent = options.parent ?? bone.getParent();
    const child = options.child ?? mainChild(bone);
    const problems: string[] = [];
    if (parent === null) problems.push(`"${bone.name}" has no parent: give the parent option`);
    if (child === null) problems.push(`"${bone.name}" has no single main child: give the child option`);
    if (problems.length > 0) throw new FBBIKError(problems);
    const follows = isAncestorBone(bone, child!);
    super(bone.getSkeleton(), [bone, parent!, child!], options, IKUpdateOrder.Twist, TWIST_RELAXER_OPTION_KINDS);
    this.bones = [parent!, bone, child!];
    const rig = this.rig;
    const [p, b, c] = [restOf(parent!), restOf(bone), restOf(child!)];
    try {
      this.solver = new TwistRelaxerSolver(
        rig.idOf(parent!),
        rig.idOf(bone),
        rig.idOf(child!),
        {
          parentRotation: p.rotation,
          boneRotation: b.rotation,
          childRotation: c.rotation,
          parentPosition: p.position,
          bonePosition: b.position,
          childPosition: c.position,
        },
        follows,
      );
    } catch (e) {
      // nothing half-built: the rig watches the bones' disposal already
      this.rig.dispose();
      if (e instanceof FBBIKError) {
        throw new FBBIKError([`"${bone.name}" has no length toward its child "${child!.name}": no twist axis`]);
      }
      throw e;
    }
    if (options.weight !== undefined) this.solver.weight = options.weight;
    if (options.parentChildCrossfade !== undefined) this.solver.parentChildCrossfade = options.parentChildCrossfade;
    if (options.twistAngleOffset !== undefined) this.solver.twistAngleOffset = options.twistAngleOffset;
    this.attach(follows ? [bone, child!] : [bone]);
  }

  /** Shows the crossfade in Babylon's Inspector beside the weight (`twistrelaxer_<bone>_parentChildCrossfade`). */
  protected override inspectorExtras(label: string): InspectorSetting[] {
    const s = this.solver;
    return [
      weightSetting(
        "parentChildCrossfade",
        `${label} parent-child crossfade`,
        () => s.parentChildCrossfade,
        (v) => {
          s.parentChildCrossfade = v;
        },
      ),
    ];
  }

  /**
   * Attaches a TwistRelaxer to `bone` of a skeleton in `scene`, the skeleton's. Throws {@link FBBIKError} naming
   * the bone when it has no parent or main child (and none is given), or no length toward its child.
   */
  static create(scene: Scene, bone: Bone, options: TwistRelaxerOptions = {}): TwistRelaxer {
    return setUpAs("TwistRelaxer", () => {
      checkSkeletonScene(scene, bone);
      return new TwistRelaxer(bone, options);
    });
  }

  /**
   * Relaxes both forearms of a FullBodyBipedIK, each between its upper arm and its hand: one line for hands that
   * the IK turns (`rotationWeight`, an interaction's grip). The two solve after the IK and are disposed with it.
   */
  static createForArms(
    ik: FullBodyBipedIK,
    options: Omit<TwistRelaxerOptions, "parent" | "child"> = {},
  ): ArmTwistRelaxers {
    const r = ik.references;
    const arm = (upper: Bone, forearm: Bone, hand: Bone) =>
      TwistRelaxer.create(ik.scene, forearm, { ...options, parent: upper, child: hand });
    const left = arm(r.leftUpperArm, r.leftForearm, r.leftHand);
    let right: TwistRelaxer;
    try {
      right = arm(r.rightUpperArm, r.rightForearm, r.rightHand);
    } catch (e) {
      left.dispose();
      throw e;
    }
    const observer = ik.onDisposeObservable.addOnce(() => {
      left.dispose();
      right.dispose();
    });
    // a relaxer disposed first lets go of the IK's observable
    const forget = () => {
      if (left.isDisposed && right.isDisposed) ik.onDisposeObservable.remove(observer);
    };
    left.onDisposeObservable.addOnce(forget);
    right.onDisposeObservable.addOnce(forget);
    return { left, right };
  }

  /**
   * Creates a TwistRelaxer ({@link create}) and loads the settings `parsed` into it (`applySettings`): Babylon's
   * `Parse` for settings saved by `serialize`.
   */
  static Parse(parsed: unknown, scene: Scene, bone: Bone, options: TwistRelaxerOptions = {}): TwistRelaxer {
    const relaxer = TwistRelaxer.create(scene, bone, options);
    relaxer.applySettings(parsed);
    return relaxer;
  }

  /** "TwistRelaxer". */
  getClassName(): string {
    return "TwistRelaxer";
  }

  /** @internal */
  protected override settingsFinite(): boolean {
    const s = this.solver;
    return super.settingsFinite() && Number.isFinite(s.weight + s.parentChildCrossfade + s.twistAngleOffset);
  }

  /** The component's settings, then the relaxer's weight, cross-fade and offset. */
  protected override settingsGroups(): IKSettingsGroup[] {
    return [...super.settingsGroups(), { key: "solver", target: this.solver, fields: TWIST_RELAXER_FIELDS }];
  }

  /** @inheritdoc */
  protected solve(): void {
    this.solver.relax(this.rig);
  }
}

/** The child of `bone` with the most bones under it (the limb goes on there, not a leaf twist bone); null on a tie. */
function mainChild(bone: Bone): Bone | null {
  let best: Bone | null = null;
  let most = -1;
  let tie = false;
  for (const c of bone.children) {
    const n = countBelow(c);
    if (n > most) {
      best = c;
      most = n;
      tie = false;
    } else if (n === most) {
      tie = true;
    }
  }
  return tie ? null : best;
}

function countBelow(bone: Bone): number {
  let n = 0;
  for (const c of bone.children) n += 1 + countBelow(c);
  return n;
}

/**
 * The rest (bind) pose of `bone` in the skeleton's space: its rest matrices up to the root, decomposed. Only the
 * three bones' relations to one another are used, so the frame above the skeleton does not matter.
 */
function restOf(bone: Bone): { rotation: Quat; position: Vec3 } {
  const m = bone.getRestMatrix().clone();
  for (let p = bone.getParent(); p !== null; p = p.getParent()) m.multiplyToRef(p.getRestMatrix(), m);
  const q = new Quaternion();
  const t = new Vector3();
  m.decompose(undefined, q, t);
  q.normalize();
  return { rotation: new Quat(q.x, q.y, q.z, q.w), position: new Vec3(t.x, t.y, t.z) };
}
