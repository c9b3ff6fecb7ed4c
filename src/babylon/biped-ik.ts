import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FBBIKError, setUpAs } from "../solver/errors.js";
import { forgetCauses } from "../solver/forget-causes.js";
import type { SolverWarning } from "../solver/full-body.js";
import { AimIK } from "./aim-ik.js";
import { BipedPelvis } from "./biped-pelvis.js";
import { addBodySolver, refuseSecondBody, removeBodySolver } from "./body-solver.js";
import {
  BIPED_REFERENCES_INPUT_KINDS,
  type BipedReferences,
  type BipedReferencesInput,
  resolveReferences,
} from "./biped-references.js";
import { FABRIK } from "./chain-ik.js";
import { notifyDisposed } from "./dispose-notice.js";
import { IK_SETTINGS_VERSION, type IKSettingValue, type IKSettingsObject } from "./ik-settings.js";
import { LimbIK } from "./limb-ik.js";
import { LookAtIK } from "./look-at-ik.js";
import { type OptionKinds, checkOptions, objectOf, warnUnknownOptions } from "./option-check.js";
import { RIG_COMPONENT_OPTION_KINDS, type RigComponent, type RigComponentOptions } from "./rig-component.js";
import { IKUpdateOrder } from "./scene-updater.js";
import { checkSkeletonScene } from "./skeleton-scene.js";

/** Options of {@link BipedIK.create}; the component options apply to every part. */
export interface BipedIKOptions extends RigComponentOptions {
  /** Bones that override the detected ones (by object or name), as FullBodyBipedIK's. */
  references?: BipedReferencesInput;
  /** A node under the last spine bone that `solvers.aim` aims (a gun's barrel); default: that bone itself. */
  aimTransform?: TransformNode;
  /** The aim axis, in `aimTransform`'s frame when given, else in the last spine bone's (default +Z). */
  aimAxis?: Vector3;
}

/** The kinds of {@link BipedIKOptions}, for the check at create. */
export const BIPED_IK_OPTION_KINDS: OptionKinds<BipedIKOptions> = {
  ...RIG_COMPONENT_OPTION_KINDS,
  references: objectOf(BIPED_REFERENCES_INPUT_KINDS),
  aimTransform: "object",
  aimAxis: "object",
};

/** The parts of a {@link BipedIK}, FinalIK's `solvers`: each an ordinary component of the family. */
export interface BipedIKSolvers {
  /** The left leg: thigh, calf, foot. */
  readonly leftFoot: LimbIK;
  /** The right leg. */
  readonly rightFoot: LimbIK;
  /** The left arm: upper arm, forearm, hand. */
  readonly leftHand: LimbIK;
  /** The right arm. */
  readonly rightHand: LimbIK;
  /** The spine (its top bone reaches the target), FABRIK. */
  readonly spine: FABRIK;
  /** The spine aiming an axis of its top bone (or of `aimTransform`). */
  readonly aim: AimIK;
  /** The spine, head and eyes looking at a target. */
  readonly lookAt: LookAtIK;
  /** The pelvis's offsets and target. */
  readonly pelvis: BipedPelvis;
}

/** The keys of {@link BipedIKSolvers} in the order the parts solve. */
export const BIPED_IK_ORDER = [
  "pelvis",
  "leftFoot",
  "rightFoot",
  "spine",
  "aim",
  "lookAt",
  "leftHand",
  "rightHand",
] as const satisfies readonly (keyof BipedIKSolvers)[];

/**
 * FinalIK's BipedIK: a light biped IK made of the family's simple solvers on automatically found bones: a
 * LimbIK for each hand and foot, a FABRIK spine, an AimIK, a LookAtIK and a pelvis constraint
 * ({@link BipedIKSolvers}). Every weight starts at 0 (the animation shows untouched): set a part's target and
 * weight. The parts solve in {@link BIPED_IK_ORDER} (pelvis, feet, spine, aim, look-at, hands), together at
 * `updateOrder` ({@link IKUpdateOrder}.Biped by default), so a hand target carried by the aimed spine is reached.
 * Cheaper than FullBodyBipedIK, but nothing pulls the body toward a hand or a foot.
 *
 * ```ts
 * const ik = BipedIK.create(scene, skeleton);
 * ik.solvers.leftHand.target = grip;
 * ik.solvers.leftHand.solver.ikPositionWeight = 1;
 * ik.solvers.lookAt.target = camera;
 * ik.solvers.lookAt.solver.ikPositionWeight = 1;
 * ```
 */
export class BipedIK {
  /** The scene. */
  readonly scene: Scene;
  /** The skeleton. */
  readonly skeleton: Skeleton;
  /** The bones found (or given). */
  readonly references: BipedReferences;
  /** The parts. */
  readonly solvers: BipedIKSolvers;
  /** The parts in the order they solve ({@link BIPED_IK_ORDER}). */
  readonly parts: readonly RigComponent[];
  /** Notified once by {@link dispose}, before the parts are disposed. */
  readonly onDisposeObservable = new Observable<BipedIK>();
  /** BipedIK's own problems (setup, settings), each cause once; each part reports its own on its observable. */
  readonly onWarningObservable = new Observable<SolverWarning>();
  private readonly warned = new Set<string>();
  private disposed = false;

  private constructor(scene: Scene, skeleton: Skeleton, references: BipedReferences, solvers: BipedIKSolvers) {
    this.scene = scene;
    this.skeleton = skeleton;
    this.references = references;
    this.solvers = solvers;
    this.parts = BIPED_IK_ORDER.map((key) => solvers[key]);
    // a part that disposes itself (its skeleton disposed) takes the whole with it
    for (const part of this.parts) part.onDisposeObservable.addOnce(() => this.dispose());
  }

  /**
   * Attaches BipedIK to `skeleton`, in `scene` (the skeleton's): detects the biped references (or takes them from
   * `options.references`) and creates the parts, every weight 0. Throws {@link FBBIKError} naming every problem
   * when the references cannot be found, a part cannot be built (a spine of one bone and no head), or the skeleton
   * (or another skeleton on the same nodes: one per skin of a glTF model) already has a FullBodyBipedIK or a
   * BipedIK that is not disposed (the two would fight over the bones).
   */
  static create(scene: Scene, skeleton: Skeleton, options: BipedIKOptions = {}): BipedIK {
    return setUpAs("BipedIK", () => {
      const unknown = checkOptions("BipedIK", options, BIPED_IK_OPTION_KINDS);
      checkSkeletonScene(scene, skeleton);
      const { references: r, warnings } = resolveReferences(skeleton, options.references ?? {});
      // a FullBodyBipedIK or BipedIK there already: the two would fight over the bones every frame
      const pelvisNode = r.pelvis.getTransformNode();
      refuseSecondBody("BipedIK", skeleton, pelvisNode);
      const spine = r.spine.length >= 2 ? r.spine : r.head !== null ? [...r.spine, r.head] : null;
      if (spine === null) {
        throw new FBBIKError([`the spine has one bone (${r.spine[0]?.name}) and there is no head: FABRIK needs two`]);
      }
      const common: RigComponentOptions = {
        autoUpdate: options.autoUpdate,
        fixTransforms: options.fixTransforms,
        updateOrder: options.updateOrder ?? IKUpdateOrder.Biped,
        mesh: options.mesh,
        inspector: options.inspector,
        enableFadeSeconds: options.enableFadeSeconds,
      };
      const made: RigComponent[] = [];
      const keep = <T extends RigComponent>(part: T): T => {
        made.push(part);
        return part;
      };
      try {
        // created in the solve order: parts of one updateOrder solve in the order they were added
        const limb = (a: Bone, b: Bone, c: Bone) => keep(LimbIK.create(scene, a, b, c, common));
        const pelvis = keep(BipedPelvis.create(scene, r.pelvis, common));
        const leftFoot = limb(r.leftThigh, r.leftCalf, r.leftFoot);
        const rightFoot = limb(r.rightThigh, r.rightCalf, r.rightFoot);
        const fabrik = keep(FABRIK.create(scene, spine, common));
        const aim = keep(
          AimIK.create(scene, r.spine, { ...common, aimTransform: options.aimTransform, axis: options.aimAxis }),
        );
        const lookAt = keep(LookAtIK.create(scene, { spine: r.spine, head: r.head, eyes: r.eyes }, common));
        const leftHand = limb(r.leftUpperArm, r.leftForearm, r.leftHand);
        const rightHand = limb(r.rightUpperArm, r.rightForearm, r.rightHand);
        const solvers: BipedIKSolvers = {
          leftFoot,
          rightFoot,
          leftHand,
          rightHand,
          spine: fabrik,
          aim,
          lookAt,
          pelvis,
        };
        for (const l of [leftFoot, rightFoot, leftHand, rightHand]) {
          l.solver.ikPositionWeight = 0;
          l.solver.ikRotationWeight = 0;
        }
        fabrik.solver.ikPositionWeight = 0;
        fabrik.solver.ikRotationWeight = 0;
        aim.solver.ikPositionWeight = 0;
        lookAt.solver.ikPositionWeight = 0;
        const ik = new BipedIK(scene, skeleton, r, solvers);
        // for the refusal only: a grounder's legs (its own feet, often) keep their place, not moved before it
        addBodySolver(ik, pelvisNode, false);
        for (const w of warnings) ik.warn(`references:${w}`, w);
        warnUnknownOptions(
          { warn: (cause, message) => ik.warn(cause, message) },
          "BipedIK",
          unknown,
          BIPED_IK_OPTION_KINDS,
          { "": ik },
        );
        return ik;
      } catch (e) {
        for (const part of made.reverse()) part.dispose();
        throw e;
      }
    });
  }

  /** Creates a BipedIK ({@link create}) and loads the settings `parsed` into it: Babylon's `Parse`. */
  static Parse(parsed: unknown, scene: Scene, skeleton: Skeleton, options: BipedIKOptions = {}): BipedIK {
    const ik = BipedIK.create(scene, skeleton, options);
    ik.applySettings(parsed);
    return ik;
  }

  /** "BipedIK". */
  getClassName(): string {
    return "BipedIK";
  }

  /** Where the parts solve among the scene's IK components (they share it). */
  get updateOrder(): number {
    return this.solvers.pelvis.updateOrder;
  }

  /** True when every part is enabled; setting it sets every part's `enabled`. */
  get enabled(): boolean {
    for (const p of this.parts) if (!p.enabled) return false;
    return true;
  }
  set enabled(v: boolean) {
    for (const p of this.parts) p.enabled = v;
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Solves every part once now, in order (what `autoUpdate` does after the animations every frame). */
  update(): void {
    for (const p of this.parts) p.update();
  }

  /**
   * The settings of every part (each part's `serialize` without its `version` and `customType`), under its key in
   * {@link BipedIKSolvers}, as a plain JSON object with this class's `version` and `customType`.
   */
  serialize(): IKSettingsObject {
    const out: IKSettingsObject = { version: IK_SETTINGS_VERSION, customType: this.getClassName() };
    for (const key of BIPED_IK_ORDER) {
      const { version: _v, customType: _t, ...rest } = this.solvers[key].serialize();
      out[key] = rest as IKSettingValue;
    }
    return out;
  }

  /**
   * Loads settings saved by {@link serialize} (whole or in part). Another class's settings load nothing; an unknown
   * key is skipped: both warned on {@link onWarningObservable}. Each part warns its own bad values. Nothing throws.
   */
  applySettings(parsed: unknown): void {
    forgetCauses(this.warned, "settings:");
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      this.warn("settings:not-an-object", "the settings to load are not an object; nothing was loaded.");
      return;
    }
    const bag = parsed as Record<string, unknown>;
    if (bag.customType !== undefined && bag.customType !== this.getClassName()) {
      this.warn("settings:type", `the settings to load are a ${String(bag.customType)}'s, not a BipedIK's.`);
      return;
    }
    const known = new Set<string>(BIPED_IK_ORDER);
    for (const [key, value] of Object.entries(bag)) {
      if (key === "version" || key === "customType") continue;
      if (!known.has(key)) {
        this.warn(`settings:unknown:${key}`, `"${key}" is not a part of BipedIK; it was skipped.`);
        continue;
      }
      const part = this.solvers[key as keyof BipedIKSolvers];
      if (typeof value !== "object" || value === null) {
        this.warn(`settings:part:${key}`, `the settings of "${key}" are not an object; they were skipped.`);
        continue;
      }
      part.applySettings({ ...value, version: bag.version, customType: part.getClassName() });
    }
  }

  /**
   * Disposes every part (the hands first), which takes their output off the bones and their entries out of the
   * Inspector, and frees the character for another FullBodyBipedIK or BipedIK at once.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    const parts = this.parts;
    for (let i = parts.length - 1; i >= 0; i--) parts[i]!.dispose();
    removeBodySolver(this);
    this.onWarningObservable.clear();
  }

  /** Warns once per cause: {@link onWarningObservable}, else Babylon's Logger. */
  private warn(cause: string, message: string): void {
    if (this.warned.has(cause)) return;
    this.warned.add(cause);
    const w: SolverWarning = { cause, message: `BipedIK: ${message}` };
    if (this.onWarningObservable.hasObservers()) this.onWarningObservable.notifyObservers(w);
    else Logger.Warn(`babylon-fbbik: ${w.message}`);
  }
}
