import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import type { Node } from "@babylonjs/core/node.js";
import { Vec3, type ReadonlyVec3 } from "../math/vec3.js";
import { CapsuleCollider } from "../joints/colliders/capsule-collider.js";
import { ColliderSet } from "../joints/colliders/collider-set.js";
import type { ColliderStep, JointColliders } from "../joints/joint-colliders.js";
import { FBBIKError } from "../solver/errors.js";
import type { IKPose } from "../solver/pose.js";
import type { BabylonRig } from "./babylon-rig.js";
import type { BoneCollider } from "./bone-collider.js";
import { ColliderFrames } from "./collider-frames.js";
import { NodeUnderBone } from "./node-under-bone.js";
import { axisLengths } from "./world-matrix.js";

const scl = new Vec3();
const relScl = new Vec3();
const end = new Vec3();
const zero = new Vec3();

/**
 * The {@link BoneCollider}s of one component, on that component's rig: each hangs on a bone of the rig, by its
 * id, or on a node outside it (a mesh in the world), as an engine-neutral capsule of a {@link ColliderSet} (what
 * the joint solvers' `colliders` take). Every {@link update} brings the Babylon colliders' local geometry into
 * the rig's component space (the bone's component-space scale, or the node's current world matrix, applied to
 * the ends and the radius), then lets the set read the bones and nodes. A node whose nearest bone is one of the
 * rig's (a shield in the hand) hangs on that bone, its ends through the node's transform relative to it, so it
 * follows the solved bone and is interpolated as the bone is. A disabled collider sits the step out, as does
 * one whose node was disposed (warned once; the collider then lets go of the node) or is scaled to 0.
 * Allocation-free per frame; adding or removing a collider rebuilds the set.
 */
export class BoneColliderSet implements JointColliders {
  /** The rig the colliders' bones are in. */
  readonly rig: BabylonRig;
  private list: BoneCollider[] = [];
  private shapes: CapsuleCollider[] = [];
  private set = new ColliderSet([]);
  /** Per collider: its node's slot among the frames' nodes, or −1 when it hangs on a bone of the rig. */
  private slots = new Int32Array(0);
  private frames = new ColliderFrames(0, 0);
  /** Per collider: 1 once its node's disposal was warned. */
  private warnedDisposed = new Uint8Array(0);
  /** The transform of the node being placed relative to the bone it hangs under. */
  private readonly under = new NodeUnderBone();
  /** Per collider: the rig bone it hangs on (its own, or its node's nearest ancestor's) at the last update, or -1. */
  private owners = new Int32Array(0);
  /**
   * The skeleton's bones by their Bones and linked nodes: their rig ids, 0 for a bone outside the rig (a node
   * under it reads its world matrix, as the bone is not solved).
   */
  private readonly anchors = new Map<Node, number>();
  private readonly warn: ((cause: string, message: string) => void) | null;

  /**
   * On `rig`, with `colliders` (each bone must be in the rig: throws {@link FBBIKError} naming it). `warn`
   * reports a collider's node disposed (once per collider; the component's warnings), Babylon's Logger when
   * not given.
   */
  constructor(
    rig: BabylonRig,
    colliders: readonly BoneCollider[] = [],
    warn: ((cause: string, message: string) => void) | null = null,
  ) {
    this.rig = rig;
    this.warn = warn;
    for (const bone of rig.skeleton.bones) {
      const id = Math.max(0, rig.idOf(bone));
      this.anchors.set(bone, id);
      const node = bone.getTransformNode();
      if (node !== null) this.anchors.set(node, id);
    }
    for (const c of colliders) this.check(c);
    this.rebuild([...colliders]);
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "BoneColliderSet";
  }

  /** The colliders, in the order they are resolved. */
  get colliders(): readonly BoneCollider[] {
    return this.list;
  }

  /** The engine-neutral set underneath (component space; valid after an {@link update}). */
  get inner(): ColliderSet {
    return this.set;
  }

  /** Adds a collider (setup time). Throws {@link FBBIKError} when its bone is not in the rig. */
  add(collider: BoneCollider): void {
    this.check(collider);
    if (this.list.includes(collider)) return;
    this.rebuild([...this.list, collider]);
  }

  /** Removes a collider; false when it was not there. */
  remove(collider: BoneCollider): boolean {
    const i = this.list.indexOf(collider);
    if (i < 0) return false;
    this.rebuild(this.list.filter((c) => c !== collider));
    return true;
  }

  /** Forgets the step's start: the next update places the colliders where their bones are (after a teleport). */
  reset(): void {
    this.set.reset();
  }

  /** @inheritdoc */
  update(pose: IKPose): void {
    const rig = this.rig;
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const c = list[i]!;
      const s = this.shapes[i]!;
      const slot = this.slots[i]!;
      let usable = c.enabled;
      // the node's own scale in its bone's space, when it hangs under one
      let own = 1;
      if (slot < 0) {
        this.owners[i] = s.bone;
        rig.getScale(s.bone, scl);
        scaled(s.start, c.start, scl);
        scaled(s.end, c.end, scl);
      } else if (usable) {
        const id = this.placeNode(i, c, slot);
        usable = id >= 0;
        this.owners[i] = id > 0 ? id : -1;
        s.bone = id > 0 ? id : this.frames.base + slot;
        if (id > 0) {
          // under a bone of the rig: the ends brought into the bone's space, then the collider is the bone's
          const under = this.under;
          rig.getScale(id, scl);
          under.transformPoint(c.start, end);
          scaled(s.start, end, scl);
          under.transformPoint(c.end, end);
          scaled(s.end, end, scl);
          axisLengths(under.m, relScl);
          own = (relScl.x + relScl.y + relScl.z) / 3;
        } else {
          scaled(s.start, c.start, scl);
          scaled(s.end, c.end, scl);
        }
      }
      const sx = scl.x < 0 ? -scl.x : scl.x;
      const sy = scl.y < 0 ? -scl.y : scl.y;
      const sz = scl.z < 0 ? -scl.z : scl.z;
      // a disabled collider gets a radius the set rejects: it sits the step out
      s.radius = usable ? (c.radius * own * (sx + sy + sz)) / 3 : Number.NaN;
    }
    this.frames.pose = pose;
    this.set.update(this.frames);
  }

  /**
   * The rig bone collider `index` hung on at the last {@link update}: its bone, or the bone its node hangs
   * under; -1 for a node whose nearest bone is outside the rig, or none (or one that sat out).
   */
  hangsOn(index: number): number {
    return this.owners[index] ?? -1;
  }

  /**
   * Pushes the chain's joints and segments (component space) out of every collider placed at `alpha`, keeping
   * `radius` clearance (see {@link ColliderSet.resolveChain}); true when something moved.
   */
  resolveChain(positions: Float64Array, count: number, radius: number, alpha: number): boolean {
    return this.set.resolveChain(positions, count, radius, alpha);
  }

  /** @inheritdoc */
  resolveStep(positions: Float64Array, count: number, step: ColliderStep): boolean {
    return this.set.resolveStep(positions, count, step);
  }

  /**
   * `point` (component space) pushed out of every collider placed at `alpha`, keeping `radius` clearance,
   * into `out`; true when it moved.
   */
  resolvePoint(out: Vec3, point: ReadonlyVec3, radius: number, alpha: number): boolean {
    return this.set.resolvePoint(out, point, radius, alpha);
  }

  /** {@link resolvePoint} with its clearance and alpha in `step` (no double crosses the call). */
  resolvePointStep(out: Vec3, point: ReadonlyVec3, step: ColliderStep): boolean {
    return this.set.resolvePointStep(out, point, step);
  }

  /**
   * Places collider `i`'s node. Under a bone of the rig (the nearest bone above it), reads the node's transform
   * relative to it into {@link under} and returns the bone's id; otherwise places frame `slot` from the node's
   * world matrix, `scl` its scale, and returns 0. −1 when the collider sits out: its node disposed (warned once,
   * then let go of) or without a rotation (scaled to 0, not finite).
   */
  private placeNode(i: number, c: BoneCollider, slot: number): number {
    const node = c.node;
    if (node === null) return -1;
    if (node.isDisposed()) {
      if (this.warnedDisposed[i] === 0) this.warnDisposed(i, node.name);
      // the collider must not keep a disposed mesh (and its scene) reachable
      c._dropNode();
      return -1;
    }
    // the nearest bone above the node, if any (looked up each frame: a node may change hands)
    let anchor: Node | null = node.parent;
    let id = 0;
    for (; anchor !== null; anchor = anchor.parent) {
      const found = this.anchors.get(anchor);
      if (found === undefined) continue;
      id = found;
      break;
    }
    if (anchor === null || id === 0) return this.frames.placeNode(slot, node, this.rig.worldToComponent, scl) ? 0 : -1;
    this.under.read(node, anchor);
    return id;
  }

  /** The warning of a collider whose node was disposed (once per collider). */
  private warnDisposed(i: number, name: string): void {
    this.warnedDisposed[i] = 1;
    const message = `The collider on node "${name}": the node was disposed; the collider is ignored.`;
    if (this.warn !== null) this.warn(`collider:disposed:${name}`, message);
    else Logger.Warn(`babylon-fbbik: ${message}`);
  }

  private check(c: BoneCollider): void {
    if (c.bone !== null && this.rig.idOf(c.bone) < 0) {
      throw new FBBIKError(
        [
          `collider bone "${c.bone.name}" is not in the component's rig: pass the collider when creating the ` +
            "component (its bone is then included), or hang it on one of the component's bones or their ancestors",
        ],
        "BoneCollider",
      );
    }
  }

  /** The rig id a collider reads its frame from: its bone's, its node's when the node is a bone's of the rig. */
  private rigId(c: BoneCollider): number {
    if (c.bone !== null) return this.rig.idOf(c.bone);
    const id = this.rig.nodes.indexOf(c.node);
    return id > 0 ? id : -1;
  }

  private rebuild(list: BoneCollider[]): void {
    this.list = list;
    const base = this.rig.count;
    let nodes = 0;
    this.slots = Int32Array.from(list, (c) => (this.rigId(c) >= 0 ? -1 : nodes++));
    this.frames = new ColliderFrames(base, nodes);
    this.warnedDisposed = new Uint8Array(list.length);
    this.owners = new Int32Array(list.length).fill(-1);
    this.shapes = list.map((c, i) => {
      const slot = this.slots[i]!;
      return new CapsuleCollider(slot < 0 ? this.rigId(c) : base + slot, zero, zero, 0);
    });
    this.set = new ColliderSet(this.shapes);
    // the joint frame rebuilds joints from bone lengths: push out keeping them
    this.set.keepLengths = true;
  }
}

/** `out` = `s` ⊙ `v` (a local point under the bone's scale). */
function scaled(out: Vec3, v: ReadonlyVec3, s: ReadonlyVec3): void {
  out.x = v.x * s.x;
  out.y = v.y * s.y;
  out.z = v.z * s.z;
}

/** The bones of `colliders` not yet among `bones`: what a component adds to its rig for them. */
export function colliderBones(bones: readonly Bone[], colliders: readonly BoneCollider[] | undefined): Bone[] {
  const out = [...bones];
  for (const c of colliders ?? []) if (c?.bone != null && !out.includes(c.bone)) out.push(c.bone);
  return out;
}
