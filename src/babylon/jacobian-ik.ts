import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { IKSolverJacobian } from "../jacobian/ik-solver-jacobian.js";
import type { JacobianEffector } from "../jacobian/jacobian-effector.js";
import type { JacobianJoint } from "../jacobian/jacobian-joint.js";
import { Quat } from "../math/quat.js";
import type { Vec3 } from "../math/vec3.js";
import { FBBIKError, setUpAs } from "../solver/errors.js";
import { JACOBIAN_EFFECTOR_FIELDS, JACOBIAN_FIELDS } from "./family-settings.js";
import { type IKSettingsGroup, NON_NEGATIVE } from "./ik-settings.js";
import { RIG_COMPONENT_OPTION_KINDS, RigComponent, type RigComponentOptions, type IKTarget } from "./rig-component.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { IKUpdateOrder } from "./scene-updater.js";
import { checkSkeletonScene } from "./skeleton-scene.js";
import { type OptionKinds, checkOptions, eachOf } from "./option-check.js";

/** A joint's degrees of freedom and limits (see {@link JacobianJoint}; the bone and parent come from the rig). */
export type JacobianIKJoint = Omit<JacobianJoint, "bone" | "parent">;

/** An end effector of {@link JacobianIK.create}. */
export interface JacobianIKEffectorOptions {
  /** The bone pulled (one of the component's bones). */
  bone: Bone;
  /** The node it follows every frame (position; rotation too when `rotationWeight` > 0). */
  target?: IKTarget | null;
  /** Least-squares weight (default 1; 0 switches it off). */
  weight?: number;
  /** Higher priorities are met first, lower ones in what freedom is left (default 0). */
  priority?: number;
  /** Weight of the target's rotation relative to its position (default 0: the bone's rotation is free). */
  rotationWeight?: number;
}

/** The kinds of {@link JacobianIKEffectorOptions}, for the check at create. */
export const JACOBIAN_IK_EFFECTOR_OPTION_KINDS: OptionKinds<JacobianIKEffectorOptions> = {
  bone: "object",
  target: "object|null",
  weight: "number",
  priority: "number",
  rotationWeight: "number",
};

/** The kinds of a {@link JacobianIKOptions.joints} entry, for the check at create. */
const JACOBIAN_IK_JOINT_KINDS: OptionKinds<JacobianIKJoint> = {
  hingeAxis: "object",
  locked: "boolean",
  min: "array",
  max: "array",
};

/** Options of {@link JacobianIK.create}. */
export interface JacobianIKOptions extends RigComponentOptions {
  /** The end effectors (more can be added with {@link JacobianIK.addEffector}). */
  effectors?: readonly JacobianIKEffectorOptions[];
  /** Per bone (same order as the bones): hinge axis, locked, angle limits. */
  joints?: readonly (JacobianIKJoint | undefined)[];
  /** Most iterations per frame (default 100). */
  maxIterations?: number;
  /** Stop when every effector is this close to its target, in world units (default 0: iterate to the end). */
  tolerance?: number;
}

/** The kinds of {@link JacobianIKOptions}, for the check at create. */
export const JACOBIAN_IK_OPTION_KINDS: OptionKinds<JacobianIKOptions> = {
  ...RIG_COMPONENT_OPTION_KINDS,
  effectors: eachOf(JACOBIAN_IK_EFFECTOR_OPTION_KINDS),
  joints: eachOf(JACOBIAN_IK_JOINT_KINDS),
  maxIterations: "number",
  tolerance: "number",
};

/**
 * One end effector of a {@link JacobianIK}: a bone pulled to a world target (a node followed every frame, or
 * `position`/`rotation` when no node is set).
 */
export class JacobianIKEffector {
  /** The bone pulled. */
  readonly bone: Bone;
  /** The engine-neutral effector (component space; weight, priority and rotation weight live here). */
  readonly solverEffector: JacobianEffector;
  /** The node followed every frame, or null. */
  target: IKTarget | null;
  /** World position used when `target` is null (null: no target, the effector is off). */
  position: Vector3 | null = null;
  /** World rotation used when `target` is null and `rotationWeight` > 0. */
  rotation: Quaternion | null = null;
  /** Least-squares weight (0 switches it off). */
  weight: number;
  /** True when the last frame had a usable position (the last one is kept otherwise). */
  private hasPosition = false;
  /** True when a rotation was read since the rotation goal was last cleared (the last one is kept otherwise). */
  private hasRotation = false;
  private readonly componentRotation = new Quat();
  /** How warnings name the effector's target (built once). */
  private readonly label: string;
  /** The cause and message of its target-on-root warning (built once: none per frame). */
  /** @internal */
  readonly _onRoot: readonly [string, string];

  /** @internal Made by {@link JacobianIK.addEffector}. */
  constructor(bone: Bone, solverEffector: JacobianEffector, options: JacobianIKEffectorOptions, index: number) {
    this.bone = bone;
    this.label = `effector ${index} (${bone.name}) target`;
    this._onRoot = [
      `${this.label}:on-root`,
      `${this.label} is on the chain's root (no way to reach it, no direction to fold toward): ${bone.name} ` +
        "keeps its animated position.",
    ];
    this.solverEffector = solverEffector;
    this.target = options.target ?? null;
    this.weight = options.weight ?? 1;
    solverEffector.priority = options.priority ?? 0;
    solverEffector.rotationWeight = options.rotationWeight ?? 0;
  }

  /** Priority (higher first). */
  get priority(): number {
    return this.solverEffector.priority;
  }
  set priority(v: number) {
    this.solverEffector.priority = v;
  }

  /** Weight of the rotation target relative to the position (0: rotation free). */
  get rotationWeight(): number {
    return this.solverEffector.rotationWeight;
  }
  set rotationWeight(v: number) {
    this.solverEffector.rotationWeight = v;
  }

  /** @internal Reads the target into the solver effector (component space). */
  _sync(ik: JacobianIK): void {
    const e = this.solverEffector;
    const what = this.label;
    if (this.target?.isDisposed()) {
      this.position ??= new Vector3();
      this.rotation ??= new Quaternion();
      this.target = ik._letGoOf(this.target, what, this.position, this.rotation);
    }
    if (ik._position(this.target, this.position, e.position, what)) this.hasPosition = true;
    e.weight = this.hasPosition ? this.weight : 0;
    if (e.rotationWeight > 0) {
      // an unreadable rotation (a target scaled to 0, NaN) keeps the last one, as the position does; none set: free
      if (ik._rotation(this.target, this.rotation, this.componentRotation, what, e.bone)) this.hasRotation = true;
      else if (this.target === null && this.rotation === null) this.hasRotation = false;
      e.rotation = this.hasRotation ? this.componentRotation : null;
    } else {
      e.rotation = null;
    }
  }
}

/**
 * Damped least squares IK ({@link IKSolverJacobian}) on a Babylon skeleton: a chain or a tree of bones with
 * several end effectors, each pulled to a target with a weight and a priority. The reference solver of the
 * family: exact and robust, slower than CCD or FABRIK. It solves with the chains ({@link IKUpdateOrder.Chain}),
 * after FullBodyBipedIK, aim and look-at.
 *
 * ```ts
 * const ik = JacobianIK.create(skeleton, [upperArm, foreArm, hand], {
 *   effectors: [{ bone: hand, target: cup }],
 * });
 * ik.solver.ikPositionWeight = 0.8;
 * ```
 */
export class JacobianIK extends RigComponent {
  /** The engine-neutral solver (weights, iterations, damping, last error). */
  readonly solver: IKSolverJacobian;
  /** The bones, parents before children. */
  readonly bones: readonly Bone[];
  /** The end effectors. */
  readonly effectors: JacobianIKEffector[] = [];
  /** Stop when every effector is this close to its target, in world units (0: iterate to the end). */
  tolerance: number;

  private constructor(skeleton: Skeleton, bones: readonly Bone[], options: JacobianIKOptions) {
    super(skeleton, bones, options, IKUpdateOrder.Chain, JACOBIAN_IK_OPTION_KINDS);
    this.bones = bones;
    const ids = bones.map((b) => this.idOf(b));
    const joints: JacobianJoint[] = ids.map((id, i) => {
      let p = this.rig.parents[id]!;
      while (p >= 0 && !ids.includes(p)) p = this.rig.parents[p]!;
      const parent = p >= 0 ? ids.indexOf(p) : -1;
      if (parent > i) {
        throw new FBBIKError([`bone "${bones[i]!.name}" is listed before its ancestor "${bones[parent]!.name}"`]);
      }
      return { ...(options.joints?.[i] ?? {}), bone: id, parent };
    });
    const rootParent = this.rig.parents[ids[0]!]!;
    this.solver = new IKSolverJacobian(this.rig, joints, rootParent > 0 ? { rootParent } : {});
    if (options.maxIterations !== undefined) this.solver.maxIterations = options.maxIterations;
    this.tolerance = options.tolerance ?? 0;
    // checked with the options, by path (`effectors[0].wieght`): not once more as an effector
    for (const e of options.effectors ?? []) this.addCheckedEffector(e, []);
    this.attach(bones);
  }

  /**
   * A JacobianIK on `bones` of one skeleton (parents listed before children; a bone's parent joint is its
   * nearest ancestor among them), in `scene`, the skeleton's. Throws {@link FBBIKError} naming the bad bone, or
   * when `scene` is not the skeleton's.
   */
  static create(scene: Scene, bones: readonly Bone[], options: JacobianIKOptions = {}): JacobianIK {
    const skeleton = bones[0]?.getSkeleton();
    if (skeleton === undefined) throw new FBBIKError(["JacobianIK needs at least one bone"], "JacobianIK");
    return setUpAs("JacobianIK", () => {
      checkSkeletonScene(scene, skeleton);
      return new JacobianIK(skeleton, bones, options);
    });
  }

  /** Adds an end effector (setup time). Throws {@link FBBIKError} when its bone is not one of the bones. */
  addEffector(options: JacobianIKEffectorOptions): JacobianIKEffector {
    return this.addCheckedEffector(options, checkOptions("JacobianIK", options, JACOBIAN_IK_EFFECTOR_OPTION_KINDS));
  }

  /** {@link addEffector} of `options` already checked: `unknown` are the keys to warn of. */
  private addCheckedEffector(options: JacobianIKEffectorOptions, unknown: readonly string[]): JacobianIKEffector {
    const bone = options.bone;
    if (bone === null || bone === undefined || !this.bones.includes(bone)) {
      throw new FBBIKError([`effector bone "${bone?.name ?? "(none)"}" is not one of the JacobianIK's bones`]);
    }
    const e = new JacobianIKEffector(bone, this.solver.addEffector(this.idOf(bone)), options, this.effectors.length);
    this.effectors.push(e);
    this.warnUnknownOptions("JacobianIK effector", unknown, JACOBIAN_IK_EFFECTOR_OPTION_KINDS, { "": e });
    // its weights join the frame's finiteness check
    this.listNumberSettings();
    return e;
  }

  /**
   * Creates a JacobianIK ({@link create}) and loads the settings `parsed` into it: Babylon's `Parse` (see
   * `serialize`; the effectors' settings go to the effectors of `options` and those added before, by index).
   */
  static Parse(parsed: unknown, scene: Scene, bones: readonly Bone[], options: JacobianIKOptions = {}): JacobianIK {
    const ik = JacobianIK.create(scene, bones, options);
    ik.applySettings(parsed);
    return ik;
  }

  /** @inheritdoc */
  getClassName(): string {
    return "JacobianIK";
  }

  /** @internal */
  protected override settingsFinite(): boolean {
    const s = this.solver;
    let sum = this.tolerance + s.ikPositionWeight + s.maxIterations + s.damping + s.maxStep;
    for (let i = 0; i < this.effectors.length; i++) {
      const e = this.effectors[i]!;
      sum += e.weight + e.priority + e.rotationWeight;
    }
    return super.settingsFinite() && Number.isFinite(sum);
  }

  /** The component's settings and world tolerance, the solver's, then each effector's weights and priority. */
  protected override settingsGroups(): IKSettingsGroup[] {
    return [
      ...super.settingsGroups(),
      { key: "", target: this, fields: { tolerance: NON_NEGATIVE } },
      { key: "solver", target: this.solver, fields: JACOBIAN_FIELDS },
      ...this.effectors.map((e, i) => ({ key: `effectors.${i}`, target: e, fields: JACOBIAN_EFFECTOR_FIELDS })),
    ];
  }

  /** @inheritdoc */
  protected solve(): void {
    for (let i = 0; i < this.effectors.length; i++) this.effectors[i]!._sync(this);
    const t = this.tolerance;
    this.solver.tolerance = t > 0 && t < Infinity ? t / this.rig.componentScale : 0;
    this.solver.update();
    for (let i = 0; i < this.effectors.length; i++) {
      const e = this.effectors[i]!;
      if (e.solverEffector.targetOnRoot) this.warn(e._onRoot[0], e._onRoot[1]);
    }
  }

  /** @internal */
  protected override solveTargetOwners(): void {
    for (let i = 0; i < this.effectors.length; i++) this.solveTargetOwner(this.effectors[i]!.target);
  }

  /** @internal {@link RigComponent.readTargetPosition} for the effectors. */
  _position(node: IKTarget | null, position: Vector3 | null, out: Vec3, what: string): boolean {
    return this.readTargetPosition(node, position, out, what);
  }

  /** @internal {@link RigComponent.letGoOf} for the effectors. */
  _letGoOf(node: IKTarget, what: string, position: Vector3, rotation: Quaternion): null {
    return this.letGoOf(node, what, position, rotation);
  }

  /** @internal {@link RigComponent.readTargetRotation} for the effectors. */
  _rotation(node: IKTarget | null, rotation: Quaternion | null, out: Quat, what: string, bone: number): boolean {
    return this.readTargetRotation(node, rotation, out, what, bone);
  }
}
