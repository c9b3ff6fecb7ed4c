import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Observable, type Observer } from "@babylonjs/core/Misc/observable.js";
import type { Node } from "@babylonjs/core/node.js";
import {
  boneWorldMatrixToRef,
  currentWorldMatrix,
  nodeWorldMatrix,
  transformVector3InPlace,
} from "../../babylon/world-matrix.js";
import { ClimbFootReach } from "./climb-foot-reach.js";
import { Curve } from "../../math/curve.js";
import { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { InteractionCurveType } from "./interaction-curves.js";
import { InteractionObject, type InteractionWeightCurve, isEventTime } from "./interaction-object.js";
import type { InteractionSystem } from "./interaction-system.js";
import { lerpVector3ByRef, positionOfMatrix } from "./node-pose.js";
import { copyVector3Fields } from "../../babylon/babylon-fields.js";
import { NumberRef } from "../../math/number-ref.js";
import { notifyDisposed } from "../../babylon/dispose-notice.js";
import { moduleMatrix } from "../../babylon/module-matrix.js";
import { type OptionKinds, checkOptions, eachOf, warnUnknownOptions } from "../../babylon/option-check.js";

/** One move of a climb: at `time` (seconds after start), `limb` goes to `hold`. */
export interface ClimbStep {
  /**
   * When the move starts (seconds after {@link ClimbSequencer.start}, scaled by the system's speed). A time that
   * is not a finite number ≥ 0 (NaN, ±∞, negative) never starts its move; the sequencer warns once.
   */
  time: number;
  /** The hand or foot effector. */
  limb: FullBodyBipedEffector;
  /** The hold (a rung, a grip): the limb's target. */
  hold: TransformNode;
}

/** The kinds of {@link ClimbStep}, for the check at create of {@link ClimbSequencerOptions.steps}. */
export const CLIMB_STEP_KINDS: OptionKinds<ClimbStep> = { time: "number", limb: "number", hold: "object" };

/** Delivered by {@link ClimbSequencer.onStepObservable}. */
export interface ClimbStepEvent {
  /** Index of the step in the script. */
  index: number;
  /** The step. */
  step: ClimbStep;
}

/** Options of {@link ClimbSequencer}. */
export interface ClimbSequencerOptions {
  /** The script (sorted by time here). */
  steps?: ClimbStep[];
  /** Seconds a limb takes from its hold (or the animation) to the next hold (default 0.5). */
  moveTime?: number;
  /** Height of the arc a moving limb makes, in world units along the character's up (default 0). */
  liftHeight?: number;
  /** [0, 1] Rotation weight of the limbs on their holds (default 0: the animated hand/foot rotation). */
  rotationWeight?: number;
  /**
   * [0, 1] Rotation weight of the hands on their holds (default `rotationWeight`): with 1 and the feet's 0, the
   * hands take their holds' rotation (a grip over the rung) while the feet keep the animation's.
   */
  handRotationWeight?: number;
  /**
   * World offset of the body from the centroid of the holds at {@link ClimbSequencer.start} (default: measured
   * then); on a deck that turns (the parent of `root`, else of the character's root), it turns with it.
   */
  bodyOffset?: Vector3 | null;
  /** [0, 1] Position weight of the body effector while climbing (default 1). */
  bodyWeight?: number;
  /** Rate (1/s) at which the body follows the holds' centroid (default 6). */
  bodySpeed?: number;
  /**
   * The character's root node, moved with the climb (default null: the root stays, only effectors move). From
   * where it is at {@link ClimbSequencer.start}, it follows the change of the holds' centroid (up, sideways on a
   * wall, forward up a leaning ladder), eased at `bodySpeed`, and sinks below that (the body effector with it) as
   * far as a foot on its hold, or on its way down to one, needs to stay within reach of its hip: the animation then
   * plays from the climbing height instead of the IK stretching the body up to the holds. `stop()` leaves it where
   * the climb took it.
   */
  root?: TransformNode | null;
  /**
   * How far a moving limb swings back, away from the ladder or wall, midway between its holds (world units,
   * default 0), on top of `liftHeight`: the hand or foot clears the rung it leaves and the one it goes to. The
   * direction is the body's side of the first holds, measured at {@link ClimbSequencer.start}; on a deck that
   * turns (the parent of `root`, else of the character's root), it turns with it.
   */
  swingBack?: number;
  /**
   * A finger pose the hands close to on their holds (a {@link HandPoser} pose: e.g. `HandPoser.capturePose`
   * of a hand, bent; default null: the animated fingers). The hand opens as it leaves a hold and closes over
   * the last 40 % of its move. Needs the system's hand posers (the default).
   */
  gripPose?: TransformNode | null;
}

/** The kinds of {@link ClimbSequencerOptions}, for the check at create. */
export const CLIMB_SEQUENCER_OPTION_KINDS: OptionKinds<ClimbSequencerOptions> = {
  steps: eachOf(CLIMB_STEP_KINDS),
  moveTime: "number",
  liftHeight: "number",
  rotationWeight: "number",
  handRotationWeight: "number",
  bodyOffset: "object|null",
  bodyWeight: "number",
  bodySpeed: "number",
  root: "object|null",
  swingBack: "number",
  gripPose: "object|null",
};

const LIMBS = [
  FullBodyBipedEffector.LeftHand,
  FullBodyBipedEffector.RightHand,
  FullBodyBipedEffector.LeftFoot,
  FullBodyBipedEffector.RightFoot,
] as const;
const tm = moduleMatrix();
const tv = new Vector3();
const tv2 = new Vector3();
const centroid = new Vector3();
const tv3 = new Vector3();
/** A limb's start without a previous hold, in world space (see `reachFrom`). */
const reach = new Vector3();
/** Shares of a move: out from the ladder until SWING_OUT, in from SWING_IN to SET_DOWN, then down onto the hold. */
const SWING_OUT = 0.3;
const SWING_IN = 0.7;
const SET_DOWN = 0.9;
/** Height over its hold at which a swinging limb comes in, as a share of `swingBack`. */
const HOVER = 0.5;

/** Removes `hook` from `hooks` (the system's hook lists). */
function removeHook(hooks: (() => void)[], hook: () => void): void {
  const i = hooks.indexOf(hook);
  if (i >= 0) hooks.splice(i, 1);
}

/**
 * `v` by the world matrix of `space` (`inverse`: from world space into it), a point (`point`, with the translation)
 * or a direction, into `out`; null is the world. Not Babylon's `TransformNormalToRef`: see
 * {@link transformVector3InPlace}.
 */
function bySpace(v: Vector3, space: Node | null, inverse: boolean, point: boolean, out: Vector3): Vector3 {
  copyVector3Fields(out, v);
  if (space === null) return out;
  // the space as it is now: moved since its last computeWorldMatrix (a deck, between frames), its cache is stale
  return transformVector3InPlace(out, inverse ? nodeWorldMatrix(space).invertToRef(tm) : nodeWorldMatrix(space), point);
}

/** A world direction `v` in the space of `space` (a node's parent; null: the world), in place. */
function intoSpace(v: Vector3, space: Node | null): Vector3 {
  return bySpace(v, space, true, false, v);
}

/** A world point `v` in the space of `space` (null: the world), in place. */
function intoSpacePoint(v: Vector3, space: Node | null): Vector3 {
  return bySpace(v, space, true, true, v);
}

/** A point `v` in the space of `space` (null: the world) in world space, into `out`. */
function fromSpacePoint(v: Vector3, space: Node | null, out: Vector3): Vector3 {
  return bySpace(v, space, false, true, out);
}

/** Share of `moveTime` at whose start a hand begins to close on its next hold. */
const GRIP_CLOSE_FROM = 0.6;

/**
 * Climbing built on the {@link InteractionSystem}: a script of moves (which hand or foot goes to which
 * hold, when) played as interactions (each move interrupts the limb's previous hold and pauses on the new
 * one, so the limb stays on it and follows it if it moves), while the body effector follows the centroid
 * of the limbs' holds plus an offset. Enough for a ladder or a climbing wall.
 *
 * ```ts
 * const climb = new ClimbSequencer(interactions, { moveTime: 0.4, liftHeight: 0.05, steps: [
 *   { time: 0, limb: FullBodyBipedEffector.LeftHand, hold: rungs[6] }, …
 * ] });
 * climb.start();
 * ```
 */
export class ClimbSequencer {
  /** The interaction system. */
  readonly system: InteractionSystem;
  /** The script, sorted by time. */
  readonly steps: ClimbStep[];
  /** Seconds per move. */
  readonly moveTime: number;
  /** Height of a moving limb's arc. */
  readonly liftHeight: number;
  /** Rotation weight of the limbs on their holds (the feet's, and the hands' unless {@link handRotationWeight}). */
  readonly rotationWeight: number;
  /** Rotation weight of the hands on their holds. */
  readonly handRotationWeight: number;
  /** Offset of the body from the centroid of the holds (world); measured at start when null. */
  bodyOffset: Vector3 | null;
  /** Position weight of the body effector while climbing. */
  bodyWeight: number;
  /** Rate (1/s) of the body following the centroid. */
  bodySpeed: number;
  /** The character's root node moved with the climb, or null; read at {@link start}. */
  root: TransformNode | null;
  /** How far a moving limb swings back from the ladder midway between its holds (world units). */
  swingBack: number;
  /** The finger pose of the hands on their holds, or null (given to the hold objects as they are created). */
  readonly gripPose: TransformNode | null;
  /** Notified once by {@link dispose}, before it lets go of its state (Babylon's convention). */
  readonly onDisposeObservable = new Observable<ClimbSequencer>();
  /** A step started. */
  readonly onStepObservable = new Observable<ClimbStepEvent>();
  /** Every step has started and every limb with a hold has reached it. */
  readonly onFinishedObservable = new Observable<ClimbSequencer>();

  // FinalIK's delegate names before the on…Observable rule (docs/API.md, "Observables"): kept as aliases
  /** @deprecated Use {@link onStepObservable} (the same object). */
  get onStep(): Observable<ClimbStepEvent> {
    return this.onStepObservable;
  }
  /** @deprecated Use {@link onFinishedObservable} (the same object). */
  get onFinished(): Observable<ClimbSequencer> {
    return this.onFinishedObservable;
  }

  /** The hold objects: [0] the hands' (and the feet's with the same rotation weight), [1] the feet's otherwise. */
  private readonly objects = [new Map<TransformNode, InteractionObject>(), new Map<TransformNode, InteractionObject>()];
  private readonly holds: (TransformNode | null)[] = [null, null, null, null, null, null, null, null, null];
  private readonly previousHolds: (TransformNode | null)[] = [null, null, null, null, null, null, null, null, null];
  private clock = 0;
  private next = 0;
  private running = false;
  private finishedFired = false;
  private disposed = false;
  /** The body effector's eased position, in {@link space}: a moving deck carries it rather than leaving it behind. */
  private readonly bodyPosition = new Vector3();
  /**
   * The space the climb is carried in: the parent of `root` (else of the character's root) at start, null for the
   * world. The holds' centroid is followed in it, so a deck or elevator moving under the character carries the body
   * and the root; only the holds' move on it climbs.
   */
  private space: Node | null = null;
  /** The inverse of {@link space}'s world matrix at start: `bodyOffset` (world at start) into the space. */
  private readonly spaceAtStart = Matrix.Identity();
  private bodyCurrentWeight = 0;
  private bodyDefaultWeight = 0;
  private bodyActive = false;
  /** Where the root was at start and the centroid it moves with the change of, both in {@link space}. */
  private readonly rootStart = new Vector3();
  private readonly rootReference = new Vector3();
  /** The root's position, eased toward its goal after the interactions and written before the next read. */
  private readonly rootPosition = new Vector3();
  private movingRoot: TransformNode | null = null;
  /** How far the root sits below its goal for the feet's reach, and that sink in the root's parent space. */
  private readonly footReach = new ClimbFootReach();
  private readonly rootSink = new Vector3();
  /** The sink in world space (written here, in a short method, so its setters are inlined). */
  private readonly sinkWorld = new Vector3();
  /** Where each limb was as it went for its first hold, in {@link space}: its path's start with no previous hold. */
  private readonly reachFrom = [0, 1, 2, 3, 4, 5, 6, 7, 8].map(() => new Vector3());
  /** Away from the ladder, in {@link space} (unit in world space at start; zero when unknown): measured at start. */
  private readonly back = new Vector3();
  private readonly beforeHook = (): void => this.beforeInteractions();
  private readonly afterHook = (): void => this.afterInteractions();
  /** This frame's share of the way the body and the root ease toward their goals (by reference: NumberRef). */
  private readonly ease = new NumberRef();
  /** A moving limb's share of the way between its holds (by reference: NumberRef). */
  private readonly blend = new NumberRef();
  private rootObserver: Observer<void> | null;
  private systemDisposeObserver: Observer<InteractionSystem> | null;

  /** A sequencer on `system` (not started). */
  constructor(system: InteractionSystem, options: ClimbSequencerOptions = {}) {
    const unknown = checkOptions("ClimbSequencer", options, CLIMB_SEQUENCER_OPTION_KINDS);
    this.system = system;
    // steps whose time can never come go last: a NaN would otherwise leave the order undefined
    this.steps = [...(options.steps ?? [])].sort((a, b) => {
      const ta = isEventTime(a.time);
      if (ta !== isEventTime(b.time)) return ta ? -1 : 1;
      return ta ? a.time - b.time : 0;
    });
    this.moveTime = Math.max(1e-3, options.moveTime ?? 0.5);
    this.liftHeight = options.liftHeight ?? 0;
    this.rotationWeight = options.rotationWeight ?? 0;
    this.handRotationWeight = options.handRotationWeight ?? this.rotationWeight;
    this.bodyOffset = options.bodyOffset?.clone() ?? null;
    this.bodyWeight = options.bodyWeight ?? 1;
    this.bodySpeed = options.bodySpeed ?? 6;
    this.root = options.root ?? null;
    this.swingBack = options.swingBack ?? 0;
    this.gripPose = options.gripPose ?? null;
    system._beforeInteractions.push(this.beforeHook);
    system._afterInteractions.push(this.afterHook);
    // before the skeleton is read: the animation, and the IK's read of it, start from the moved root
    this.rootObserver = system.ik.solver.onPreUpdateObservable.add(() => this.moveRoot());
    // without its system (disposed, or its IK or character disposed) nothing would ever move a limb again
    this.systemDisposeObserver = system.onDisposeObservable.add(() => this.dispose());
    warnUnknownOptions(system.ik.solver.inner, "ClimbSequencer", unknown, CLIMB_SEQUENCER_OPTION_KINDS, { "": this });
  }

  /** True between start and stop. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Seconds since start (scaled by the system's speed). */
  get time(): number {
    return this.clock;
  }

  /** True when every step has started and every limb with a hold is on it (its interaction paused there). */
  get isFinished(): boolean {
    if (this.next < this.steps.length) return false;
    for (const l of LIMBS) {
      if (this.holds[l] !== null && !this.system.isPaused(l)) return false;
    }
    return true;
  }

  /** The hold the limb is on or going to, or null. */
  getHold(limb: FullBodyBipedEffector): TransformNode | null {
    return this.holds[limb] ?? null;
  }

  /**
   * The interaction object used for `hold` by `limb` (default a hand; created on first use). A hold's hands and
   * feet share one object unless their rotation weights differ.
   */
  getHoldObject(hold: TransformNode, limb: FullBodyBipedEffector = FullBodyBipedEffector.LeftHand): InteractionObject {
    const foot = limb === FullBodyBipedEffector.LeftFoot || limb === FullBodyBipedEffector.RightFoot;
    const apart = foot && this.rotationWeight !== this.handRotationWeight;
    const objects = this.objects[apart ? 1 : 0]!;
    let o = objects.get(hold);
    if (o === undefined) {
      const t = this.moveTime;
      const rotationWeight = foot ? this.rotationWeight : this.handRotationWeight;
      const curves: InteractionWeightCurve[] = [
        {
          type: InteractionCurveType.PositionWeight,
          curve: new Curve([
            { time: 0, value: 1 },
            { time: t, value: 1 },
          ]),
        },
      ];
      if (rotationWeight > 0) {
        curves.push({
          type: InteractionCurveType.RotationWeight,
          curve: new Curve([
            { time: 0, value: rotationWeight },
            { time: t, value: rotationWeight },
          ]),
        });
      }
      if (this.gripPose !== null) {
        curves.push({
          type: InteractionCurveType.PoserWeight,
          curve: new Curve([
            { time: 0, value: 0 },
            { time: t * GRIP_CLOSE_FROM, value: 0 },
            { time: t, value: 1 },
          ]),
        });
      }
      if (this.liftHeight !== 0) {
        curves.push({
          type: InteractionCurveType.PositionOffsetY,
          curve: new Curve([
            { time: 0, value: 0 },
            { time: t / 2, value: this.liftHeight },
            { time: t, value: 0 },
          ]),
        });
      }
      o = new InteractionObject(hold, {
        weightCurves: curves,
        events: [{ time: t, pause: true }],
        fadeInTime: t,
        handPose: this.gripPose,
      });
      objects.set(hold, o);
    }
    return o;
  }

  /**
   * Starts the script from time 0. Without a `bodyOffset`, the body's offset from the centroid of each
   * limb's first hold is measured now, from the current pose. A restart keeps every limb on the hold it has
   * until the script moves it, as its interaction does, so the body eases from those holds to the new ones.
   */
  start(): void {
    this.clock = 0;
    this.next = 0;
    this.running = true;
    this.finishedFired = false;
    const body = this.system.ik.solver.bodyEffector;
    if (!this.bodyActive) this.bodyDefaultWeight = body.positionWeight;
    this.bodyActive = true;
    this.bodyCurrentWeight = body.positionWeight;
    const bone = body.bone;
    if (bone !== null) positionOfMatrix(boneWorldMatrixToRef(bone, this.system.mesh, tm), this.bodyPosition);
    const first: (TransformNode | null)[] = [null, null, null, null, null, null, null, null, null];
    for (const s of this.steps) if (first[s.limb] === null && isEventTime(s.time)) first[s.limb] = s.hold;
    const hasFirst = this.centroidOf(first, null, centroid);
    if (this.bodyOffset === null) this.bodyOffset = hasFirst ? this.bodyPosition.subtract(centroid) : Vector3.Zero();
    this.measureBack(hasFirst ? centroid : null);
    this.space = (this.root ?? this.system.ik.rig.characterRoot)?.parent ?? null;
    if (this.space !== null) {
      nodeWorldMatrix(this.space).invertToRef(this.spaceAtStart);
      // the ladder turns with the deck: a swing along the start's world direction would go sideways, or into it
      transformVector3InPlace(this.back, this.spaceAtStart, false);
    }
    intoSpacePoint(this.bodyPosition, this.space);
    // the root moves by the change of the centroid from here: the holds the limbs are on (a restart), else the first
    const restart = this.movingRoot !== null && this.movingRoot === this.root;
    this.movingRoot = this.root;
    if (this.root === null) return;
    if (restart) {
      // the goal carries on from where it is (no leak of the ease or the sink into the new start, which each
      // loop of a repeated climb would add up); the sink goes on as it was
      if (this.centroidOf(this.holds, this.previousHolds, tv2)) {
        intoSpacePoint(tv2, this.space);
        this.rootStart.addInPlace(tv.copyFrom(tv2).subtractInPlace(this.rootReference));
        this.rootReference.copyFrom(tv2);
      }
      return;
    }
    if (!this.centroidOf(this.holds, this.previousHolds, this.rootReference)) this.rootReference.copyFrom(centroid);
    intoSpacePoint(this.rootReference, this.space);
    this.rootSink.setAll(0);
    this.footReach.reset();
    const r = this.system.ik.references;
    const at = this.root.getAbsolutePosition();
    const toSpace = this.space === null ? null : this.spaceAtStart;
    this.footReach.measure(0, r.leftThigh, r.leftCalf, r.leftFoot, this.system.mesh, at, toSpace);
    this.footReach.measure(1, r.rightThigh, r.rightCalf, r.rightFoot, this.system.mesh, at, toSpace);
    this.rootStart.copyFrom(this.root.position);
    this.rootPosition.copyFrom(this.rootStart);
  }

  /** `back`: from the first holds' centroid to the body, across the character's up, unit; zero without holds. */
  private measureBack(firstCentroid: Vector3 | null): void {
    this.back.setAll(0);
    if (firstCentroid === null) return;
    this.characterUp(tv);
    this.bodyPosition.subtractToRef(firstCentroid, tv2);
    tv2.subtractInPlace(tv.scaleInPlace(Vector3.Dot(tv2, tv)));
    const l = tv2.length();
    if (l > 1e-6) this.back.copyFrom(tv2).scaleInPlace(1 / l);
  }

  /** The character's up in world space (its root's Y axis; world Y without a root), unit. */
  private characterUp(out: Vector3): Vector3 {
    const space = this.system.ik.rig.characterRoot;
    // Babylon's fields written directly: a double handed to its setters may be boxed (see node-pose.ts)
    let x = 0;
    let y = 1;
    let z = 0;
    if (space !== null) {
      const m = currentWorldMatrix(space).m;
      const l = Math.sqrt(m[4]! * m[4]! + m[5]! * m[5]! + m[6]! * m[6]!);
      if (l > 0) {
        x = m[4]! / l;
        y = m[5]! / l;
        z = m[6]! / l;
      }
    }
    out._x = x;
    out._y = y;
    out._z = z;
    out._isDirty = true;
    return out;
  }

  /**
   * Stops climbing: every limb's interaction stops and the body returns to its weight before start. The
   * `root`, if any, stays where the climb took it (moving it on, to the top or back down, is the caller's).
   */
  stop(): void {
    this.running = false;
    this.movingRoot = null;
    for (const l of LIMBS) {
      if (this.holds[l] !== null) this.system.stopInteraction(l);
      this.holds[l] = null;
      this.previousHolds[l] = null;
    }
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "ClimbSequencer";
  }

  /**
   * Removes the sequencer's observers (stopping it if running) and gives the body its weight back. Called by
   * the system's dispose (and so the IK's).
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    if (this.running) this.stop();
    if (this.bodyActive) this.system.ik.solver.bodyEffector.positionWeight = this.bodyDefaultWeight;
    this.bodyActive = false;
    removeHook(this.system._beforeInteractions, this.beforeHook);
    removeHook(this.system._afterInteractions, this.afterHook);
    if (this.rootObserver !== null) this.system.ik.solver.onPreUpdateObservable.remove(this.rootObserver);
    this.rootObserver = null;
    this.system.onDisposeObservable.remove(this.systemDisposeObserver);
    this.systemDisposeObserver = null;
    this.onStepObservable.clear();
    this.onFinishedObservable.clear();
  }

  private beforeInteractions(): void {
    if (!this.running) return;
    this.clock += this.system.lastDeltaTime * (this.system.speed > 0 ? this.system.speed : 0);
    while (this.next < this.steps.length) {
      const index = this.next;
      const step = this.steps[index]!;
      const time = step.time;
      // a time that can never come is skipped (warned once), not waited for: it would hold every later step
      if (!isEventTime(time)) {
        this.next++;
        this.warnStepTime(index, time);
        continue;
      }
      if (time > this.clock) break;
      this.next++;
      const started = this.system.startInteraction(step.limb, this.getHoldObject(step.hold, step.limb), true);
      if (!started) continue;
      this.previousHolds[step.limb] = this.holds[step.limb] ?? null;
      const bone = this.system.ik.solver.getEffector(step.limb).bone;
      if (this.previousHolds[step.limb] === null && bone !== null)
        intoSpacePoint(
          positionOfMatrix(boneWorldMatrixToRef(bone, this.system.mesh, tm), this.reachFrom[step.limb]!),
          this.space,
        );
      this.holds[step.limb] = step.hold;
      if (this.onStepObservable.hasObservers()) this.onStepObservable.notifyObservers({ index, step });
    }
  }

  /** One warning on the IK's channel (once per IK) for a step time that is not a finite number ≥ 0. */
  private warnStepTime(index: number, time: number): void {
    this.system.ik.solver.inner.warn(
      "climbSequencer:step-time",
      `ClimbSequencer: step ${index} has the time ${time}, not a finite number ≥ 0; it is skipped.`,
    );
  }

  // Per frame, after the interactions: split into short methods that V8 optimises (or inlines) reliably, with no
  // double handed to a call (ARCHITECTURE.md, "Doubles across calls"); one long method boxed 48–64 B a frame in
  // some runs (test/scenario/climb-frame-heap.test.ts).
  private afterInteractions(): void {
    if (!this.bodyActive) return;
    this.stepBodyWeight();
    if (this.running && this.centroidOf(this.holds, this.previousHolds, centroid)) this.followHolds();
    if (this.running && this.swingBack !== 0) this.swingLimbs();
    this.writeBody();
    if (!this.running && this.bodyCurrentWeight === this.bodyDefaultWeight) this.bodyActive = false;
    if (this.running && !this.finishedFired && this.isFinished) {
      this.finishedFired = true;
      this.onFinishedObservable.notifyObservers(this);
    }
  }

  /** The body effector's weight toward the climb's (or back to its own) at one weight per `moveTime`. */
  private stepBodyWeight(): void {
    const goal = this.running ? this.bodyWeight : this.bodyDefaultWeight;
    const rate = this.system.lastDeltaTime / this.moveTime;
    const w = this.bodyCurrentWeight;
    this.bodyCurrentWeight = goal > w ? (w + rate < goal ? w + rate : goal) : w - rate > goal ? w - rate : goal;
  }

  /** The root and the body follow the holds' centroid (in `centroid`), the root less the feet's sink. */
  private followHolds(): void {
    this.ease.value = 1 - Math.exp(-this.bodySpeed * this.system.lastDeltaTime);
    if (this.movingRoot !== null) {
      this.followWithRoot();
      this.sinkForFeet();
    }
    // the body's goal in the climb's space: the offset measured at start turns with it
    intoSpacePoint(centroid, this.space).addInPlace(this.offsetInSpace(tv3));
    // the body sinks with the root: held at its height, it would keep the feet as far from their holds
    if (this.movingRoot !== null) centroid.subtractInPlace(this.rootSink);
    lerpVector3ByRef(this.bodyPosition, centroid, this.ease, this.bodyPosition);
  }

  /** The body effector takes the eased position and weight (its solver's plain field, not the setter). */
  private writeBody(): void {
    const body = this.system.ik.solver.bodyEffector;
    fromSpacePoint(this.bodyPosition, this.space, body.position);
    body.inner.positionWeight = this.bodyCurrentWeight;
  }

  /** `bodyOffset` (world at start) in the climb's space, into `out`. */
  private offsetInSpace(out: Vector3): Vector3 {
    const o = this.bodyOffset;
    if (o === null) return out.setAll(0);
    copyVector3Fields(out, o);
    return this.space === null ? out : transformVector3InPlace(out, this.spaceAtStart, false);
  }

  /** Eases `rootPosition` toward its start plus the centroid's change since start (in the climb's space). */
  private followWithRoot(): void {
    // all of it, toward the ladder too: up a leaning ladder the body must come forward as it rises
    const d = intoSpacePoint(copyVector3Fields(tv3, centroid), this.space);
    const r = this.rootReference;
    const s = this.rootStart;
    d._x += s._x - r._x;
    d._y += s._y - r._y;
    d._z += s._z - r._z;
    lerpVector3ByRef(this.rootPosition, d, this.ease, this.rootPosition);
  }

  /**
   * Sinks the root (and the body) by what a foot on its hold needs to reach it from its hip, the hip carried by
   * the root's move from where it was at start: the centroid rises with the hands too, and a leg straight at the
   * start would lift its foot off. Predicted, not measured from the solved pose: the hands' pull can keep the
   * solved hip up whatever the root does, and a measured lack then sank the root without end.
   */
  private sinkForFeet(): void {
    const up = this.characterUp(tv3);
    // the root's goal without the sink, in world space
    fromSpacePoint(this.rootPosition, this.space, tv);
    const reach = this.footReach;
    reach.begin(this.space === null ? null : nodeWorldMatrix(this.space));
    this.addFoot(0, FullBodyBipedEffector.LeftFoot, up);
    this.addFoot(1, FullBodyBipedEffector.RightFoot, up);
    reach.update(this.system);
    const s = reach.sink;
    const sw = this.sinkWorld;
    sw._x = up._x * s;
    sw._y = up._y * s;
    sw._z = up._z * s;
    sw._isDirty = true;
    intoSpace(copyVector3Fields(this.rootSink, sw), this.space);
  }

  /** Folds a foot with a hold into the feet's sink, the root's goal (world) in `tv`. */
  private addFoot(side: 0 | 1, l: FullBodyBipedEffector, up: Vector3): void {
    const hold = this.holds[l];
    if (hold === null || hold === undefined) return;
    const moving = this.system.isPaused(l) ? null : this.system.getInteractionEffector(l);
    this.footReach.addFoot(side, tv, up, hold, this.previousHolds[l] ?? null, moving);
  }

  /** Before the skeleton is read: the root takes the position eased toward last frame, less the feet's sink. */
  private moveRoot(): void {
    if (this.movingRoot !== null)
      copyVector3Fields(this.movingRoot.position, this.rootPosition).subtractInPlace(this.rootSink);
  }

  /**
   * Shapes the path of each limb between two holds so that it clears both rungs: out from the ladder by
   * `swingBack` over the first 30 % of the move, rising ahead of the straight line (2s − s² of the climb instead
   * of s), in again at half `swingBack` over its hold from 70 % to 90 %, then down onto it: it never comes up
   * to a rung from below, nor sweeps a toe or finger through it.
   */
  private swingLimbs(): void {
    const up = this.characterUp(tv);
    const back = this.backInWorld(tv3);
    for (let i = 0; i < LIMBS.length; i++) {
      const l = LIMBS[i]!;
      const hold = this.holds[l];
      if (hold === null || hold === undefined || this.system.isPaused(l)) continue;
      const s = this.system.getInteractionEffector(l).weight;
      if (!(s > 0 && s < 1)) continue;
      // three smoothsteps, written out: a double handed to a function may be boxed (ARCHITECTURE.md, "Doubles
      // across calls")
      let x = s / SWING_OUT;
      x = x > 1 ? 1 : x;
      const out = x * x * (3 - 2 * x);
      x = (SET_DOWN - s) / (SET_DOWN - SWING_IN);
      x = x < 0 ? 0 : x > 1 ? 1 : x;
      const off = this.swingBack * out * x * x * (3 - 2 * x);
      x = (1 - s) / (1 - SET_DOWN);
      x = x > 1 ? 1 : x;
      let rise = HOVER * this.swingBack * out * x * x * (3 - 2 * x);
      const from = this.previousHolds[l];
      const to = currentWorldMatrix(hold).m;
      const start = from !== null && from !== undefined ? currentWorldMatrix(from).m : null;
      // the deck has carried the place the limb left since it left it
      const r = start === null ? fromSpacePoint(this.reachFrom[l]!, this.space, reach) : reach;
      // only upward: a limb going down already arrives from above
      const climb =
        (to[12]! - (start === null ? r._x : start[12]!)) * up._x +
        (to[13]! - (start === null ? r._y : start[13]!)) * up._y +
        (to[14]! - (start === null ? r._z : start[14]!)) * up._z;
      if (climb > 0) rise += climb * s * (1 - s);
      tv2._x = back._x * off + up._x * rise;
      tv2._y = back._y * off + up._y * rise;
      tv2._z = back._z * off + up._z * rise;
      tv2._isDirty = true;
      this.system.ik.solver.getEffector(l).position.addInPlace(tv2);
    }
  }

  /** `back` (in the climb's space) in world space now, into `out`: the deck's turn since start turns it too. */
  private backInWorld(out: Vector3): Vector3 {
    copyVector3Fields(out, this.back);
    return this.space === null ? out : transformVector3InPlace(out, nodeWorldMatrix(this.space), false);
  }

  /**
   * Centroid of the limbs' holds; with `previous`, a limb moving between holds counts at the blend of
   * the two by its interaction's fade-in weight. False when no limb has a hold.
   */
  private centroidOf(
    holds: readonly (TransformNode | null)[],
    previous: readonly (TransformNode | null)[] | null,
    out: Vector3,
  ): boolean {
    out.setAll(0);
    let n = 0;
    for (const l of LIMBS) {
      const h = holds[l];
      if (h === null || h === undefined) continue;
      // Babylon's cached matrix when it is current: holds rarely move, and forcing would recompute their ancestors
      positionOfMatrix(currentWorldMatrix(h), tv);
      const p = previous?.[l] ?? null;
      if (p !== null) {
        positionOfMatrix(currentWorldMatrix(p), tv2);
        this.blend.value = this.system.getInteractionEffector(l).weight;
        lerpVector3ByRef(tv2, tv, this.blend, tv);
      }
      out.addInPlace(tv);
      n++;
    }
    if (n === 0) return false;
    out.scaleInPlace(1 / n);
    return true;
  }
}
