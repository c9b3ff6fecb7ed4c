/**
 * The base of FinalIK's offset modifiers: components that add to effector `positionOffset`s every frame
 * before the IK reads the skeleton, with their own weight, switch and delta time; and OffsetLimits, which
 * clamp an effector's offset in the character's space.
 * @module
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Observable, type Observer } from "@babylonjs/core/Misc/observable.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { type ReadonlyVec3, Vec3, dot } from "../../math/vec3.js";
import { NumberRef } from "../../math/number-ref.js";
import { clamp01 } from "../../math/scalar.js";
import { sceneDeltaSecondsToRef } from "../../babylon/scene-time.js";
import type { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { CharacterFrame, Scalars, addScaled, readCharacterFrame, worldPositionOf } from "./frame.js";
import { ScaleSinceCreate } from "../../babylon/scale-since-create.js";
import { disposeWith, notifyDisposed } from "../../babylon/dispose-notice.js";
import { EnableFade, EnablePass } from "../../babylon/enable-fade.js";
import { type OptionKinds, checkOptions, warnUnknownOptions } from "../../babylon/option-check.js";

/**
 * Longest delta time a modifier takes from the scene, in seconds: 1/3, Unity's `maximumDeltaTime`, under which
 * FinalIK's modifiers step (the grounders and interactions take the same).
 */
export const MAX_MODIFIER_DELTA_TIME = 1 / 3;

/**
 * Longest delta time, in seconds, that the modifiers following motion (Inertia, Amplifier, BodyTilt) take from
 * the scene: the character moved for the whole delta time, and a shorter one reads as faster motion. After a
 * longer gap (a tab in the background), or after frames the IK skipped (disabled, not shown, level of detail Off),
 * they restart from the current pose.
 */
const MAX_MOTION_DELTA_TIME = 1;

/**
 * The ankle-to-head-joint height, in metres, of the ~1.8 m human that FinalIK's metre-valued defaults are
 * tuned for. {@link OffsetModifier.characterScale} is a character's own height divided by this.
 */
export const REFERENCE_HEAD_HEIGHT = 1.5;

/** An effector and how much of a modifier's offset it takes (FinalIK's EffectorLink). */
export interface EffectorLink {
  /** The effector. */
  effector: FullBodyBipedEffector;
  /** Multiplier of the offset for this effector (default 1 where a constructor fills it in). */
  weight: number;
}

/** An effector link as a constructor takes it: the weight defaults to 1. */
export interface EffectorLinkInit {
  /** The effector. */
  effector: FullBodyBipedEffector;
  /** Multiplier of the offset for this effector (default 1). */
  weight?: number;
}

/** The kinds of {@link EffectorLinkInit}, for the check at create of the options that list links. */
export const EFFECTOR_LINK_INIT_KINDS: OptionKinds<EffectorLinkInit> = { effector: "number", weight: "number" };

/** A body that follows a node each frame and hands its offset to the effectors it links (Amplifier, Inertia). */
export interface OffsetBody {
  /** The effectors that take this body's offset, each with its weight. */
  readonly effectorLinks: readonly EffectorLink[];
  /** The offset of the last step, in world space. */
  readonly offset: ReadonlyVec3;
  /** @internal One step of the clock's delta time (the modifier's own call); the offset lands in `offset`. */
  _update(ik: FullBodyBipedIK, clock: { readonly deltaTime: number }, frame: CharacterFrame): void;
}

/** Options shared by every offset modifier. */
export interface OffsetModifierOptions {
  /** [0, 1] Master weight (default 1). */
  weight?: number;
  /** Start enabled (default true). */
  enabled?: boolean;
  /** Seconds `enabled` takes to fade out or in (default 0: at once): {@link OffsetModifier.enableFadeSeconds}. */
  enableFadeSeconds?: number;
  /**
   * Run automatically in the IK's `onSkeletonRead` with the scene's delta time (default true). When
   * false, call {@link OffsetModifier.update} yourself before the IK solves (e.g. from an
   * `ik.solver.onPreUpdateObservable` observer).
   */
  autoUpdate?: boolean;
  /** The character's size relative to a 1.8 m human (default: measured; see {@link OffsetModifier.characterScale}). */
  characterScale?: number;
}

/** The kinds of {@link OffsetModifierOptions}, for the check at create. */
export const OFFSET_MODIFIER_OPTION_KINDS: OptionKinds<OffsetModifierOptions> = {
  weight: "number",
  enabled: "boolean",
  enableFadeSeconds: "number",
  autoUpdate: "boolean",
  characterScale: "number",
};

const clampTmp = new Vec3();

/**
 * Limits of an effector's `positionOffset` in the character root's space (x right, y up, z forward; see
 * {@link CharacterFrame}), per axis. Apply after the offsets of the frame are added. With `spring` 0 the
 * offset is clamped to [min, max] on each limited axis; with `spring` in (0, 1] the part beyond a limit is
 * kept scaled by `spring` (a soft limit; 1 leaves it free).
 */
export class OffsetLimits {
  /** The effector whose offset is limited. */
  effector: FullBodyBipedEffector;
  /** [0, 1] Share of the overshoot beyond a limit that is kept (0: hard limit). Default 0. */
  spring: number;
  /** Limit the x (right) axis. Default false. */
  x: boolean;
  /** Limit the y (up) axis. Default false. */
  y: boolean;
  /** Limit the z (forward) axis. Default false. */
  z: boolean;
  /** Lower limits per axis, world units. Default 0. */
  readonly min: Vector3;
  /** Upper limits per axis, world units. Default 0. */
  readonly max: Vector3;

  /** Creates limits; axes not flagged are left free. */
  constructor(init: {
    effector: FullBodyBipedEffector;
    spring?: number;
    x?: boolean;
    y?: boolean;
    z?: boolean;
    min?: ReadonlyVec3;
    max?: ReadonlyVec3;
  }) {
    this.effector = init.effector;
    this.spring = init.spring ?? 0;
    this.x = init.x ?? false;
    this.y = init.y ?? false;
    this.z = init.z ?? false;
    this.min = new Vector3(init.min?.x ?? 0, init.min?.y ?? 0, init.min?.z ?? 0);
    this.max = new Vector3(init.max?.x ?? 0, init.max?.y ?? 0, init.max?.z ?? 0);
  }

  /** Limits `offset` (world) in place, in the axes of `frame`. */
  applyTo(offset: Vector3, frame: CharacterFrame): void {
    if (!this.x && !this.y && !this.z) return;
    const local = frame.directionToLocal(offset, clampTmp);
    // clamp01 and the limits written out (see ARCHITECTURE.md, "Doubles across calls")
    const spring = this.spring;
    const s = spring > 0 ? (spring < 1 ? spring : 1) : 0;
    const min = this.min;
    const max = this.max;
    if (this.x) {
      const v = local.x;
      if (v > max.x) local.x = max.x + (v - max.x) * s;
      else if (v < min.x) local.x = min.x + (v - min.x) * s;
    }
    if (this.y) {
      const v = local.y;
      if (v > max.y) local.y = max.y + (v - max.y) * s;
      else if (v < min.y) local.y = min.y + (v - min.y) * s;
    }
    if (this.z) {
      const v = local.z;
      if (v > max.z) local.z = max.z + (v - max.z) * s;
      else if (v < min.z) local.z = min.z + (v - min.z) * s;
    }
    frame.directionToWorld(local, offset);
  }

  /** Limits the effector's `positionOffset` of `ik` in the axes of `frame`. */
  apply(ik: FullBodyBipedIK, frame: CharacterFrame): void {
    this.applyTo(ik.solver.getEffector(this.effector).positionOffset, frame);
  }
}

const scaleTmp = new Vec3();
const scaleTmp2 = new Vec3();
const sceneSeconds = new NumberRef();

/** The per-frame numbers of an {@link OffsetModifier} (see its `clock`). */
export class ModifierClock {
  /** The delta time of the last run, seconds (0 when it was skipped). */
  deltaTime = 0;
  /** The delta time the next run uses. */
  pending = 0;
  /**
   * The next run is a scene frame whose animation time stood still (`animationTimeScale` 0, a paused game): it
   * runs at 0 s, timers standing, so what the modifier adds stays on instead of popping off for the pause.
   */
  still = false;
  /** [0, 1] The master weight ({@link OffsetModifier.weight}). */
  master = 1;
  /** [0, 1] The weight of this run: the master weight, times the enable fade's while `enabled` fades. */
  weight = 1;
  /** {@link OffsetModifier.characterScale}; NaN until measured or set. */
  characterScale = Number.NaN;
}

/**
 * Base of the offset modifiers (FinalIK's OffsetModifier). Attaches to a {@link FullBodyBipedIK}'s
 * `solver.onSkeletonRead`, which fires once the skeleton has been read and before the solve (as the
 * interaction system and the grounder), and calls {@link onModifyOffset} with its own delta time in
 * {@link deltaTime}, where subclasses add to effector `positionOffset`s (the IK resets them after each
 * solve). Bones of the IK's rig are then read from the rig's pose (`rigBoneWorldMatrix`), so no Babylon
 * world matrix is recomputed for them.
 *
 * Delta time: the scene's animation delta time (`sceneDeltaSecondsToRef`), in seconds, clamped to
 * [0, {@link MAX_MODIFIER_DELTA_TIME}]. A second IK
 * update in the same frame gets 0, so a modifier adds its offsets once per frame (FinalIK: Time.time −
 * lastTime). Skipped when disabled, when the weight is ≤ 0 or when the delta time is ≤ 0, except in a scene
 * frame whose animation time stood still (`animationTimeScale` 0): that runs at 0 s, so the offsets stay on
 * through a pause with their timers standing. When you drive
 * the IK outside `scene.render()` (a fixed step, a tool), set `autoUpdate` false and call
 * {@link update} with your own delta time.
 *
 * Subclasses implement {@link onModifyOffset}; bone changes after the solve go through
 * {@link addPostUpdate} and the IK's rig (`ik.rig.setRotation`), as HitReaction and Recoil do.
 */
export abstract class OffsetModifier {
  /** The IK this modifier drives. */
  readonly ik: FullBodyBipedIK;
  /**
   * When false the modifier adds nothing (and its timers stand still): at once, or once faded out over
   * {@link enableFadeSeconds}. It reads what you set, also while the fade runs ({@link isFading}).
   */
  enabled: boolean;
  /**
   * Seconds `enabled` takes to switch (default 0: at once, what the modifier added leaves in one frame). Set to
   * false, everything it adds (offsets, and the bone turns of HitReaction and Recoil) eases out over this time
   * as if {@link weight} fell to 0, its timers still running, then it stops; set to true, it eases in the same
   * way; set back mid-fade, it turns back where it is. The IK's own `enableFadeSeconds` fades the whole output
   * instead. Not in FinalIK.
   */
  get enableFadeSeconds(): number {
    return this.enableFade.seconds;
  }
  set enableFadeSeconds(v: number) {
    this.enableFade.seconds = v;
  }
  /** Run in the IK's `onSkeletonRead` with the scene's delta time; otherwise call {@link update} yourself. */
  autoUpdate: boolean;
  /** Notified once by {@link dispose}, before it lets go of its state (Babylon's convention). */
  readonly onDisposeObservable = new Observable<OffsetModifier>();
  /**
   * The per-frame numbers of this base class, in an object of one class of their own: code here runs for
   * every kind of modifier, and a double stored into a field of `this` from a site that has seen more than
   * four classes goes through V8's generic store, which boxes it (16 B a store, seen in the components
   * benchmark once all its modifier kinds had run); the generic load boxes a copy of it as well (the weight
   * read there cost 16 B a frame per modifier with a fractional weight once five kinds ran).
   */
  protected readonly clock = new ModifierClock();
  /** The character's frame of the current run (root space), read at the start of each run. */
  protected readonly frame = new CharacterFrame();
  /** Numbers for the per-frame helpers (see {@link Scalars}). */
  protected readonly scalars = new Scalars();
  /** True between a run (before the solve) and the IK's next `onPostUpdateObservable`, which consumes it. */
  protected ranThisUpdate = false;
  /**
   * Follows the character's motion (velocities, lags): takes scene delta times up to 1 s, and restarts
   * ({@link onResume}) after a longer gap. Set by Inertia, Amplifier and BodyTilt.
   */
  protected followsMotion = false;
  private readonly observers: Observer<void>[] = [];
  private readonly preHook: () => void;
  private lastFrameId = -1;
  private disposed = false;
  /** On the IK's onDisposeObservable: this goes with its IK. */
  private readonly ikDisposal: Observer<FullBodyBipedIK> | null;
  /** The fade of {@link enabled} over {@link enableFadeSeconds}. */
  private readonly enableFade: EnableFade;
  /** The character's scale since create, which the lengths in {@link frame} are multiplied by. */
  private readonly scaleSince: ScaleSinceCreate;
  /** A run was skipped (disabled or weight 0), or a gap was too long: the next run calls {@link onResume} first. */
  private paused = false;

  /**
   * Attaches to `ik`. Throws {@link FBBIKError} when an option has the wrong type for `kinds` (the subclass's
   * options, whose unknown keys are warned on the IK's channel; without them, only the options of every modifier
   * are checked, and no key is unknown).
   */
  protected constructor(
    ik: FullBodyBipedIK,
    options: OffsetModifierOptions = {},
    kinds?: OptionKinds<OffsetModifierOptions>,
  ) {
    const known = kinds ?? OFFSET_MODIFIER_OPTION_KINDS;
    const found = checkOptions(this.getClassName(), options, known);
    // a subclass that names no options of its own may take keys of its own
    const unknown = kinds === undefined ? [] : found;
    this.ik = ik;
    this.ikDisposal = disposeWith(ik, this);
    this.weight = options.weight ?? 1;
    this.enabled = options.enabled ?? true;
    this.enableFade = new EnableFade(ik.scene, null);
    this.enableFadeSeconds = options.enableFadeSeconds ?? 0;
    this.autoUpdate = options.autoUpdate ?? true;
    this.clock.characterScale = options.characterScale ?? Number.NaN;
    this.scaleSince = new ScaleSinceCreate(ik.rig);
    // after the IK has read the skeleton (as the interaction system and the grounder): bones then come
    // from the rig's pose instead of Babylon's recomputed world matrices
    this.preHook = () => {
      if (!this.autoUpdate) return;
      this.ranThisUpdate = false;
      this.readSceneDeltaTime();
      this.run();
    };
    ik.solver.onSkeletonRead.add(this.preHook);
    warnUnknownOptions(ik.solver.inner, this.getClassName(), unknown, known, { "": this });
  }

  /** [0, 1] Master weight of the modifier (clamped; NaN is 0). */
  get weight(): number {
    return this.clock.master;
  }
  set weight(v: number) {
    const c = this.clock;
    c.master = clamp01(v);
    c.weight = c.master;
  }

  /**
   * True while what the modifier adds eases in or out after `enabled` changed ({@link enableFadeSeconds});
   * false while its IK does not run (nothing of the modifier shows then).
   */
  get isFading(): boolean {
    return this.enableFade.fading(this) && !this.ik._idle;
  }

  /**
   * The character's size relative to the 1.8 m human FinalIK's metre-valued defaults are tuned for:
   * the head joint's height above the ankles along the character's up, divided by
   * {@link REFERENCE_HEAD_HEIGHT} (1.5 m), measured from the pose at first use. Defaults given in metres
   * (Recoil's maxAdditiveOffsetMag 0.2) are multiplied by it; values you set explicitly are used as they are.
   * Assign to override. Like every length the modifier takes, it is the size when the modifier was created:
   * a character scaled since has them all scaled with it (`frame.lengthScale`; ARCHITECTURE.md, deviation 24).
   */
  get characterScale(): number {
    this.characterScaleToScalars();
    return this.clock.characterScale;
  }
  set characterScale(v: number) {
    this.clock.characterScale = v;
  }

  /** {@link characterScale} into `scalars.s`, for the per-frame paths (no double returned). */
  protected characterScaleToScalars(): void {
    const c = this.clock;
    if (!(c.characterScale > 0)) {
      // measured now, kept at the size of create as every length the modifier takes (see frame.lengthScale)
      this.scaleSince.updateNow(this.ik.rig);
      c.characterScale = measureCharacterScale(this.ik) / this.scaleSince.value;
    }
    this.scalars.s = c.characterScale;
  }

  /** The delta time of the last run, seconds (0 when the last update was skipped). */
  get deltaTime(): number {
    return this.clock.deltaTime;
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /**
   * Runs the modifier once with `deltaTime` seconds: adds its offsets for the coming solve. Called from
   * `ik.solver.onSkeletonRead` when {@link autoUpdate}; call it yourself otherwise, before the IK solves (before
   * its read, bones come from Babylon's world matrices; after it, from the rig).
   * Returns false when skipped (disposed, disabled, weight ≤ 0, deltaTime ≤ 0 or not finite).
   */
  update(deltaTime: number): boolean {
    this.clock.pending = deltaTime;
    this.clock.still = false;
    return this.run();
  }

  /**
   * This frame's delta time from the scene, in seconds, clamped to [0, {@link MAX_MODIFIER_DELTA_TIME}],
   * into `clock.pending`; 0 when a delta time was already taken in this frame. (Numbers go through
   * fields on the per-frame path: see ARCHITECTURE.md, "Doubles across calls".)
   */
  private readSceneDeltaTime(): void {
    const scene = this.ik.scene;
    const frameId = scene.getFrameId();
    if (frameId === this.lastFrameId) {
      this.clock.pending = 0;
      this.clock.still = false;
      return;
    }
    this.lastFrameId = frameId;
    const dt = sceneDeltaSecondsToRef(scene, sceneSeconds).value;
    const motion = this.followsMotion;
    // the IK skipped frames (disabled, not shown, level of detail Off): the character moved meanwhile
    if (motion && (dt > MAX_MOTION_DELTA_TIME || this.ik._resumed)) this.paused = true;
    // Math.min: nested conditionals here boxed dt every frame; the store goes into the clock (see `clock`)
    this.clock.pending = dt > 0 ? Math.min(dt, motion ? MAX_MOTION_DELTA_TIME : MAX_MODIFIER_DELTA_TIME) : 0;
    this.clock.still = dt === 0;
  }

  private run(): boolean {
    const clock = this.clock;
    const dt = clock.pending;
    const pass = this.disposed ? EnablePass.Off : this.enableFade.beginHook(this, this.ik._resumed);
    const on = pass === EnablePass.Solve || pass === EnablePass.Fade;
    // a paused scene frame runs at 0 s; a second update in a frame (or a manual one of 0 s) is skipped
    const moves = dt > 0 || (dt === 0 && clock.still);
    if (!on || !(clock.master > 0) || !moves || !Number.isFinite(dt)) {
      // the character may move while switched off (not over a mere second update in a frame, dt 0)
      if (!on || !(clock.master > 0)) this.paused = true;
      clock.deltaTime = 0;
      return false;
    }
    // fading `enabled`: everything the modifier adds this run, scaled by the fade's weight
    clock.weight = pass === EnablePass.Fade ? clock.master * this.enableFade.weight : clock.master;
    clock.deltaTime = dt;
    readCharacterFrame(this.ik, this.frame);
    this.scaleSince.update(this.ik.rig);
    this.frame.lengthScale = this.scaleSince.value;
    if (this.paused) {
      this.paused = false;
      this.onResume();
    }
    this.onModifyOffset();
    this.ranThisUpdate = true;
    return true;
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "OffsetModifier";
  }

  /** Removes the modifier's observers; it does nothing afterwards. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    this.ik.onDisposeObservable.remove(this.ikDisposal);
    const s = this.ik.solver;
    s.onSkeletonRead.remove(this.preHook);
    for (const o of this.observers) s.onPostUpdateObservable.remove(o);
    this.observers.length = 0;
  }

  /**
   * Adds the offsets of this frame; {@link deltaTime} and {@link frame} are current. {@link deltaTime} is 0 in a
   * scene frame whose animation time stood still (a paused game): add the same offsets, advancing nothing.
   */
  protected abstract onModifyOffset(): void;

  /**
   * Called before the first run after runs were skipped by `enabled` false or weight 0 (or, with
   * {@link followsMotion}, after a scene delta time over 1 s): modifiers that follow motion forget it here,
   * or what moved meanwhile would come back as one frame's jump.
   */
  protected onResume(): void {}

  /**
   * Registers `fn` on the IK's `onPostUpdateObservable` (after the solve), removed on dispose. It runs only after an
   * update in which the modifier ran.
   */
  protected addPostUpdate(fn: () => void): void {
    this.observers.push(
      this.ik.solver.onPostUpdateObservable.add(() => {
        if (!this.ranThisUpdate || this.disposed) return;
        this.ranThisUpdate = false;
        fn();
      })!,
    );
  }

  /** Adds `offset` × `scale` (world) to an effector's positionOffset. */
  protected addOffset(effector: FullBodyBipedEffector, offset: ReadonlyVec3, scale: number): void {
    this.scalars.s = scale;
    addScaled(this.ik.solver.getEffector(effector).positionOffset, offset, this.scalars);
  }

  /**
   * Adds `offset` × `scalars.s` (world) to an effector's positionOffset: {@link addOffset} for the
   * per-frame paths, the scale set in the field first so no double crosses a call.
   */
  protected addOffsetScaled(effector: FullBodyBipedEffector, offset: ReadonlyVec3): void {
    addScaled(this.ik.solver.getEffector(effector).positionOffset, offset, this.scalars);
  }

  /** Updates each body, then adds its offset × link weight × master weight to the effectors it links. */
  protected applyBodies(bodies: readonly OffsetBody[]): void {
    const w = this.clock.weight;
    for (let i = 0; i < bodies.length; i++) {
      const b = bodies[i]!;
      b._update(this.ik, this.clock, this.frame);
      const links = b.effectorLinks;
      for (let k = 0; k < links.length; k++) {
        this.scalars.s = links[k]!.weight * w;
        this.addOffsetScaled(links[k]!.effector, b.offset);
      }
    }
  }

  /** Applies limits to the effectors' offsets in the current {@link frame}. */
  protected applyLimits(limits: readonly OffsetLimits[]): void {
    for (let i = 0; i < limits.length; i++) limits[i]!.apply(this.ik, this.frame);
  }
}

/** Head-joint height above the ankles along the character's up, over {@link REFERENCE_HEAD_HEIGHT}. */
export function measureCharacterScale(ik: FullBodyBipedIK): number {
  const frame = readCharacterFrame(ik, new CharacterFrame());
  const r = ik.references;
  const top = r.head ?? r.spine[r.spine.length - 1] ?? r.pelvis;
  const head = worldPositionOf(ik, top, scaleTmp);
  const headUp = dot(head, frame.up);
  const lf = dot(worldPositionOf(ik, r.leftFoot, scaleTmp2), frame.up);
  const rf = dot(worldPositionOf(ik, r.rightFoot, scaleTmp2), frame.up);
  const h = headUp - 0.5 * (lf + rf);
  return h > 0 && Number.isFinite(h) ? h / REFERENCE_HEAD_HEIGHT : 1;
}
