import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Observable, type Observer } from "@babylonjs/core/Misc/observable.js";
import { boneWorldMatrixToRef, currentWorldMatrix } from "../../babylon/world-matrix.js";
import { Curve } from "../../math/curve.js";
import { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { InteractionCurveType } from "./interaction-curves.js";
import { InteractionObject, type InteractionWeightCurve, isEventTime } from "./interaction-object.js";
import type { InteractionSystem } from "./interaction-system.js";
import { positionOfMatrix } from "./node-pose.js";
import { notifyDisposed } from "../../babylon/dispose-notice.js";

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
  /** World offset of the body from the centroid of the holds; default: measured at {@link ClimbSequencer.start}. */
  bodyOffset?: Vector3 | null;
  /** [0, 1] Position weight of the body effector while climbing (default 1). */
  bodyWeight?: number;
  /** Rate (1/s) at which the body follows the holds' centroid (default 6). */
  bodySpeed?: number;
}

const LIMBS = [
  FullBodyBipedEffector.LeftHand,
  FullBodyBipedEffector.RightHand,
  FullBodyBipedEffector.LeftFoot,
  FullBodyBipedEffector.RightFoot,
] as const;
const tm = new Matrix();
const tv = new Vector3();
const tv2 = new Vector3();
const centroid = new Vector3();

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
  /** Rotation weight of the limbs on their holds. */
  readonly rotationWeight: number;
  /** Offset of the body from the centroid of the holds (world); measured at start when null. */
  bodyOffset: Vector3 | null;
  /** Position weight of the body effector while climbing. */
  bodyWeight: number;
  /** Rate (1/s) of the body following the centroid. */
  bodySpeed: number;
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

  private readonly objects = new Map<TransformNode, InteractionObject>();
  private readonly holds: (TransformNode | null)[] = [null, null, null, null, null, null, null, null, null];
  private readonly previousHolds: (TransformNode | null)[] = [null, null, null, null, null, null, null, null, null];
  private clock = 0;
  private next = 0;
  private running = false;
  private finishedFired = false;
  private disposed = false;
  private readonly bodyPosition = new Vector3();
  private bodyCurrentWeight = 0;
  private bodyDefaultWeight = 0;
  private bodyActive = false;
  private preObserver: Observer<number> | null;
  private postObserver: Observer<number> | null;
  private systemDisposeObserver: Observer<InteractionSystem> | null;

  /** A sequencer on `system` (not started). */
  constructor(system: InteractionSystem, options: ClimbSequencerOptions = {}) {
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
    this.bodyOffset = options.bodyOffset?.clone() ?? null;
    this.bodyWeight = options.bodyWeight ?? 1;
    this.bodySpeed = options.bodySpeed ?? 6;
    this.preObserver = system.onPreInteractionUpdateObservable.add((dt) => this.beforeInteractions(dt));
    this.postObserver = system.onPostInteractionUpdateObservable.add((dt) => this.afterInteractions(dt));
    // without its system (disposed, or its IK or character disposed) nothing would ever move a limb again
    this.systemDisposeObserver = system.onDisposeObservable.add(() => this.dispose());
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

  /** The interaction object used for `hold` (created on first use). */
  getHoldObject(hold: TransformNode): InteractionObject {
    let o = this.objects.get(hold);
    if (o === undefined) {
      const t = this.moveTime;
      const curves: InteractionWeightCurve[] = [
        {
          type: InteractionCurveType.PositionWeight,
          curve: new Curve([
            { time: 0, value: 1 },
            { time: t, value: 1 },
          ]),
        },
      ];
      if (this.rotationWeight > 0) {
        curves.push({
          type: InteractionCurveType.RotationWeight,
          curve: new Curve([
            { time: 0, value: this.rotationWeight },
            { time: t, value: this.rotationWeight },
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
      o = new InteractionObject(hold, { weightCurves: curves, events: [{ time: t, pause: true }], fadeInTime: t });
      this.objects.set(hold, o);
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
    if (this.bodyOffset === null) {
      const first: (TransformNode | null)[] = [null, null, null, null, null, null, null, null, null];
      for (const s of this.steps) if (first[s.limb] === null && isEventTime(s.time)) first[s.limb] = s.hold;
      if (this.centroidOf(first, null, centroid)) this.bodyOffset = this.bodyPosition.subtract(centroid);
      else this.bodyOffset = Vector3.Zero();
    }
  }

  /** Stops climbing: every limb's interaction stops and the body returns to its weight before start. */
  stop(): void {
    this.running = false;
    for (const l of LIMBS) {
      if (this.holds[l] !== null) this.system.stopInteraction(l);
      this.holds[l] = null;
      this.previousHolds[l] = null;
    }
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
    if (this.preObserver !== null) this.system.onPreInteractionUpdateObservable.remove(this.preObserver);
    if (this.postObserver !== null) this.system.onPostInteractionUpdateObservable.remove(this.postObserver);
    this.system.onDisposeObservable.remove(this.systemDisposeObserver);
    this.preObserver = null;
    this.postObserver = null;
    this.systemDisposeObserver = null;
    this.onStepObservable.clear();
    this.onFinishedObservable.clear();
  }

  private beforeInteractions(dt: number): void {
    if (!this.running) return;
    this.clock += dt * (this.system.speed > 0 ? this.system.speed : 0);
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
      const started = this.system.startInteraction(step.limb, this.getHoldObject(step.hold), true);
      if (!started) continue;
      this.previousHolds[step.limb] = this.holds[step.limb] ?? null;
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

  private afterInteractions(dt: number): void {
    if (!this.bodyActive) return;
    const body = this.system.ik.solver.bodyEffector;
    const goalWeight = this.running ? this.bodyWeight : this.bodyDefaultWeight;
    const rate = dt / this.moveTime;
    const w = this.bodyCurrentWeight;
    this.bodyCurrentWeight = goalWeight > w ? Math.min(goalWeight, w + rate) : Math.max(goalWeight, w - rate);
    if (this.running && this.centroidOf(this.holds, this.previousHolds, centroid)) {
      centroid.addInPlace(this.bodyOffset ?? Vector3.ZeroReadOnly);
      const k = 1 - Math.exp(-this.bodySpeed * dt);
      Vector3.LerpToRef(this.bodyPosition, centroid, k, this.bodyPosition);
    }
    body.position.copyFrom(this.bodyPosition);
    body.positionWeight = this.bodyCurrentWeight;
    if (!this.running && this.bodyCurrentWeight === this.bodyDefaultWeight) this.bodyActive = false;
    if (this.running && !this.finishedFired && this.isFinished) {
      this.finishedFired = true;
      this.onFinishedObservable.notifyObservers(this);
    }
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
        Vector3.LerpToRef(tv2, tv, this.system.getInteractionEffector(l).weight, tv);
      }
      out.addInPlace(tv);
      n++;
    }
    if (n === 0) return false;
    out.scaleInPlace(1 / n);
    return true;
  }
}
