import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { setQuaternionFields } from "./babylon-fields.js";
import type { BabylonRig } from "./babylon-rig.js";
import type { TargetAnchor } from "./target-anchor.js";
import { TargetFade } from "./target-fade.js";
import { currentWorldMatrix, hasRotation, rotationFromMatrix } from "./world-matrix.js";
import { Quat } from "../math/quat.js";
import { Vec3 } from "../math/vec3.js";
import type { IKEffector } from "../solver/effector.js";
import { moduleMatrix } from "./module-matrix.js";

const tv = new Vec3();
const tq = new Quat();
const shownBone = moduleMatrix();

/**
 * An effector in Babylon terms: world-space `position`, `rotation` and `positionOffset`, weights, and an
 * optional `target` node followed every frame. It drives one {@link IKEffector} of the solver, converting
 * into the solver's component space when the solver reads its targets.
 */
export class BabylonEffector {
  /** World target position. Initially the bone's world position. Mutate it or assign a new vector. */
  position = new Vector3();
  /**
   * World target rotation, in Babylon's convention: a bone node's `absoluteRotationQuaternion` (Y flipped
   * under a mirrored parent, as `Matrix.decompose` gives it) is the rotation that leaves that bone as it is.
   * Initially the bone's world rotation.
   */
  rotation = new Quaternion();
  /** World offset added for one solve, then reset to zero. Add to it every frame (`addInPlace`). */
  readonly positionOffset = new Vector3();
  /**
   * When set, position and rotation follow this node's world pose every frame. A hand or foot target hanging
   * from the character's own bones (a rifle's grip in the other hand) follows that bone as the IK moves it.
   */
  target: TransformNode | null = null;
  /**
   * Seconds of the ease that keeps the hand (and the body it pulls) from jumping when a controller's tracking
   * is lost and comes back (not in FinalIK; the head effector's). 0 (default): none, FinalIK's behaviour, every
   * change used the frame it is made. Above 0: `positionWeight` and `rotationWeight` change by at most
   * 1/fadeSeconds a second, and a target that changes source (`target` set to another node, null → node, a
   * node for the world `position`) or is read again after being held is reached from the target last used in
   * the same time; faded in from 0, the target starts from the bone's own pose. Weights changed no faster,
   * and a target node (or `position`) that keeps moving, are followed as they are. Weights set back to 0 fade
   * out on the target last used. During the solve's hooks the weights read are the eased ones; after it, the
   * ones set. Follows the scene's clock (`scene.deltaTime`, summed over the frames since the last solve: a
   * character solved every few frames, or hidden for a while, eases in the same time). Not a number or ∞: 0.
   */
  fadeSeconds = 0;
  /** The solver's effector (component space). */
  readonly inner: IKEffector;
  /** The Babylon bone this effector drives. */
  readonly bone: Bone | null;
  private readonly rig: BabylonRig;
  private readonly scene: Scene;
  private readonly warn: (cause: string, message: string) => void;
  /** Eases position and rotation weights (in that order) and the target. */
  private readonly fade = new TargetFade(2, false);
  /** The weights set, while the eased ones stand in the solver for its solve (see {@link _resetOffset}). */
  private setPositionWeight = 0;
  private setRotationWeight = 0;
  /** True while the solver holds eased weights in place of the ones set. */
  private eased = false;
  /** True when the eased weights of this update are not all 0. */
  private weighted = false;
  /** @internal Where the target hangs from the character's own bones (end effectors; set by the solver). */
  _anchor: TargetAnchor | null = null;
  /**
   * @internal Without a `target`: the node that `position` and `rotation` were read from this frame by code that
   * sets them itself (an interaction), so that a node under the character's own bones is followed as a target is.
   */
  _hangsFrom: TransformNode | null = null;

  /** Wraps `inner`, whose node bone lives in `rig`. */
  constructor(inner: IKEffector, rig: BabylonRig, warn: (cause: string, message: string) => void) {
    this.inner = inner;
    this.rig = rig;
    this.scene = rig.skeleton.getScene();
    this.warn = warn;
    this.bone = rig.bones[inner.node.bone] ?? null;
    this.readBonePose();
  }

  /** The effector's name (FinalIK's enum name: Body, LeftHand…). */
  get name(): string {
    return this.inner.name;
  }
  /** [0, 1] How much the node goes to `position`. Default 0. */
  get positionWeight(): number {
    return this.inner.positionWeight;
  }
  set positionWeight(v: number) {
    this.inner.positionWeight = v;
  }
  /**
   * [0, 1] How much the bone takes `rotation` (hands and feet; the body effector turns the whole body toward
   * it, see `solver.bodyEffector`). Default 0.
   */
  get rotationWeight(): number {
    return this.inner.rotationWeight;
  }
  set rotationWeight(v: number) {
    this.inner.rotationWeight = v;
  }
  /**
   * [0, 1] Keeps an end effector's animated position relative to its plane of shoulders/thighs and root node. Default
   * 0.
   */
  get maintainRelativePositionWeight(): number {
    return this.inner.maintainRelativePositionWeight;
  }
  set maintainRelativePositionWeight(v: number) {
    this.inner.maintainRelativePositionWeight = v;
  }
  /** Carry the child nodes along (the body effector moving the thighs: FinalIK's "Use Thighs"). Default true. */
  get effectChildNodes(): boolean {
    return this.inner.effectChildNodes;
  }
  set effectChildNodes(v: boolean) {
    this.inner.effectChildNodes = v;
  }
  /** True for hands and feet. */
  get isEndEffector(): boolean {
    return this.inner.isEndEffector;
  }

  /**
   * Pins the effector to its bone's world pose as of the last update (or of `create`), moved with the character
   * since, with the given weights (FinalIK's PinToBone).
   */
  pinToBone(positionWeight: number, rotationWeight: number): void {
    this.readBonePose();
    this.positionWeight = positionWeight;
    this.rotationWeight = rotationWeight;
  }

  /**
   * Copies the bone's world pose as shown into position and rotation: the last solve's (or the rig's last read),
   * moved with the character since, so a pin made after the character moved is where the bone stands now.
   */
  readBonePose(): void {
    const m = this.rig._shownWorldMatrixToRef(this.inner.node.bone, shownBone);
    m.getTranslationToRef(this.position);
    setQuaternionFields(this.rotation, rotationFromMatrix(m.m, tq));
  }

  /** @internal Follows the target and converts the world values into the solver's effector. */
  _syncToSolver(): void {
    const t = this.target;
    if (t !== null) {
      if (t.isDisposed()) {
        this.warn(
          `${this.name}:target-disposed`,
          `${this.name} effector: its target ${t.name} was disposed; the effector keeps its last position.`,
        );
        this.target = null;
      } else {
        // Babylon's cached matrix when it is current (no forced recompute of the target and its children)
        const m = currentWorldMatrix(t);
        m.getTranslationToRef(this.position);
        if (hasRotation(m.m)) {
          // Babylon's decomposition of the node's world matrix (Y flipped under a mirrored parent), built
          // from its axes without decompose's temporaries
          rotationFromMatrix(m.m, tq);
          // not `set(…)`: V8 left it out of line in a scene with the family, boxing the four doubles (64 B a frame)
          setQuaternionFields(this.rotation, tq);
        } else if (this.inner.rotationWeight !== 0) {
          // scaled to 0 or not finite: any rotation read from it would be arbitrary
          this.warn(
            `${this.name}:target-rotation`,
            `${this.name} effector: its target ${t.name} has no usable world rotation (scaled to 0 or not ` +
              `finite); the effector keeps its last rotation.`,
          );
        }
      }
    }
    const anchor = this._anchor;
    if (anchor !== null) anchor.follow(this.target ?? this._hangsFrom, this.rig);
    const inner = this.inner;
    const o = this.positionOffset;
    const offset = o.x !== 0 || o.y !== 0 || o.z !== 0;
    const s = this.fadeSeconds;
    const fading = s > 0 && s < Infinity;
    if (fading && this.ease()) {
      if (this.weighted) this.readEasedTarget();
    } else {
      if (!fading) this.fade.forget();
      // an idle effector's position and rotation are not read by the solver this frame (weights of
      // exactly 0, no offset): skip converting them. A NaN weight is not idle: the solver reports it.
      if (inner.positionWeight === 0 && inner.rotationWeight === 0 && !offset) return;
      this.rig.worldToComponentPoint(this.position, inner.position);
      // the rotation only where the solver reads it (a NaN weight is converted too: the solver reports it)
      if (inner.rotationWeight !== 0) this.rig.worldToBoneRotation(inner.node.bone, this.rotation, inner.rotation);
    }
    if (offset) {
      this.rig.worldToComponentVector(o, tv);
      inner.positionOffset.x += tv.x;
      inner.positionOffset.y += tv.y;
      inner.positionOffset.z += tv.z;
    }
    if (anchor !== null && anchor.bone >= 0) anchor.capture(this.rig, inner);
  }

  /**
   * Puts the eased weights into the solver in place of the ones set (kept for {@link _resetOffset});
   * {@link weighted} tells whether any remains. False when a weight is not a number: the weights go to the
   * solver as they are (reported and ignored there), and the ease starts again from nothing.
   */
  private ease(): boolean {
    const inner = this.inner;
    const fade = this.fade;
    const pw = inner.positionWeight;
    const rw = inner.rotationWeight;
    if (!(Number.isFinite(pw) && Number.isFinite(rw))) {
      fade.off();
      return false;
    }
    fade.step(this.scene, this);
    const w = fade.weights;
    w[0] = pw > 0 ? (pw < 1 ? pw : 1) : 0;
    w[1] = rw > 0 ? (rw < 1 ? rw : 1) : 0;
    const released = !(w[0]! > 0) && !(w[1]! > 0);
    this.weighted = fade.ease(released);
    this.setPositionWeight = pw;
    this.setRotationWeight = rw;
    inner.positionWeight = w[0]!;
    inner.rotationWeight = w[1]!;
    this.eased = true;
    return true;
  }

  /**
   * The target in the solver's effector, eased: the one last used while the weights fade out after a release
   * or when `position` or `rotation` is not usable (warned once), else the live one blended by the fade. (Faded
   * in from no weight, the weight alone starts the hand from the bone's own pose: it blends the node linearly.)
   */
  private readEasedTarget(): void {
    const inner = this.inner;
    const fade = this.fade;
    const p = this.position;
    const r = this.rotation;
    let held = false;
    if (this.setPositionWeight > 0 || this.setRotationWeight > 0) {
      const l = r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w;
      if (!(Number.isFinite(p.x) && Number.isFinite(p.y) && Number.isFinite(p.z) && l > 1e-12 && l < Infinity)) {
        this.warn(
          `${this.name}:target-unusable`,
          `${this.name} effector: its position is not finite or its rotation not usable; the last target used ` +
            "is held.",
        );
        held = fade.hold(inner.position, inner.rotation);
        // nothing used yet: the solver reports the value and ignores it
        if (!held) return;
      }
    } else {
      // let go: fading out on the target last used (a controller that lost tracking may be anywhere)
      held = fade.hold(inner.position, inner.rotation);
    }
    if (!held) {
      const rig = this.rig;
      // converted as without the ease (the solver normalises): a node that keeps moving is followed bit for bit
      rig.worldToComponentPoint(p, inner.position);
      rig.worldToBoneRotation(inner.node.bone, r, inner.rotation);
      fade.follow(this.target, inner.position, inner.rotation);
    }
  }

  /** @internal Resets the world offset after a solve, and gives the solver back the weights set. */
  _resetOffset(): void {
    const o = this.positionOffset;
    if (o.x !== 0 || o.y !== 0 || o.z !== 0) o.setAll(0);
    if (this.eased) this.restoreWeights();
  }

  /** The weights set back in the solver, unless something set others during the solve. */
  private restoreWeights(): void {
    this.eased = false;
    const inner = this.inner;
    const w = this.fade.weights;
    if (inner.positionWeight === w[0]) inner.positionWeight = this.setPositionWeight;
    if (inner.rotationWeight === w[1]) inner.rotationWeight = this.setRotationWeight;
  }
}
