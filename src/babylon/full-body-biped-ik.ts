import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Camera } from "@babylonjs/core/Cameras/camera.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { BabylonRig } from "./babylon-rig.js";
import {
  BIPED_REFERENCES_INPUT_KINDS,
  type BipedReferences,
  type BipedReferencesInput,
  type BoneReference,
  resolveReferences,
} from "./biped-references.js";
import { FBBIKError } from "../solver/errors.js";
import type { SolverWarning } from "../solver/full-body.js";
import { buildBipedSolver, resolveRootNode } from "./build-solver.js";
import { rootFacingAxisToRef } from "./character-forward.js";
import { type MeshAdoption, carryAxis, followAdoption, followAdoptionInInspector } from "./mesh-adoption.js";
import { fullBodyInspectorSettings } from "./fbbik-inspector.js";
import { fullBodySettings } from "./fbbik-settings.js";
import { FBBIKSolver } from "./fbbik-solver.js";
import { EnableFade, EnablePass } from "./enable-fade.js";
import { type IKSettingsGroup, type IKSettingsObject, applySettings, serializeSettings } from "./ik-settings.js";
import { InspectorSettings } from "./inspector-settings.js";
import type { OutputFade } from "./lod/output-fade.js";
import { notifyDisposed } from "./dispose-notice.js";
import { RigDetachment, type SkeletonContainerState, detachedForGood } from "./rig-attachment.js";
import { RigVisibility } from "./rig-visibility.js";
import { SceneUpdater } from "./scene-updater.js";
import { addBodySolver, refuseSecondBody, removeBodySolver } from "./body-solver.js";
import { type HookTargets, claimNodes, releaseNodes, severalClaimants, solveOwnerAbove } from "./solve-order.js";
import { checkSkeletonScene } from "./skeleton-scene.js";
import { matchMatrixPrecision } from "./module-matrix.js";
import { type OptionKinds, checkOptions, objectOf, warnUnknownOptions } from "./option-check.js";

/** Warning cause and message per {@link RigDetachment} (indexed by its value). */
const DETACHED: readonly (readonly [string, string])[] = [
  ["", ""],
  [
    "detached:skeleton",
    "The skeleton is not in the scene (disposed, or its asset container removed): the IK is skipped until it is " +
      "back. Dispose the IK with the character.",
  ],
  [
    "detached:node",
    "A TransformNode or Bone of the skeleton was disposed: the IK disposed itself. Dispose the IK with the " +
      "character.",
  ],
  [
    "detached:mesh",
    "Every mesh the skeleton deforms was disposed: the IK disposed itself. Dispose the IK with the character.",
  ],
  [
    "detached:unlinked",
    "The skeleton's bones no longer follow their TransformNodes (bone.linkTransformNode(null), as Babylon's " +
      "Ragdoll does): the IK is skipped until they are linked back, as nothing it wrote would show.",
  ],
];
/** The same when the skeleton left its scene for good (disposed: in no asset container either). */
const DETACHED_FOR_GOOD = [
  "detached:skeleton",
  "The skeleton was disposed: the IK disposed itself. Dispose the IK with the character.",
] as const;

/** The part of an asset container the Inspector's settings look in. */
interface ContainerMeshes {
  readonly meshes?: readonly AbstractMesh[];
}

/** Options of {@link FullBodyBipedIK.create}. */
export interface FullBodyBipedIKOptions {
  /** Bones to use instead of the detected ones (by object or name); anything left out is detected. */
  references?: BipedReferencesInput;
  /** The spine bone (or pelvis) that stands for the body; default: detected as FinalIK does. */
  rootNode?: BoneReference;
  /**
   * Solve every frame after the animations and every `scene.onBeforeRenderObservable` observer, before
   * skeletons are prepared for rendering (default true). Otherwise call `update()` yourself.
   */
  autoUpdate?: boolean;
  /**
   * Take the IK's own output off the mapped bones before the animations every frame (default true): each
   * local rotation or position that still holds what the IK wrote gets back the animated value it replaced.
   */
  fixTransforms?: boolean;
  /** For skeletons without linked TransformNodes: the mesh the skeleton deforms (default: the first one using it). */
  mesh?: AbstractMesh;
  /**
   * The character's forward in world space, used to bend limbs that are straight in the pose the IK is
   * attached in (elbows back, knees forward) and to find {@link FullBodyBipedIK.characterForward}. Default: from
   * the toes when the feet have child bones, else estimated from the rig.
   */
  forward?: Vector3;
  /**
   * Show the IK's main settings in Babylon's Inspector on the character's root node, its skeleton and the
   * meshes the skeleton deforms (default true): see {@link FullBodyBipedIK.inspector}.
   */
  inspector?: boolean;
  /** Seconds `enabled` takes to fade out or in (default 0: at once): {@link FullBodyBipedIK.enableFadeSeconds}. */
  enableFadeSeconds?: number;
}

/** The kinds of {@link FullBodyBipedIKOptions}, for the check at create. */
export const FULL_BODY_BIPED_IK_OPTION_KINDS: OptionKinds<FullBodyBipedIKOptions> = {
  references: objectOf(BIPED_REFERENCES_INPUT_KINDS),
  rootNode: "object|string",
  autoUpdate: "boolean",
  fixTransforms: "boolean",
  mesh: "object",
  forward: "object",
  inspector: "boolean",
  enableFadeSeconds: "number",
};

/**
 * FinalIK's FullBodyBipedIK for a Babylon skeleton: nine effectors (body, shoulders, thighs, hands,
 * feet) that pull the whole body, solved every frame on top of the running animation.
 *
 * ```ts
 * const ik = FullBodyBipedIK.create(scene, skeleton);
 * ik.solver.leftHandEffector.position.copyFrom(cup.absolutePosition);
 * ik.solver.leftHandEffector.positionWeight = 1;
 * ```
 */
export class FullBodyBipedIK {
  /** The scene. */
  readonly scene: Scene;
  /** The skeleton. */
  readonly skeleton: Skeleton;
  /** The bones the IK is built on. */
  readonly references: BipedReferences;
  /** The rig adapter (reads and writes the skeleton in component space). */
  readonly rig: BabylonRig;
  /** The solver, its effectors, chains and mappings. */
  readonly solver: FBBIKSolver;
  /** The root node bone the body chain stands for. */
  readonly rootNode: Bone;
  /**
   * The way the character faces, as an axis of its root node (`references.root`) in the root's own frame: root
   * space's z, which the offset modifiers' vectors and the grounder's forward are taken in. Detected at create:
   * of the root's ±x and ±z, the one nearest the forward measured from the toes (or `options.forward`), +z when
   * it cannot be measured. Most glTF characters face their root's +z; some face −z (Soldier, a `.babylon`
   * exported facing away, VRM 0.x). Mutate it for a rig the estimate gets wrong. Not FinalIK's, which takes the
   * root's +z (Unity's import makes characters face it).
   */
  readonly characterForward = new Vector3(0, 0, 1);
  /**
   * A problem, reported once per cause (bad input, a disposed target…); while nobody observes, it is logged with
   * Babylon's `Logger.Warn` instead. Warnings raised while `create` attaches (a straight limb, a guess of the
   * detection) happen before you can subscribe: they are logged, and kept in {@link warningsRaised}.
   */
  readonly onWarningObservable = new Observable<SolverWarning>();
  /** Notified once by {@link dispose}, before the IK lets go of its bones (Babylon's convention). */
  readonly onDisposeObservable = new Observable<FullBodyBipedIK>();
  /**
   * @internal Notified once the solved pose is written to the bones: after every onPostUpdate hook, whatever
   * the order they were added in (EffectorHandles rides on it, so it sees what FBBIKColliders pushed).
   */
  readonly _onWrittenObservable = new Observable<void>();
  /**
   * The IK's main settings in Babylon's Inspector (`inspectableCustomProperties`): enabled, weight,
   * iterations, each effector's position and rotation weight, each limb's pull and reach, as sliders under
   * the character's root node, skeleton and skinned meshes (property names `fbbik_…`, e.g.
   * `fbbik_ikPositionWeight`).
   * `ik.inspector.attach(node)` shows them on another node too; dispose takes them off. A bone-only skeleton's rig
   * moved to another mesh (its own disposed or out of the scene) takes them from the mesh and root it left to the
   * ones it took.
   */
  readonly inspector: InspectorSettings;
  /**
   * When false the IK neither fixes transforms nor solves: at once, or once faded out over
   * {@link enableFadeSeconds}. It reads what you set, also while the fade runs ({@link isFading}).
   */
  enabled = true;
  /**
   * Seconds `enabled` takes to switch (default 0: at once, the pose jumps). Set to false, the IK's output eases
   * back to the animated pose over this time (still solved, so it follows its targets meanwhile), then the IK
   * stops: no FixTransforms, no solve, the bones show the animation alone. Set to true, its output eases in from
   * the animated pose. Set back mid-fade, it turns back from the pose shown. Not in FinalIK.
   */
  get enableFadeSeconds(): number {
    return this.enableFade.seconds;
  }
  set enableFadeSeconds(v: number) {
    this.enableFade.seconds = v;
  }
  /** Solve after the animations and the before-render observers every frame. */
  autoUpdate: boolean;
  /** Take the IK's own output off the mapped bones before the animations every frame. */
  fixTransforms: boolean;
  /** @internal Level of detail: the cross-fade of the output at a change of level (null: none; IKLevelOfDetail). */
  _lodFade: OutputFade | null = null;
  /** @internal Level of detail: solve with `iterations` 0 (FinalIK's limbs-only mode) during an update. */
  _lodCheap = false;
  /** @internal Level of detail: the change of level under way ends now (a fade of `enabled` eases the IK in). */
  _lodSettle = false;
  /** @internal Level of detail: off, no FixTransforms, read, solve or write (set once the weight faded to 0). */
  _lodOff = false;
  /**
   * @internal True during an update that follows frames the IK skipped (disabled, not shown, level of detail
   * Off): hooks that follow the character's motion restart from the current pose instead of the one before.
   */
  _resumed = false;
  /** True once a frame was skipped, until the next update that solves. */
  private skipping = false;
  /**
   * @internal True while the IK runs no update (off, faded out, not shown, level of detail Off): its hooks add
   * nothing, so none of them is fading.
   */
  get _idle(): boolean {
    return this.skipping;
  }
  private disposed = false;
  private lastFrame = -1;
  private readonly warnings: SolverWarning[] = [];
  /** Whether the character is shown: a disabled one is not solved. */
  private readonly visibility: RigVisibility;
  /** True while the IKs this one hangs from solve first (a cycle of them then solves in the scene's order). */
  private ordering = false;
  /** What its hooks read from the scene besides the effectors' targets (a head effector's headset). */
  private readonly hookTargets: HookTargets[] = [];
  /** The fade of {@link enabled} over {@link enableFadeSeconds}. */
  private readonly enableFade: EnableFade;
  /** Every setting {@link serialize} saves and {@link applySettings} loads. */
  private readonly settings: readonly IKSettingsGroup[];

  private constructor(
    scene: Scene,
    skeleton: Skeleton,
    references: BipedReferences,
    rootNode: Bone | null,
    options: FullBodyBipedIKOptions,
    setupWarnings: string[],
  ) {
    this.scene = scene;
    this.skeleton = skeleton;
    this.references = references;
    this.autoUpdate = options.autoUpdate ?? true;
    this.fixTransforms = options.fixTransforms ?? true;
    const built = buildBipedSolver(skeleton, references, rootNode, options, setupWarnings, (w) => {
      this.warnings.push(w);
      try {
        // as the family's components: a Playground user without an observer still sees it
        if (this.onWarningObservable.hasObservers()) this.onWarningObservable.notifyObservers(w);
        else Logger.Warn(`babylon-fbbik: ${w.message}`);
      } catch (e) {
        // a throwing observer must not break the solve, nor Babylon's render loop
        Logger.Error(`babylon-fbbik: an onWarningObservable observer threw on "${w.cause}": ${String(e)}`);
      }
    });
    this.rig = built.rig;
    // the root the rig resolved (the model's top node unless given)
    this.references.root = built.rig.characterRoot;
    this.rootNode = built.rootNode;
    rootFacingAxisToRef(built.rig, built.inner.forward, this.characterForward);
    this.solver = new FBBIKSolver(built.inner, built.rig, built.mapping);
    this.rig.watchDisposal();
    // the mesh a bone-only skeleton lived in was disposed and another it skins took its place: so did the root
    this.rig.onMeshAdoptedObservable.add((a) => this.followAdoption(a));
    this.visibility = new RigVisibility(this.rig, skeleton, (cause, message) => this.report(cause, message));
    this.enableFade = new EnableFade(scene, this.rig);
    this.enableFadeSeconds = options.enableFadeSeconds ?? 0;
    this.settings = fullBodySettings(this);
    this.inspector = new InspectorSettings("fbbik_", fullBodyInspectorSettings(this), {
      label: "IK",
      characterName: () => skeleton.name,
      serialize: () => this.serialize(),
      applySettings: (parsed) => this.applySettings(parsed),
      warn: (cause, message) => this.warnSettings(cause, message),
    });
    if (options.inspector ?? true) {
      if (references.root !== null) this.inspector.attach(references.root);
      this.inspector.attach(skeleton);
      for (const mesh of scene.meshes) if (mesh.skeleton === skeleton) this.inspector.attach(mesh);
      // created before its container's addAllToScene, the meshes are only in the container yet
      const container = (skeleton as unknown as SkeletonContainerState)._parentContainer as ContainerMeshes | null;
      for (const mesh of container?.meshes ?? []) if (mesh.skeleton === skeleton) this.inspector.attach(mesh);
    }
    claimNodes(this, this.rig.nodes);
    claimNodes(this, this.rig.bones);
    SceneUpdater.for(scene).add(this);
    // one body IK per skeleton and per pelvis node (body-solver.ts); what grounds this body (a GrounderIK's legs, on
    // this skeleton or another over the same nodes) moves before it
    addBodySolver(this, references.pelvis.getTransformNode(), true);
  }

  /**
   * Attaches FullBodyBipedIK to `skeleton`, in `scene` (the skeleton's): detects the biped references (or takes
   * them from `options`), builds the solver and, with `autoUpdate`, solves every frame after the animations.
   * The elbow and knee bend directions come from the skeleton's pose now: a clip started just before has not
   * posed the bones yet (call `group.goToFrame(group.from)` after `group.start()`), else the file's rest pose
   * is used, and a straight (T-posed) arm or leg gets a default bend with a `straight-limb` warning.
   * Throws {@link FBBIKError} naming every problem when the rig cannot work, when `scene` is not the skeleton's,
   * or when the skeleton (or another skeleton on the same nodes: one per skin of a glTF model) already has a
   * FullBodyBipedIK or a BipedIK that is not disposed.
   */
  static create(scene: Scene, skeleton: Skeleton, options: FullBodyBipedIKOptions = {}): FullBodyBipedIK {
    const unknown = checkOptions("FullBodyBipedIK", options, FULL_BODY_BIPED_IK_OPTION_KINDS);
    matchMatrixPrecision();
    checkSkeletonScene(scene, skeleton);
    const { references, warnings } = resolveReferences(skeleton, options.references ?? {});
    // a FullBodyBipedIK or BipedIK there already: the two would fight over the bones every frame
    refuseSecondBody("FullBodyBipedIK", skeleton, references.pelvis.getTransformNode());
    const rootNode = resolveRootNode(skeleton, references, options.rootNode);
    const ik = new FullBodyBipedIK(scene, skeleton, references, rootNode, options, warnings);
    warnUnknownOptions(ik.solver.inner, "FullBodyBipedIK", unknown, FULL_BODY_BIPED_IK_OPTION_KINDS, {
      "": ik,
      solver: ik.solver,
    });
    return ik;
  }

  /**
   * Checks whether FullBodyBipedIK can work on `skeleton` (with `options`) without attaching it: every
   * problem that would make {@link create} throw (missing, duplicated or misplaced references, bones not in
   * a parent chain, zero-length bones) and every warning it would raise (straight limbs, a root node too
   * near the shoulder or thigh line, guesses of the detection), in words.
   */
  static validate(
    skeleton: Skeleton,
    options: FullBodyBipedIKOptions = {},
  ): { problems: string[]; warnings: string[] } {
    const warnings: string[] = [];
    try {
      const unknown = checkOptions("FullBodyBipedIK", options, FULL_BODY_BIPED_IK_OPTION_KINDS);
      warnUnknownOptions(
        { warn: (_, m) => warnings.push(m) },
        "FullBodyBipedIK",
        unknown,
        FULL_BODY_BIPED_IK_OPTION_KINDS,
      );
      const resolved = resolveReferences(skeleton, options.references ?? {});
      const rootNode = resolveRootNode(skeleton, resolved.references, options.rootNode);
      buildBipedSolver(skeleton, resolved.references, rootNode, options, resolved.warnings, (w) =>
        warnings.push(w.message),
      );
      return { problems: [], warnings };
    } catch (e) {
      if (e instanceof FBBIKError) return { problems: [...e.problems], warnings };
      throw e;
    }
  }

  /**
   * Creates a FullBodyBipedIK on `skeleton` ({@link create}, with `options`) and loads the settings `parsed`
   * into it ({@link applySettings}): Babylon's `Parse` for settings saved by {@link serialize}, from this
   * character or another one.
   */
  static Parse(
    parsed: unknown,
    scene: Scene,
    skeleton: Skeleton,
    options: FullBodyBipedIKOptions = {},
  ): FullBodyBipedIK {
    const ik = FullBodyBipedIK.create(scene, skeleton, options);
    ik.applySettings(parsed);
    return ik;
  }

  /**
   * The IK's settings as a plain JSON object (Babylon's `serialize`): `version`, `customType`, then the fades and
   * FixTransforms, `solver` (weight, iterations, spine stiffness, pull body…), `bodyChain.pin`, `effectors` (each
   * one's weights and fade, by name: `body`, `leftHand`…), `chains` (each limb's pull, reach, push and bend
   * constraint weights) and `mappings`, in a fixed order. Not `enabled`, `autoUpdate`, targets or positions.
   * Load it with {@link applySettings} or {@link Parse}; `JSON.stringify` it to keep it.
   */
  serialize(): IKSettingsObject {
    return serializeSettings(this.settings, "FullBodyBipedIK");
  }

  /**
   * Loads settings saved by {@link serialize} (whole or in part: what is left out keeps its value), from this
   * character or another one. An unknown key, a value of the wrong kind or out of its range (weights in
   * [0, 1]…) is warned (once a load) on {@link onWarningObservable} and skipped; another component's settings
   * (`customType`) load nothing, warned. Nothing throws.
   */
  applySettings(parsed: unknown): void {
    // each load reports its own problems: a second bad file in the Inspector is not silent
    this.solver.inner.resetWarnings("settings:");
    applySettings(this.settings, parsed, (cause, message) => this.warnSettings(cause, message), "FullBodyBipedIK");
  }

  /** A settings warning, named after the IK as the solver's own are not. */
  private warnSettings(cause: string, message: string): void {
    this.report(cause, `FullBodyBipedIK: ${message}`);
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "FullBodyBipedIK";
  }

  /** Warnings raised so far (each cause once). */
  get warningsRaised(): readonly SolverWarning[] {
    return this.warnings;
  }

  /**
   * True while the output eases in or out after `enabled` changed ({@link enableFadeSeconds}): with `enabled`
   * false and this false, the IK does nothing more (it may be disposed without a pop).
   */
  get isFading(): boolean {
    return this.enableFade.fading(this);
  }

  /**
   * Solves once now: reads the bones' current pose, solves, writes the bones. Called after the animations
   * every frame when `autoUpdate`. It can be called again at any time, in the same frame too: each call
   * first takes off what the IK itself wrote and still stands, and solves from the pose as the animation
   * and other code left it (a clip scrubbed with `goToFrame`, bones posed by code in between).
   */
  update(): void {
    if (this.disposed) return;
    try {
      this.updateNow();
    } catch (e) {
      // a frame's failure must not escape into the render loop; the bones keep the animated pose
      if (this.disposed) return;
      try {
        this.rig.restoreAnimatedPose();
      } catch (inner) {
        this.report(`exception:restore:${String(inner)}`, `Restoring the animated pose failed: ${String(inner)}`);
      }
      this.report(`exception:${String(e)}`, `The IK update failed and was skipped for this frame: ${String(e)}`);
    }
    if (!this.disposed) this.solver._afterUpdate();
  }

  private updateNow(): void {
    // off: offsets added for this frame are reset by update; the bones are left as they are
    // off by level of detail: its output was taken off when it went off, and nothing more is written
    // not shown (its root or every mesh of it disabled): its output came off when it hid; nothing is read
    // (each time nothing of it shows, `enabled` takes effect at once: there is nothing to fade)
    const enable = this.enableFade;
    if (!enable.active(this) || this.detached() || this._lodOff || this.visibility.hidden()) {
      enable.settle(this);
      this.skipping = true;
      return;
    }
    const pass = enable.begin(this);
    if (pass === EnablePass.Off || pass === EnablePass.Done) {
      // faded out: the output comes off, the bones show the animation alone
      if (pass === EnablePass.Done) this.rig.restoreAnimatedPose();
      this.skipping = true;
      return;
    }
    this._resumed = this.skipping;
    // frames went by unsolved: the elbow's memory of the last solve would ease from a pose no longer shown
    if (this.skipping) this.solver.inner.resetMemory();
    this.skipping = false;
    this.lastFrame = this.scene.getFrameId();
    // what the IK wrote comes off before OnPreUpdate: its observers see the pose the solve will read
    this.rig.restoreAnimatedPose();
    // FinalIK's OnPreUpdate comes before anything is read: what it changes on the bones is seen
    this.solver.onPreUpdateObservable.notifyObservers();
    // (any hook may dispose the IK: dispose restored the animated pose, nothing more is written)
    if (this.disposed) return;
    if (pass === EnablePass.Solve && this.idleAtZero()) {
      // the solver's own update still runs its stages at 0 (the offsets added for this frame are reset)
      this.solver.inner.update();
      return;
    }
    this.rig.read();
    const fade = this._lodFade;
    // fading in from nothing shown, a change of level under way has nothing to blend from: it takes its level
    // now (its blend, stopped while the IK was off, would catch up during this fade: two fades at once)
    if (enable.fromNothing && fade !== null && !fade.toAnimated) {
      fade.step = 1;
      this._lodSettle = true;
    }
    // fading out by level of detail: the solution is the animated pose, nothing to solve
    const solving = (fade === null || !fade.toAnimated) && this.rigSolvable();
    if (solving) {
      if (this._lodCheap) this.solveCheap();
      else this.solver.inner.update();
    }
    if (this.disposed) return;
    if (fade !== null) this.rig._fadeOutput(fade);
    // fading `enabled`: what shows (the level of detail's blend included) at the fade's weight
    if (pass === EnablePass.Fade) enable.weigh();
    this.rig.write();
    if (this.rig.writeRejected) {
      this.solver.inner.warn(
        "non-finite-pose",
        "The solved pose had a non-finite value (NaN or ±∞, e.g. set into the solver by a hook): nothing was " +
          "written this frame, the bones keep the animated pose.",
      );
    } else if (solving) this._onWrittenObservable.notifyObservers();
  }

  /**
   * True at `ikPositionWeight` 0 (a hook may have raised it) with nothing to blend (no level-of-detail fade) and
   * nothing to see the bones read: the solution is the animated pose the restore put back, so the frame reads and
   * writes nothing (40 walking Xbots, hands on targets: the pass 0.67 → 0.29 ms, 2.48 at weight 1, 0.13 off).
   */
  private idleAtZero(): boolean {
    const fade = this._lodFade;
    return (
      !(this.solver.inner.ikPositionWeight > 0) &&
      (fade === null || !fade.active) &&
      !this.solver._readWatched &&
      !this._onWrittenObservable.hasObservers()
    );
  }

  /**
   * The solve in the level of detail's cheap mode (FinalIK's `iterations` 0) for its duration only: the
   * user's `iterations` comes back after it, unless a hook set it during the solve.
   */
  private solveCheap(): void {
    const inner = this.solver.inner;
    const iterations = inner.iterations;
    inner.iterations = 0;
    try {
      inner.update();
    } finally {
      if (inner.iterations === 0) inner.iterations = iterations;
    }
  }

  /**
   * True when the rig cannot be used this frame (warned once). A skeleton disposed for good (out of its
   * scene and of any asset container), or disposed nodes or mesh, dispose the IK: nothing keeps it then.
   */
  private detached(): boolean {
    const state = this.rig.detachment();
    if (state === RigDetachment.Attached) return false;
    // an IK switched off has nothing to say of bones it would not write anyway
    if (state === RigDetachment.Unlinked && !this.enableFade.active(this)) return true;
    const removed = state === RigDetachment.SkeletonRemoved;
    // a skeleton out of its scene may come back with its asset container, bones may be linked back
    const forGood = detachedForGood(state, this.skeleton);
    if (forGood && removed) this.report(DETACHED_FOR_GOOD[0], DETACHED_FOR_GOOD[1]);
    else this.report(DETACHED[state]![0], DETACHED[state]![1]);
    if (forGood) this.dispose();
    return true;
  }

  /** The root follows the rig to the mesh it moved to; the forward axis is carried into the new root's frame. */
  private followAdoption(adoption: MeshAdoption): void {
    followAdoptionInInspector(adoption, this.inspector);
    const root = this.references.root;
    const next = followAdoption(adoption, root);
    if (next === root) return;
    carryAxis(adoption, root, next, this.characterForward);
    this.references.root = next;
  }

  /** Warns once per cause; nothing a warning observer throws gets out. */
  private report(cause: string, message: string): void {
    try {
      this.solver.inner.warn(cause, message);
    } catch (e) {
      Logger.Error(`babylon-fbbik: a warning observer threw on "${cause}": ${String(e)}`);
    }
  }

  /**
   * Whether the pose just read can be solved; warns once per cause when it cannot (a bone scaled to 0, or
   * moved under another bone of the skeleton: the frame is skipped and the bones keep the animated pose) or
   * when a non-uniform bone scale shears bones the IK turns (solved anyway).
   */
  private rigSolvable(): boolean {
    const blocked = this.rig.blockingProblem();
    if (blocked !== null) {
      this.report(blocked[0], blocked[1]);
      return false;
    }
    const sheared = this.rig.shearProblem();
    if (sheared !== null) this.report(sheared[0], sheared[1]);
    return true;
  }

  /** @internal */
  _beforeAnimations(): void {
    if (this.disposed) return;
    try {
      // off by level of detail: nothing written since the switch (IKLevelOfDetail took the output off then)
      if (this._lodOff || this.detached() || !this.enableFade.active(this) || !this.fixTransforms) return;
      if (this.visibility.hidden()) return;
      this.rig.fixTransforms();
    } catch (e) {
      // like update(): a failure is reported once and never escapes into Babylon's frame
      this.report(`exception:fix:${String(e)}`, `FixTransforms failed and was skipped for this frame: ${String(e)}`);
    }
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
   * @internal Level of detail: back from Off (its output was the animated pose). Offsets added while off (no
   * update reset them) are dropped, and `enabled` takes effect at once (the level's own fade eases it in).
   */
  _lodWake(): void {
    this.solver._afterUpdate();
    this.enableFade.settle(this);
  }

  /**
   * @internal Whether the character is shown (see RigVisibility), for the level of detail; `rootOnly`: its
   * root node and the meshes known outside it alone are tested (what an Off character of a crowd can afford each
   * frame).
   */
  _shown(rootOnly: boolean): boolean {
    return rootOnly ? this.visibility.rootShown() : this.visibility.shown();
  }

  /**
   * @internal Whether the IK solves when its level lets it, for the level of detail's budget: not disposed,
   * `autoUpdate`, on (or fading out) and `ikPositionWeight` above 0. One that does not costs the budget nothing
   * a level could save.
   */
  get _solves(): boolean {
    return !this.disposed && this.autoUpdate && this.enableFade.active(this) && this.solver.inner.ikPositionWeight > 0;
  }

  /**
   * @internal The meshes the skeleton skins that are not instances, for the level of detail: their `instances` draw
   * the character at their own places.
   */
  _skinnedSources(): readonly Mesh[] {
    return this.visibility.skinnedSources();
  }

  /**
   * @internal Whether a mesh of {@link _skinnedSources} has an instance (O(1) while the scene's meshes are unchanged).
   */
  _instanced(): boolean {
    return this.visibility.instanced();
  }

  /**
   * @internal Whether Babylon's mesh level of detail draws nothing of the character for `camera` (a null level), for
   * the level of detail; not `fresh`, whether its meshes have levels at all is the last fresh call's answer.
   */
  _lodCulledBy(camera: Camera, fresh: boolean): boolean {
    return this.visibility.lodCulledBy(camera, fresh);
  }

  /** @internal Whether a camera with this `layerMask` draws a mesh of the character, for the level of detail. */
  _drawnBy(layerMask: number): boolean {
    return this.visibility.drawnBy(layerMask);
  }

  /** @internal */
  _beforeRender(): void {
    // off by level of detail: not even a look (IKLevelOfDetail resets the offsets when it comes back on)
    if (this._lodOff) {
      // written only on a change: a crowd's Off characters should not dirty a cache line each every frame
      if (!this.skipping) this.skipping = true;
      return;
    }
    if (!this.autoUpdate || this.ordering) return;
    if (this.scene.getFrameId() === this.lastFrame) return;
    if (severalClaimants()) {
      this.ordering = true;
      try {
        this.solveWhatItHangsFrom();
      } finally {
        this.ordering = false;
      }
    }
    this.update();
  }

  /** @internal */
  get _ordering(): boolean {
    return this.ordering;
  }

  /**
   * Before solving, the other IKs whose bones this character (its component space) or an effector's target
   * hangs from: a rider on a mount, a hand on another character's hand.
   */
  private solveWhatItHangsFrom(): void {
    solveOwnerAbove(this.rig.componentRoot, this);
    const effectors = this.solver.effectors;
    for (let i = 0; i < effectors.length; i++) {
      const target = effectors[i]!.target;
      if (target !== null) solveOwnerAbove(target, this);
    }
    const hooks = this.hookTargets;
    for (let i = 0; i < hooks.length; i++) hooks[i]!._solveTargetOwners();
  }

  /**
   * @internal Registers a component hooked on this IK that reads nodes of the scene during the solve (a head
   * effector's headset on a moving platform's rig): the IKs those nodes hang from solve first.
   */
  _addHookTargets(hook: HookTargets): void {
    if (!this.hookTargets.includes(hook)) this.hookTargets.push(hook);
  }

  /** @internal Undoes {@link _addHookTargets}. */
  _removeHookTargets(hook: HookTargets): void {
    const i = this.hookTargets.indexOf(hook);
    if (i >= 0) this.hookTargets.splice(i, 1);
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /**
   * Stops the IK: removes its observers and leaves the bones as the animation left them. Safe from inside
   * the IK's own hooks and warning observers (the update in progress writes nothing more).
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    this.solver._notifyDisposed();
    this.inspector.dispose();
    const updater = SceneUpdater.for(this.scene);
    // the other IK components on this skeleton take their output off too (each before the one below it)
    updater.takeOff(this.skeleton);
    updater.remove(this);
    removeBodySolver(this);
    releaseNodes(this, this.rig.nodes);
    releaseNodes(this, this.rig.bones);
    try {
      this.rig.restoreAnimatedPose();
    } catch (e) {
      Logger.Error(`babylon-fbbik: restoring the animated pose on dispose failed: ${String(e)}`);
    }
    this.rig.dispose();
    this.solver._dispose();
    this.onWarningObservable.clear();
    this._onWrittenObservable.clear();
    const inner = this.solver.inner;
    for (const o of [
      inner.onPreUpdate,
      inner.onPreRead,
      inner.onPreSolve,
      inner.onPostSolve,
      inner.onPostUpdate,
      inner.onWarning,
    ])
      o.clear();
    inner.onPreIteration.clear();
    inner.onPostIteration.clear();
    inner.onPreBend.clear();
  }
}
