/**
 * FinalIK's FBBIKHeadEffector for a {@link FullBodyBipedIK}: a head target (a VR headset) that the head
 * follows in position and rotation, by bending the spine and moving the body through the full-body solver.
 * @module
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Observable, type Observer } from "@babylonjs/core/Misc/observable.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { solveOwnerAbove } from "../../babylon/solve-order.js";
import { TargetFade } from "../../babylon/target-fade.js";
import { componentScaleNow } from "../../babylon/scale-since-create.js";
import { currentWorldMatrix, hasRotation, rotationFromMatrix } from "../../babylon/world-matrix.js";
import type { BipedMapping } from "../../mapping/biped-mapping.js";
import { NumberRef } from "../../math/number-ref.js";
import { Quat, conjugateMultiply, multiply, multiplyConjugate, normalizeQuat } from "../../math/quat.js";
import { Vec3 } from "../../math/vec3.js";
import { FBBIKError } from "../../solver/errors.js";
import { checkOptions, warnUnknownOptions } from "../../babylon/option-check.js";
import {
  type FBBIKHeadEffectorOptions,
  HEAD_EFFECTOR_OPTION_KINDS,
  HeadBendBone,
  type HeadSettingHolder,
  HeadSettingValues,
  headEffectorSettings,
} from "./head-effector-settings.js";
import { HeadPassInput, bendSpine, ccdPass, stretchBones } from "./head-passes.js";
import { RotationIO, clampRotation, partialRotation } from "./head-rotation.js";
import { HeadTorso } from "./head-torso.js";
import { disposeWith, notifyDisposed } from "../../babylon/dispose-notice.js";
import { EnableFade, EnablePass } from "../../babylon/enable-fade.js";
import { type IKSettingsObject, applySettings, serializeSettings } from "../../babylon/ik-settings.js";

export { type FBBIKHeadEffectorOptions, HeadBendBone } from "./head-effector-settings.js";

const tv = new Vec3();
const tq = new Quat();
const tq2 = new Quat();
const headPosition = new Vec3();
const headRotation = new Quat();
const io = new RotationIO();

/** This frame's weights, after validation and the master weights (one object: see `frame`). */
class HeadFrame {
  position = 0;
  rotation = 0;
  bend = 0;
  ccd = 0;
  stretch = 0;
}

/**
 * FinalIK's FBBIKHeadEffector: the character's head follows a target node (a VR headset) in position and
 * rotation, moving and turning the body through the {@link FullBodyBipedIK}. With the hand effectors on
 * the controllers, it is what a VR avatar needs from a headset and two controllers.
 *
 * ```ts
 * const ik = FullBodyBipedIK.create(scene, skeleton);
 * const head = FBBIKHeadEffector.create(ik, { target: headset });
 * ik.solver.leftHandEffector.target = leftController;
 * ik.solver.leftHandEffector.positionWeight = 1;
 * ```
 *
 * Each update, in component space:
 * 1. before the solve (`ik.solver.onSkeletonRead`): the **bend** turns `bendBones` toward the target's
 *    rotation (relative to the head's rest rotation on the character root, clamped by `bodyClampWeight`,
 *    spread by each bone's weight); the **CCD pass** turns `CCDBones` so the head moves toward the target;
 *    then the torso (root node, upper arms, thighs) is placed for the head to land on the target: the body
 *    follows the head's offset by `bodyWeight` and, kept at its distance from the head, turns the torso as
 *    a rigid block onto the target; the thighs follow that move by `thighWeight`. The moves go to the
 *    effectors' offsets (hands without a target ride along), and in every iteration and before the final
 *    limb pass the torso's solver nodes are set to them (by `positionWeight`), so the chest, the neck and
 *    the head land where the head target is, up to the solver's rounding; where that would fold a knee tighter
 *    than {@link minKneeAngle}, the torso is lifted instead (not in FinalIK).
 * 2. `handsPullBody`: a hand target beyond its arm's reach drags the torso (and the head) toward it, by the
 *    hand's weight and the arm chain's `pull`; when false the hands stop short and the head stays.
 * 3. after the solve (`ik.solver.onPostUpdateObservable`, through the rig): the **stretch** moves `stretchBones` by
 *    what is left of the head's error (at most `maxStretch`, × `postStretchWeight`), `fixHead` puts the head
 *    on the target, and the head turns to the target's rotation by `rotationWeight` (clamped by
 *    `headClampWeight`).
 *
 * Tracking lost and back (not in FinalIK): set `target` to null (the pose is held) or `weight` to 0 (the body
 * goes back to the animation), then back; the change eases over {@link fadeSeconds} instead of moving the body
 * in one frame.
 *
 * Nothing happens while `enabled` is false, the IK's `ikPositionWeight` is 0, `weight` is 0 (once faded out)
 * or the IK solves with 0 iterations (warned once): the pose is then the IK's alone, bit for bit. A target at a
 * non-finite place or with no rotation holds the last target used (warned once); a non-finite setting keeps
 * its last valid value.
 * Left out of FinalIK's component: `stretchDamper` (it only scales the stretch down: use
 * `postStretchWeight`) and the chest direction (`chestDirection`, its weight and bones: a LookAtIK or
 * AimIK on the chest does it). Allocation-free per frame.
 */
export class FBBIKHeadEffector implements HeadSettingHolder {
  /** The IK this effector drives. */
  readonly ik: FullBodyBipedIK;
  /** The node the head follows; null: {@link position} and {@link rotation}. */
  target: TransformNode | null;
  /** World target position (followed when {@link target} is null; copied from the target otherwise). */
  readonly position = new Vector3();
  /** World target rotation, Babylon's convention (a bone's `absoluteRotationQuaternion` leaves it as it is). */
  readonly rotation = new Quaternion();
  /**
   * When false the effector does nothing: at once, or once faded out over {@link enableFadeSeconds}. It reads
   * what you set, also while the fade runs ({@link isFading}).
   */
  enabled: boolean;
  /**
   * Seconds `enabled` takes to switch (default 0: at once, the body jumps back to the IK's pose without the
   * headset). Set to false, everything the effector does eases out over this time, as a release of
   * {@link weight} does (the weights and the target's pull from the head's own pose fall together), then it
   * stops; set to true, it eases in the same way; set back mid-fade, it turns back where it is. The IK's own
   * `enableFadeSeconds` fades the whole output instead. Not in FinalIK.
   */
  get enableFadeSeconds(): number {
    return this.enableFade.seconds;
  }
  set enableFadeSeconds(v: number) {
    this.enableFade.seconds = v;
  }
  /** Notified once by {@link dispose}, before it lets go of its state (Babylon's convention). */
  readonly onDisposeObservable = new Observable<FBBIKHeadEffector>();
  /** [0, 1] Master weight of everything the effector does. Default 1. */
  weight = 1;
  /** [0, 1] How much the head goes to the target's position. Default 1. */
  positionWeight = 1;
  /** [0, 1] How much the head turns to the target's rotation after the solve. Default 1. */
  rotationWeight = 1;
  /** [0, 1] How much the body (root node) follows the head's offset; the rest is a lean of the torso. Default 0.8. */
  bodyWeight = 0.8;
  /** [0, 1] How much the thighs follow the torso's move. Default 0.8. */
  thighWeight = 0.8;
  /**
   * [0, 170] Degrees: the least angle between thigh and shin the head effector's crouch folds a knee to (not in
   * FinalIK). A headset lower than that lets the legs reach lifts the torso instead: the head stops descending and
   * stays above the headset, the knees ahead; the thighs also trail the torso's move by at most 0.8 of the
   * pelvis's height, so the pelvis never turns inside out. 0: FinalIK's, no limit: past a flat fold the legs swing
   * about the hips with the feet off their targets, bend backward, and the pelvis flips in one frame. A crouch
   * whose knees stay wider is FinalIK's, bit for bit. Default 30.
   */
  minKneeAngle = 30;
  /** [0, 1] Clamp of the spine bend's rotation (0 free, 0.5 up to 90°, 1 none). Default 0.5. */
  bodyClampWeight = 0.5;
  /** [0, 1] Clamp of the head's turn after the solve (0 free, 0.5 up to 90°, 1 none). Default 0.5. */
  headClampWeight = 0.5;
  /** [0, 1] Master weight of the spine bend toward the target's rotation. Default 1. */
  bendWeight = 1;
  /** The bones bent toward the target's rotation, with their weights. */
  readonly bendBones: readonly HeadBendBone[];
  /** [0, 1] Master weight of the CCD pass toward the target's position (before the solve). Default 1. */
  CCDWeight = 1;
  /** [0, 1] 0: CCD bones nearer the head turn less; 1: every bone turns fully. Default 0. */
  roll = 0;
  /** [0, 1000] Degrees: a CCD angle a is damped by (damper − a)/damper (≤ 0: no damping). Default 500. */
  damper = 500;
  /** The bones of the CCD pass, from the root toward the head (none by default, as in FinalIK). */
  readonly CCDBones: readonly Bone[];
  /** [0, 1] How much of the head's remaining error the stretch bones take after the solve. Default 1. */
  postStretchWeight = 1;
  /**
   * Longest stretch, world units at the character's size when the effector was created (a character scaled
   * since stretches as far for its size: ARCHITECTURE.md, deviation 24).
   */
  maxStretch: number;
  /** The bones the stretch moves (none by default). */
  readonly stretchBones: readonly Bone[];
  /** Out-of-reach hand targets drag the torso and the head (pinned feet too: false keeps them). Default true. */
  handsPullBody = true;
  /** Put the head bone on the target's position after the solve, whatever the neck's length. Default false. */
  fixHead = false;
  /**
   * Seconds of the ease that keeps the body from jumping when tracking is lost and comes back (not in FinalIK;
   * 0: none, FinalIK's behaviour). The effector's weights (`weight`, `positionWeight`, `rotationWeight`,
   * `bendWeight`) change by at most 1/fadeSeconds a second, and a target that changes source (another node
   * assigned, null → node) or is read again after being held is reached from the target last used in the same
   * time. Weights changed no faster, and a target node that keeps moving, are followed as they are. Scene time
   * (summed over the frames since the last solve: one skipped by level of detail counts). Default 0.3.
   */
  fadeSeconds = 0.3;

  private readonly torso: HeadTorso;
  /** Component space's scale at create: {@link maxStretch} is in world units then. */
  private readonly createdScale: number;
  private readonly settings: HeadSettingValues;
  private readonly frame = new HeadFrame();
  /** Eases position, rotation and bend weights (in that order) and the target. */
  private readonly fade = new TargetFade(3, true);
  /** The fade of {@link enabled} over {@link enableFadeSeconds}. */
  private readonly enableFade: EnableFade;
  /** The target's share against the head's own pose this update (the fade's presence × the enable fade's). */
  private readonly presence = new NumberRef(1);
  private readonly input = new HeadPassInput();
  private readonly headId: number;
  /** The spine mapping's reach of the last spine bone to its plane: this frame's position weight while active. */
  private readonly chestReach: NumberRef | null;
  private readonly bendIds: Int32Array;
  private readonly bendWeights: Float64Array;
  private readonly ccdIds: Int32Array;
  private readonly stretchIds: Int32Array;
  /** The head's rest rotation relative to the character root (component space). */
  private readonly restHead = new Quat();
  private readonly rootRotation = new Quat();
  private readonly targetPosition = new Vec3();
  private readonly targetRotation = new Quat();
  private readonly warnFn = (cause: string, message: string): void => this.warn(cause, message);
  private readonly preHook: () => void;
  private readonly iterationHook: () => void;
  private readonly bendHook: () => void;
  private readonly postObserver: Observer<void>;
  /** True between a run before the solve and the post-solve pass that consumes it. */
  private active = false;
  private disposed = false;
  /** On the IK's onDisposeObservable: this goes with its IK. */
  private readonly ikDisposal: Observer<FullBodyBipedIK> | null;

  /**
   * Attaches to `ik`. Throws {@link FBBIKError} when the rig has no head, or when a bend, CCD or stretch bone
   * is not one the IK's rig holds (a referenced bone or an ancestor of one).
   */
  constructor(ik: FullBodyBipedIK, options: FBBIKHeadEffectorOptions = {}) {
    const unknown = checkOptions("FBBIKHeadEffector", options, HEAD_EFFECTOR_OPTION_KINDS);
    this.ik = ik;
    const rig = ik.rig;
    const refs = ik.references;
    const problems: string[] = [];
    const head = refs.head;
    if (head === null || head === undefined || rig.idOf(head) <= 0) problems.push("the rig has no head bone");
    const ids = (bones: readonly Bone[], what: string): Int32Array =>
      Int32Array.from(bones, (b) => {
        const id = b === null || b === undefined ? -1 : rig.idOf(b);
        if (id <= 0)
          problems.push(`${what} "${b?.name}" is not a bone the IK reads (a referenced bone or its ancestor)`);
        return id;
      });
    this.bendBones = (options.bendBones ?? refs.spine).map((b) =>
      "getSkeleton" in b ? new HeadBendBone(b) : new HeadBendBone(b.bone, b.weight ?? 1),
    );
    this.bendIds = ids(
      this.bendBones.map((b) => b.bone),
      "bend bone",
    );
    this.bendWeights = new Float64Array(this.bendBones.length);
    this.CCDBones = [...(options.CCDBones ?? [])];
    this.ccdIds = ids(this.CCDBones, "CCD bone");
    this.stretchBones = [...(options.stretchBones ?? [])];
    this.stretchIds = ids(this.stretchBones, "stretch bone");
    if (problems.length > 0) throw new FBBIKError(problems, "FBBIKHeadEffector");
    this.headId = rig.idOf(head!);
    this.torso = new HeadTorso(ik);
    this.chestReach = (ik.solver.inner.mapping as BipedMapping | null)?.spineMapping._lastBoneReach ?? null;

    this.target = options.target ?? null;
    this.enabled = options.enabled ?? true;
    this.enableFade = new EnableFade(ik.scene, null);
    this.enableFadeSeconds = options.enableFadeSeconds ?? 0;
    const n = options;
    this.weight = n.weight ?? 1;
    this.positionWeight = n.positionWeight ?? 1;
    this.rotationWeight = n.rotationWeight ?? 1;
    this.bodyWeight = n.bodyWeight ?? 0.8;
    this.thighWeight = n.thighWeight ?? 0.8;
    this.minKneeAngle = n.minKneeAngle ?? 30;
    this.bodyClampWeight = n.bodyClampWeight ?? 0.5;
    this.headClampWeight = n.headClampWeight ?? 0.5;
    this.bendWeight = n.bendWeight ?? 1;
    this.CCDWeight = n.CCDWeight ?? 1;
    this.roll = n.roll ?? 0;
    this.damper = n.damper ?? 500;
    this.postStretchWeight = n.postStretchWeight ?? 1;
    this.maxStretch = n.maxStretch ?? 0.05 * this.torso.measureHeight();
    this.createdScale = componentScaleNow(rig);
    this.handsPullBody = n.handsPullBody ?? true;
    this.fixHead = n.fixHead ?? false;
    this.fadeSeconds = n.fadeSeconds ?? 0.3;
    this.settings = new HeadSettingValues(this);

    // the rest rotation the bend is measured from, and the target's defaults: the head as it is now
    rig.getRotation(this.headId, headRotation);
    conjugateMultiply(this.restHead, rig.getRotation(0, tq), headRotation);
    rig.getWorldPosition(this.headId, this.position);
    rig.getWorldRotation(this.headId, this.rotation);
    if (n.position !== undefined) this.position.copyFrom(n.position);
    if (n.rotation !== undefined) this.rotation.copyFrom(n.rotation);

    this.coverWrittenBones();
    const inner = ik.solver.inner;
    this.preHook = () => this.beforeSolve();
    this.iterationHook = () => this.active && this.torso.pin(false);
    this.bendHook = () => this.active && this.torso.pin(this.handsPullBody);
    inner.onPreUpdate.add(this.preHook);
    inner.onPreIteration.add(this.iterationHook);
    inner.onPreBend.add(this.bendHook);
    this.postObserver = ik.solver.onPostUpdateObservable.add(() => this.afterSolve())!;
    ik._addHookTargets(this);
    // last: a constructor that threw leaves nothing on the IK
    this.ikDisposal = disposeWith(ik, this);
    warnUnknownOptions(ik.solver.inner, "FBBIKHeadEffector", unknown, HEAD_EFFECTOR_OPTION_KINDS, { "": this });
  }

  /** @internal A headset on a platform another IK moves (a passenger's seat on a vehicle's rig): that IK first. */
  _solveTargetOwners(): void {
    const t = this.target;
    if (this.enableFade.active(this) && t !== null && !t.isDisposed()) solveOwnerAbove(t, this.ik);
  }

  /**
   * True while what the effector does eases in or out after `enabled` changed ({@link enableFadeSeconds}); false
   * while its IK does not run (nothing of the effector shows then).
   */
  get isFading(): boolean {
    return this.enableFade.fading(this) && !this.ik._idle;
  }

  /** Attaches a head effector to `ik` (same as the constructor). */
  static create(ik: FullBodyBipedIK, options: FBBIKHeadEffectorOptions = {}): FBBIKHeadEffector {
    return new FBBIKHeadEffector(ik, options);
  }

  /**
   * Creates a head effector on `ik` ({@link create}, with `options`) and loads the settings `parsed` into it
   * ({@link applySettings}): Babylon's `Parse` for settings saved by {@link serialize}.
   */
  static Parse(parsed: unknown, ik: FullBodyBipedIK, options: FBBIKHeadEffectorOptions = {}): FBBIKHeadEffector {
    const head = new FBBIKHeadEffector(ik, options);
    head.applySettings(parsed);
    return head;
  }

  /**
   * The effector's settings as a plain JSON object (Babylon's `serialize`): `version`, `customType`, the weights,
   * clamps, knee angle, CCD damping, stretch, `handsPullBody`, `fixHead` and the fades, then each bend bone's weight
   * by index (`bendBones.<i>.weight`). Not `enabled`, the target, nor which bones bend, turn or stretch (the rig's).
   */
  serialize(): IKSettingsObject {
    return serializeSettings(headEffectorSettings(this), "FBBIKHeadEffector");
  }

  /**
   * Loads settings saved by {@link serialize} (whole or in part), from this effector or another character's. An
   * unknown key (a bend bone this rig does not have), a bad value or another component's settings are warned (once
   * a load) on the IK's `onWarningObservable` (`headEffector:settings:…`) and skipped; nothing throws.
   */
  applySettings(parsed: unknown): void {
    const warn = (cause: string, message: string) =>
      this.warn(`headEffector:${cause}`, `FBBIKHeadEffector: ${message}`);
    this.ik.solver.inner.resetWarnings("headEffector:settings:");
    applySettings(headEffectorSettings(this), parsed, warn, "FBBIKHeadEffector");
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "FBBIKHeadEffector";
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Detaches from the IK (its hooks are removed; the IK's next update is its own). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    this.ik.onDisposeObservable.remove(this.ikDisposal);
    this.active = false;
    if (this.chestReach !== null) this.chestReach.value = 0;
    const inner = this.ik.solver.inner;
    inner.onPreUpdate.remove(this.preHook);
    inner.onPreIteration.remove(this.iterationHook);
    inner.onPreBend.remove(this.bendHook);
    this.ik.solver.onPostUpdateObservable.remove(this.postObserver);
    this.ik._removeHookTargets(this);
  }

  /**
   * FixTransforms must take off what the effector writes (spine and neck rotations, the head's and the
   * stretch bones' positions) as it does the mapping's bones: the rig's store gets the union of both.
   */
  private coverWrittenBones(): void {
    const rig = this.ik.rig;
    const fixed = new Map<number, boolean>();
    const mapping = this.ik.solver.inner.mapping as BipedMapping | null;
    for (const f of mapping?.fixedBones ?? []) fixed.set(f.bone, f.position);
    const add = (id: number, position: boolean) => fixed.set(id, (fixed.get(id) ?? false) || position);
    for (const id of this.bendIds) add(id, false);
    for (const id of this.ccdIds) add(id, false);
    for (const id of this.stretchIds) add(id, true);
    add(this.headId, true);
    // what the IK wrote comes off first, so the store starts from the animated pose
    rig.restoreAnimatedPose();
    rig.storeDefaultLocalState([...fixed].map(([bone, position]) => ({ bone, position })));
  }

  /** Warns once per cause on the IK's warning channel. */
  private warn(cause: string, message: string): void {
    this.ik.solver.inner.warn(cause, message);
  }

  /** True when every numeric setting is finite (the per-frame check; the slow path replaces and warns). */
  private settingsFinite(): boolean {
    return (
      Number.isFinite(this.weight) &&
      Number.isFinite(this.positionWeight) &&
      Number.isFinite(this.rotationWeight) &&
      Number.isFinite(this.bodyWeight) &&
      Number.isFinite(this.thighWeight) &&
      Number.isFinite(this.minKneeAngle) &&
      Number.isFinite(this.bodyClampWeight) &&
      Number.isFinite(this.headClampWeight) &&
      Number.isFinite(this.bendWeight) &&
      Number.isFinite(this.CCDWeight) &&
      Number.isFinite(this.roll) &&
      Number.isFinite(this.damper) &&
      Number.isFinite(this.postStretchWeight) &&
      Number.isFinite(this.maxStretch) &&
      Number.isFinite(this.fadeSeconds)
    );
  }

  private beforeSolve(): void {
    this.active = false;
    if (this.chestReach !== null) this.chestReach.value = 0;
    const ik = this.ik;
    if (this.disposed || ik.isDisposed) return;
    const fade = this.fade;
    const pass = this.enableFade.beginHook(this, ik._resumed);
    if (pass === EnablePass.Off || pass === EnablePass.Done) {
      // faded out, the enable fade eases it back in (the target fade's own ease in would slow it further)
      if (this.enableFade.seconds > 0) fade.forget();
      else fade.off();
      return;
    }
    if (!this.settingsFinite()) this.settings.validate(this, this.warnFn);
    fade.step(ik.scene, this);
    // clamped in place of a helper call: no computed double crosses a call (ARCHITECTURE.md)
    const f = this.frame;
    let v = this.weight;
    const master = v > 0 ? (v < 1 ? v : 1) : 0;
    v = this.positionWeight;
    f.position = (v > 0 ? (v < 1 ? v : 1) : 0) * master;
    v = this.rotationWeight;
    f.rotation = (v > 0 ? (v < 1 ? v : 1) : 0) * master;
    v = this.bendWeight;
    f.bend = (v > 0 ? (v < 1 ? v : 1) : 0) * master;
    // let go: the weights fade out on the target last used (tracking lost may leave the node anywhere)
    const released = !(f.position > 0) && !(f.rotation > 0) && !(f.bend > 0);
    const fw = fade.weights;
    fw[0] = f.position;
    fw[1] = f.rotation;
    fw[2] = f.bend;
    if (!fade.ease(released)) return;
    // fading `enabled`: the weights eased as they are, scaled by the fade's weight (a release's path)
    const e = pass === EnablePass.Fade ? this.enableFade.weight : 1;
    f.position = fw[0]! * e;
    f.rotation = fw[1]! * e;
    f.bend = fw[2]! * e;
    const inner = ik.solver.inner;
    let ikw = inner.ikPositionWeight;
    if (!(ikw > 0)) return;
    if (ikw > 1) ikw = 1;
    if (!(inner.iterations >= 1)) {
      // IKLevelOfDetail's cheap mode is limbs only by design, not a setting to warn the user of
      if (!ik._lodCheap) {
        this.warn(
          "headEffector:iterations",
          "FBBIKHeadEffector: the IK solves with 0 iterations; the head is not moved.",
        );
      }
      return;
    }
    f.position *= ikw;
    f.rotation *= ikw;
    f.bend *= ikw;
    v = this.CCDWeight;
    f.ccd = (v > 0 ? (v < 1 ? v : 1) : 0) * f.position;
    v = this.postStretchWeight;
    f.stretch = (v > 0 ? (v < 1 ? v : 1) : 0) * f.position;
    if (!(released ? fade.hold(this.targetPosition, this.targetRotation) : this.readTarget())) return;
    const rig = ik.rig;
    const presence = this.presence;
    presence.value = fade.presence.value * e;
    if (presence.value < 1) {
      // fading in or out: the target's position comes from the head as the animation (and the hooks before) left it
      rig.getPosition(this.headId, headPosition);
      fade.present(headPosition, this.targetPosition, presence);
    }
    const input = this.input;
    if (f.bend > 0 && this.bendIds.length > 0) {
      input.weight = f.bend;
      v = this.bodyClampWeight;
      input.clampWeight = v > 0 ? (v < 1 ? v : 1) : 0;
      const bones = this.bendBones;
      for (let i = 0; i < bones.length; i++) {
        const b = bones[i]!.weight;
        this.bendWeights[i] = b > 0 ? (b < 1 ? b : 1) : 0;
      }
      rig.getRotation(0, this.rootRotation);
      bendSpine(rig, this.bendIds, this.bendWeights, this.restHead, this.rootRotation, this.targetRotation, input);
    }
    if (f.ccd > 0 && this.ccdIds.length > 0) {
      input.weight = f.ccd;
      v = this.roll;
      input.roll = v > 0 ? (v < 1 ? v : 1) : 0;
      input.damper = this.damper;
      ccdPass(rig, this.ccdIds, this.headId, this.targetPosition, input);
    }
    if (f.position > 0) {
      const t = this.torso;
      t.weight = f.position;
      v = this.bodyWeight;
      t.bodyWeight = v > 0 ? (v < 1 ? v : 1) : 0;
      v = this.thighWeight;
      t.thighWeight = v > 0 ? (v < 1 ? v : 1) : 0;
      v = this.minKneeAngle;
      t.limitKnees = v > 0;
      t.kneeCos = Math.cos(((v > 0 ? (v < 170 ? v : 170) : 0) * Math.PI) / 180);
      if (!t.place(this.headId, this.targetPosition)) {
        this.warn("headEffector:degenerate", "FBBIKHeadEffector: the head sits on the root node; it is not moved.");
        return;
      }
      // the chest onto the place the torso's turn gives it, so the head lands where `place` aimed it
      if (this.chestReach !== null) this.chestReach.value = f.position;
    } else {
      this.torso.weight = 0;
    }
    this.active = true;
  }

  /**
   * The target's pose in component space, eased by the fade; when it is not usable this frame (warned once),
   * the target last used is held (false when there is none).
   */
  private readTarget(): boolean {
    const t = this.target;
    if (t !== null) {
      if (t.isDisposed()) {
        this.warn("headEffector:target-disposed", `FBBIKHeadEffector: its target ${t.name} was disposed.`);
        this.target = null;
      } else {
        // fields written as Babylon's `set` does, without the call: a double handed to it is boxed whenever
        // V8 does not inline it (40 B an update on Xbot once the effector's code had been recompiled)
        const m = currentWorldMatrix(t).m;
        Vector3.FromArrayToRef(m, 12, this.position);
        const q = this.rotation;
        if (hasRotation(m)) {
          rotationFromMatrix(m, tq);
          q._x = tq.x;
          q._y = tq.y;
          q._z = tq.z;
          q._w = tq.w;
        } else {
          q._x = q._y = q._z = q._w = Number.NaN;
        }
        q._isDirty = true;
      }
    }
    const p = this.position;
    if (!(Number.isFinite(p.x) && Number.isFinite(p.y) && Number.isFinite(p.z))) {
      this.warn(
        "headEffector:position",
        "FBBIKHeadEffector: the target is not at a finite position; the last usable one is held.",
      );
      return this.fade.hold(this.targetPosition, this.targetRotation);
    }
    const r = this.rotation;
    const l = r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w;
    if (!(l > 1e-12 && l < Infinity)) {
      this.warn("headEffector:rotation", "FBBIKHeadEffector: the target has no usable rotation; the last one is held.");
      return this.fade.hold(this.targetPosition, this.targetRotation);
    }
    const rig = this.ik.rig;
    rig.worldToComponentPoint(p, this.targetPosition);
    tq.x = r.x;
    tq.y = r.y;
    tq.z = r.z;
    tq.w = r.w;
    normalizeQuat(tq, tq);
    rig.worldToBoneRotation(this.headId, tq, this.targetRotation);
    this.fade.follow(this.target, this.targetPosition, this.targetRotation);
    return true;
  }

  /** After the solve: stretch, fixHead, the head's rotation (through the rig, written with the solve). */
  private afterSolve(): void {
    if (this.chestReach !== null) this.chestReach.value = 0;
    if (!this.active) return;
    this.active = false;
    if (this.disposed) return;
    const f = this.frame;
    const rig = this.ik.rig;
    const head = this.headId;
    const target = this.targetPosition;
    if (f.stretch > 0 && this.stretchIds.length > 0) {
      rig.getPosition(head, headPosition);
      tv.x = target.x - headPosition.x;
      tv.y = target.y - headPosition.y;
      tv.z = target.z - headPosition.z;
      const l = Math.sqrt(tv.x * tv.x + tv.y * tv.y + tv.z * tv.z);
      // world units at create → the rig's: the same share of the character whatever its scale since
      const max = this.maxStretch / this.createdScale;
      const k = (l > max ? (max > 0 ? max / l : 0) : 1) * f.stretch;
      tv.x *= k;
      tv.y *= k;
      tv.z *= k;
      stretchBones(rig, this.stretchIds, tv);
    }
    if (this.fixHead && f.position > 0) {
      rig.getPosition(head, headPosition);
      const w = f.position;
      headPosition.x += (target.x - headPosition.x) * w;
      headPosition.y += (target.y - headPosition.y) * w;
      headPosition.z += (target.z - headPosition.z) * w;
      rig.setPosition(head, headPosition);
    }
    if (f.rotation > 0) {
      rig.getRotation(head, headRotation);
      multiplyConjugate(tq, this.targetRotation, headRotation);
      const c = this.headClampWeight;
      io.t = c > 0 ? (c < 1 ? c : 1) : 0;
      clampRotation(tq, tq, io, 2);
      io.t = f.rotation;
      partialRotation(tq2, tq, io);
      multiply(headRotation, tq2, headRotation);
      rig.setRotation(head, headRotation);
    }
  }
}
