// Over 500 lines: FinalIK's InteractionEffector is one state machine (start, pause, resume, stop, update,
// pick-up, release) over one set of channels; its curves, targets and poser live beside it.
import type { Node } from "@babylonjs/core/node.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { BabylonBendConstraint } from "../../babylon/babylon-chain.js";
import type { BabylonEffector } from "../../babylon/babylon-effector.js";
import { NumberRef } from "../../math/number-ref.js";
import { Quat, slerpByRef } from "../../math/quat.js";
import { Vec3 } from "../../math/vec3.js";
import { clamp01 } from "../../math/scalar.js";
import { setQuaternionFields, setVector3Fields } from "../../babylon/babylon-fields.js";
import { NodeUnderBone } from "../../babylon/node-under-bone.js";
import { rigBoneAbove } from "../../babylon/target-anchor.js";
import { boneWorldMatrixToRef, currentWorldMatrix, hasRotation } from "../../babylon/world-matrix.js";
import { FullBodyBipedChain, FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { CarriedPose } from "./carried-pose.js";
import type { HandPoser } from "./hand-poser.js";
import { forgetBody, holdBody, isHeldBody, moveHeldBody, releaseBody } from "./held-physics.js";
import { CurveIO } from "../../math/curve.js";
import { INTERACTION_CURVE_TYPE_COUNT, InteractionCurveType, isOffsetChannel } from "./interaction-curves.js";
import { type InteractionEvent, type InteractionObject, isEventTime } from "./interaction-object.js";
import type { InteractionTarget } from "./interaction-target.js";
import type { InteractionSystem } from "./interaction-system.js";
import {
  conjugateMultiplyQuaternionsToRef,
  lerpVector3ByRef,
  multiplyQuaternionsToRef,
  nlerpQuaternionByRef,
  positionOfMatrix,
  rotationOfMatrix,
  setWorldMatrix,
  transformCoordinatesToRef,
} from "./node-pose.js";
import { moduleMatrix } from "../../babylon/module-matrix.js";

/** The chain weights an interaction drives (a limb chain, or the body chain). */
export interface InteractionChainWeights {
  /** Pull. */
  pull: number;
  /** Reach. */
  reach: number;
  /** Push. */
  push: number;
  /** Push parent. */
  pushParent: number;
}

const N = INTERACTION_CURVE_TYPE_COUNT;
const boneWorld = moduleMatrix();
const targetWorld = moduleMatrix();
const scratchMatrix = moduleMatrix();
const scratchMatrix2 = moduleMatrix();
const scratchMatrix3 = moduleMatrix();
const heldWorld = moduleMatrix();
const fromWorld = moduleMatrix();
const bonePos = new Vector3();
const boneRot = new Quaternion();
const targetPos = new Vector3();
const targetRot = new Quaternion();
const tv2 = new Vector3();
const tq = new Quaternion();
const ts = new Vector3();
const axisX = new Vector3();
const axisY = new Vector3();
const axisZ = new Vector3();
const cq = new Quat();
const cq2 = new Quat();
const cv = new Vec3();
/** A picked-up object's transform below the character's bone it hangs from (a pistol in a holster on the hip). */
const underBone = new NodeUnderBone();
/** A weight handed to the per-frame helpers (see NumberRef). */
const weightRef = new NumberRef();

/**
 * Who holds each picked-up node: an object has one holder, so a hand that picks up what another hand holds
 * (this character's other hand, another character's) takes it over.
 */
const holders = new WeakMap<TransformNode, InteractionEffector>();
const IDENTITY_M = Matrix.Identity().m;

/** `out` set to the matrix row at `at` normalised (Vector3.normalize's zero-length rule), field by field. */
function unitRow(m: ArrayLike<number>, at: number, out: Vector3): void {
  const x = m[at]!;
  const y = m[at + 1]!;
  const z = m[at + 2]!;
  const l = Math.sqrt(x * x + y * y + z * z);
  const k = l === 0 ? 1 : 1 / l;
  out._x = x * k;
  out._y = y * k;
  out._z = z * k;
  out._isDirty = true;
}

/** The limb chain an effector belongs to, or null for the body. */
function chainOf(effector: FullBodyBipedEffector): FullBodyBipedChain | null {
  switch (effector) {
    case FullBodyBipedEffector.LeftShoulder:
    case FullBodyBipedEffector.LeftHand:
      return FullBodyBipedChain.LeftArm;
    case FullBodyBipedEffector.RightShoulder:
    case FullBodyBipedEffector.RightHand:
      return FullBodyBipedChain.RightArm;
    case FullBodyBipedEffector.LeftThigh:
    case FullBodyBipedEffector.LeftFoot:
      return FullBodyBipedChain.LeftLeg;
    case FullBodyBipedEffector.RightThigh:
    case FullBodyBipedEffector.RightFoot:
      return FullBodyBipedChain.RightLeg;
    default:
      return null;
  }
}

/**
 * One effector's interaction state (FinalIK's InteractionEffector): the running interaction (object,
 * target, timer, fade-in weight, events, pause, pick-up) and the defaults of the weights it drives, which
 * it returns to (at the system's `resetToDefaultsSpeed`) when the interaction ends. Created and driven by
 * {@link InteractionSystem}; use the system's methods to start and stop interactions.
 */
export class InteractionEffector {
  /** The effector type. */
  readonly effectorType: FullBodyBipedEffector;
  /** The FBBIK effector driven. */
  readonly effector: BabylonEffector;
  /** The chain whose weights the channels drive (the limb's, or the body chain's). */
  readonly chain: InteractionChainWeights;
  /** The limb's bend constraint (null for the body). */
  readonly bendConstraint: BabylonBendConstraint | null;
  /** The hand poser (hands of rigs with fingers), or null. */
  poser: HandPoser | null = null;
  private readonly system: InteractionSystem;

  private _object: InteractionObject | null = null;
  private _target: InteractionTarget | null = null;
  private targetNode: TransformNode | null = null;
  private _inInteraction = false;
  private _isPaused = false;
  private _timer = 0;
  /** The timer handed to the object's curves (see applyChannels). */
  private readonly timerIO = new CurveIO();
  private _weight = 0;
  private _length = 0;
  private fadeInSpeed = 0;
  private speedMlp = 1;

  private readonly defaults = new Float64Array(N);
  private readonly base = new Float64Array(N);
  private readonly values = new Float64Array(N);
  private readonly curveValues = new Float64Array(N);
  private readonly stopValues = new Float64Array(N);
  private readonly used = new Uint8Array(N);
  private readonly resetting = new Uint8Array(N);
  private resetTimer = 0;
  /** Counts starts and stops: an event observer that starts or stops this effector's interaction ends the frame's. */
  private runs = 0;

  /** The object's events that can fire, by index in time order: the first `eventCount` (storage kept across starts). */
  private eventOrder: number[] = [];
  private eventCount = 0;
  /** Per event index, 1 once fired (storage kept across starts, grown to the object's events). */
  private triggered = new Uint8Array(4);
  /** The channels of the interaction an interrupt replaces. */
  private readonly oldUsed = new Uint8Array(N);

  /** Per channel, whether the blend starts from the animated bone (FinalIK) or from `from`. */
  private positionFromBone = true;
  private rotationFromBone = true;
  /** Where the blend starts when not from the bone: carried by what placed the effector, after an interrupt. */
  private readonly from = new CarriedPose();
  /** The node carrying `from` (null while carrying: the character, whose pick-up pose the hand was on). */
  private fromNode: TransformNode | null = null;
  /**
   * The effector's pose an ended interaction left, carried by what placed it while the weights return to their
   * defaults (a hand letting go of a handle on a moving deck), and its carrier: the node, or null for the character.
   */
  private readonly stopped = new CarriedPose();
  private stoppedNode: TransformNode | null = null;
  /** The stopped pose's carrier's world matrix when it last carried it. */
  private readonly stoppedBy = new Matrix();
  /**
   * What placed the effector last, and its world matrix then: the target node, or with `placedNode` null and
   * `placedOnCharacter`, the pick-up pose (component space's matrix); neither before a first update.
   */
  private placedNode: TransformNode | null = null;
  private placedOnCharacter = false;
  private readonly placedBy = new Matrix();
  /**
   * The bone's pose at the last solve, in component space, and that solve's scene frame: the pose shown, which
   * a start takes as the hand's (Babylon's nodes hold the animated pose from the animations to the IK's write).
   */
  private readonly shownPosition = new Vec3();
  private readonly shownRotation = new Quat();
  private shownFrame = -1;
  private readonly positionNoOffset = new Vector3();
  private readonly pausePosition = new Vector3();
  private readonly pauseRotation = new Quaternion();
  /** The target's last usable world rotation (kept while the target has none: scaled to 0, NaN). */
  private readonly lastTargetRotation = new Quaternion();

  private _pickedUp = false;
  private pickUpPending = false;
  private pickUpEvent: InteractionEvent | null = null;
  /**
   * World position the hand was going to when the object was picked up, this frame: it moves with the
   * character (kept in component space, as FinalIK keeps it relative to the character's root).
   */
  readonly pickUpPosition = new Vector3();
  /** World rotation (effector convention) the hand was going to when the object was picked up, this frame. */
  readonly pickUpRotation = new Quaternion();
  private readonly pickUpComponentPosition = new Vector3();
  private readonly pickUpComponentRotation = new Quat();
  private _held: InteractionObject | null = null;
  private heldParent: Node | null = null;
  private heldFollowManually = false;
  private readonly heldRelative = new Matrix();
  /** The held node's world matrix in component space at the last solve, and that solve's scene frame. */
  private readonly heldComponent = new Matrix();
  private heldFrame = -1;

  /** @internal Created by the system. */
  constructor(system: InteractionSystem, effectorType: FullBodyBipedEffector) {
    this.system = system;
    this.effectorType = effectorType;
    const solver = system.ik.solver;
    this.effector = solver.getEffector(effectorType);
    const limb = chainOf(effectorType);
    if (limb === null) {
      this.chain = solver.inner.chains[0]!;
      this.bendConstraint = null;
    } else {
      const c = solver.getChain(limb);
      this.chain = c;
      this.bendConstraint = c.bendConstraint;
    }
    this.storeDefaults();
  }

  /** The object of the current (or last) interaction. */
  get object(): InteractionObject | null {
    return this._object;
  }
  /** The target of the current interaction (null: the effector goes to the object's node). */
  get target(): InteractionTarget | null {
    return this._target;
  }
  /** True from start until stop (also while paused). */
  get inInteraction(): boolean {
    return this._inInteraction;
  }
  /** True while paused. */
  get isPaused(): boolean {
    return this._isPaused;
  }
  /** Interaction time (seconds, scaled by the speeds). */
  get timer(): number {
    return this._timer;
  }
  /** [0, 1] Fade-in weight of the interaction. */
  get weight(): number {
    return this._weight;
  }
  /** Length of the current interaction (seconds). */
  get length(): number {
    return this._length;
  }
  /** timer / length while in interaction, else 0. */
  get progress(): number {
    if (!this._inInteraction) return 0;
    return this._length > 0 ? Math.min(1, this._timer / this._length) : 1;
  }
  /** @internal The node this effector reads its target from in the next solve (none once picked up). */
  get _readNode(): TransformNode | null {
    const node = this.targetNode;
    return this._inInteraction && !this._pickedUp && node !== null && !node.isDisposed() ? node : null;
  }
  /** True after a pick-up event of the current interaction (false again once another character takes it over). */
  get pickedUp(): boolean {
    return this._pickedUp;
  }
  /** The object held in this hand (picked up and not released), or null. */
  get heldObject(): InteractionObject | null {
    return this._held;
  }
  /** True when some weights are still returning to their defaults. */
  get isResetting(): boolean {
    return this.resetTimer > 0;
  }

  /** The default value of a channel (what it returns to when not interacting). */
  getDefault(type: InteractionCurveType): number {
    return this.defaults[type]!;
  }

  /** The value the interaction last gave a channel (the solver's value for weights). */
  getValue(type: InteractionCurveType): number {
    return this.readChannel(type);
  }

  /**
   * Stores the current effector and chain weights as the defaults the channels return to. Called at
   * creation; call it again after changing those weights yourself while no interaction runs.
   */
  storeDefaults(): void {
    for (let t = 0; t < N; t++) {
      this.defaults[t] =
        isOffsetChannel(t) || t === InteractionCurveType.RotateBoneWeight || t === InteractionCurveType.PoserWeight
          ? 0
          : this.readChannel(t);
      this.values[t] = this.defaults[t]!;
    }
  }

  private readChannel(t: InteractionCurveType): number {
    switch (t) {
      case InteractionCurveType.PositionWeight:
        return this.effector.positionWeight;
      case InteractionCurveType.RotationWeight:
        return this.effector.rotationWeight;
      case InteractionCurveType.Pull:
        return this.chain.pull;
      case InteractionCurveType.Reach:
        return this.chain.reach;
      case InteractionCurveType.Push:
        return this.chain.push;
      case InteractionCurveType.PushParent:
        return this.chain.pushParent;
      case InteractionCurveType.BendGoalWeight:
        return this.bendConstraint?.weight ?? 0;
      default:
        return this.values[t]!;
    }
  }

  /** Gives the solver (or poser) the channel's value, `values[t]` (not an argument: see NumberRef). */
  private writeChannel(t: InteractionCurveType): void {
    const v = this.values[t]!;
    switch (t) {
      case InteractionCurveType.PositionWeight:
        this.effector.positionWeight = v;
        break;
      case InteractionCurveType.RotationWeight:
        this.effector.rotationWeight = v;
        break;
      case InteractionCurveType.Pull:
        this.chain.pull = v;
        break;
      case InteractionCurveType.Reach:
        this.chain.reach = v;
        break;
      case InteractionCurveType.Push:
        this.chain.push = v;
        break;
      case InteractionCurveType.PushParent:
        this.chain.pushParent = v;
        break;
      case InteractionCurveType.BendGoalWeight:
        if (this.bendConstraint !== null) this.bendConstraint.weight = v;
        break;
      case InteractionCurveType.PoserWeight:
        // the poser writes the fingers itself: the IK's master weight scales it here, as it does RotateBoneWeight
        if (this.poser !== null) this.poser.weight = v * clamp01(this.system.ik.solver.inner.ikPositionWeight);
        break;
      default:
        break;
    }
  }

  /**
   * Reads the bone's world position and rotation (effector convention) as last shown, into bonePos/boneRot:
   * the last solve's pose, moved with the character since. Babylon's own matrix would depend on where in
   * the frame the start is called: between the animations and the IK's write (event observers,
   * `onBeforeRenderObservable`, the interaction's own events) it is this frame's animated pose, not the one
   * on screen. Without a solve in the last frame (the IK off), Babylon's pose is the one shown.
   */
  private readShownBone(): boolean {
    const bone = this.effector.bone;
    if (bone === null) return false;
    if (this.shownFrame < 0 || this.system.ik.scene.getFrameId() - this.shownFrame > 1) {
      boneWorldMatrixToRef(bone, this.system.mesh, boneWorld);
    } else {
      const p = this.shownPosition;
      const q = this.shownRotation;
      setVector3Fields(tv2, p);
      setQuaternionFields(tq, q);
      ts.set(1, 1, 1);
      Matrix.ComposeToRef(ts, tq, tv2, scratchMatrix);
      const space = this.system.ik.rig.componentRoot;
      if (space === null) boneWorld.copyFrom(scratchMatrix);
      else scratchMatrix.multiplyToRef(currentWorldMatrix(space), boneWorld);
    }
    positionOfMatrix(boneWorld, bonePos);
    rotationOfMatrix(boneWorld, boneRot);
    return true;
  }

  /**
   * Reads the bone's animated world pose of this frame from the rig, which has just read the skeleton
   * (the per-frame path): the rig's forward kinematics, where Babylon would recompute the world matrix
   * of every ancestor of the hand.
   */
  private readAnimatedBone(): boolean {
    if (this.effector.bone === null) return false;
    const rig = this.system.ik.rig;
    const id = this.effector.inner.node.bone;
    rig.getWorldPosition(id, bonePos);
    rig.getWorldRotation(id, boneRot);
    return true;
  }

  /** Target world pose into targetPos/targetRot (and targetWorld); the pick-up pose once picked up. */
  private readTarget(): void {
    if (this._pickedUp) {
      const rig = this.system.ik.rig;
      transformCoordinatesToRef(this.pickUpComponentPosition, rig.componentToWorld, this.pickUpPosition);
      rig.componentToWorldRotation(this.pickUpComponentRotation, this.pickUpRotation);
      targetPos.copyFrom(this.pickUpPosition);
      targetRot.copyFrom(this.pickUpRotation);
      return;
    }
    const node = this.targetNode!;
    this.shownTargetWorld(node, targetWorld);
    positionOfMatrix(targetWorld, targetPos);
    if (hasRotation(targetWorld.m)) {
      rotationOfMatrix(targetWorld, targetRot);
      this.lastTargetRotation.copyFrom(targetRot);
    } else {
      // scaled to 0 or not finite: any rotation read from it would be arbitrary
      targetRot.copyFrom(this.lastTargetRotation);
      if (this.used[InteractionCurveType.RotationWeight] || this.used[InteractionCurveType.RotateBoneWeight]) {
        this.system.ik.solver.inner.warn(
          `interaction:${this.effector.name}:target-rotation`,
          `InteractionSystem: the ${this.effector.name} target ${node.name} has no usable world rotation (scaled ` +
            `to 0 or not finite); its last rotation is kept.`,
        );
      }
    }
  }

  /**
   * The target node's world matrix into `out`: Babylon's cached one when it is current (forcing would recompute
   * the target's ancestors too). An object another hand of this character holds under its bone (handed over)
   * hangs from the character's own bones: the hand's TargetAnchor takes it from there, where that hand ends this
   * frame. Held without being parented (skeletons without linked nodes), where that hand shows it: Babylon's
   * would place it by this frame's animated hand (Xbot's T-pose: 0.76 m off).
   */
  private shownTargetWorld(node: TransformNode, out: Matrix): Matrix {
    for (let n: Node | null = node; n !== null; n = n.parent) {
      const holder = holders.get(n as TransformNode);
      if (holder === undefined || holder.system.ik !== this.system.ik) continue;
      if (holder !== this && !holder.heldFollowManually && this.effector._anchor !== null) break;
      holder.heldWorldToRef(heldWorld);
      if (n === node) return out.copyFrom(heldWorld);
      // its place on the held object: both of Babylon's matrices hang from the same animated hand
      currentWorldMatrix(n as TransformNode).invertToRef(scratchMatrix);
      currentWorldMatrix(node).multiplyToRef(scratchMatrix, scratchMatrix2);
      return scratchMatrix2.multiplyToRef(heldWorld, out);
    }
    return out.copyFrom(currentWorldMatrix(node));
  }

  /** Moves the held node's physics body, if it has one, to where the node is shown (see holdBody). */
  private moveBody(): void {
    const root = this._held!.pickUpNode;
    if (!isHeldBody(root)) return;
    this.heldWorldToRef(scratchMatrix).decompose(ts, tq, tv2);
    moveHeldBody(root, tv2, tq);
  }

  /** One warning per target node whose PoserWeight curve has no finger pose under it to blend to. */
  private warnNoHandPose(node: TransformNode): void {
    this.system.ik.solver.inner.warn(
      `interaction:${node.name}:hand-pose`,
      `InteractionSystem: the ${this.effector.name} interacts with ${node.name} with a PoserWeight curve, but no ` +
        "node under it is named as a finger of the hand, so the fingers keep their animation. Put a finger pose " +
        `there: HandPoser.capturePose(system.getPoser(FullBodyBipedEffector.${this.effector.name}).hand, name, ` +
        "node) copies the current fingers, to turn.",
    );
  }

  /** One warning per object (by its node's name) for an event time that is not a finite number ≥ 0. */
  private warnEventTime(object: InteractionObject, time: number): void {
    this.system.ik.solver.inner.warn(
      `interaction:${object.node.name}:event-time`,
      `InteractionSystem: an event of ${object.node.name} has the time ${time}, not a finite number ≥ 0; it never ` +
        "fires and does not count in the interaction's length.",
    );
  }

  /** @internal Starts an interaction; see {@link InteractionSystem.startInteraction}. */
  _start(object: InteractionObject, interrupt: boolean): boolean {
    if (this._inInteraction && !interrupt) return false;
    if (!this.readShownBone()) return false;
    const newTarget = object.getTarget(this.effectorType);
    const e = this.effector;
    const interrupting = this._inInteraction;
    if (interrupting) {
      // interrupting: blend from where the effector is now, not from the animation
      this.positionFromBone = false;
      this.rotationFromBone = false;
      if (this._target !== null && this._target !== newTarget) this._target.resetRotation();
    } else {
      // a weight still on (an earlier interaction's return to the defaults, or set by the user) holds the hand
      // toward the effector: the blend continues from there, else from the animated bone (FinalIK)
      this.positionFromBone = !(e.positionWeight > 0);
      this.rotationFromBone = !(e.rotationWeight > 0);
    }
    if (this.positionFromBone) e.position.copyFrom(bonePos);
    if (this.rotationFromBone) e.rotation.copyFrom(boneRot);
    // what the effector is on carries the blend's start (a deck carries the hold a hand leaves, or let go of)
    if (interrupting) this.fromNode = this.takePlaced(this.from);
    else if (this.stopped.carrying && this.stoppedOwnsEffector()) {
      this.from.set(e.position, e.rotation, this.stoppedBy);
      this.fromNode = this.stoppedNode;
    } else {
      this.from.set(e.position, e.rotation, null);
      this.fromNode = null;
    }
    this.stopped.carrying = false;
    this.lastTargetRotation.copyFrom(this.effector.rotation);
    // channels in use start from their current values; those still resetting keep resetting
    if (interrupting) this.oldUsed.set(this.used);
    object.getUsedChannels(this.used);
    for (let t = 0; t < N; t++) {
      // only the channels in use: applyChannels reads no other base, and each read of a weight boxes it here
      if (this.used[t]) {
        // offsets from 0: the blend's start already holds the interrupted one's (FinalIK adds value × weight)
        this.base[t] = isOffsetChannel(t) ? 0 : this.readChannel(t);
        this.resetting[t] = 0;
      } else if (interrupting && this.oldUsed[t]) {
        // used by the interrupted interaction only: return it to its default
        this.stopValues[t] = this.readChannel(t);
        this.resetting[t] = 1;
        this.resetTimer = 1;
      }
    }
    this._object = object;
    this._target = newTarget;
    this.targetNode = newTarget?.node ?? object.node;
    this.speedMlp = newTarget?.interactionSpeedMlp ?? 1;
    if (
      this.poser !== null &&
      this.poser.setPoseRoot(this.targetNode) === 0 &&
      // the object's shared pose when the target has none of its own
      (object.handPose === null || this.poser.setPoseRoot(object.handPose) === 0) &&
      this.used[InteractionCurveType.PoserWeight]
    ) {
      this.warnNoHandPose(this.targetNode);
    }
    const fade = object.fadeInTime ?? this.system.fadeInTime;
    this.fadeInSpeed = fade > 0 ? 1 / fade : 1000;
    this._timer = 0;
    this._weight = 0;
    this._length = object.length;
    this.orderEvents(object);
    this._pickedUp = false;
    this.pickUpPending = false;
    this._isPaused = false;
    this._inInteraction = true;
    this.runs++;
    newTarget?.rotateTo(bonePos);
    this.system._notify("start", this, null);
    return true;
  }

  /**
   * The object's firing events into eventOrder (by time, then index) and triggered cleared, in storage kept
   * across starts: a climb starts an interaction per hold, and fresh arrays and a sort were 0.4 KB a start.
   */
  private orderEvents(object: InteractionObject): void {
    const events = object.events;
    if (this.triggered.length < events.length) this.triggered = new Uint8Array(events.length);
    else this.triggered.fill(0, 0, events.length);
    const order = this.eventOrder;
    let n = 0;
    for (let i = 0; i < events.length; i++) {
      const time = events[i]!.time;
      if (!isEventTime(time)) {
        this.warnEventTime(object, time);
        continue;
      }
      // insertion sort, stable (equal times keep their index order): events are few
      let k = n;
      while (k > 0 && events[order[k - 1]!]!.time > time) {
        order[k] = order[k - 1]!;
        k--;
      }
      order[k] = i;
      n++;
    }
    this.eventCount = n;
  }

  /**
   * @internal Pauses; see {@link InteractionSystem.pauseInteraction}. `poseKept`: the frame's update has just
   * kept the effector's pose relative to the target (keepPoseOnTarget).
   */
  _pause(event: InteractionEvent | null = null, poseKept = false): boolean {
    if (!this._inInteraction || this._isPaused) return false;
    if (!this._pickedUp && !poseKept) this.keepPoseOnTarget();
    this._isPaused = true;
    this.system._notify("pause", this, event);
    return true;
  }

  /**
   * The effector's pose relative to the target, which a pause keeps: taken in every running frame, not only at
   * the pause, since code run once a pause stays too cold for V8 to optimise and boxed its doubles (up to 0.8 KB
   * a pause in conjugateMultiply and invertToRef when V8 had inlined them everywhere else).
   */
  private keepPoseOnTarget(): void {
    // Babylon's cached matrix when it is current (as readTarget): forcing recomputed a still target's
    targetWorld.copyFrom(currentWorldMatrix(this.targetNode!));
    rotationOfMatrix(targetWorld, targetRot);
    targetWorld.invertToRef(scratchMatrix);
    transformCoordinatesToRef(this.positionNoOffset, scratchMatrix, this.pausePosition);
    conjugateMultiplyQuaternionsToRef(targetRot, this.effector.rotation, this.pauseRotation);
  }

  /** @internal Resumes; see {@link InteractionSystem.resumeInteraction}. */
  _resume(): boolean {
    if (!this._inInteraction || !this._isPaused) return false;
    this._isPaused = false;
    this.system._notify("resume", this, null);
    return true;
  }

  /**
   * @internal Stops the interaction: the weights return to their defaults at resetToDefaultsSpeed.
   * `release` also lets go of a held object. `ended`: the end was reached, and a pick-up of that last frame
   * still happens after the solve. Returns true when something was stopped or released.
   */
  _stop(release: boolean, ended = false): boolean {
    let did = false;
    if (this._inInteraction) {
      did = true;
      this._target?.resetRotation();
      this._inInteraction = false;
      this._isPaused = false;
      this.runs++;
      if (!ended) this.pickUpPending = false;
      for (let t = 0; t < N; t++) {
        if (!this.used[t]) continue;
        this.stopValues[t] = this.readChannel(t);
        this.resetting[t] = 1;
      }
      // offsets are not carried on after the interaction (X, Y, Z are consecutive: no array literal to iterate)
      for (let t = InteractionCurveType.PositionOffsetX; t <= InteractionCurveType.PositionOffsetZ; t++) {
        this.values[t] = 0;
        this.resetting[t] = 0;
      }
      this.resetTimer = 1;
      this.stoppedNode = this.takePlaced(this.stopped);
      if (this.stopped.carrying) this.stoppedBy.copyFrom(this.placedBy);
      this.system._notify("stop", this, null);
    }
    if (release && this._held !== null) {
      this._release(null, null);
      did = true;
    }
    return did;
  }

  /** @internal Per frame, before the solve: advances the interaction and sets the effector and weights. */
  _update(): void {
    const dt = this.system.lastDeltaTime;
    // read from the target node below, unless picked up: its TargetAnchor follows it under the character's bones
    this.effector._hangsFrom = null;
    if (!this._inInteraction && this.stopped.carrying) this.carryStopped();
    if (this.resetTimer > 0) this.resetToDefaults();
    if (!this._inInteraction) return;
    if (!this.readAnimatedBone()) return;
    const object = this._object!;
    // gone from the scene (FinalIK stops when the object is destroyed): no reaching for where it was
    if (object.node.isDisposed() || this.targetNode!.isDisposed()) {
      this._stop(false);
      return;
    }
    if (this._isPaused) {
      this.readTarget();
      const e = this.effector;
      if (this._pickedUp) {
        e.position.copyFrom(targetPos);
        e.rotation.copyFrom(targetRot);
      } else {
        e._hangsFrom = this.targetNode;
        transformCoordinatesToRef(this.pausePosition, targetWorld, e.position);
        multiplyQuaternionsToRef(targetRot, this.pauseRotation, e.rotation);
      }
      this.placed();
      this.positionNoOffset.copyFrom(e.position);
      this.applyChannels(object);
      return;
    }
    // interactions do not play backward: a negative speed would never reach the end (NaN holds too)
    const speed = this.system.speed > 0 ? this.system.speed : 0;
    this._timer += dt * speed * this.speedMlp;
    // clamped here, not by clamp01: V8 does not always inline a call in this long function, and a double
    // handed to a call it does not inline is boxed (16 B a frame, found with the sampling heap profiler)
    const weight = this._weight + dt * this.fadeInSpeed * speed;
    this._weight = weight < 0 ? 0 : weight > 1 ? 1 : weight;
    if (this._target !== null && !this._target.rotateOnce) this._target.rotateTo(bonePos);
    this.readTarget();
    if (!this._pickedUp) this.effector._hangsFrom = this.targetNode;
    // events due, in time order; pause and pick-up hold the timer at their time, so after a pause only the
    // events of its time still fire this frame (a button's message at the touch, not at the resume)
    let pauseEvent: InteractionEvent | null = null;
    const events = object.events;
    const run = this.runs;
    for (let k = 0; k < this.eventCount; k++) {
      const i = this.eventOrder[k]!;
      if (this.triggered[i]) continue;
      const ev = events[i];
      if (ev === undefined || ev.time > this._timer) break;
      this.triggered[i] = 1;
      // made NaN or negative since the start (Infinity never gets here); isEventTime written out: V8 does not
      // always inline a call in this long function, and the time handed to it was boxed (16 B a pause)
      if (!(ev.time >= 0 && ev.time < Infinity)) {
        this.warnEventTime(object, ev.time);
        continue;
      }
      if (ev.pause === true || ev.pickUp === true) this._timer = ev.time;
      if (ev.pickUp === true && !this._pickedUp) {
        this._pickedUp = true;
        this.pickUpPending = true;
        this.pickUpEvent = ev;
        this.pickUpPosition.copyFrom(targetPos);
        this.pickUpRotation.copyFrom(targetRot);
        const rig = this.system.ik.rig;
        Vector3.TransformCoordinatesToRef(targetPos, rig.worldToComponent, this.pickUpComponentPosition);
        rig.worldToComponentRotation(targetRot, this.pickUpComponentRotation);
      }
      this.system._notify("event", this, ev);
      if (this.runs !== run) {
        // an observer stopped or restarted the interaction: the rest of this frame's events and curves were the
        // old one's (a stop skips them; a new start begins from the hand as shown, at its weights)
        this.effector._hangsFrom = null;
        return;
      }
      if (ev.pause === true && pauseEvent === null) pauseEvent = ev;
    }
    const e = this.effector;
    const w = this._weight;
    weightRef.value = w;
    if (w < 1 && this.from.carrying) this.carryFrom();
    lerpVector3ByRef(this.positionFromBone ? bonePos : this.from.position, targetPos, weightRef, e.position);
    nlerpQuaternionByRef(this.rotationFromBone ? boneRot : this.from.rotation, targetRot, weightRef, e.rotation);
    this.positionNoOffset.copyFrom(e.position);
    this.placed();
    this.applyChannels(object);
    if (!this._pickedUp) this.keepPoseOnTarget();
    if (pauseEvent !== null) this._pause(pauseEvent, true);
    if (!this._isPaused && this._timer >= this._length) this._stop(false, true);
  }

  /** Notes what placed the effector this frame, the target read into targetWorld or the pick-up pose. */
  private placed(): void {
    const picked = this._pickedUp;
    this.placedNode = picked ? null : this.targetNode;
    this.placedOnCharacter = picked;
    this.placedBy.copyFrom(picked ? this.system.ik.rig.componentToWorld : targetWorld);
  }

  /**
   * `pose` set to the effector's, carried by what placed it last (see placed) while that is still there; returns the
   * node carrying it (null: the character's component space, or nothing when `pose.carrying` is false).
   */
  private takePlaced(pose: CarriedPose): TransformNode | null {
    const e = this.effector;
    const node = this.placedNode;
    const onNode = !this._pickedUp && node !== null && node === this.targetNode && !node.isDisposed();
    pose.set(e.position, e.rotation, onNode || (this._pickedUp && this.placedOnCharacter) ? this.placedBy : null);
    return onNode ? node : null;
  }

  /** True while the effector still has the stopped pose last written to it (nobody else has moved it since). */
  private stoppedOwnsEffector(): boolean {
    const e = this.effector;
    return e.position.equals(this.stopped.position) && e.rotation.equals(this.stopped.rotation);
  }

  /**
   * After a stop, while the weights return to their defaults: the effector's pose moves with what placed it (FinalIK
   * leaves it at its world point, which a moving deck leaves behind), until the return ends or something else moves
   * the effector.
   */
  private carryStopped(): void {
    const node = this.stoppedNode;
    if (this.resetTimer <= 0 || !this.stoppedOwnsEffector() || node?.isDisposed() === true) {
      this.stopped.carrying = false;
      return;
    }
    const carrier = node === null ? this.system.ik.rig.componentToWorld : this.shownTargetWorld(node, fromWorld);
    this.stopped.carry(carrier);
    this.stoppedBy.copyFrom(carrier);
    const e = this.effector;
    e.position.copyFrom(this.stopped.position);
    e.rotation.copyFrom(this.stopped.rotation);
  }

  /**
   * Moves the blend's start with what the effector left: the node (read as targets are; fixed once it is gone), or
   * the character (as the pick-up pose is read).
   */
  private carryFrom(): void {
    const node = this.fromNode;
    if (node === null) this.from.carry(this.system.ik.rig.componentToWorld);
    else if (node.isDisposed()) this.from.carrying = false;
    else this.from.carry(this.shownTargetWorld(node, fromWorld));
  }

  /** Evaluates the curves at the timer and sets every used channel, then adds the position offset. */
  private applyChannels(object: InteractionObject): void {
    // the time through a field: a double handed to a call V8 does not inline is boxed
    this.timerIO.a = this._timer;
    object.evaluateInto(this.timerIO, this.curveValues);
    const multipliers = this._target?._multipliers ?? null;
    const w = this._weight;
    for (let t = 0; t < N; t++) {
      if (!this.used[t]) continue;
      // clamped here and the multiplier read from its array: each double crossing a call was boxed (96 B a frame
      // for a target's two weight curves)
      const v = w * (multipliers !== null ? multipliers[t]! : 1);
      const f = v > 0 ? (v < 1 ? v : 1) : 0;
      const b = this.base[t]!;
      this.values[t] = b + (this.curveValues[t]! - b) * f;
      this.writeChannel(t);
    }
    const ox = this.used[InteractionCurveType.PositionOffsetX] ? this.values[InteractionCurveType.PositionOffsetX]! : 0;
    const oy = this.used[InteractionCurveType.PositionOffsetY] ? this.values[InteractionCurveType.PositionOffsetY]! : 0;
    const oz = this.used[InteractionCurveType.PositionOffsetZ] ? this.values[InteractionCurveType.PositionOffsetZ]! : 0;
    if (ox !== 0 || oy !== 0 || oz !== 0) {
      const space = object.positionOffsetSpace ?? this.system.ik.rig.characterRoot;
      if (space !== null) {
        const m = currentWorldMatrix(space).m;
        unitRow(m, 0, axisX);
        unitRow(m, 4, axisY);
        unitRow(m, 8, axisZ);
      } else {
        unitRow(IDENTITY_M, 0, axisX);
        unitRow(IDENTITY_M, 4, axisY);
        unitRow(IDENTITY_M, 8, axisZ);
      }
      const p = this.effector.position;
      p.x += axisX.x * ox + axisY.x * oy + axisZ.x * oz;
      p.y += axisX.y * ox + axisY.y * oy + axisZ.y * oz;
      p.z += axisX.z * ox + axisY.z * oy + axisZ.z * oz;
    }
  }

  /** Returns the channels being reset toward their defaults (linearly over 1 / resetToDefaultsSpeed s). */
  private resetToDefaults(): void {
    const dt = this.system.lastDeltaTime;
    this.resetTimer = Math.max(0, this.resetTimer - dt * this.system.resetToDefaultsSpeed);
    const r = this.resetTimer;
    let any = false;
    for (let t = 0; t < N; t++) {
      if (!this.resetting[t]) continue;
      if (this._inInteraction && this.used[t]) {
        this.resetting[t] = 0;
        continue;
      }
      const d = this.defaults[t]!;
      this.values[t] = r > 0 ? d + (this.stopValues[t]! - d) * r : d;
      this.writeChannel(t);
      if (r <= 0) this.resetting[t] = 0;
      else any = true;
    }
    if (!any) this.resetTimer = 0;
  }

  /** @internal Writes the defaults of every channel an interaction touched and clears the state. */
  _restoreDefaults(): void {
    for (let t = 0; t < N; t++) {
      if (this.used[t] || this.resetting[t]) {
        this.values[t] = this.defaults[t]!;
        this.writeChannel(t);
      }
      this.resetting[t] = 0;
    }
    this.resetTimer = 0;
    this.stopped.carrying = false;
    this._target?.resetRotation();
    this._inInteraction = false;
    this._isPaused = false;
    this.used.fill(0);
    this.effector._hangsFrom = null;
  }

  /** @internal After the solve (bones in the rig, not yet written to Babylon): rotate-bone, pick-up, poser. */
  _postUpdate(): void {
    const bone = this.effector.bone;
    if (bone === null) return;
    const rig = this.system.ik.rig;
    const id = this.effector.inner.node.bone;
    const rb = clamp01(this.values[InteractionCurveType.RotateBoneWeight]!);
    // the turn goes straight into the rig, so the IK's master weight scales it here, as the solver does the weights
    const master = this.system.ik.solver.inner.ikPositionWeight;
    if (rb > 0 && master > 0) {
      const goal = this._pickedUp ? this.pickUpRotation : this.effector.rotation;
      rig.worldToBoneRotation(id, goal, cq);
      weightRef.value = rb * rb * (master < 1 ? master : 1);
      slerpByRef(cq2, rig.getRotation(id, cq2), cq, weightRef);
      rig.setRotation(id, cq2);
    }
    // the pose shown (other components' post-update rotations aside), for a start before the next solve
    rig.getPosition(id, this.shownPosition);
    rig.getRotation(id, this.shownRotation);
    this.shownFrame = this.system.ik.scene.getFrameId();
    if (this._held?.pickUpNode.isDisposed()) this._forgetHeld();
    if (this.pickUpPending) {
      this.pickUpPending = false;
      this.pickUp(id);
    } else if (this._held !== null && this.heldFollowManually) {
      this.system.ik.rig.worldMatrixToRef(id, scratchMatrix);
      this.heldRelative.multiplyToRef(scratchMatrix, scratchMatrix2);
      setWorldMatrix(this._held.pickUpNode, scratchMatrix2);
      this.moveBody();
    } else if (this._held !== null) {
      this.storeHeldPose(id);
      this.moveBody();
    }
    if (this.poser !== null) this.poser.update();
  }

  /** Parents the object to the bone, as if the bone were at the pick-up position. */
  private pickUp(id: number): void {
    const object = this._object!;
    if (this._held !== null && this._held !== object) this._release(null, null);
    const root = object.pickUpNode;
    const rig = this.system.ik.rig;
    // a target under the character's own bones: the pick-up pose where the solve took that bone, as the hand
    const anchor = this.effector._anchor;
    if (anchor !== null && anchor.bone >= 0) {
      const p = this.pickUpComponentPosition;
      cv.x = p.x;
      cv.y = p.y;
      cv.z = p.z;
      if (anchor.carry(rig, cv, this.pickUpComponentRotation)) {
        p.set(cv.x, cv.y, cv.z);
        transformCoordinatesToRef(p, rig.componentToWorld, this.pickUpPosition);
        rig.componentToWorldRotation(this.pickUpComponentRotation, this.pickUpRotation);
      }
    }
    // Babylon would place it by this frame's animated (not yet solved) bones: under the character's own bone
    // (a holster, the other hand), where the solve put that bone; held by another character's hand (or without
    // a parent), where that hand shows it
    const holder = holders.get(root) ?? null;
    const bone = rigBoneAbove(rig, root.parent);
    if (bone > 0) {
      underBone.read(root, (rig.nodes[bone] ?? rig.bones[bone])!);
      Matrix.FromArrayToRef(underBone.m, 0, scratchMatrix2);
      scratchMatrix2.multiplyToRef(rig.worldMatrixToRef(bone, scratchMatrix), scratchMatrix3);
    } else if (holder !== null) holder.heldWorldToRef(scratchMatrix3);
    else scratchMatrix3.copyFrom(root.computeWorldMatrix(true));
    const other = holder !== this ? holder : null;
    const hand = rig.worldMatrixToRef(id, scratchMatrix);
    // the virtual hand: the solved hand moved to where it was going
    hand.setTranslationFromFloats(this.pickUpPosition.x, this.pickUpPosition.y, this.pickUpPosition.z);
    hand.invertToRef(scratchMatrix2);
    scratchMatrix3.multiplyToRef(scratchMatrix2, this.heldRelative);
    if (other !== null) {
      // taken over: the release puts it back where it was before the first pick-up
      this.heldParent = other.heldParent;
      other._forgetHeld();
      if (other.system.ik !== this.system.ik) other._handedOver();
    } else if (this._held !== object) {
      this.heldParent = root.parent;
    }
    this._held = object;
    holders.set(root, this);
    const handNode = this.effector.bone!.getTransformNode();
    if (handNode !== null) {
      this.heldFollowManually = false;
      root.parent = handNode;
      if (root.rotationQuaternion === null) root.rotationQuaternion = new Quaternion();
      this.heldRelative.decompose(root.scaling, root.rotationQuaternion, root.position);
      this.storeHeldPose(id);
    } else {
      // bone-only skeletons: follow the solved bone every frame
      this.heldFollowManually = true;
      this.system.ik.rig.worldMatrixToRef(id, scratchMatrix);
      this.heldRelative.multiplyToRef(scratchMatrix, scratchMatrix2);
      setWorldMatrix(root, scratchMatrix2);
    }
    // its own settings are saved before the observers can change them (release gives them back)
    holdBody(root);
    this.system._notify("pickUp", this, this.pickUpEvent);
    this.pickUpEvent = null;
    // after the observers, whatever they did to the body: it follows the hand from the next step on
    if (this._held === object) {
      holdBody(root);
      this.moveBody();
    }
  }

  /**
   * @internal Lets go of the held object: back under its original parent keeping its world pose, or
   * at `position`/`rotation` (world) when given.
   */
  _release(position: Vector3 | null, rotation: Quaternion | null): InteractionObject | null {
    const held = this._held;
    if (held === null) return null;
    const root = held.pickUpNode;
    if (root.isDisposed()) {
      // not put back under a parent: a disposed node there would come back among its children
      this._forgetHeld();
      return null;
    }
    this.heldWorldToRef(scratchMatrix);
    if (position !== null || rotation !== null) {
      scratchMatrix.decompose(ts, tq, tv2);
      if (position !== null) tv2.copyFrom(position);
      if (rotation !== null) tq.copyFrom(rotation);
      Matrix.ComposeToRef(ts, tq, tv2, scratchMatrix);
    }
    root.parent = this.heldParent;
    setWorldMatrix(root, scratchMatrix);
    releaseBody(root, position !== null || rotation !== null);
    this._forgetHeld();
    if (this._object === held) this._pickedUp = false;
    return held;
  }

  /** @internal Stops holding without moving the object (another hand took it over, or it was released). */
  _forgetHeld(): void {
    const held = this._held;
    if (held?.pickUpNode.isDisposed()) forgetBody(held.pickUpNode);
    if (held !== null && holders.get(held.pickUpNode) === this) holders.delete(held.pickUpNode);
    this._held = null;
    this.heldParent = null;
    this.heldFollowManually = false;
    this.heldFrame = -1;
  }

  /**
   * @internal Another character's hand took the object over: this hand goes on reaching for its target on the
   * object where that hand shows it, as a hand paused on it without a pick-up, not for its pick-up pose relative
   * to its own character, which the other character's motion leaves (two UALs carrying a box: 4.6 % h off).
   */
  _handedOver(): void {
    if (!this._pickedUp || !this._inInteraction || this.targetNode === null) return;
    this._pickedUp = false;
    this.keepPoseOnTarget();
  }

  /** Keeps the held node's world pose of this solve, in component space (see heldWorldToRef). */
  private storeHeldPose(id: number): void {
    const root = this._held!.pickUpNode;
    if (root.parent !== this.effector.bone!.getTransformNode()) {
      // moved elsewhere by the user: Babylon's own matrix is the truth
      this.heldFrame = -1;
      return;
    }
    const rig = this.system.ik.rig;
    const q = root.rotationQuaternion ?? Quaternion.FromEulerVectorToRef(root.rotation, tq);
    Matrix.ComposeToRef(root.scaling, q, root.position, scratchMatrix);
    rig.worldMatrixToRef(id, scratchMatrix2);
    scratchMatrix.multiplyToRef(scratchMatrix2, scratchMatrix3);
    scratchMatrix3.multiplyToRef(rig.worldToComponent, this.heldComponent);
    this.heldFrame = this.system.ik.scene.getFrameId();
  }

  /**
   * @internal The held node's world matrix as shown: the last solve's pose, moved with the character since.
   * Babylon would recompute it from the hand's local transforms, which between the animations and the IK's
   * write (event observers, `onBeforeRenderObservable`) are the animated ones, not the solved ones. Older
   * than the last frame (the IK stopped solving), Babylon's matrix is the one shown.
   */
  heldWorldToRef(out: Matrix): Matrix {
    const root = this._held!.pickUpNode;
    const frame = this.system.ik.scene.getFrameId();
    if (this.heldFrame < 0 || frame - this.heldFrame > 1) return out.copyFrom(root.computeWorldMatrix(true));
    const space = this.system.ik.rig.componentRoot;
    if (space === null) return out.copyFrom(this.heldComponent);
    return this.heldComponent.multiplyToRef(currentWorldMatrix(space), out);
  }
}
