import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { BabylonRig } from "./babylon-rig.js";
import { currentWorldMatrix, hasRotation, rotationFromMatrix } from "./world-matrix.js";
import { Quat } from "../math/quat.js";
import { Vec3 } from "../math/vec3.js";
import type { IKEffector } from "../solver/effector.js";

const tv = new Vec3();
const tq = new Quat();

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
  /** When set, position and rotation follow this node's world pose every frame. */
  target: TransformNode | null = null;
  /** The solver's effector (component space). */
  readonly inner: IKEffector;
  /** The Babylon bone this effector drives. */
  readonly bone: Bone | null;
  private readonly rig: BabylonRig;
  private readonly warn: (cause: string, message: string) => void;

  /** Wraps `inner`, whose node bone lives in `rig`. */
  constructor(inner: IKEffector, rig: BabylonRig, warn: (cause: string, message: string) => void) {
    this.inner = inner;
    this.rig = rig;
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
   * Pins the effector to its bone's world pose as of the last update (or of `create`) with the given
   * weights (FinalIK's PinToBone).
   */
  pinToBone(positionWeight: number, rotationWeight: number): void {
    this.readBonePose();
    this.positionWeight = positionWeight;
    this.rotationWeight = rotationWeight;
  }

  /** Copies the bone's current world pose into position and rotation (from the rig's last read). */
  readBonePose(): void {
    const id = this.inner.node.bone;
    this.rig.getWorldPosition(id, this.position);
    this.rig.getWorldRotation(id, this.rotation);
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
          this.rotation.set(tq.x, tq.y, tq.z, tq.w);
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
    const inner = this.inner;
    const o = this.positionOffset;
    const offset = o.x !== 0 || o.y !== 0 || o.z !== 0;
    // an idle effector's position and rotation are not read by the solver this frame (weights of
    // exactly 0, no offset): skip converting them. A NaN weight is not idle: the solver reports it.
    if (inner.positionWeight === 0 && inner.rotationWeight === 0 && !offset) return;
    this.rig.worldToComponentPoint(this.position, inner.position);
    // the rotation only where the solver reads it (a NaN weight is converted too: the solver reports it)
    if (inner.rotationWeight !== 0) this.rig.worldToComponentRotation(this.rotation, inner.rotation);
    if (offset) {
      this.rig.worldToComponentVector(o, tv);
      inner.positionOffset.x += tv.x;
      inner.positionOffset.y += tv.y;
      inner.positionOffset.z += tv.z;
    }
  }

  /** @internal Resets the world offset after a solve. */
  _resetOffset(): void {
    const o = this.positionOffset;
    if (o.x !== 0 || o.y !== 0 || o.z !== 0) o.setAll(0);
  }
}
