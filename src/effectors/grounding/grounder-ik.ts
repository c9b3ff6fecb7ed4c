import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { BabylonRig } from "../../babylon/babylon-rig.js";
import type { CCDIK, FABRIK } from "../../babylon/chain-ik.js";
import { RigDetachment } from "../../babylon/rig-attachment.js";
import { notifyDisposed } from "../../babylon/dispose-notice.js";
import type { LimbIK } from "../../babylon/limb-ik.js";
import type { RigComponent } from "../../babylon/rig-component.js";
import { FadeClock, sceneDeltaSecondsToRef } from "../../babylon/scene-time.js";
import { EnableFade, EnablePass } from "../../babylon/enable-fade.js";
import { SceneUpdater } from "../../babylon/scene-updater.js";
import { FBBIKError } from "../../solver/errors.js";
import { NumberRef } from "../../math/number-ref.js";
import { Quat, multiply, slerpByRef } from "../../math/quat.js";
import { Vec3 } from "../../math/vec3.js";
import { type GroundPredicate, BabylonGroundRaycast } from "./babylon-ground-raycast.js";
import type { Grounding } from "./grounding.js";
import { GROUNDER_OPTION_KINDS, type GrounderOptions } from "./grounder-options.js";
import { grounderIKSettings } from "./grounder-settings.js";
import { type OptionKinds, checkOptions, warnUnknownOptions } from "../../babylon/option-check.js";
import { type IKSettingsObject, applySettings, serializeSettings } from "../../babylon/ik-settings.js";
import { GrounderRootTurn } from "./grounder-root-turn.js";
import {
  GROUNDER_REFERENCE_HEIGHT,
  GrounderRoot,
  createGrounding,
  moveBoneInWorld,
  skeletonHeight,
} from "./grounder-setup.js";
import { worldDeltaToComponent } from "../../babylon/world-delta.js";

/** A leg {@link GrounderIK} drives: a LimbIK, or a CCDIK or FABRIK chain; its last bone is the foot. */
export type GrounderLeg = LimbIK | CCDIK | FABRIK;

/** Options of {@link GrounderIK}: those of every grounder ({@link GrounderOptions}) and the root's turn. */
export interface GrounderIKOptions extends GrounderOptions {
  /**
   * The node turned toward the plane of the feet's ground (multi-legged creatures), by `rootRotationWeight`.
   * Default none (no turn). It may be the grounder's `root` too.
   */
  characterRoot?: TransformNode | null;
  /** [0, 1] How much {@link GrounderIKOptions.characterRoot} turns to the feet's ground plane. Default 0.5. */
  rootRotationWeight?: number;
  /** How fast the root turns (rate per second). Default 5. */
  rootRotationSpeed?: number;
  /** For skeletons without linked TransformNodes: the mesh the skeleton deforms (default: the first one). */
  mesh?: AbstractMesh;
  /** [0, 90] The most the root turns, degrees. Default 45. */
  maxRootRotationAngle?: number;
}

/** The kinds of {@link GrounderIKOptions}, for the check at create. */
export const GROUNDER_IK_OPTION_KINDS: OptionKinds<GrounderIKOptions> = {
  ...GROUNDER_OPTION_KINDS,
  characterRoot: "object|null",
  rootRotationWeight: "number",
  rootRotationSpeed: "number",
  mesh: "object",
  maxRootRotationAngle: "number",
};

const tv = new Vec3();
const bv = new Vector3();
const bv2 = new Vector3();
const tq = new Quat();
const tq2 = new Quat();
const IDENTITY = new Quat();
const sceneSeconds = new NumberRef();
const weightRef = new NumberRef();

/**
 * FinalIK's GrounderIK: keeps the feet of legs solved by the chain solvers ({@link LimbIK}, {@link CCDIK},
 * {@link FABRIK}) on uneven ground — a biped on two LimbIKs, a spider, a mech. Each frame it probes the ground under
 * each leg's foot ({@link Grounding}), moves `pelvis` down (or up) so that the lower foot can reach, aims every leg
 * at its foot's ground, turns the feet to the ground's normal and, with a `characterRoot`, turns the root toward the
 * plane of the feet's ground. The animation is expected to be made for flat ground at the root's height.
 *
 * ```ts
 * const legs = [LimbIK.create(scene, thighL, calfL, footL), LimbIK.create(scene, thighR, calfR, footR)];
 * for (const leg of legs) leg.solver.ikRotationWeight = 0;
 * const grounder = GrounderIK.create(legs, pelvis, { root: characterRoot });
 * ```
 *
 * Frame order: FinalIK takes the legs' updates over; here the legs keep theirs and the grounder joins the scene's
 * updater just before the first of them (`updateOrder` one below the lowest leg's): after the animations it moves the
 * pelvis and turns the root, then each leg, as it solves in its own place, is aimed at its foot's ground (its
 * `solver.ikPosition` and, for that solve only, `solver.ikPositionWeight` = the grounder's weight; its own target is
 * not read) and its foot is turned after the solve, as part of the leg's output (the leg's FixTransforms and
 * `enableFadeSeconds` cover it). A leg updated by hand (`autoUpdate` false) runs the grounder's pass first when it
 * has not run this frame. The pelvis's move and the root's turn are taken off before the next animations
 * (FixTransforms). At `weight` 0, or `enabled` false, the grounder touches nothing: the legs solve as without it,
 * bit for bit.
 *
 * Feet keep their animated component-space rotation through the solve, turned by the ground (as GrounderFBBIK's
 * feet). Sizes, time and the ground probes are GrounderFBBIK's: lengths scaled to the skeleton's height and the
 * root's scale since create ({@link lengthScale}), the scene's animation time clamped to [0, 0.1] s.
 */
export class GrounderIK {
  /** The legs, in the grounding solver's order (`solver.legs[i]` is `legs[i]`'s foot). */
  readonly legs: readonly GrounderLeg[];
  /** The bone moved up and down (an ancestor of every leg). */
  readonly pelvis: Bone;
  /** The skeleton of the legs. */
  readonly skeleton: Skeleton;
  /** The scene. */
  readonly scene: Scene;
  /** The engine-neutral grounding solver (its parameters are the grounder's). */
  readonly solver: Grounding;
  /** The Babylon picking raycast (null when a custom raycast was given). */
  readonly groundRaycast: BabylonGroundRaycast | null;
  /** The node standing on the ground, whose up and forward the probes use (null: the world origin, +Y, +Z). */
  root: TransformNode | null;
  /** The node turned toward the feet's ground plane (null: none). */
  characterRoot: TransformNode | null;
  /** The character height the defaults were scaled for. */
  readonly height: number;
  /** Where it runs in the scene updater: one below its first leg's. */
  readonly updateOrder: number;
  /** [0, 1] Master weight. */
  weight = 1;
  /**
   * When false the grounder does nothing: at once (its last pelvis move and root turn come off before the next
   * frame), or once faded out over {@link enableFadeSeconds}. It reads what you set, also while the fade runs
   * ({@link isFading}).
   */
  enabled = true;
  /** Notified once by {@link dispose}, before it lets go of its state (Babylon's convention). */
  readonly onDisposeObservable = new Observable<GrounderIK>();
  private readonly turn = new GrounderRootTurn();
  /** The pelvis and the legs' bones, read once a frame before the legs (the pelvis is written through it). */
  private readonly rig: BabylonRig;
  private readonly pelvisId: number;
  /** Per leg, the rig ids of its bones, root first (the foot last). */
  private readonly legIds: readonly Int32Array[];
  /** Per leg, its foot's id in the leg's own rig. */
  private readonly footIds: Int32Array;
  /** Per leg, its ikPositionWeight as set, kept over its solve. */
  private readonly ownWeights: Float64Array;
  /** Per leg, the foot's component-space rotation before the solve. */
  private readonly footRotations: Quat[];
  private readonly rootReader: GrounderRoot;
  private readonly time = new FadeClock();
  /** The fade of {@link enabled} over {@link enableFadeSeconds}. */
  private readonly enableFade: EnableFade;
  /** This frame's weight (0: the legs are left alone). */
  private frameWeight = 0;
  private lastFrame = -1;
  private disposed = false;

  /** Attaches a grounder to `legs` ({@link GrounderIKOptions}); throws {@link FBBIKError} for legs it cannot use. */
  constructor(legs: readonly GrounderLeg[], pelvis: Bone, options: GrounderIKOptions = {}) {
    const unknown = checkOptions("GrounderIK", options, GROUNDER_IK_OPTION_KINDS);
    const problems: string[] = [];
    if (legs.length === 0) problems.push("GrounderIK needs at least one leg");
    const skeleton = pelvis.getSkeleton();
    for (const leg of legs) {
      if (leg.skeleton !== skeleton) problems.push(`leg ${leg.bones[0]!.name} is not on the pelvis's skeleton`);
      else if (!hangsFrom(leg.bones[0]!, pelvis))
        problems.push(`leg ${leg.bones[0]!.name} does not hang from ${pelvis.name}`);
      if (leg._legDriver !== null) problems.push(`leg ${leg.bones[0]!.name} is already grounded`);
    }
    if (problems.length > 0) throw new FBBIKError(problems);
    this.legs = [...legs];
    this.pelvis = pelvis;
    this.skeleton = skeleton;
    this.scene = skeleton.getScene();
    this.rig = new BabylonRig(skeleton, [pelvis, ...legs.flatMap((l) => l.bones)], { mesh: options.mesh ?? null });
    this.rig.watchDisposal();
    this.pelvisId = this.rig.idOf(pelvis);
    this.rig.storeDefaultLocalState([{ bone: this.pelvisId, position: true }]);
    this.legIds = legs.map((l) => Int32Array.from(l.bones, (b) => this.rig.idOf(b)));
    this.footIds = Int32Array.from(legs, (l) => l.rig.idOf(l.bones[l.bones.length - 1]!));
    this.ownWeights = new Float64Array(legs.length);
    this.footRotations = legs.map(() => new Quat());
    this.root = options.root !== undefined ? options.root : this.rig.characterRoot;
    this.characterRoot = options.characterRoot ?? null;
    this.rootReader = new GrounderRoot(this.root);
    this.height =
      options.height !== undefined && options.height > 0 ? options.height : skeletonHeight(skeleton, this.rig);
    const unit = this.height / GROUNDER_REFERENCE_HEIGHT;
    const defaultPredicate: GroundPredicate = (mesh) =>
      mesh.isEnabled() && mesh.isVisible && mesh.isPickable && !this.isCharacterMesh(mesh);
    this.groundRaycast =
      options.raycast === undefined
        ? new BabylonGroundRaycast(this.scene, options.predicate ?? defaultPredicate)
        : null;
    const warn = (cause: string, message: string): void => this.legs[0]!._warn(cause, message);
    if (this.groundRaycast !== null) this.groundRaycast.onWarning = warn;
    this.solver = createGrounding(
      legs.length,
      options.raycast ?? this.groundRaycast!.raycast,
      options,
      unit,
      warn,
      "GrounderIK: solver.",
    );
    if (options.weight !== undefined) this.weight = options.weight;
    this.enableFade = new EnableFade(this.scene, null);
    if (options.enableFadeSeconds !== undefined) this.enableFadeSeconds = options.enableFadeSeconds;
    if (options.rootRotationWeight !== undefined) this.turn.weight = options.rootRotationWeight;
    if (options.rootRotationSpeed !== undefined) this.turn.speed = options.rootRotationSpeed;
    if (options.maxRootRotationAngle !== undefined) this.turn.maxAngle = options.maxRootRotationAngle;
    let order = Infinity;
    for (const leg of legs) order = Math.min(order, leg.updateOrder);
    this.updateOrder = order - 1;
    for (const leg of legs) leg._legDriver = this;
    SceneUpdater.for(this.scene).add(this);
    const channel = { warn: (cause: string, message: string) => this.warn(cause, message) };
    warnUnknownOptions(channel, "GrounderIK", unknown, GROUNDER_IK_OPTION_KINDS, { "": this, solver: this.solver });
  }

  /** Attaches a grounder to `legs` (same as the constructor). */
  static create(legs: readonly GrounderLeg[], pelvis: Bone, options: GrounderIKOptions = {}): GrounderIK {
    return new GrounderIK(legs, pelvis, options);
  }

  /**
   * Creates a grounder on `legs` ({@link create}, with `options`) and loads the settings `parsed` into it
   * ({@link applySettings}): Babylon's `Parse` for settings saved by {@link serialize}.
   */
  static Parse(
    parsed: unknown,
    legs: readonly GrounderLeg[],
    pelvis: Bone,
    options: GrounderIKOptions = {},
  ): GrounderIK {
    const grounder = new GrounderIK(legs, pelvis, options);
    grounder.applySettings(parsed);
    return grounder;
  }

  /**
   * The grounder's settings as a plain JSON object (Babylon's `serialize`): `version`, `customType`, its
   * `weight` and the root's turn, then `solver` (as GrounderFBBIK's). Not `enabled`, the legs, `root` or
   * `characterRoot`. The legs' own settings are theirs.
   */
  serialize(): IKSettingsObject {
    return serializeSettings(grounderIKSettings(this), "GrounderIK");
  }

  /**
   * Loads settings saved by {@link serialize} (whole or in part). An unknown key, a bad value or another
   * component's settings are warned once on the first leg's `onWarningObservable` (`grounder:settings:…`) and
   * skipped; nothing throws.
   */
  applySettings(parsed: unknown): void {
    applySettings(grounderIKSettings(this), parsed, (cause, message) => this.warn(cause, message), "GrounderIK");
  }

  /**
   * Seconds `enabled` takes to switch (default 0: at once). Set to false, the pelvis's move, the root's turn and
   * the legs' aim at the ground ease out over this time as if {@link weight} fell to 0 (the ground is still
   * probed meanwhile), then the grounder stops; set to true, they ease in the same way; set back mid-fade, they
   * turn back where they are. Not in FinalIK (GrounderFBBIK has the same).
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

  /** [0, 1] How much {@link characterRoot} turns toward the feet's ground plane. Default 0.5. */
  get rootRotationWeight(): number {
    return this.turn.weight;
  }
  set rootRotationWeight(v: number) {
    this.turn.weight = v;
  }
  /** How fast the root turns (rate per second). Default 5. */
  get rootRotationSpeed(): number {
    return this.turn.speed;
  }
  set rootRotationSpeed(v: number) {
    this.turn.speed = v;
  }
  /** [0, 90] The most the root turns from its own up, degrees. Default 45. */
  get maxRootRotationAngle(): number {
    return this.turn.maxAngle;
  }
  set maxRootRotationAngle(v: number) {
    this.turn.maxAngle = v;
  }
  /** The root's current (eased) turn, a world rotation on the left of its own. */
  get rootRotationOffset(): Quat {
    return this.turn.offset;
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
    return "GrounderIK";
  }

  /** Forgets the grounder's motion, offsets and root turn: call after teleporting the character. */
  resetPosition(): void {
    this.solver.reset();
    this.turn.reset();
  }

  /** True for meshes that belong to the character (skinned by its skeleton or under its root). */
  isCharacterMesh(mesh: AbstractMesh): boolean {
    if (mesh.skeleton === this.skeleton) return true;
    const root = this.root ?? this.characterRoot;
    return root !== null && (mesh === (root as unknown) || mesh.isDescendantOf(root));
  }

  /** Lets go of the legs and takes the pelvis's move and the root's turn off. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    for (const leg of this.legs) if (leg._legDriver === this) leg._legDriver = null;
    SceneUpdater.for(this.scene).remove(this);
    this._takeOff();
    this.rig.dispose();
  }

  /** @internal FixTransforms: the pelvis's move and the root's turn come off before the animations. */
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

  /** @internal Once a scene frame: probe, move the pelvis, turn the root (before any leg reads its bones). */
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
    // the clock runs while off too: the first frame back is one frame's step
    this.time.step(this.scene);
    // a skeleton out of its scene or disposed: its legs skip the frame (and warn) too
    if (!(w > 0) || this.rig.detachment() !== RigDetachment.Attached) {
      this.frameWeight = 0;
      return;
    }
    const g = this.solver;
    const dt = sceneDeltaSecondsToRef(this.scene, sceneSeconds).value;
    g.deltaTime = dt > 0 ? (dt < 0.1 ? dt : 0.1) : 0;
    g.frameTime = this.time.dt;
    this.rig.read();
    this.readInputs();
    g._step();
    const root = this.characterRoot;
    if (root !== null && !root.isDisposed()) {
      this.turn.apply(root, g, w);
      // the turned root carries component space: read it again (nothing of the grounder stands yet)
      this.rig.read();
    }
    const po = g.pelvis.ikOffset;
    tv.x = po.x * w;
    tv.y = po.y * w;
    tv.z = po.z * w;
    moveBoneInWorld(this.rig, this.pelvisId, tv);
    this.rig.write();
  }

  /** @internal Aims `leg` at its foot's ground for this solve, keeping its foot's rotation before it. */
  _beforeLegSolve(leg: RigComponent): void {
    const w = this.frameWeight;
    if (!(w > 0)) return;
    const i = this.legs.indexOf(leg as GrounderLeg);
    const l = this.legs[i]!;
    const s = l.solver;
    this.ownWeights[i] = s.ikPositionWeight;
    l.rig.worldToComponentPoint(this.solver.legs[i]!.ikPosition, s.ikPosition);
    s.ikPositionWeight = w;
    l.rig.getRotation(this.footIds[i]!, this.footRotations[i]!);
  }

  /** @internal Gives `leg` its weight back and turns its foot to the ground. */
  _afterLegSolve(leg: RigComponent): void {
    const w = this.frameWeight;
    if (!(w > 0)) return;
    const i = this.legs.indexOf(leg as GrounderLeg);
    const l = this.legs[i]!;
    l.solver.ikPositionWeight = this.ownWeights[i]!;
    const rig = l.rig;
    const foot = this.footIds[i]!;
    weightRef.value = w;
    slerpByRef(tq, IDENTITY, this.solver.legs[i]!.rotationOffset, weightRef);
    worldDeltaToComponent(rig, tq, tq);
    multiply(tq, tq, this.footRotations[i]!);
    slerpByRef(tq, rig.getRotation(foot, tq2), tq, weightRef);
    rig.setRotation(foot, tq);
  }

  /** Warns on the first leg's channel (the grounder has none of its own), once per cause. */
  private warn(cause: string, message: string): void {
    this.legs[0]!._warn(`grounder:${cause}`, `GrounderIK: ${message}`);
  }

  /** The root, and each leg's foot, hip and reach, from the pose the animation left. */
  private readInputs(): void {
    const g = this.solver;
    const rig = this.rig;
    this.rootReader.read(g, this.root, null);
    for (let i = 0; i < this.legIds.length; i++) {
      const ids = this.legIds[i]!;
      const leg = g.legs[i]!;
      rig.getWorldPosition(ids[0]!, bv);
      const t = leg.thighPosition;
      t.x = bv.x;
      t.y = bv.y;
      t.z = bv.z;
      // the leg's reach, read from this frame's pose (a clip may scale or stretch the leg)
      let length = 0;
      for (let k = 1; k < ids.length; k++) {
        rig.getWorldPosition(ids[k]!, bv2);
        const dx = bv2.x - bv.x;
        const dy = bv2.y - bv.y;
        const dz = bv2.z - bv.z;
        length += Math.sqrt(dx * dx + dy * dy + dz * dz);
        bv.x = bv2.x;
        bv.y = bv2.y;
        bv.z = bv2.z;
      }
      leg.legLength = length;
      const f = leg.footPosition;
      f.x = bv.x;
      f.y = bv.y;
      f.z = bv.z;
    }
  }
}

/** True when `bone` is `ancestor` or hangs from it. */
function hangsFrom(bone: Bone, ancestor: Bone): boolean {
  for (let b: Bone | null = bone; b !== null; b = b.getParent()) if (b === ancestor) return true;
  return false;
}
