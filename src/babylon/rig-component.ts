import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Camera } from "@babylonjs/core/Cameras/camera.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { InspectableType } from "@babylonjs/core/Misc/iInspectable.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { Quat } from "../math/quat.js";
import { Vec3, isFiniteVec } from "../math/vec3.js";
import { FBBIKError } from "../solver/errors.js";
import type { SolverWarning } from "../solver/full-body.js";
import { BabylonRig } from "./babylon-rig.js";
import { notifyDisposed } from "./dispose-notice.js";
import { EnableFade, EnablePass } from "./enable-fade.js";
import { COMPONENT_FIELDS } from "./family-settings.js";
import { type IKSettingsGroup, type IKSettingsObject, applySettings, serializeSettings } from "./ik-settings.js";
import { type InspectorSetting, InspectorSettings, secondsSetting, weightSetting } from "./inspector-settings.js";
import { type OptionKinds, checkOptions, warnUnknownOptions } from "./option-check.js";
import { RigDetachment, detachedForGood } from "./rig-attachment.js";
import { RigVisibility } from "./rig-visibility.js";
import { SceneUpdater } from "./scene-updater.js";
import { askedAhead, claimNodes, releaseNodes, severalClaimants, solveOwnerAbove } from "./solve-order.js";
import { currentWorldMatrix, hasRotation, rotationFromMatrix } from "./world-matrix.js";
import { matchMatrixPrecision } from "./module-matrix.js";
import { forgetCauses } from "../solver/forget-causes.js";

const tv = new Vec3();

/** What a component's target may be: a node (a mesh, a TransformNode) or a camera (eyes on the viewer). */
export type IKTarget = TransformNode | Camera;

/** The target's current world matrix (a node's without forcing Babylon to recompute it; a camera's own). */
function targetWorldMatrix(target: IKTarget): { readonly m: ArrayLike<number> } {
  // a Camera has no isWorldMatrixFrozen: it is not a TransformNode
  return "isWorldMatrixFrozen" in target ? currentWorldMatrix(target) : target.getWorldMatrix();
}
const tq = new Quat();

/**
 * What drives a component as a leg (GrounderIK): called around the component's frame, so a grounder moves the
 * pelvis before the leg reads its bones, aims the leg at the ground and turns its foot after it solves.
 * @internal
 */
export interface LegDriver {
  /** @internal Before the leg reads its bones: the driver's own pass of the frame, when not done yet. */
  _beforeLegRead(): void;
  /** @internal After the leg read its target, before its solver runs. */
  _beforeLegSolve(leg: RigComponent): void;
  /** @internal After its solver ran, before the leg writes. */
  _afterLegSolve(leg: RigComponent): void;
}

/** Options every IK component of the family takes. */
export interface RigComponentOptions {
  /** Solve every frame after the animations (default true); otherwise call `update()` yourself. */
  autoUpdate?: boolean;
  /** Take the component's own output off its bones before the animations every frame (default true). */
  fixTransforms?: boolean;
  /** Where it solves among the scene's IK components (default: its kind's {@link IKUpdateOrder}). */
  updateOrder?: number;
  /** For skeletons without linked TransformNodes: the mesh the skeleton deforms (default: the first one). */
  mesh?: AbstractMesh;
  /** Show `enabled` and the solver's weight in Babylon's Inspector, on the skeleton (default true). */
  inspector?: boolean;
  /** Seconds `enabled` takes to fade out or in (default 0: at once): {@link RigComponent.enableFadeSeconds}. */
  enableFadeSeconds?: number;
}

/** The kinds of {@link RigComponentOptions}, which every component's own table spreads. */
export const RIG_COMPONENT_OPTION_KINDS: OptionKinds<RigComponentOptions> = {
  autoUpdate: "boolean",
  fixTransforms: "boolean",
  updateOrder: "number",
  mesh: "object",
  inspector: "boolean",
  enableFadeSeconds: "number",
};

/**
 * What every Babylon IK component of the family shares: a {@link BabylonRig} over its bones, the frame
 * (FixTransforms before the animations; read, solve, write after them, in {@link IKUpdateOrder}), and the
 * error policy of FullBodyBipedIK: setup problems throw an {@link FBBIKError} naming the bone, a frame's
 * bad input or failure is skipped and warned once per cause, nothing escapes into Babylon's render loop.
 * A subclass supplies {@link solve}: read its targets, run its engine-neutral solver on the rig.
 */
export abstract class RigComponent {
  /** The scene. */
  readonly scene: Scene;
  /** The skeleton. */
  readonly skeleton: Skeleton;
  /** The rig adapter over the component's bones and their ancestors (component space). */
  readonly rig: BabylonRig;
  /**
   * Where it solves among the scene's IK components: the `updateOrder` given at create, else its kind's
   * ({@link IKUpdateOrder}), else where what drives it places it (a GrounderIK's leg: before its skeleton's
   * FullBodyBipedIK).
   */
  get updateOrder(): number {
    return this.order;
  }
  /** A problem, reported once per cause (bad input, a disposed target…). */
  readonly onWarningObservable = new Observable<SolverWarning>();
  /** Notified once by {@link dispose}, before the component lets go of its bones (Babylon's convention). */
  readonly onDisposeObservable = new Observable<RigComponent>();
  /**
   * When false the component neither fixes transforms nor solves: at once, or once faded out over
   * {@link enableFadeSeconds}. It reads what you set, also while the fade runs ({@link isFading}).
   */
  enabled = true;
  /**
   * Seconds `enabled` takes to switch (default 0: at once, the pose jumps). Set to false, the component's output eases
   * back to the animated pose over this time (still solved, so it follows its targets meanwhile), then the component
   * stops: no FixTransforms, no solve, the bones show the animation alone. Set to true, its output eases in from
   * the animated pose. Set back mid-fade, it turns back from the pose shown. Not in FinalIK.
   */
  get enableFadeSeconds(): number {
    return this.enableFade.seconds;
  }
  set enableFadeSeconds(v: number) {
    this.enableFade.seconds = v;
  }
  /** @internal The grounder that drives this component as a leg, or null. */
  _legDriver: LegDriver | null = null;
  /** Solve after the animations and the before-render observers every frame. */
  autoUpdate: boolean;
  /** Take the component's own output off its bones before the animations every frame. */
  fixTransforms: boolean;
  private disposed = false;
  /** The order given at create (undefined: none), its kind's, and the one in use. */
  private readonly givenOrder: number | undefined;
  private readonly kindOrder: number;
  private order: number;
  private readonly showInInspector: boolean;
  private readonly firstBoneName: string;
  /** The last of its bones' names: tells two components from one bone apart in the Inspector. */
  private readonly lastBoneName: string;
  private inspectorSettings: InspectorSettings | null = null;
  private lastFrame = -1;
  /** The nodes the component turns (linked TransformNodes and Bones), for the scene's solve order. */
  private claimed: readonly (TransformNode | Bone | null)[] = [];
  /** The first of its bones: what it hangs from on its own skeleton is found walking up from there. */
  private readonly firstBone: Bone;
  /** True while the IKs this one hangs from solve first (a cycle of them then solves in the scene's order). */
  private ordering = false;
  /** Whether the character is shown: a disabled one is not solved. */
  private readonly visibility: RigVisibility;
  private readonly warned = new Set<string>();
  private readonly warnings: SolverWarning[] = [];
  /** The fade of {@link enabled} over {@link enableFadeSeconds}. */
  private readonly enableFade: EnableFade;
  /** The subclass's option kinds, and the keys of the options given that are not among them (warned at attach). */
  private readonly optionKinds: OptionKinds<RigComponentOptions>;
  private readonly unknownOptions: readonly string[];
  /** The number settings {@link settingsGroups} lists, checked every frame (a NaN weight is warned, not silent). */
  private numberSettings: readonly NumberSetting[] = [];

  /**
   * Builds the rig over `bones` (all of `skeleton`) and registers the component with the scene's updater.
   * Throws {@link FBBIKError} when a bone is missing or not in the skeleton, or an option has the wrong type for
   * `kinds` (the subclass's options, whose unknown keys are warned at {@link attach}; without them, only the
   * options of every component are checked, and no key is unknown).
   */
  protected constructor(
    skeleton: Skeleton,
    bones: readonly Bone[],
    options: RigComponentOptions,
    order: number,
    kinds?: OptionKinds<RigComponentOptions>,
  ) {
    const unknown = checkOptions(this.getClassName(), options, kinds ?? RIG_COMPONENT_OPTION_KINDS);
    this.unknownOptions = kinds === undefined ? [] : unknown;
    this.optionKinds = kinds ?? RIG_COMPONENT_OPTION_KINDS;
    matchMatrixPrecision();
    const problems = bones.flatMap((b, i) =>
      b === null || b === undefined
        ? [`bone ${i} is missing`]
        : b.getSkeleton() !== skeleton
          ? [`bone "${b.name}" is not in skeleton "${skeleton.name}"`]
          : [],
    );
    if (bones.length === 0) problems.push("no bones given");
    if (problems.length > 0) throw new FBBIKError(problems);
    this.scene = skeleton.getScene();
    this.skeleton = skeleton;
    this.autoUpdate = options.autoUpdate ?? true;
    this.fixTransforms = options.fixTransforms ?? true;
    this.givenOrder = options.updateOrder;
    this.kindOrder = order;
    this.order = options.updateOrder ?? order;
    this.showInInspector = options.inspector ?? true;
    this.firstBoneName = bones[0]!.name;
    this.lastBoneName = bones[bones.length - 1]!.name;
    this.firstBone = bones[0]!;
    // the other IKs' last output still stands between frames: the pose at create is the animated one
    SceneUpdater.takeOffBetweenFrames(this.scene, skeleton);
    this.rig = new BabylonRig(skeleton, bones, { mesh: options.mesh ?? null });
    this.rig.watchDisposal();
    this.visibility = new RigVisibility(this.rig, skeleton, (cause, message) => this.warn(cause, message));
    this.enableFade = new EnableFade(this.scene, this.rig);
    this.enableFadeSeconds = options.enableFadeSeconds ?? 0;
    // FixTransforms covers the bones the component turns (a subclass that also moves bones stores again)
    this.rig.storeDefaultLocalState(bones.map((b) => ({ bone: this.rig.idOf(b), position: false })));
  }

  /**
   * Registers the component for the scene's frame; call once at the end of the subclass's constructor, with
   * the bones it turns (an IK hanging from them, or with a target on them, solves after it).
   */
  protected attach(turned: readonly Bone[] = []): void {
    this.claimed = turned.flatMap((b) => [b, b.getTransformNode()]);
    claimNodes(this, this.claimed);
    SceneUpdater.for(this.scene).add(this);
    // the subclass has read its rest: the other IKs' output, taken off in the constructor, shows again
    SceneUpdater.putBackBetweenFrames(this.scene);
    // (the subclass's solver exists only now: an unknown option may be one of its settings)
    const solver = (this as { solver?: object }).solver;
    const settable: Record<string, object> = { "": this };
    if (solver !== undefined) settable.solver = solver;
    this.warnUnknownOptions(this.getClassName(), this.unknownOptions, this.optionKinds, settable);
    this.listNumberSettings();
    const key = this.inspectorKey();
    const label = `${this.getClassName()} ${key}`;
    const settings: InspectorSetting[] = [
      {
        name: "enabled",
        label: `${label} enabled`,
        type: InspectableType.Checkbox,
        get: () => this.enabled,
        set: (v) => {
          this.enabled = Boolean(v);
        },
      },
    ];
    // every solver of the family has a master weight (TwistRelaxer's is FinalIK's `weight`); the end of LimbIK,
    // CCDIK and FABRIK turns by a second one (LimbIK's defaults to 1, so "weight" 0 alone would leave its hand turning)
    const weights = solver as { ikPositionWeight?: unknown; ikRotationWeight?: unknown; weight?: unknown } | undefined;
    const master =
      weights === undefined
        ? null
        : typeof weights.ikPositionWeight === "number"
          ? "ikPositionWeight"
          : typeof weights.weight === "number"
            ? "weight"
            : null;
    if (master !== null) {
      const holder = weights as Record<typeof master, number>;
      const get = () => holder[master];
      settings.push(
        weightSetting("weight", `${label} weight`, get, (v) => {
          holder[master] = v;
        }),
      );
    }
    if (weights !== undefined && typeof weights.ikRotationWeight === "number") {
      const holder = weights as { ikRotationWeight: number };
      settings.push(
        weightSetting(
          "rotationWeight",
          `${label} rotation weight`,
          () => holder.ikRotationWeight,
          (v) => {
            holder.ikRotationWeight = v;
          },
        ),
      );
    }
    settings.push(...this.inspectorExtras(label));
    settings.push(
      secondsSetting(
        "enableFadeSeconds",
        `${label} enable fade (s)`,
        () => this.enableFadeSeconds,
        (v) => {
          this.enableFadeSeconds = v;
        },
      ),
    );
    this.inspectorSettings = new InspectorSettings(`${this.getClassName().toLowerCase()}_${key}_`, settings, {
      label,
      characterName: () => this.skeleton.name,
      serialize: () => this.serialize(),
      applySettings: (parsed) => this.applySettings(parsed),
      warn: (cause, message) => this.warn(cause, message),
    });
    if (this.showInInspector) this.inspectorSettings.attach(this.skeleton);
  }

  /** The subclass's own settings to show in the Inspector after its weights (none by default). */
  protected inspectorExtras(_label: string): InspectorSetting[] {
    return [];
  }

  /**
   * The first bone's name, as a property name; when a component of this class on the skeleton has it already (two
   * chains from the chest to each hand), the last bone's name too, then a number: the Inspector shows both, and
   * each writes its own component.
   */
  private inspectorKey(): string {
    const clean = (name: string) => name.replace(/[^A-Za-z0-9_]/g, "_");
    const taken = (key: string) =>
      Object.getOwnPropertyDescriptor(this.skeleton, `${this.getClassName().toLowerCase()}_${key}_enabled`) !==
      undefined;
    let key = clean(this.firstBoneName);
    if (!taken(key)) return key;
    key = `${key}_${clean(this.lastBoneName)}`;
    for (let n = 2, base = key; taken(key); n++) key = `${base}_${n}`;
    return key;
  }

  /**
   * The component in Babylon's Inspector: `enabled`, the solver's `ikPositionWeight` (TwistRelaxer's `weight`; and
   * the `ikRotationWeight` of LimbIK, CCDIK and FABRIK) and `enableFadeSeconds`, shown on the skeleton as
   * `<class>_<first bone>_enabled`,
   * `…_weight` (e.g. `ccdik_upperarm_l_weight`), `…_rotationWeight` and `…_enableFadeSeconds`; a second component
   * of the class from the same bone adds its last bone's name (`ccdik_spine_03_hand_r_enabled`).
   */
  get inspector(): InspectorSettings {
    return this.inspectorSettings!;
  }

  /** The class name, as Babylon's own objects report it. */
  abstract getClassName(): string;

  /**
   * The component's settings as a plain JSON object (Babylon's `serialize`): `version`, `customType` (the class
   * name), `enableFadeSeconds`, `fixTransforms`, then the solver's parameters under `solver` (a chain's per-bone
   * weights under `solver.links`), in a fixed order. Not `enabled`, `autoUpdate`, bones, targets or limits.
   * Load it with {@link applySettings} or the class's static `Parse`; `JSON.stringify` it to keep it.
   */
  serialize(): IKSettingsObject {
    return serializeSettings(this.settingsGroups(), this.getClassName());
  }

  /**
   * Loads settings saved by {@link serialize} (whole or in part: what is left out keeps its value), from this
   * component or one of its class on another chain or character. An unknown key, a value of the wrong kind or out
   * of range is warned (once a load) on {@link onWarningObservable} and skipped; another class's settings
   * (`customType`) load nothing, warned. Nothing throws.
   */
  applySettings(parsed: unknown): void {
    this.resetWarnings("settings:");
    applySettings(this.settingsGroups(), parsed, (cause, message) => this.warn(cause, message), this.getClassName());
  }

  /**
   * Every setting {@link serialize} saves and {@link applySettings} loads, the one list both walk: the
   * component's fade and FixTransforms; a subclass adds its solver's (built per call: a list may grow).
   */
  protected settingsGroups(): IKSettingsGroup[] {
    return [{ key: "", target: this, fields: COMPONENT_FIELDS }];
  }

  /**
   * Lists the number settings of {@link settingsGroups} for the frame's finiteness check; called at attach, and by a
   * subclass whose settings grew (an effector added).
   */
  protected listNumberSettings(): void {
    const list: NumberSetting[] = [];
    for (const g of this.settingsGroups()) {
      for (const [key, field] of Object.entries(g.fields)) {
        // Infinity is a value of an unbounded setting ("none"); NaN is not, but the solver reads it as none too
        if ((field.kind !== "number" && field.kind !== "integer") || field.unbounded) continue;
        // a NaN fade is "at once" (EnableFade), not a bad value
        if (g.key === "" && key === "enableFadeSeconds") continue;
        const name = g.key === "" ? key : `${g.key}.${key}`;
        list.push({ target: g.target as Record<string, unknown>, key, name, cause: `${name}:non-finite` });
      }
    }
    this.numberSettings = list;
  }

  /**
   * False when a number setting may not be finite: the subclass sums its settings in its own code, where the
   * doubles are read without boxing (the scan below reads them by name, which allocates), and a false sum is named
   * by the scan. A sum that overflows finite settings finds nothing to warn of.
   */
  protected settingsFinite(): boolean {
    // the component's own number setting, enableFadeSeconds, is not checked (listNumberSettings)
    return true;
  }

  /** Warns once of each number setting that is not finite (the solvers leave out what it weighs, silently). */
  private warnNonFiniteSettings(): void {
    const list = this.numberSettings;
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      const v = s.target[s.key];
      if (typeof v !== "number" || Number.isFinite(v) || this.warned.has(s.cause)) continue;
      this.warn(s.cause, `${s.name} is ${v}, not a finite number: what it sets is skipped until it is finite.`);
    }
  }

  /** Reads the targets and runs the solver on the rig (between the rig's read and write). */
  protected abstract solve(): void;

  /**
   * Reads the bones as they stand now into the rig (this component's own output taken off first, as every frame's
   * read does), runs `take` on that pose, and ends the read without writing anything.
   */
  protected withBonesAsTheyStand(take: () => void): void {
    SceneUpdater.takeOffBetweenFrames(this.scene, this.skeleton);
    try {
      this.rig.read();
      try {
        take();
      } finally {
        this.rig.write();
      }
    } finally {
      SceneUpdater.putBackBetweenFrames(this.scene);
    }
  }

  /** Warnings raised so far (each cause once). */
  get warningsRaised(): readonly SolverWarning[] {
    return this.warnings;
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /**
   * True while the output eases in or out after `enabled` changed ({@link enableFadeSeconds}): with `enabled`
   * false and this false, the component does nothing more (it may be disposed without a pop).
   */
  get isFading(): boolean {
    return this.enableFade.fading(this);
  }

  /**
   * Solves once now: takes off what the component wrote and still stands, reads the bones' current pose,
   * solves, writes the bones. Called after the animations every frame when `autoUpdate`.
   */
  update(): void {
    if (this.disposed) return;
    const enable = this.enableFade;
    if (!enable.active(this)) {
      enable.settle(this);
      return;
    }
    try {
      // not shown (its root or every mesh of it disabled): its output came off when it hid
      // (each time nothing of it shows, `enabled` takes effect at once: there is nothing to fade)
      if (this.detached() || this.visibility.hidden()) {
        enable.settle(this);
        return;
      }
      const pass = enable.begin(this);
      if (pass === EnablePass.Off) return;
      // faded out: the output comes off, the bones show the animation alone
      if (pass === EnablePass.Done) {
        this.rig.restoreAnimatedPose();
        return;
      }
      // a grounder moves the pelvis above the leg before the leg reads it
      if (this._legDriver !== null) this._legDriver._beforeLegRead();
      this.lastFrame = this.scene.getFrameId();
      this.rig.restoreAnimatedPose();
      this.rig.read();
      // the same rule as FullBodyBipedIK's: a blocked read is skipped, a sheared one solved and warned
      const blocked = this.rig.blockingProblem();
      if (blocked !== null) {
        this.warn(blocked[0], blocked[1]);
        return;
      }
      const sheared = this.rig.shearProblem();
      if (sheared !== null) this.warn(sheared[0], sheared[1]);
      if (!this.settingsFinite()) this.warnNonFiniteSettings();
      this.solve();
      if (this.disposed) return;
      if (pass === EnablePass.Fade) enable.weigh();
      if (!this.rig.write()) {
        this.warn(
          "non-finite-pose",
          "The solved pose had a non-finite value: nothing was written this frame, the bones keep the animated pose.",
        );
      }
    } catch (e) {
      // a frame's failure must not escape into the render loop; the bones keep the animated pose
      if (this.disposed) return;
      try {
        this.rig.restoreAnimatedPose();
      } catch {
        // nothing more to undo
      }
      this.warn(`exception:${String(e)}`, `The IK update failed and was skipped for this frame: ${String(e)}`);
    }
  }

  /**
   * Warns once per cause: `onWarningObservable`, and Babylon's Logger when nobody observes. Nothing a
   * warning observer throws gets out.
   */
  protected warn(cause: string, message: string): void {
    this.raise(cause, `${this.getClassName()}: ${message}`);
  }

  /**
   * Warns once each of the `unknown` option keys of `component` (this component, or a part of it such as an
   * effector) that `kinds` does not know, with the nearest known option or property of `settable`.
   */
  protected warnUnknownOptions(
    component: string,
    unknown: readonly string[],
    kinds: object,
    settable: Readonly<Record<string, object>>,
  ): void {
    warnUnknownOptions({ warn: (cause, message) => this.raise(cause, message) }, component, unknown, kinds, settable);
  }

  /** {@link warn} with the message as given (it names the component already). */
  private raise(cause: string, message: string): void {
    if (this.warned.has(cause)) return;
    this.warned.add(cause);
    const w: SolverWarning = { cause, message };
    this.warnings.push(w);
    try {
      if (this.onWarningObservable.hasObservers()) this.onWarningObservable.notifyObservers(w);
      else Logger.Warn(`babylon-fbbik: ${w.message}`);
    } catch (e) {
      Logger.Error(`babylon-fbbik: an onWarningObservable observer threw on "${cause}": ${String(e)}`);
    }
  }

  /** @internal True when `updateOrder` was given at create: what drives the component keeps it. */
  get _orderGiven(): boolean {
    return this.givenOrder !== undefined;
  }

  /**
   * @internal Moves the component to `order` in the scene's pass (null: back to its kind's place), for what drives
   * it; an order given at create stays.
   */
  _placeAt(order: number | null): void {
    if (this.givenOrder !== undefined || this.disposed) return;
    const o = order ?? this.kindOrder;
    if (o === this.order) return;
    this.order = o;
    SceneUpdater.for(this.scene).reorder(this);
    // the nodes' owner lists are sorted by the scene's order
    releaseNodes(this, this.claimed);
    claimNodes(this, this.claimed);
  }

  /** @internal {@link warn} for what drives the component (a grounder's warnings go to its first leg). */
  _warn(cause: string, message: string): void {
    this.warn(cause, message);
  }

  /** Forgets which causes were warned (those starting with `prefix`, when given), so each may warn again. */
  resetWarnings(prefix?: string): void {
    forgetCauses(this.warned, prefix);
  }

  /**
   * A target's position in component space into `out`: the node's world position (its current world matrix,
   * without forcing Babylon to recompute it) or `position` (world) when no node is given. False, warned
   * once, when neither gives a finite point (the frame then keeps the last usable target).
   */
  protected readTargetPosition(node: IKTarget | null, position: Vector3 | null, out: Vec3, what: string): boolean {
    if (node !== null) {
      if (node.isDisposed()) {
        this.warn(`${what}:disposed`, `${what} ${node.name} was disposed; it is ignored.`);
        return false;
      }
      const m = targetWorldMatrix(node).m;
      tv.x = m[12]!;
      tv.y = m[13]!;
      tv.z = m[14]!;
    } else if (position !== null) {
      tv.x = position.x;
      tv.y = position.y;
      tv.z = position.z;
    } else {
      return false;
    }
    if (!isFiniteVec(tv)) {
      this.warn(`${what}:position`, `${what} is not at a finite position; the last one is kept.`);
      return false;
    }
    this.rig.worldToComponentPoint(tv, out);
    return true;
  }

  /**
   * A target node that was disposed while in use, let go as an FBBIK effector lets go of one: warned once, its
   * last world position copied into `position` (and its rotation into `rotation`), which the component follows
   * from then on. Returns null, the caller's new target: read through the node, the frame was skipped and the
   * IK's pose dropped at once (a jump of a quarter of the height, measured).
   */
  protected letGoOf(node: IKTarget, what: string, position: Vector3, rotation: Quaternion | null): null {
    this.warn(`${what}:disposed`, `${what} ${node.name} was disposed; its last position is kept.`);
    // the matrix it had when last used (a disposed node may have lost its parent: no recompute)
    const m = ("isWorldMatrixFrozen" in node ? node.worldMatrixFromCache : node.getWorldMatrix()).m;
    position.set(m[12]!, m[13]!, m[14]!);
    if (rotation !== null && hasRotation(m)) {
      rotationFromMatrix(m, tq);
      rotation.set(tq.x, tq.y, tq.z, tq.w);
    }
    return null;
  }

  /**
   * A target's rotation in component space into `out` (Babylon's convention: a node's
   * `absoluteRotationQuaternion`), as bone `bone` takes it (-1: any bone; see BabylonRig.worldToBoneRotation);
   * false, warned once, when it has none (scaled to 0, not finite).
   */
  protected readTargetRotation(
    node: IKTarget | null,
    rotation: Quaternion | null,
    out: Quat,
    what: string,
    bone = -1,
  ): boolean {
    if (node !== null) {
      const m = targetWorldMatrix(node).m;
      if (!hasRotation(m)) {
        this.warn(`${what}:rotation`, `${what} ${node.name} has no usable world rotation; the last one is kept.`);
        return false;
      }
      rotationFromMatrix(m, tq);
    } else if (rotation !== null) {
      tq.x = rotation.x;
      tq.y = rotation.y;
      tq.z = rotation.z;
      tq.w = rotation.w;
      const l = tq.x * tq.x + tq.y * tq.y + tq.z * tq.z + tq.w * tq.w;
      if (!(l > 0 && l < Infinity)) {
        this.warn(`${what}:rotation`, `${what} rotation is not a rotation; the last one is kept.`);
        return false;
      }
    } else {
      return false;
    }
    this.rig.worldToBoneRotation(bone, tq, out);
    return true;
  }

  /** The rig id of `bone` (it is in the rig: the constructor built it over the component's bones). */
  protected idOf(bone: Bone): number {
    return this.rig.idOf(bone);
  }

  private detached(): boolean {
    const state = this.rig.detachment();
    if (state === RigDetachment.Attached) return false;
    if (!detachedForGood(state, this.skeleton)) {
      if (state === RigDetachment.Unlinked) {
        this.warn(
          "detached:unlinked",
          "The skeleton's bones no longer follow their TransformNodes (as under Babylon's Ragdoll): the IK is " +
            "skipped until they are linked back.",
        );
      } else this.warn("detached:skeleton", "The skeleton is not in the scene: the IK is skipped until it is back.");
      return true;
    }
    this.warn(
      "detached",
      "The skeleton, a node or bone of it or its mesh was disposed: the IK disposed itself. Dispose the IK with the " +
        "character.",
    );
    this.dispose();
    return true;
  }

  /** @internal */
  _beforeAnimations(): void {
    if (this.disposed || !this.enableFade.active(this) || !this.fixTransforms) return;
    try {
      if (this.rig.detachment() !== RigDetachment.Attached || this.visibility.hidden()) return;
      this.rig.fixTransforms();
    } catch (e) {
      this.warn(`exception:fix:${String(e)}`, `FixTransforms failed and was skipped for this frame: ${String(e)}`);
    }
  }

  /** @internal */
  _beforeRender(): void {
    if (!this.autoUpdate || this.ordering) return;
    if (this.scene.getFrameId() === this.lastFrame) return;
    if (severalClaimants()) {
      this.ordering = true;
      let blocked = false;
      try {
        // asked ahead of its place (by an IK hanging from its bones): what its own bones hang from first (in
        // its place, the scene's pass has solved them)
        if (askedAhead()) blocked = solveOwnerAbove(this.firstBone.getTransformNode() ?? this.firstBone, this, true);
        if (!blocked) {
          solveOwnerAbove(this.rig.componentRoot, this);
          this.solveTargetOwners();
        }
      } finally {
        this.ordering = false;
      }
      // an IK under its bones waits for it (a hand on the character's own head, turned by a LookAtIK): solved
      // before that IK, its output would be read as the animation's and build up frame after frame
      if (blocked) return;
    }
    this.update();
  }

  /** @internal */
  get _ordering(): boolean {
    return this.ordering;
  }

  /**
   * Solves first the IKs that move the nodes its targets hang from (a point on another character's hand):
   * a subclass calls {@link solveTargetOwner} for each target node (none by default).
   */
  protected solveTargetOwners(): void {}

  /** Solves first the IKs that move the nodes `target` hangs from (nothing for null). */
  protected solveTargetOwner(target: IKTarget | null): void {
    if (target !== null) solveOwnerAbove(target, this);
  }

  /** @internal */
  _takeOff(): void {
    this.rig.restoreAnimatedPose();
  }

  /** @internal */
  _putBack(): void {
    this.rig.reapplyOutput();
  }

  /** @internal FixTransforms on a copy of a bone's property Babylon took (a cross-fade's start value). */
  _undoOnCopy(target: object, path: string, value: object): void {
    this.rig.undoOnCopy(target, path, value);
  }

  /**
   * Stops the component: removes its observers and leaves the bones as the animation left them (the other
   * components on the skeleton take their output off too, and solve again in the next frame).
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    this.inspectorSettings?.dispose();
    const updater = SceneUpdater.for(this.scene);
    updater.takeOff(this.skeleton);
    updater.remove(this);
    releaseNodes(this, this.claimed);
    try {
      this.rig.restoreAnimatedPose();
    } catch (e) {
      Logger.Error(`babylon-fbbik: restoring the animated pose on dispose failed: ${String(e)}`);
    }
    this.rig.dispose();
    this.onWarningObservable.clear();
  }
}

/** A number setting of a component, checked for finiteness every frame it solves. */
interface NumberSetting {
  /** The object holding it (the component, its solver, a link, a chain, an effector). */
  readonly target: Record<string, unknown>;
  readonly key: string;
  /** Its saved name (`solver.ikPositionWeight`, `solver.links.0.weight`). */
  readonly name: string;
  /** The warning's cause, made once. */
  readonly cause: string;
}
