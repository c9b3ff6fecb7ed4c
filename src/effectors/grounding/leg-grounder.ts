import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { BabylonRig } from "../../babylon/babylon-rig.js";
import { notifyDisposed } from "../../babylon/dispose-notice.js";
import { type MeshAdoption, carryAxis, followAdoption } from "../../babylon/mesh-adoption.js";
import { type OptionKinds, checkOptions, warnUnknownOptions } from "../../babylon/option-check.js";
import { RigDetachment } from "../../babylon/rig-attachment.js";
import type { RigComponent } from "../../babylon/rig-component.js";
import { FadeClock, sceneDeltaSecondsToRef } from "../../babylon/scene-time.js";
import { EnableFade, EnablePass } from "../../babylon/enable-fade.js";
import { IKUpdateOrder, SceneUpdater } from "../../babylon/scene-updater.js";
import { bodySolverOver, watchBodySolver } from "../../babylon/body-solver.js";
import { NumberRef } from "../../math/number-ref.js";
import { FBBIKError } from "../../solver/errors.js";
import type { BabylonGroundRaycast } from "./babylon-ground-raycast.js";
import type { GrounderLeg, GrounderLegSet } from "./grounder-leg-set.js";
import type { GrounderOptions } from "./grounder-options.js";
import { GrounderRootTurn } from "./grounder-root-turn.js";
import {
  GROUNDER_REFERENCE_HEIGHT,
  GrounderRoot,
  createGroundRaycast,
  createGrounding,
  skeletonHeight,
} from "./grounder-setup.js";
import type { Grounding } from "./grounding.js";
import { MAX_GROUNDER_DELTA_TIME } from "./grounding-common.js";

const sceneSeconds = new NumberRef();
/** How far before the skeleton's FullBodyBipedIK the legs a grounder drives solve (room for what goes between). */
const BODY_LEAD = 10;

/** What {@link LegGrounder} reads of its subclass's options besides those of every grounder. */
export interface LegGrounderOptions extends GrounderOptions {
  /** The node the grounder turns (see each grounder). */
  characterRoot?: TransformNode | null;
  /** For skeletons without linked TransformNodes: the mesh the skeleton deforms (default: the first one). */
  mesh?: AbstractMesh;
}

/**
 * What the grounders of the family's legs share ({@link GrounderIK}, {@link GrounderQuadruped}): the check at create,
 * the rig of the bones they move, the root, the sizes, the ground probes, the first grounding, the place in the
 * scene's updater just before the first leg, the frame's weight and clock, the legs' hooks (each leg aimed at its
 * foot's ground by its {@link GrounderLegSet}), FixTransforms and dispose. A subclass does its frame in
 * {@link solveFrame}.
 */
export abstract class LegGrounder {
  /** The skeleton of the legs. */
  readonly skeleton: Skeleton;
  /** The scene. */
  readonly scene: Scene;
  /** The engine-neutral grounding solver (of every leg for GrounderIK, of the hind legs for GrounderQuadruped). */
  readonly solver: Grounding;
  /** The Babylon picking raycast (null when a custom raycast was given). */
  readonly groundRaycast: BabylonGroundRaycast | null;
  /** The node standing on the ground, whose up and forward the probes use (null: the world origin, +Y, +Z). */
  root: TransformNode | null;
  /** The node the grounder turns (null: none). */
  characterRoot: TransformNode | null;
  /** The character height the defaults were scaled for. */
  readonly height: number;
  /** The way the character faces, as an axis of {@link root} in its own frame (each subclass's, settable at create). */
  abstract readonly characterForward: Vector3;
  /** Where it runs in the scene updater: one below its first leg's. */
  get updateOrder(): number {
    return this.order;
  }
  /** [0, 1] Master weight. */
  weight = 1;
  /**
   * When false the grounder does nothing: at once (what it wrote comes off before the next frame), or once faded
   * out over {@link enableFadeSeconds}. It reads what you set, also while the fade runs ({@link isFading}).
   */
  enabled = true;
  /** Notified once by {@link dispose}, before it lets go of its state (Babylon's convention). */
  readonly onDisposeObservable = new Observable<this>();
  /** @internal The root's turn, an offset taken off before the animations. */
  protected readonly turn = new GrounderRootTurn();
  /** @internal The bones the grounder moves and reads, read once a frame before the legs. */
  protected readonly rig: BabylonRig;
  /** @internal */
  protected readonly rootReader: GrounderRoot;
  /** @internal This frame's weight (0: the legs are left alone). */
  protected frameWeight = 0;
  /** @internal The legs in their groundings (filled by the subclass). */
  protected readonly legSets: GrounderLegSet[] = [];
  private readonly drivenLegs: readonly GrounderLeg[];
  private readonly className: string;
  private readonly time = new FadeClock();
  /** The fade of {@link enabled} over {@link enableFadeSeconds}. */
  private readonly enableFade: EnableFade;
  private unknownOptions: string[] | null;
  private lastFrame = -1;
  private disposed = false;
  private order: number;
  /** Stops following the skeleton's FullBodyBipedIK. */
  private readonly unwatchBody: () => void;
  /** The index in its set of the leg {@link setOf} found. */
  private foundIndex = 0;

  /**
   * @internal
   * Checks `options` against `kinds` and throws {@link FBBIKError} for them or for what `problems` finds (the
   * subclass's check of its legs and bones); builds the rig over `bones` and the first grounding, for `firstLegs`;
   * drives `legs` (every leg).
   */
  protected constructor(
    className: string,
    legs: readonly GrounderLeg[],
    firstLegs: readonly GrounderLeg[],
    pelvis: Bone,
    bones: readonly Bone[],
    options: LegGrounderOptions,
    kinds: OptionKinds<LegGrounderOptions>,
    problems: () => string[],
  ) {
    // the options' types first: the problems read them
    this.unknownOptions = checkOptions(className, options, kinds);
    const found = problems();
    if (found.length > 0) throw new FBBIKError(found);
    this.className = className;
    this.drivenLegs = legs;
    const skeleton = pelvis.getSkeleton();
    this.skeleton = skeleton;
    this.scene = skeleton.getScene();
    this.rig = new BabylonRig(skeleton, bones, { mesh: options.mesh ?? null });
    this.rig.watchDisposal();
    this.root = options.root !== undefined ? options.root : this.rig.characterRoot;
    this.characterRoot = options.characterRoot ?? null;
    // a bone-only skeleton's mesh disposed, the rig moved to clothes it skins: roots that were that mesh go along
    this.rig.onMeshAdoptedObservable.add((a) => this.followAdoption(a));
    this.rootReader = new GrounderRoot(this.root);
    this.height =
      options.height !== undefined && options.height > 0 ? options.height : skeletonHeight(skeleton, this.rig);
    this.groundRaycast = createGroundRaycast(this.scene, options, (mesh) => this.isCharacterMesh(mesh));
    if (this.groundRaycast !== null) this.groundRaycast.onWarning = (c, m) => this.legWarn(c, m);
    this.solver = this.createGrounding(firstLegs.length, options, "solver");
    if (options.weight !== undefined) this.weight = options.weight;
    this.enableFade = new EnableFade(this.scene, null);
    if (options.enableFadeSeconds !== undefined) this.enableFadeSeconds = options.enableFadeSeconds;
    this.order = this.firstLegOrder() - 1;
    for (const leg of legs) leg._legDriver = this;
    SceneUpdater.for(this.scene).add(this);
    this.unwatchBody = watchBodySolver(this.scene, () => this.placeLegs());
    this.placeLegs();
  }

  /**
   * The legs without an `updateOrder` of their own solve {@link BODY_LEAD} before the skeleton's FullBodyBipedIK
   * when it has one (else in their kind's place), the grounder one before the first of them: the FBBIK then
   * solves on the grounded body. Moving the pelvis after it would drag whatever it pinned (a hand 0.1 h off its
   * target over a 0.1 h pit, measured). Legs given a later order keep it, warned once.
   */
  private placeLegs(): void {
    if (this.disposed) return;
    // the skeleton's FBBIK, or one on another skeleton over the same nodes (a glTF model's other skin)
    const body = bodySolverOver(
      this.skeleton,
      this.drivenLegs.map((leg) => leg.bones[0]!),
    );
    const before = body === null ? null : (body.updateOrder ?? IKUpdateOrder.FullBody) - BODY_LEAD;
    for (const leg of this.drivenLegs) leg._placeAt(before);
    const order = this.firstLegOrder() - 1;
    const updater = SceneUpdater.for(this.scene);
    if (order !== this.order) {
      this.order = order;
      updater.reorder(this);
    }
    if (body === null) return;
    const items = updater.items;
    const bodyAt = items.indexOf(body);
    const late = this.drivenLegs.filter((leg) => items.indexOf(leg) > bodyAt).map((leg) => leg.bones[0]!.name);
    if (late.length === 0 && items.indexOf(this) < bodyAt) return;
    this.warn(
      "order",
      `the legs (${late.join(", ")}) were given an updateOrder that solves them after the FullBodyBipedIK on their ` +
        "skeleton: the grounding then moves the pelvis after the FBBIK solved and drags what it pinned. Create " +
        "them without updateOrder (they then solve before the FBBIK), or with one below IKUpdateOrder.FullBody.",
    );
  }

  /** The lowest updateOrder of the legs. */
  private firstLegOrder(): number {
    let order = Infinity;
    for (const leg of this.drivenLegs) order = Math.min(order, leg.updateOrder);
    return order;
  }

  /**
   * Seconds `enabled` takes to switch (default 0: at once). Set to false, everything the grounder does (the body's
   * moves and turns, the legs' aim at the ground, the feet's turns) eases out over this time as if {@link weight}
   * fell to 0 (the ground is still probed meanwhile), then the grounder stops; set to true, it eases in the same
   * way; set back mid-fade, it turns back where it is. Not in FinalIK (GrounderFBBIK has the same).
   */
  get enableFadeSeconds(): number {
    return this.enableFade.seconds;
  }
  set enableFadeSeconds(v: number) {
    this.enableFade.seconds = v;
  }

  /** True while what the grounder does eases in or out after `enabled` changed ({@link enableFadeSeconds}). */
  get isFading(): boolean {
    return this.enableFade.fading(this);
  }

  /** The character's length unit (`height / 1.8`): what the default lengths were scaled by. */
  get lengthUnit(): number {
    return this.solver.lengthUnit;
  }
  /** How much the character was scaled since create (see GrounderFBBIK's `lengthScale`). */
  get lengthScale(): number {
    return this.solver.lengthScale;
  }
  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return this.className;
  }

  /** Forgets the grounder's motion, offsets and root turn: call after teleporting the character. */
  resetPosition(): void {
    for (const set of this.legSets) set.solver.reset();
    this.turn.reset();
  }

  /** The roots follow the rig to the mesh it moved to; the forward axis is carried into the new root's frame. */
  private followAdoption(adoption: MeshAdoption): void {
    const root = this.root;
    const next = followAdoption(adoption, root);
    if (next !== root) {
      carryAxis(adoption, root, next, this.characterForward);
      this.rootReader.follow(adoption, root, next);
      this.root = next;
    }
    this.characterRoot = followAdoption(adoption, this.characterRoot);
  }

  /** True for meshes that belong to the character (skinned by its skeleton or under its root). */
  isCharacterMesh(mesh: AbstractMesh): boolean {
    if (mesh.skeleton === this.skeleton) return true;
    const root = this.root ?? this.characterRoot;
    return root !== null && (mesh === (root as unknown) || mesh.isDescendantOf(root));
  }

  /** Lets go of the legs and takes what it wrote off. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    this.unwatchBody();
    for (const leg of this.drivenLegs) {
      if (leg._legDriver !== this) continue;
      leg._legDriver = null;
      leg._placeAt(null);
    }
    SceneUpdater.for(this.scene).remove(this);
    this._takeOff();
    this.rig.dispose();
  }

  /** @internal FixTransforms: what it wrote and the root's turn come off before the animations. */
  _beforeAnimations(): void {
    if (!this.disposed) this._takeOff();
  }

  /** @internal The grounder's pass, before its legs solve. */
  _beforeRender(): void {
    this._beforeLegRead();
  }

  /** @internal */
  _takeOff(): void {
    this.turn.takeOff(this.characterRoot);
    this.rig.restoreAnimatedPose();
  }

  /** @internal */
  _putBack(): void {
    this.rig.reapplyOutput();
    this.turn.putBack(this.characterRoot);
  }

  /** @internal Once a scene frame, before any leg reads its bones: the frame's weight and time, then solveFrame. */
  _beforeLegRead(): void {
    const frame = this.scene.getFrameId();
    if (this.disposed || frame === this.lastFrame) return;
    this.lastFrame = frame;
    const weight = this.weight;
    const enable = this.enableFade;
    const pass = enable.begin(this);
    // fading `enabled`: everything the grounder does, scaled by the fade's weight
    const w =
      pass === EnablePass.Off || pass === EnablePass.Done
        ? 0
        : (weight > 0 ? (weight < 1 ? weight : 1) : 0) * (pass === EnablePass.Fade ? enable.weight : 1);
    this.frameWeight = w;
    const sets = this.legSets;
    for (let i = 0; i < sets.length; i++) sets[i]!.weight = w;
    // the clock runs while off too: the first frame back is one frame's step
    this.time.step(this.scene);
    // a skeleton out of its scene or disposed: its legs skip the frame (and warn) too
    if (!(w > 0) || this.rig.detachment() !== RigDetachment.Attached) {
      this.frameWeight = 0;
      return;
    }
    const dt = sceneDeltaSecondsToRef(this.scene, sceneSeconds).value;
    // Math.min, not a ternary: a phi of a double and an imported constant was held boxed (16 B a frame)
    const step = dt > 0 ? Math.min(dt, MAX_GROUNDER_DELTA_TIME) : 0;
    for (let i = 0; i < sets.length; i++) {
      const g = sets[i]!.solver;
      g.deltaTime = step;
      g.frameTime = this.time.dt;
    }
    this.solveFrame();
  }

  /** @internal Aims `leg` at its foot's ground for this solve, keeping its foot's rotation before it. */
  _beforeLegSolve(leg: RigComponent): void {
    this.setOf(leg)?.beforeSolve(this.foundIndex);
  }

  /** @internal Gives `leg` its weight back and turns its foot to the ground. */
  _afterLegSolve(leg: RigComponent): void {
    this.setOf(leg)?.afterSolve(this.foundIndex);
  }

  /** @internal The frame at {@link frameWeight} > 0, the groundings' times set: read, probe, move, write. */
  protected abstract solveFrame(): void;

  /** @internal A grounding for `count` legs with `options`' settings, its warnings named `<className>: <name>.`. */
  protected createGrounding(count: number, options: GrounderOptions, name: string): Grounding {
    const raycast = options.raycast ?? this.groundRaycast!.raycast;
    const unit = this.height / GROUNDER_REFERENCE_HEIGHT;
    const warn = (c: string, m: string): void => this.legWarn(c, m);
    return createGrounding(count, raycast, options, unit, warn, `${this.className}: ${name}.`);
  }

  /** @internal Warns of the options create did not know, naming the properties of `targets` they may mean (once). */
  protected warnUnknownOptions(kinds: OptionKinds<LegGrounderOptions>, targets: Record<string, object>): void {
    const unknown = this.unknownOptions;
    this.unknownOptions = null;
    if (unknown === null) return;
    const channel = { warn: (cause: string, message: string) => this.warn(cause, message) };
    warnUnknownOptions(channel, this.className, unknown, kinds, targets);
  }

  /** The set holding `leg` this frame (null: the grounder is off), its index in the set into {@link foundIndex}. */
  private setOf(leg: RigComponent): GrounderLegSet | null {
    if (!(this.frameWeight > 0)) return null;
    const sets = this.legSets;
    for (let s = 0; s < sets.length; s++) {
      const i = sets[s]!.legs.indexOf(leg as GrounderLeg);
      if (i >= 0) {
        this.foundIndex = i;
        return sets[s]!;
      }
    }
    return null;
  }

  /** @internal Warns on the first leg's channel (the grounder has none of its own), once per cause. */
  protected warn(cause: string, message: string): void {
    this.legWarn(`grounder:${cause}`, `${this.className}: ${message}`);
  }

  /** The first leg's channel as it is: the solvers' and the probes' warnings name themselves. */
  private legWarn(cause: string, message: string): void {
    this.drivenLegs[0]!._warn(cause, message);
  }

  /** Forgets the settings causes warned, so each load reports its own problems. */
  protected forgetSettingsWarnings(): void {
    this.drivenLegs[0]!.resetWarnings("grounder:settings:");
  }
}
