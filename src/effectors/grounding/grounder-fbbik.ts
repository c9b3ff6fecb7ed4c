import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import type { BabylonEffector } from "../../babylon/babylon-effector.js";
import { Quat, multiply, slerpByRef } from "../../math/quat.js";
import { Vec3, projectOnPlane, sub } from "../../math/vec3.js";
import { NumberRef } from "../../math/number-ref.js";
import { FadeClock, sceneDeltaSecondsToRef } from "../../babylon/scene-time.js";
import { type GroundPredicate, BabylonGroundRaycast } from "./babylon-ground-raycast.js";
import { type GroundingQuality, MAX_GROUNDER_DELTA_TIME, clampNumber } from "./grounding-common.js";
import type { Grounding } from "./grounding.js";
import {
  GROUNDER_REFERENCE_HEIGHT,
  GrounderRoot,
  createGrounding,
  moveBoneInWorld,
  skeletonHeight,
} from "./grounder-setup.js";
import { worldDeltaToComponent } from "../../babylon/world-delta.js";
import {
  GROUNDER_FBBIK_OPTION_KINDS,
  type GrounderFBBIKOptions,
  type GrounderSpineEffector,
} from "./grounder-fbbik-options.js";
import { checkOptions, warnUnknownOptions } from "../../babylon/option-check.js";
import { Observable, type Observer } from "@babylonjs/core/Misc/observable.js";
import { disposeWith, notifyDisposed } from "../../babylon/dispose-notice.js";
import { type MeshAdoption, followAdoption } from "../../babylon/mesh-adoption.js";
import { EnableFade, EnablePass } from "../../babylon/enable-fade.js";
import { type IKSettingsObject, applySettings, serializeSettings } from "../../babylon/ik-settings.js";
import { grounderSettings } from "./grounder-settings.js";
import { readLegInputs } from "./leg-reader.js";

export { type GrounderFBBIKOptions, GrounderSpineEffector } from "./grounder-fbbik-options.js";

export { GROUNDER_REFERENCE_HEIGHT } from "./grounder-setup.js";

const tv = new Vec3();
/** A bone's pose read from the rig, one bone at a time (the rig's views would bring every bone up to date). */
const boneRotation = new Quat();
const tv2 = new Vec3();
const target = new Vec3();
const bv = new Vector3();
const tq = new Quat();
const IDENTITY = new Quat();
const sceneSeconds = new NumberRef();
const weightRef = new NumberRef();

/**
 * FinalIK's GrounderFBBIK for a {@link FullBodyBipedIK}: keeps the feet on uneven ground. Each frame,
 * before the IK reads the pose, it probes the ground under the feet ({@link Grounding}), moves the pelvis
 * down (or up) so that the lower foot can reach, offsets the foot effectors to the ground, turns the feet
 * to the ground normal and optionally bends the spine. The animation is expected to be made for flat
 * ground at the character root's height; the root must stand on the ground (move it with your character
 * controller).
 *
 * ```ts
 * const ik = FullBodyBipedIK.create(scene, skeleton);
 * const grounder = GrounderFBBIK.create(ik, { predicate: (m) => m.name.startsWith("ground") });
 * ```
 *
 * How it hooks in: on the inner solver's `onPreUpdate` (`ik.solver.onSkeletonRead`; FinalIK's OnPreUpdate, after the IK
 * has read the
 * skeleton and before it reads the bones into the solver) it moves the pelvis and turns the feet in the
 * IK's rig (so `FullBodyBipedIK` writes them, and a second update in a frame or `dispose` restores the
 * animated pose), and adds to the foot effectors' `positionOffset`. The leg mappings'
 * `maintainRotationWeight` is set to 1 so the feet keep the ground rotation through the solve. Nothing
 * happens while `weight`, `enabled` or the IK's `ikPositionWeight` is off: the pose is the IK's alone. The pelvis
 * move and the feet's turns scale with `ikPositionWeight`, as the effectors' offsets do in the solver.
 *
 * Sizes: every length is in world units. Those left out of the options take FinalIK's defaults (made for a
 * human of about 1.8 m) scaled by `height / 1.8`, `height` being the vertical extent of the skeleton's
 * joints when the grounder is created (or `options.height`): maxStep 0.5, footRadius 0.15,
 * rootSphereCastRadius 0.1 (heightOffset and footCenterOffset 0). `prediction` is a time and the speeds
 * are rates, so they need no scaling, except the constant-rate part of `footSpeed`, which is multiplied by
 * {@link lengthUnit}. The lengths are the character's size at create: where they are used they are multiplied
 * by {@link lengthScale}, how much the root was scaled since, so a character scaled at run time grounds as one
 * created at its new size; the fields keep the values set (not FinalIK's, whose lengths stay as set). Feet
 * closer together than two foot radii cannot follow a step edge between them with the Best quality (each foot's
 * probe reaches the other's ground): lower `footRadius` for such terrain or characters.
 *
 * Ground: Babylon picking over the scene's meshes (see {@link BabylonGroundRaycast}, including its
 * allocations) filtered by `options.predicate`, or `options.raycast`. Ground meshes need a material (or
 * `StandardMaterial` imported so the scene has a default one): Babylon picks material-less meshes by
 * their bounds only, and the grounder ignores such hits with a warning.
 *
 * Time: each scene frame advances the grounder once, by the scene's animation time
 * (`sceneDeltaSecondsToRef`), clamped to [0, 1/3] s (Unity's `maximumDeltaTime`). A second IK update in the
 * same frame re-applies the same result without stepping. The feet's velocity (`prediction`) is their move over
 * the whole scene time since the grounder last ran (`solver.frameTime`).
 */
export class GrounderFBBIK {
  /** The IK this grounder drives. */
  readonly ik: FullBodyBipedIK;
  /** The engine-neutral grounding solver (its parameters are the grounder's). */
  readonly solver: Grounding;
  /** The Babylon picking raycast (null when a custom raycast was given). */
  readonly groundRaycast: BabylonGroundRaycast | null;
  /** The character root (null: the world origin, +Y up, +Z forward). */
  root: TransformNode | null;
  /** The character height the defaults were scaled for. */
  readonly height: number;
  /**
   * How much the character was scaled since create: {@link root}'s world scale along its up axis over the one it
   * had then (1 without a root). The lengths are multiplied by it when used (`solver.lengthScale`); see the class
   * notes. Updated each frame the grounder runs.
   */
  get lengthScale(): number {
    return this.solver.lengthScale;
  }
  /** [0, 1] Master weight. */
  weight = 1;
  /**
   * When false the grounder does nothing: at once, or once faded out over {@link enableFadeSeconds}. It reads
   * what you set, also while the fade runs ({@link isFading}).
   */
  enabled = true;
  /**
   * Seconds `enabled` takes to switch (default 0: at once, the pelvis and feet jump to the IK's pose without the
   * ground). Set to false, the pelvis's and the feet's moves and turns and the spine's lean ease out over this
   * time as if {@link weight} fell to 0 (the ground is still probed meanwhile), then the grounder stops; set to
   * true, they ease in the same way; set back mid-fade, they turn back where they are. The IK's own
   * `enableFadeSeconds` fades the whole output instead. Not in FinalIK.
   */
  get enableFadeSeconds(): number {
    return this.enableFade.seconds;
  }
  set enableFadeSeconds(v: number) {
    this.enableFade.seconds = v;
  }
  /** Notified once by {@link dispose}, before it lets go of its state (Babylon's convention). */
  readonly onDisposeObservable = new Observable<GrounderFBBIK>();
  /**
   * How much the spine effectors lean toward the feet that the grounder moves relative to the pelvis (a
   * foot raised onto a step; with the pelvis lowered for a pit, the foot on the higher side), more for
   * feet in front (FinalIK's spineBend). FinalIK's offset has units of length²; here it is divided by
   * {@link lengthUnit} so the lean is the same at any size. Default 2.
   */
  spineBend = 2;
  /** How fast the spine bend follows (rate per second). Default 3. */
  spineSpeed = 3;
  /** The effectors the spine bend moves. */
  spine: GrounderSpineEffector[];
  /** The current spine offset (world). */
  readonly spineOffset = new Vector3();
  private readonly footIds: [number, number];
  /** Per leg (left, right), the rig ids of its thigh, calf and foot. */
  private readonly legIds: readonly [Int32Array, Int32Array];
  private readonly pelvisId: number;
  private readonly feet: [BabylonEffector, BabylonEffector];
  private readonly previousMaintain: [number, number];
  private readonly hook: () => void;
  private pendingDeltaTime: number | null = null;
  /** The time the feet moved over for a manual {@link update} (its `deltaTime`, or the scene's since the last run). */
  private pendingFrameTime = 0;
  /** The scene time since the grounder last ran: the feet's velocity is their move over it. */
  private readonly time = new FadeClock();
  private frameWeight = 0;
  /** frameWeight × the IK's master weight: for what the grounder writes straight into the rig. */
  private rigWeight = 0;
  // the last finite weight, spineBend and spineSpeed: a non-finite value is replaced by these (warned once)
  private validWeight = 1;
  private validSpineBend = 2;
  private validSpineSpeed = 3;
  private lastFrame = -1;
  private disposed = false;
  /** On the IK's onDisposeObservable: this goes with its IK. */
  private readonly ikDisposal: Observer<FullBodyBipedIK> | null;
  /** The fade of {@link enabled} over {@link enableFadeSeconds}. */
  private readonly enableFade: EnableFade;
  /** Reads the root into the solver, with the character's scale since create. */
  private readonly rootReader: GrounderRoot;
  /** On the rig's onMeshAdoptedObservable: the root follows the rig to another mesh. */
  private readonly adoption: Observer<MeshAdoption> | null;

  /** Attaches a grounder to `ik` (see {@link GrounderFBBIKOptions}). */
  constructor(ik: FullBodyBipedIK, options: GrounderFBBIKOptions = {}) {
    const unknown = checkOptions("GrounderFBBIK", options, GROUNDER_FBBIK_OPTION_KINDS);
    this.ik = ik;
    this.ikDisposal = disposeWith(ik, this);
    const rig = ik.rig;
    this.root = options.root !== undefined ? options.root : rig.characterRoot;
    // a bone-only skeleton's mesh gone, the rig moved to clothes it skins: a root that was it goes along, scale too
    this.adoption = rig.onMeshAdoptedObservable.add((a) => {
      const next = followAdoption(a, this.root);
      this.rootReader.follow(a, this.root, next);
      this.root = next;
    });
    this.rootReader = new GrounderRoot(this.root);
    this.height =
      options.height !== undefined && options.height > 0 ? options.height : skeletonHeight(ik.skeleton, ik.rig);
    const unit = this.height / GROUNDER_REFERENCE_HEIGHT;
    const defaultPredicate: GroundPredicate = (mesh) =>
      mesh.isEnabled() && mesh.isVisible && mesh.isPickable && !this.isCharacterMesh(mesh);
    this.groundRaycast =
      options.raycast === undefined ? new BabylonGroundRaycast(ik.scene, options.predicate ?? defaultPredicate) : null;
    const warn = (cause: string, message: string): void => ik.solver.inner.warn(cause, message);
    if (this.groundRaycast !== null) this.groundRaycast.onWarning = warn;
    const raycast = options.raycast ?? this.groundRaycast!.raycast;
    const g = createGrounding(2, raycast, options, unit, warn, "GrounderFBBIK: solver.");
    this.solver = g;
    if (options.weight !== undefined) this.weight = options.weight;
    this.enableFade = new EnableFade(ik.scene, null);
    if (options.enableFadeSeconds !== undefined) this.enableFadeSeconds = options.enableFadeSeconds;
    if (options.spineBend !== undefined) this.spineBend = options.spineBend;
    if (options.spineSpeed !== undefined) this.spineSpeed = options.spineSpeed;
    if (Number.isFinite(this.weight)) this.validWeight = this.weight;
    if (Number.isFinite(this.spineBend)) this.validSpineBend = this.spineBend;
    if (Number.isFinite(this.spineSpeed)) this.validSpineSpeed = this.spineSpeed;
    this.spine = options.spine ?? [];

    const refs = ik.references;
    this.footIds = [rig.idOf(refs.leftFoot), rig.idOf(refs.rightFoot)];
    this.legIds = [
      Int32Array.of(rig.idOf(refs.leftThigh), rig.idOf(refs.leftCalf), rig.idOf(refs.leftFoot)),
      Int32Array.of(rig.idOf(refs.rightThigh), rig.idOf(refs.rightCalf), rig.idOf(refs.rightFoot)),
    ];
    this.pelvisId = rig.idOf(refs.pelvis);
    this.feet = [ik.solver.leftFootEffector, ik.solver.rightFootEffector];
    // FinalIK: the feet keep the rotation the grounder gives them through the solve
    const legs = [ik.solver.leftLegMapping, ik.solver.rightLegMapping];
    this.previousMaintain = [legs[0]!.maintainRotationWeight, legs[1]!.maintainRotationWeight];
    legs[0]!.maintainRotationWeight = 1;
    legs[1]!.maintainRotationWeight = 1;
    this.hook = () => this.onPreUpdate();
    ik.solver.onSkeletonRead.add(this.hook);
    const settable = { "": this, solver: this.solver };
    warnUnknownOptions(ik.solver.inner, "GrounderFBBIK", unknown, GROUNDER_FBBIK_OPTION_KINDS, settable);
  }

  /** Attaches a grounder to `ik` (same as the constructor). */
  static create(ik: FullBodyBipedIK, options: GrounderFBBIKOptions = {}): GrounderFBBIK {
    return new GrounderFBBIK(ik, options);
  }

  /**
   * Creates a grounder on `ik` ({@link create}, with `options`) and loads the settings `parsed` into it
   * ({@link applySettings}): Babylon's `Parse` for settings saved by {@link serialize}.
   */
  static Parse(parsed: unknown, ik: FullBodyBipedIK, options: GrounderFBBIKOptions = {}): GrounderFBBIK {
    const grounder = new GrounderFBBIK(ik, options);
    grounder.applySettings(parsed);
    return grounder;
  }

  /**
   * The grounder's settings as a plain JSON object (Babylon's `serialize`): `version`, `customType`, its
   * `weight`, `enableFadeSeconds`, `spineBend` and `spineSpeed`, then `solver` (quality as 0–2, lengths in world
   * units as set, speeds, the pelvis's and feet's weights). Not `enabled`, `root`, `spine` or the probe. The IK's
   * own settings are the IK's `serialize()`.
   */
  serialize(): IKSettingsObject {
    return serializeSettings(grounderSettings(this), "GrounderFBBIK");
  }

  /**
   * Loads settings saved by {@link serialize} (whole or in part), from this grounder or another character's. An
   * unknown key, a bad value or another component's settings are warned (once a load) on the IK's `onWarningObservable`
   * (`grounder:settings:…`) and skipped; nothing throws.
   */
  applySettings(parsed: unknown): void {
    const warn = (cause: string, message: string) =>
      this.ik.solver.inner.warn(`grounder:${cause}`, `GrounderFBBIK: ${message}`);
    this.ik.solver.inner.resetWarnings("grounder:settings:");
    applySettings(grounderSettings(this), parsed, warn, "GrounderFBBIK");
  }

  /** The character's length unit (`height / 1.8`): what the default lengths were scaled by. */
  get lengthUnit(): number {
    return this.solver.lengthUnit;
  }

  /**
   * True while what the grounder does eases in or out after `enabled` changed ({@link enableFadeSeconds}); false
   * while its IK does not run (nothing of the grounder shows then).
   */
  get isFading(): boolean {
    return this.enableFade.fading(this) && !this.ik._idle;
  }

  /** The probe quality. */
  get quality(): GroundingQuality {
    return this.solver.quality;
  }
  set quality(q: GroundingQuality) {
    this.solver.quality = q;
  }

  /**
   * Steps the grounder by `deltaTime` seconds (default: the scene's animation time) and solves the IK now.
   * For IKs updated by hand (`ik.autoUpdate = false`) or headless loops; with an auto-updating IK this
   * is an extra solve in the frame.
   */
  update(deltaTime?: number): void {
    if (this.disposed) return;
    this.pendingDeltaTime = deltaTime !== undefined ? clampNumber(deltaTime, 0, Infinity) : this.sceneDeltaTime();
    if (deltaTime === undefined) this.time.step(this.ik.scene);
    this.pendingFrameTime = deltaTime !== undefined ? this.pendingDeltaTime : this.time.dt;
    try {
      this.ik.update();
    } finally {
      this.pendingDeltaTime = null;
    }
  }

  /** Forgets the grounder's motion and offsets: call after teleporting the character (FinalIK's ResetPosition). */
  resetPosition(): void {
    this.solver.reset();
    this.spineOffset.setAll(0);
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "GrounderFBBIK";
  }

  /** Detaches from the IK and gives the leg mappings back their maintainRotationWeight. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    this.ik.onDisposeObservable.remove(this.ikDisposal);
    this.ik.rig.onMeshAdoptedObservable.remove(this.adoption);
    this.ik.solver.onSkeletonRead.remove(this.hook);
    this.ik.solver.leftLegMapping.maintainRotationWeight = this.previousMaintain[0];
    this.ik.solver.rightLegMapping.maintainRotationWeight = this.previousMaintain[1];
  }

  /** The scene's animation delta time in seconds (see the class notes), clamped to [0, 1/3]. */
  sceneDeltaTime(): number {
    const scene = this.ik.scene;
    return clampNumber(sceneDeltaSecondsToRef(scene, sceneSeconds).value, 0, MAX_GROUNDER_DELTA_TIME);
  }

  /** True for meshes that belong to the character (skinned by its skeleton or under its root). */
  isCharacterMesh(mesh: AbstractMesh): boolean {
    if (mesh.skeleton === this.ik.skeleton) return true;
    const root = this.root;
    return root !== null && (mesh === (root as unknown) || mesh.isDescendantOf(root));
  }

  private onPreUpdate(): void {
    const ik = this.ik;
    if (this.disposed || ik.isDisposed) return;
    const enable = this.enableFade;
    const pass = enable.beginHook(this, ik._resumed);
    if (pass === EnablePass.Off || pass === EnablePass.Done) return;
    this.validateSettings();
    // clamped in place: a double returned by a call V8 does not inline is boxed (ARCHITECTURE.md)
    const weight = this.weight;
    // fading `enabled`: everything the grounder adds, scaled by the fade's weight
    const w = (weight > 0 ? (weight < 1 ? weight : 1) : 0) * (pass === EnablePass.Fade ? enable.weight : 1);
    if (!(w > 0) || !(ik.solver.ikPositionWeight > 0)) return;
    // the step goes to the solver through its deltaTime field, not as an argument or a return value
    // (see ARCHITECTURE.md, "Doubles across calls")
    const solver = this.solver;
    const frame = ik.scene.getFrameId();
    if (this.pendingDeltaTime !== null) {
      solver.deltaTime = this.pendingDeltaTime;
      solver.frameTime = this.pendingFrameTime;
    } else if (frame !== this.lastFrame) {
      const dt = sceneDeltaSecondsToRef(ik.scene, sceneSeconds).value;
      // Math.min, not a ternary: a phi of a double and an imported constant was held boxed (16 B a frame)
      solver.deltaTime = dt > 0 ? Math.min(dt, MAX_GROUNDER_DELTA_TIME) : 0;
      // the feet moved for the whole time since the last run, frames sat out included, not the clamped step
      const time = this.time;
      time.step(ik.scene);
      solver.frameTime = time.dt;
    } else {
      // once per scene frame: a second solve in the frame re-applies the same result
      solver.deltaTime = 0;
    }
    this.lastFrame = frame;
    this.readInputs();
    this.frameWeight = w;
    // the pelvis and the feet's turns go straight into the rig, where the solver's master weight cannot scale them
    const mw = ik.solver.inner.ikPositionWeight;
    this.rigWeight = w * (mw < 1 ? mw : 1);
    solver._step();
    this.apply();
  }

  /**
   * A non-finite weight, spineBend, spineSpeed or spine effector weight keeps its last finite value (written
   * back, warned once per setting), so a bad frame neither changes the pose nor stays in the eased state.
   */
  private validateSettings(): void {
    const spine = this.spine;
    let spineOk = true;
    for (let i = 0; i < spine.length; i++) {
      const s = spine[i]!;
      if (Number.isFinite(s.horizontalWeight)) s._validHorizontalWeight = s.horizontalWeight;
      else spineOk = false;
      if (Number.isFinite(s.verticalWeight)) s._validVerticalWeight = s.verticalWeight;
      else spineOk = false;
    }
    if (
      spineOk &&
      Number.isFinite(this.weight) &&
      Number.isFinite(this.spineBend) &&
      Number.isFinite(this.spineSpeed)
    ) {
      this.validWeight = this.weight;
      this.validSpineBend = this.spineBend;
      this.validSpineSpeed = this.spineSpeed;
      return;
    }
    this.replaceBadSettings();
  }

  /** The slow path of validateSettings (its own function: a closure in the caller would cost a context every frame). */
  private replaceBadSettings(): void {
    const spine = this.spine;
    const warn = (name: string, value: number, kept: number): void =>
      this.ik.solver.inner.warn(
        `grounder:${name}`,
        `GrounderFBBIK: ${name} is ${String(value)} (not finite); its last valid value ${kept} is kept.`,
      );
    if (Number.isFinite(this.weight)) this.validWeight = this.weight;
    else {
      warn("weight", this.weight, this.validWeight);
      this.weight = this.validWeight;
    }
    if (Number.isFinite(this.spineBend)) this.validSpineBend = this.spineBend;
    else {
      warn("spineBend", this.spineBend, this.validSpineBend);
      this.spineBend = this.validSpineBend;
    }
    if (Number.isFinite(this.spineSpeed)) this.validSpineSpeed = this.spineSpeed;
    else {
      warn("spineSpeed", this.spineSpeed, this.validSpineSpeed);
      this.spineSpeed = this.validSpineSpeed;
    }
    for (let i = 0; i < spine.length; i++) {
      const s = spine[i]!;
      if (!Number.isFinite(s.horizontalWeight)) {
        warn("spine.horizontalWeight", s.horizontalWeight, s._validHorizontalWeight);
        s.horizontalWeight = s._validHorizontalWeight;
      }
      if (!Number.isFinite(s.verticalWeight)) {
        warn("spine.verticalWeight", s.verticalWeight, s._validVerticalWeight);
        s.verticalWeight = s._validVerticalWeight;
      }
    }
  }

  private readInputs(): void {
    const g = this.solver;
    const rig = this.ik.rig;
    const root = this.root;
    // the character root: the axis it faces (FullBodyBipedIK.characterForward); another node: its +z
    this.rootReader.read(
      g,
      root,
      root !== null && root === this.ik.rig.characterRoot ? this.ik.characterForward : null,
    );
    const legs = g.legs;
    for (let i = 0; i < 2; i++) readLegInputs(rig, this.legIds[i]!, legs[i]!);
  }

  private apply(): void {
    const w = this.frameWeight;
    const rw = this.rigWeight;
    const g = this.solver;
    const dt = g.deltaTime;
    const rig = this.ik.rig;
    const up = g.up;

    // the pelvis, in the rig (before the solver reads the bones)
    const po = g.pelvis.ikOffset;
    tv.x = po.x * rw;
    tv.y = po.y * rw;
    tv.z = po.z * rw;
    moveBoneInWorld(rig, this.pelvisId, tv);

    // feet: offsets to where the grounding wants them (from where the moved pelvis left them), rotations
    target.x = target.y = target.z = 0;
    for (let i = 0; i < 2; i++) {
      const leg = g.legs[i]!;
      const id = this.footIds[i]!;
      rig.getWorldPosition(id, bv);
      sub(tv, leg.ikPosition, bv);
      const o = this.feet[i]!.positionOffset;
      o.x += tv.x * w;
      o.y += tv.y * w;
      o.z += tv.z * w;

      // spine bend target: toward the displaced feet, more for the feet in front
      const displacement = Math.sqrt(tv.x * tv.x + tv.y * tv.y + tv.z * tv.z);
      if (displacement > 0) {
        projectOnPlane(tv2, sub(tv2, leg.footPosition, g.rootPosition), up);
        const dirLength = Math.sqrt(tv2.x * tv2.x + tv2.y * tv2.y + tv2.z * tv2.z);
        if (dirLength > 0) {
          const fw = g.forward;
          const k = displacement * ((fw.x * tv2.x + fw.y * tv2.y + fw.z * tv2.z) / dirLength + 1) * 0.5;
          target.x += tv2.x * k;
          target.y += tv2.y * k;
          target.z += tv2.z * k;
        }
      }

      weightRef.value = rw;
      slerpByRef(tq, IDENTITY, leg.rotationOffset, weightRef);
      if (tq.x !== 0 || tq.y !== 0 || tq.z !== 0) {
        worldDeltaToComponent(rig, tq, tq);
        multiply(tq, tq, rig.getRotation(id, boneRotation));
        rig.setRotation(id, tq);
      }
    }

    // spine bend (FinalIK's target has units of length²; dividing by the length unit keeps it size-free)
    const spine = this.spine;
    const so = this.spineOffset;
    if (spine.length > 0 || so.x !== 0 || so.y !== 0 || so.z !== 0) {
      const k = (w * this.spineBend) / (g.lengthUnit * g.lengthScale);
      const ds = dt * this.spineSpeed;
      const t = ds > 0 ? (ds < 1 ? ds : 1) : 0;
      const sx = so.x + (target.x * k - so.x) * t;
      const sy = so.y + (target.y * k - so.y) * t;
      const sz = so.z + (target.z * k - so.z) * t;
      // a non-finite step (an overflow, a non-finite foot) must not stay in the eased state
      if (Number.isFinite(sx) && Number.isFinite(sy) && Number.isFinite(sz)) {
        so.x = sx;
        so.y = sy;
        so.z = sz;
      }
      const vertical = Math.sqrt(so.x * so.x + so.y * so.y + so.z * so.z);
      for (let i = 0; i < spine.length; i++) {
        const s = spine[i]!;
        const e = this.ik.solver.effectors[s.effectorType];
        if (e === undefined) continue;
        const o = e.positionOffset;
        o.x += so.x * s.horizontalWeight + up.x * vertical * s.verticalWeight;
        o.y += so.y * s.horizontalWeight + up.y * vertical * s.verticalWeight;
        o.z += so.z * s.horizontalWeight + up.z * vertical * s.verticalWeight;
      }
    }
  }
}
