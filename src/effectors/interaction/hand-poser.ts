import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Quaternion, type Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import { clamp01 } from "../../math/scalar.js";
import { notifyDisposed } from "../../babylon/dispose-notice.js";

import { PoseMatches } from "./pose-match.js";

const tq = new Quaternion();

/**
 * Blends the finger bones of a hand toward a target pose (FinalIK's HandPoser): every TransformNode
 * under the hand (the finger bones' linked nodes) whose name matches a node under `poseRoot` takes
 * `slerp(animated local rotation, pose node's local rotation, weight)` (and its local position by
 * `localPositionWeight`). A pose is a hierarchy of TransformNodes named like the fingers, for example
 * made with {@link HandPoser.capturePose} and then bent.
 *
 * The poser restores what the animation left on the fingers by itself: a finger value it finds equal to
 * what it wrote last frame was not animated, so it starts again from the value it first saw. On a rig
 * without bones under the hand, or without matching pose nodes, it does nothing.
 */
export class HandPoser {
  /** The hand bone's node. */
  readonly hand: TransformNode;
  /** The nodes posed (the hand's descendants: finger bones). */
  readonly bones: readonly TransformNode[];
  /** [0, 1] Blend toward the pose. */
  weight = 0;
  /** [0, 1] Scale of `weight` for the local rotations (default 1). */
  localRotationWeight = 1;
  /** [0, 1] Scale of `weight` for the local positions (default 0: finger lengths stay the rig's). */
  localPositionWeight = 0;
  private _poseRoot: TransformNode | null = null;
  private readonly poseNodes: (TransformNode | null)[];
  /** The matches of pose hierarchies to the fingers, kept per pose root. */
  private readonly matches: PoseMatches;
  private readonly animatedRotations: Quaternion[];
  private readonly writtenRotations: Quaternion[];
  private readonly animatedPositions: Vector3[];
  private readonly writtenPositions: Vector3[];
  private readonly written: boolean[];
  private disposed = false;
  /** Notified once by {@link dispose}, before it lets go of its state (Babylon's convention). */
  readonly onDisposeObservable = new Observable<HandPoser>();

  /**
   * A poser for the fingers under `hand`. With `skeleton`, only nodes linked to its bones are posed
   * (attachments under the hand are left alone).
   */
  constructor(hand: TransformNode, skeleton: Skeleton | null = null) {
    this.hand = hand;
    let nodes = hand.getDescendants(false, (n) => n instanceof TransformNode) as TransformNode[];
    const boneNames = new Map<TransformNode, string>();
    if (skeleton !== null) {
      for (const b of skeleton.bones) {
        const t = b.getTransformNode();
        if (t !== null) boneNames.set(t, b.name);
      }
      nodes = nodes.filter((n) => boneNames.has(n));
    }
    for (const n of nodes)
      if (n.rotationQuaternion === null) n.rotationQuaternion = Quaternion.FromEulerVector(n.rotation);
    this.bones = nodes;
    // the linked bone's name per node: a clone's nodes are renamed ("Clone of …"), its bones are not
    this.matches = new PoseMatches(
      nodes,
      nodes.map((n) => boneNames.get(n) ?? null),
    );
    this.poseNodes = nodes.map(() => null);
    this.animatedRotations = nodes.map((n) => n.rotationQuaternion!.clone());
    this.writtenRotations = nodes.map((n) => n.rotationQuaternion!.clone());
    this.animatedPositions = nodes.map((n) => n.position.clone());
    this.writtenPositions = nodes.map((n) => n.position.clone());
    this.written = nodes.map(() => false);
  }

  /** True when the hand has bones under it (fingers). */
  get hasFingers(): boolean {
    return this.bones.length > 0;
  }

  /** Number of finger bones matched to a pose node. */
  get matchedCount(): number {
    let n = 0;
    for (const p of this.poseNodes) if (p !== null) n++;
    return n;
  }

  /** The root of the target pose (its descendants are matched to the fingers by name), or null. */
  get poseRoot(): TransformNode | null {
    return this._poseRoot;
  }
  set poseRoot(root: TransformNode | null) {
    this.setPoseRoot(root);
  }

  /**
   * Points the poser at a pose hierarchy and matches its nodes to the finger bones by name (exactly,
   * then without namespace and case), the node's name first, then its bone's (with a skeleton: a clone
   * from `instantiateModelsToScene` renames the nodes, not the bones). Returns the number matched.
   */
  setPoseRoot(root: TransformNode | null): number {
    this._poseRoot = root;
    if (root === null) {
      this.poseNodes.fill(null);
      return 0;
    }
    return this.matches.match(root, this.poseNodes);
  }

  /**
   * Applies the pose by `weight`. Called by the interaction system after each solve; call it yourself
   * when using the poser alone (after the animations, e.g. in `scene.onBeforeRenderObservable`).
   */
  update(): void {
    if (this.disposed) return;
    const bones = this.bones;
    const wr = clamp01(this.weight) * clamp01(this.localRotationWeight);
    const wp = clamp01(this.weight) * clamp01(this.localPositionWeight);
    for (let i = 0; i < bones.length; i++) {
      const node = bones[i]!;
      const q = node.rotationQuaternion!;
      const anim = this.animatedRotations[i]!;
      const animPos = this.animatedPositions[i]!;
      // a value other than the one written last time came from the animation: it is the new base
      if (!this.written[i] || !q.equals(this.writtenRotations[i]!)) anim.copyFrom(q);
      if (!this.written[i] || !node.position.equals(this.writtenPositions[i]!)) animPos.copyFrom(node.position);
      const pose = this.poseNodes[i];
      if (pose === null || pose === undefined || (wr <= 0 && wp <= 0)) {
        if (this.written[i]) {
          q.copyFrom(anim);
          node.position.copyFrom(animPos);
          this.written[i] = false;
        }
        continue;
      }
      const pq = pose.rotationQuaternion ?? Quaternion.FromEulerVectorToRef(pose.rotation, tq);
      Quaternion.SlerpToRef(anim, pq, wr, q);
      if (wp > 0) {
        animPos.scaleToRef(1 - wp, node.position);
        node.position.addInPlace(pose.position.scaleToRef(wp, this.writtenPositions[i]!));
      } else {
        node.position.copyFrom(animPos);
      }
      this.writtenRotations[i]!.copyFrom(q);
      this.writtenPositions[i]!.copyFrom(node.position);
      this.written[i] = true;
    }
  }

  /** Puts the fingers back to what the animation left (undoes the last update). */
  restore(): void {
    for (let i = 0; i < this.bones.length; i++) {
      if (!this.written[i]) continue;
      const node = this.bones[i]!;
      if (node.rotationQuaternion!.equals(this.writtenRotations[i]!))
        node.rotationQuaternion!.copyFrom(this.animatedRotations[i]!);
      if (node.position.equals(this.writtenPositions[i]!)) node.position.copyFrom(this.animatedPositions[i]!);
      this.written[i] = false;
    }
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "HandPoser";
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Puts the fingers back to what the animation left; {@link update} does nothing afterwards. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    this.restore();
    this.poseNodes.fill(null);
  }

  /**
   * Copies the current local pose of the nodes under `hand` into a new hierarchy of TransformNodes with
   * the same names (under a root named `name`, parented to `parent` when given): a pose to edit and
   * use as a poser's target (put it under an {@link InteractionTarget}'s node).
   */
  static capturePose(
    hand: TransformNode,
    name = `${hand.name} pose`,
    parent: TransformNode | null = null,
  ): TransformNode {
    const scene = hand.getScene();
    const root = new TransformNode(name, scene);
    root.rotationQuaternion = Quaternion.Identity();
    if (parent !== null) root.parent = parent;
    const copy = (src: TransformNode, dstParent: TransformNode): void => {
      for (const c of src.getChildren((n) => n instanceof TransformNode, true) as TransformNode[]) {
        const d = new TransformNode(c.name, scene);
        d.parent = dstParent;
        d.position.copyFrom(c.position);
        d.scaling.copyFrom(c.scaling);
        d.rotationQuaternion = c.rotationQuaternion?.clone() ?? Quaternion.FromEulerVector(c.rotation);
        copy(c, d);
      }
    };
    copy(hand, root);
    return root;
  }
}
