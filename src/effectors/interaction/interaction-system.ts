import type { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { Observable, type Observer } from "@babylonjs/core/Misc/observable.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { NumberRef } from "../../math/number-ref.js";
import { sceneDeltaSecondsToRef } from "../../babylon/scene-time.js";
import { solveOwnerAbove } from "../../babylon/solve-order.js";
import { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { HandPoser } from "./hand-poser.js";
import { InteractionEffector } from "./interaction-effector.js";
import type { InteractionEvent, InteractionObject } from "./interaction-object.js";
import type { InteractionTarget } from "./interaction-target.js";
import { disposeWith, notifyDisposed } from "../../babylon/dispose-notice.js";
import { type OptionKinds, checkOptions, warnUnknownOptions } from "../../babylon/option-check.js";

const sceneSeconds = new NumberRef();

/** What the interaction observables deliver. */
export interface InteractionEventData {
  /** The effector. */
  effector: FullBodyBipedEffector;
  /** The interaction object. */
  object: InteractionObject;
  /** The target on the object (null: the effector goes to the object's node). */
  target: InteractionTarget | null;
  /** The event that caused this notification (onInteractionEventObservable; pause and pick-up events), else null. */
  event: InteractionEvent | null;
  /** The interaction's timer (seconds) at the notification. */
  time: number;
}

/** Options of {@link InteractionSystem}. */
export interface InteractionSystemOptions {
  /** Create a {@link HandPoser} for each hand with bones under it (default true). */
  handPosers?: boolean;
}

/** The kinds of {@link InteractionSystemOptions}, for the check at create. */
export const INTERACTION_SYSTEM_OPTION_KINDS: OptionKinds<InteractionSystemOptions> = {
  handPosers: "boolean",
};

/** Which of the system's observables a notification goes to (start, pause, pick-up, resume, stop, event). */
export type InteractionNotification = "start" | "pause" | "pickUp" | "resume" | "stop" | "event";

/**
 * FinalIK's Interaction System for a {@link FullBodyBipedIK}: hands, feet and the body reach for
 * {@link InteractionObject}s (buttons, doors, cups, ladders) with weights shaped over time by the object's
 * curves, pause on them, pick them up, and return to the animation afterwards.
 *
 * ```ts
 * const interactions = new InteractionSystem(ik);
 * const button = new InteractionObject(buttonNode, {
 * weightCurves: [{ type: InteractionCurveType.PositionWeight, curve: new Curve([{ time: 0, value: 0 }, { time: 0.5,
 * value: 1 }, { time: 1, value: 0 }]) }],
 * });
 * interactions.startInteraction(FullBodyBipedEffector.RightHand, button, true);
 * ```
 *
 * Every solve, once the IK has read the animated skeleton and before it solves (`ik.solver.onSkeletonRead`,
 * where the grounder runs too; after observers of `ik.solver.onPreUpdateObservable`), each effector's interaction
 * advances: timer += dt × speed × target.interactionSpeedMlp, the fade-in weight rises at 1/fadeInTime,
 * the effector goes to lerp(bone, target, weight) and each channel to lerp(its value at start, curve(timer),
 * weight × target multiplier). After the solve (`onPostUpdateObservable`) bones are rotated (RotateBoneWeight),
 * picked-up objects parented to the hand, and hand posers applied.
 *
 * Time is the scene's animation time (`sceneDeltaSecondsToRef`), once per scene frame, clamped to
 * [0, maxDeltaTime]. Call {@link update} with your own delta time to drive it yourself.
 */
export class InteractionSystem {
  /** The IK driven. */
  readonly ik: FullBodyBipedIK;
  /** Seconds for an interaction's weight to fade in (FinalIK default 0.3). Objects may override it. */
  fadeInTime = 0.3;
  /** Speed of all interactions (default 1; 0 holds them; a negative or NaN speed counts as 0). */
  speed = 1;
  /** Speed of the weights' return to their defaults after an interaction (1: one second). */
  resetToDefaultsSpeed = 1;
  /**
   * Upper bound of the delta time of one frame (seconds). Default 1/3, Unity's `maximumDeltaTime`: a frame up to a
   * third of a second long (a GC pause, a slow load) keeps the interaction on the clip it was started with.
   */
  maxDeltaTime = 1 / 3;
  /** The interaction state of each effector, indexed by {@link FullBodyBipedEffector}. */
  readonly effectors: readonly InteractionEffector[];
  /** The delta time (seconds) of the last update. */
  lastDeltaTime = 0;
  /** Notified once by {@link dispose}, before it lets go of its state (Babylon's convention). */
  readonly onDisposeObservable = new Observable<InteractionSystem>();
  /** @internal For bone-only skeletons: the mesh the skeleton deforms. */
  readonly mesh: AbstractMesh | null;

  /** An interaction started. */
  readonly onInteractionStartObservable = new Observable<InteractionEventData>();
  /** An interaction paused (by a pause event or pauseInteraction). */
  readonly onInteractionPauseObservable = new Observable<InteractionEventData>();
  /** An object was picked up (after the solve, once it is parented to the hand). */
  readonly onInteractionPickUpObservable = new Observable<InteractionEventData>();
  /** A paused interaction resumed. */
  readonly onInteractionResumeObservable = new Observable<InteractionEventData>();
  /** An interaction stopped: it reached its end or was stopped (an interrupt is not a stop). */
  readonly onInteractionStopObservable = new Observable<InteractionEventData>();
  /** An event of an interaction object was reached (every event, in time order). */
  readonly onInteractionEventObservable = new Observable<InteractionEventData>();
  /** Every update, before the effectors' interactions advance (the delta time, seconds). */
  readonly onPreInteractionUpdateObservable = new Observable<number>();
  /** Every update, after the effectors' interactions advanced, still before the solve. */
  readonly onPostInteractionUpdateObservable = new Observable<number>();
  /**
   * @internal Called in each update before and after the effectors advance, like the two observables above but
   * without the delta time as an argument, which V8 boxes per call: they read {@link lastDeltaTime}.
   */
  readonly _beforeInteractions: (() => void)[] = [];
  /** @internal See {@link _beforeInteractions}. */
  readonly _afterInteractions: (() => void)[] = [];

  // FinalIK's delegate names before the on…Observable rule (docs/API.md, "Observables"): kept as aliases
  /** @deprecated Use {@link onInteractionStartObservable} (the same object). */
  get onInteractionStart(): Observable<InteractionEventData> {
    return this.onInteractionStartObservable;
  }
  /** @deprecated Use {@link onInteractionPauseObservable} (the same object). */
  get onInteractionPause(): Observable<InteractionEventData> {
    return this.onInteractionPauseObservable;
  }
  /** @deprecated Use {@link onInteractionPickUpObservable} (the same object). */
  get onInteractionPickUp(): Observable<InteractionEventData> {
    return this.onInteractionPickUpObservable;
  }
  /** @deprecated Use {@link onInteractionResumeObservable} (the same object). */
  get onInteractionResume(): Observable<InteractionEventData> {
    return this.onInteractionResumeObservable;
  }
  /** @deprecated Use {@link onInteractionStopObservable} (the same object). */
  get onInteractionStop(): Observable<InteractionEventData> {
    return this.onInteractionStopObservable;
  }
  /** @deprecated Use {@link onInteractionEventObservable} (the same object). */
  get onInteractionEvent(): Observable<InteractionEventData> {
    return this.onInteractionEventObservable;
  }
  /** @deprecated Use {@link onPreInteractionUpdateObservable} (the same object). */
  get onPreInteractionUpdate(): Observable<number> {
    return this.onPreInteractionUpdateObservable;
  }
  /** @deprecated Use {@link onPostInteractionUpdateObservable} (the same object). */
  get onPostInteractionUpdate(): Observable<number> {
    return this.onPostInteractionUpdateObservable;
  }

  private preObserver: (() => void) | null;
  private postObserver: Observer<void> | null;
  private ikDisposeObserver: Observer<FullBodyBipedIK> | null;
  private manualTime = false;
  private pendingDeltaTime = 0;
  private lastFrame = -1;
  private disposed = false;

  /** Attaches an interaction system to `ik`. */
  constructor(ik: FullBodyBipedIK, options: InteractionSystemOptions = {}) {
    const unknown = checkOptions("InteractionSystem", options, INTERACTION_SYSTEM_OPTION_KINDS);
    this.ik = ik;
    this.mesh = ik.scene.meshes.find((m) => m.skeleton === ik.skeleton) ?? null;
    const list: InteractionEffector[] = [];
    for (let e = FullBodyBipedEffector.Body; e <= FullBodyBipedEffector.RightFoot; e++)
      list.push(new InteractionEffector(this, e));
    this.effectors = list;
    if (options.handPosers ?? true) {
      for (const e of [FullBodyBipedEffector.LeftHand, FullBodyBipedEffector.RightHand]) {
        const node = list[e]!.effector.bone?.getTransformNode() ?? null;
        if (node === null) continue;
        const poser = new HandPoser(node, ik.skeleton);
        if (poser.hasFingers) list[e]!.poser = poser;
      }
    }
    // after the rig has read this frame's animated pose (as the grounder): the bones' world poses then come
    // from the rig's own forward kinematics instead of forcing Babylon's world matrices up each limb
    this.preObserver = ik.solver.onSkeletonRead.add(() => this.preUpdate());
    this.postObserver = ik.solver.onPostUpdateObservable.add(() => this.postUpdate());
    // a character disposed takes its IK with it, and with the IK this: nothing left holding its hands
    this.ikDisposeObserver = disposeWith(ik, this);
    ik._addHookTargets(this);
    warnUnknownOptions(ik.solver.inner, "InteractionSystem", unknown, INTERACTION_SYSTEM_OPTION_KINDS, { "": this });
  }

  /** @internal A cup handed over from another character's hand: that character's IKs solve first. */
  _solveTargetOwners(): void {
    const list = this.effectors;
    for (let i = 0; i < list.length; i++) {
      const node = list[i]!._readNode;
      if (node !== null) solveOwnerAbove(node, this.ik);
    }
  }

  /** Same as `new InteractionSystem(ik, options)`. */
  static create(ik: FullBodyBipedIK, options: InteractionSystemOptions = {}): InteractionSystem {
    return new InteractionSystem(ik, options);
  }

  /** The interaction state of `effector`. */
  getInteractionEffector(effector: FullBodyBipedEffector): InteractionEffector {
    return this.effectors[effector]!;
  }

  /** The hand poser of `effector` (hands of rigs with fingers), or null. */
  getPoser(effector: FullBodyBipedEffector): HandPoser | null {
    return this.effectors[effector]?.poser ?? null;
  }

  /** Sets (or clears) the hand poser of `effector`. */
  setPoser(effector: FullBodyBipedEffector, poser: HandPoser | null): void {
    const e = this.effectors[effector];
    if (e === undefined) return;
    e.poser?.restore();
    e.poser = poser;
  }

  /**
   * When true (after {@link update} was called) interactions advance only by the time given to
   * {@link update}; when false, by the scene's animation time. Assign false to go back to scene time.
   */
  get manualDeltaTime(): boolean {
    return this.manualTime;
  }
  set manualDeltaTime(v: boolean) {
    this.manualTime = v;
    this.pendingDeltaTime = 0;
  }

  /**
   * Advances the interactions by `deltaTime` seconds at the next solve (switching to manual time; the
   * scene's animation time is no longer used). Several calls before one solve add up.
   */
  update(deltaTime: number): void {
    this.manualTime = true;
    if (deltaTime > 0 && Number.isFinite(deltaTime)) this.pendingDeltaTime += deltaTime;
  }

  /**
   * Starts an interaction of `effector` with `object`. Returns false when the effector is already
   * interacting and `interrupt` is false, or when it has no bone. Interrupting blends from where the
   * effector is now.
   */
  startInteraction(effector: FullBodyBipedEffector, object: InteractionObject, interrupt: boolean): boolean {
    if (this.disposed) return false;
    const e = this.effectors[effector];
    if (e === undefined) return false;
    return e._start(object, interrupt);
  }

  /** Pauses the effector's interaction (it keeps following the target). Returns false if none runs or it is paused. */
  pauseInteraction(effector: FullBodyBipedEffector): boolean {
    return this.effectors[effector]?._pause() ?? false;
  }

  /** Resumes the effector's paused interaction. */
  resumeInteraction(effector: FullBodyBipedEffector): boolean {
    return this.effectors[effector]?._resume() ?? false;
  }

  /**
   * Stops the effector's interaction (its weights return to their defaults) and lets go of an object it
   * holds, keeping the object's world pose. Pending events of the interaction are not fired.
   */
  stopInteraction(effector: FullBodyBipedEffector): boolean {
    return this.effectors[effector]?._stop(true) ?? false;
  }

  /** Pauses every running interaction. */
  pauseAll(): void {
    for (const e of this.effectors) e._pause();
  }

  /** Resumes every paused interaction. */
  resumeAll(): void {
    for (const e of this.effectors) e._resume();
  }

  /** Stops every interaction and lets go of every held object. */
  stopAll(): void {
    for (const e of this.effectors) e._stop(true);
  }

  /** True while the effector interacts (also while paused). */
  isInInteraction(effector: FullBodyBipedEffector): boolean {
    return this.effectors[effector]?.inInteraction ?? false;
  }

  /** True while the effector's interaction is paused. */
  isPaused(effector: FullBodyBipedEffector): boolean {
    return this.effectors[effector]?.isPaused ?? false;
  }

  /** True when any interaction is paused. */
  isAnyPaused(): boolean {
    return this.effectors.some((e) => e.isPaused);
  }

  /** timer / length of the effector's interaction, 0 when it is not interacting. */
  getProgress(effector: FullBodyBipedEffector): number {
    return this.effectors[effector]?.progress ?? 0;
  }

  /** The smallest progress among the interacting effectors, 0 when none interacts. */
  getMinActiveProgress(): number {
    let min = Infinity;
    for (const e of this.effectors) if (e.inInteraction) min = Math.min(min, e.progress);
    return min === Infinity ? 0 : min;
  }

  /** The object the effector holds (picked up, not released), or null. */
  getHeldObject(effector: FullBodyBipedEffector): InteractionObject | null {
    return this.effectors[effector]?.heldObject ?? null;
  }

  /**
   * Lets go of the object the effector holds: back under its original parent keeping the world pose it was
   * shown at (the last solve's, also when called mid-frame), or placed at `position` / `rotation` (world)
   * when given. Returns the object, or null (also when another hand took the object over).
   */
  release(
    effector: FullBodyBipedEffector,
    position: Vector3 | null = null,
    rotation: Quaternion | null = null,
  ): InteractionObject | null {
    return this.effectors[effector]?._release(position, rotation) ?? null;
  }

  /** Stores the current effector and chain weights as the defaults interactions return to. */
  storeDefaults(): void {
    for (const e of this.effectors) e.storeDefaults();
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "InteractionSystem";
  }

  /**
   * Detaches: removes the observers, stops interactions, writes the default weights back, puts pivots
   * back, lets go of held objects (keeping their world pose) and restores the fingers. Called by the IK's
   * own dispose (also when the character is disposed without it).
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    if (this.preObserver !== null) this.ik.solver.onSkeletonRead.remove(this.preObserver);
    if (this.postObserver !== null) this.ik.solver.onPostUpdateObservable.remove(this.postObserver);
    this.ik._removeHookTargets(this);
    this.ik.onDisposeObservable.remove(this.ikDisposeObserver);
    this.preObserver = null;
    this.postObserver = null;
    this.ikDisposeObserver = null;
    for (const e of this.effectors) {
      e._release(null, null);
      e._restoreDefaults();
      e.poser?.restore();
    }
    for (const o of [
      this.onInteractionStartObservable,
      this.onInteractionPauseObservable,
      this.onInteractionPickUpObservable,
      this.onInteractionResumeObservable,
      this.onInteractionStopObservable,
      this.onInteractionEventObservable,
    ])
      o.clear();
    this.onPreInteractionUpdateObservable.clear();
    this.onPostInteractionUpdateObservable.clear();
    this._beforeInteractions.length = 0;
    this._afterInteractions.length = 0;
  }

  /** The frame's delta time in seconds (see the class notes), into lastDeltaTime. */
  private stepDeltaTime(): void {
    let dt: number;
    if (this.manualTime) {
      dt = this.pendingDeltaTime;
      this.pendingDeltaTime = 0;
    } else {
      const scene = this.ik.scene;
      const frame = scene.getFrameId();
      // a second solve in one frame restarts from the animation at the same time
      if (frame === this.lastFrame) {
        this.lastDeltaTime = 0;
        return;
      }
      this.lastFrame = frame;
      dt = sceneDeltaSecondsToRef(scene, sceneSeconds).value;
    }
    this.lastDeltaTime = !(dt > 0) ? 0 : dt > this.maxDeltaTime ? this.maxDeltaTime : dt;
  }

  private preUpdate(): void {
    // the step goes to the effectors through lastDeltaTime, not as an argument or a return value
    // (see ARCHITECTURE.md, "Doubles across calls")
    this.stepDeltaTime();
    const before = this._beforeInteractions;
    for (let i = 0; i < before.length; i++) before[i]!();
    if (this.onPreInteractionUpdateObservable.hasObservers())
      this.onPreInteractionUpdateObservable.notifyObservers(this.lastDeltaTime);
    const list = this.effectors;
    for (let i = 0; i < list.length; i++) list[i]!._update();
    const after = this._afterInteractions;
    for (let i = 0; i < after.length; i++) after[i]!();
    if (this.onPostInteractionUpdateObservable.hasObservers())
      this.onPostInteractionUpdateObservable.notifyObservers(this.lastDeltaTime);
  }

  private postUpdate(): void {
    const list = this.effectors;
    for (let i = 0; i < list.length; i++) list[i]!._postUpdate();
  }

  /** @internal Sends a notification of an effector's interaction. */
  _notify(kind: InteractionNotification, e: InteractionEffector, event: InteractionEvent | null): void {
    const o = this.observableOf(kind);
    if (!o.hasObservers()) return;
    o.notifyObservers({ effector: e.effectorType, object: e.object!, target: e.target, event, time: e.timer });
  }

  private observableOf(kind: InteractionNotification): Observable<InteractionEventData> {
    switch (kind) {
      case "start":
        return this.onInteractionStartObservable;
      case "pause":
        return this.onInteractionPauseObservable;
      case "pickUp":
        return this.onInteractionPickUpObservable;
      case "resume":
        return this.onInteractionResumeObservable;
      case "stop":
        return this.onInteractionStopObservable;
      default:
        return this.onInteractionEventObservable;
    }
  }
}
