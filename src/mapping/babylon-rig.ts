import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Node } from "@babylonjs/core/node.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import {
  Quat,
  type ReadonlyQuat,
  conjugateMultiply,
  copyQuat,
  inverseRotateVector,
  lookRotation,
  multiply,
  normalizeQuat,
  rotateVector,
} from "../math/quat.js";
import { type ReadonlyVec3, Vec3, copy, sub } from "../math/vec3.js";
import type { FixedBone, RestorablePose } from "./biped-mapping.js";

/** Options of {@link BabylonRig}. */
export interface BabylonRigOptions {
  /**
   * The character's root: its up and forward define the character's orientation (FinalIK's
   * `references.root`). Default: the top-most ancestor of the skeleton's root bone node (glTF's
   * `__root__`), or the skinned mesh.
   */
  characterRoot?: TransformNode | null;
  /** For skeletons without linked TransformNodes: the mesh the skeleton deforms (default: the first mesh using it). */
  mesh?: AbstractMesh | null;
}

const tv = new Vec3();
const tv2 = new Vec3();
const tq = new Quat();
const tv3 = new Vec3();
const bq = new Quaternion();
const bv = new Vector3();
const axisY = new Vec3();
const axisZ = new Vec3();

/**
 * A Babylon skeleton seen as an {@link RestorablePose}: the mapped bones and their ancestors in flat
 * depth-first arrays, with forward kinematics of our own into component space (the frame of the root
 * bone's parent). Babylon objects are touched once per bone per frame: `read` copies local transforms in,
 * `write` copies changed local rotations and positions out.
 *
 * glTF skeletons have bones linked to TransformNodes that the animations drive: the rig reads and writes
 * those nodes. Skeletons without linked nodes (.babylon files, skeletons built in code) are read and
 * written through the bones, in the space of the mesh they deform.
 *
 * Bone id 0 is the character root (orientation only, never written); skeleton bones follow.
 */
export class BabylonRig implements RestorablePose {
  /** The skeleton. */
  readonly skeleton: Skeleton;
  /** Babylon bones by id (null for id 0, the character root, and for non-joint nodes). */
  readonly bones: (Bone | null)[];
  /** TransformNodes by id (null for bone-only skeletons and for id 0). */
  readonly nodes: (TransformNode | null)[];
  /** Parent ids (-1: directly in component space). */
  readonly parents: number[];
  /** One past the last descendant of each id. */
  readonly subtreeEnd: number[];
  /** The node whose world matrix is component space (glTF: the root bone node's parent), or null for identity. */
  readonly componentRoot: TransformNode | null;
  /** The character root node (orientation), or null. */
  readonly characterRoot: TransformNode | null;
  /** True when component space is mirrored in the world (glTF in a left-handed scene). */
  mirrored = false;

  /** Local positions. */
  readonly localPositions: Vec3[];
  /** Local rotations. */
  readonly localRotations: Quat[];
  /** Local scales. */
  readonly localScales: Vec3[];
  // Component-space pose, brought up to date lazily: setRotation / setPosition only change the bone's
  // local value and mark its subtree stale; a stale bone is recomputed (from its parent) when it is read.
  // Each bone is then computed once per change of an ancestor that precedes a read, not once per write.
  private readonly _positions: Vec3[];
  private readonly _rotations: Quat[];
  private readonly _scales: Vec3[];
  /** 1 where the component-space pose is stale (an ancestor's or the bone's local value changed). */
  private readonly stale: Uint8Array;
  /** True when any entry of `stale` may be set. */
  private anyStale = false;
  /** Scratch chain for `ensure` (a bone and its stale ancestors). */
  private readonly chain: Int32Array;

  /** World matrix of component space this frame. */
  readonly componentToWorld = new Matrix();
  /** Inverse of componentToWorld. */
  readonly worldToComponent = new Matrix();
  /** Rotation part of componentToWorld (proper rotation; the mirror is handled separately). */
  readonly componentRotation = new Quat();
  /** Uniform scale of component space in the world (mean of the axes' lengths). */
  componentScale = 1;
  /** False until componentToWorld and what derives from it were read once. */
  private componentValid = false;
  /** The character root's world matrix at the last read, and whether id 0 was derived from it. */
  private readonly characterMatrix = new Float64Array(16);
  private characterValid = false;
  /** Index of the skeleton in its scene's `skeletons` when last found there. */
  private skeletonIndex = 0;

  private readonly boneIds = new Map<Bone, number>();
  private readonly rotationDirty: boolean[];
  private readonly positionDirty: boolean[];
  private readonly usesEuler: boolean[];
  private defaults: { id: number; position: Vector3 | null; rotation: Quaternion; animatedPosition: Vector3; animatedRotation: Quaternion }[] = [];
  private animatedValid = false;
  private readonly defaultIndex: Int32Array;
  /** Set when a node the rig reads is disposed (from the nodes' onDisposeObservable). */
  private nodeDisposed = false;
  private readonly disposeObservers: { node: TransformNode; observer: Observer<Node> }[] = [];
  private readonly mesh: AbstractMesh | null;

  /**
   * Builds the rig over `include` (the bones the IK reads or writes) and all their ancestors.
   */
  constructor(skeleton: Skeleton, include: readonly Bone[], options: BabylonRigOptions = {}) {
    this.skeleton = skeleton;
    const linked = include.length > 0 && include.every((b) => b.getTransformNode() !== null);
    this.mesh = options.mesh ?? skeleton.getScene().meshes.find((m) => m.skeleton === skeleton) ?? null;
    const skeletonRoot = skeleton.bones.find((b) => b.getParent() === null) ?? null;
    if (linked) {
      // follow the TransformNode hierarchy: a non-joint node between two joints still transforms
      const rootNode = skeletonRoot?.getTransformNode() ?? include[0]!.getTransformNode()!;
      this.componentRoot = (rootNode.parent as TransformNode | null) ?? null;
      const needed = new Set<TransformNode>();
      for (const b of include) {
        for (let t: TransformNode | null = b.getTransformNode(); t !== null && t !== this.componentRoot && !needed.has(t); t = t.parent as TransformNode | null) {
          needed.add(t);
        }
      }
      const order: TransformNode[] = [];
      const visit = (t: TransformNode): void => {
        if (needed.has(t)) order.push(t);
        for (const c of t.getChildren((x): x is TransformNode => needed.has(x as TransformNode), true)) visit(c as TransformNode);
      };
      const tops = [...needed].filter((t) => !needed.has(t.parent as TransformNode));
      for (const t of tops) visit(t);
      const boneOfNode = new Map<TransformNode, Bone>();
      for (const b of skeleton.bones) {
        const t = b.getTransformNode();
        if (t !== null) boneOfNode.set(t, b);
      }
      this.nodes = [null, ...order];
      this.bones = [null, ...order.map((t) => boneOfNode.get(t) ?? null)];
      const ids = new Map<TransformNode, number>(order.map((t, i) => [t, i + 1]));
      this.parents = this.nodes.map((t) => (t === null ? -1 : (ids.get(t.parent as TransformNode) ?? -1)));
    } else {
      const needed = new Set<Bone>();
      for (const b of include) {
        for (let p: Bone | null = b; p !== null && !needed.has(p); p = p.getParent()) needed.add(p);
      }
      const order: Bone[] = [];
      const visit = (b: Bone): void => {
        if (needed.has(b)) order.push(b);
        for (const c of b.children) visit(c);
      };
      for (const b of skeleton.bones) if (b.getParent() === null) visit(b);
      this.componentRoot = this.mesh;
      this.bones = [null, ...order];
      this.nodes = this.bones.map(() => null);
      const ids = new Map<Bone, number>(order.map((b, i) => [b, i + 1]));
      this.parents = this.bones.map((b) => {
        const p = b?.getParent() ?? null;
        return p !== null ? (ids.get(p) ?? -1) : -1;
      });
    }
    this.bones.forEach((b, i) => {
      if (b !== null) this.boneIds.set(b, i);
    });
    let top: TransformNode | null = this.componentRoot;
    while (top !== null && top.parent !== null) top = top.parent as TransformNode;
    this.characterRoot = options.characterRoot !== undefined ? options.characterRoot : top;
    const n = this.bones.length;
    const ends = new Array<number>(n).fill(n);
    const stack: number[] = [];
    for (let i = 0; i < n; i++) {
      const p = this.parents[i]!;
      while (stack.length > 0 && stack[stack.length - 1] !== p) ends[stack.pop()!] = i;
      stack.push(i);
    }
    while (stack.length > 0) ends[stack.pop()!] = n;
    this.subtreeEnd = ends;
    this.localPositions = this.bones.map(() => new Vec3());
    this.localRotations = this.bones.map(() => new Quat());
    this.localScales = this.bones.map(() => new Vec3(1, 1, 1));
    this._positions = this.bones.map(() => new Vec3());
    this._rotations = this.bones.map(() => new Quat());
    this._scales = this.bones.map(() => new Vec3(1, 1, 1));
    this.stale = new Uint8Array(n);
    this.chain = new Int32Array(n);
    this.rotationDirty = this.bones.map(() => false);
    this.positionDirty = this.bones.map(() => false);
    this.usesEuler = this.nodes.map((node) => node !== null && node.rotationQuaternion === null);
    this.defaultIndex = new Int32Array(this.bones.length).fill(-1);
    this.read();
  }

  /** Component-space positions (up to date whenever read through this property). */
  get positions(): readonly Vec3[] {
    if (this.anyStale) this.flush();
    return this._positions;
  }

  /** Component-space rotations (up to date whenever read through this property). */
  get rotations(): readonly Quat[] {
    if (this.anyStale) this.flush();
    return this._rotations;
  }

  /** Component-space scales (product of local scales; shear from non-uniform scale is ignored). */
  get scales(): readonly Vec3[] {
    if (this.anyStale) this.flush();
    return this._scales;
  }

  /** Number of ids (character root + mapped bones). */
  get count(): number {
    return this.bones.length;
  }

  /** The id of a Babylon bone, or -1 when it is not in the rig. */
  idOf(bone: Bone): number {
    return this.boneIds.get(bone) ?? -1;
  }

  /** Bone name for messages. */
  getName(id: number): string {
    if (id === 0) return this.characterRoot?.name ?? "(character root)";
    return this.bones[id]?.name ?? this.nodes[id]?.name ?? `bone ${id}`;
  }

  /** Reads component space and every mapped bone's local transform from Babylon, then runs FK. */
  read(): void {
    const componentChanged = this.readComponentSpace();
    for (let i = 1; i < this.bones.length; i++) {
      const node = this.nodes[i];
      const lp = this.localPositions[i]!;
      const lr = this.localRotations[i]!;
      const ls = this.localScales[i]!;
      // the animated pose exactly as Babylon holds it (raw, before normalisation), for restoring; copied
      // object to object (a double handed to a Babylon setter V8 does not inline would be boxed)
      const k = this.defaultIndex[i]!;
      const d = k >= 0 ? this.defaults[k]! : null;
      if (node !== null && node !== undefined) {
        const p = node.position;
        copy(lp, p);
        let q = node.rotationQuaternion;
        if (q === null) q = Quaternion.RotationYawPitchRollToRef(node.rotation.y, node.rotation.x, node.rotation.z, bq);
        copyQuat(lr, q);
        copy(ls, node.scaling);
        if (d !== null) {
          d.animatedPosition.copyFrom(p);
          d.animatedRotation.copyFrom(q);
        }
      } else {
        const bone = this.bones[i]!;
        const p = bone.position;
        const q = bone.rotationQuaternion;
        copy(lp, p);
        copyQuat(lr, q);
        copy(ls, bone.scaling);
        if (d !== null) {
          d.animatedPosition.copyFrom(p);
          d.animatedRotation.copyFrom(q);
        }
      }
      normalizeQuat(lr, lr);
      this.rotationDirty[i] = false;
      this.positionDirty[i] = false;
    }
    this.readCharacterRoot(componentChanged);
    for (let i = 1; i < this.bones.length; i++) this.forward(i);
    this.stale.fill(0);
    this.anyStale = false;
    this.animatedValid = this.defaults.length > 0;
  }

  /** Writes the local rotations and positions changed since `read` back to Babylon. */
  write(): void {
    for (let i = 1; i < this.bones.length; i++) {
      const rd = this.rotationDirty[i];
      const pd = this.positionDirty[i];
      if (!rd && !pd) continue;
      const node = this.nodes[i];
      const lr = this.localRotations[i]!;
      const lp = this.localPositions[i]!;
      if (node !== null && node !== undefined) {
        if (rd) {
          if (this.usesEuler[i]) {
            bq.set(lr.x, lr.y, lr.z, lr.w);
            bq.toEulerAnglesToRef(bv);
            node.rotation.copyFrom(bv);
          } else {
            node.rotationQuaternion!.set(lr.x, lr.y, lr.z, lr.w);
          }
        }
        if (pd) node.position.set(lp.x, lp.y, lp.z);
      } else {
        const bone = this.bones[i]!;
        if (rd) {
          bq.set(lr.x, lr.y, lr.z, lr.w);
          bone.setRotationQuaternion(bq);
        }
        if (pd) {
          bv.set(lp.x, lp.y, lp.z);
          bone.position = bv;
        }
      }
      this.rotationDirty[i] = false;
      this.positionDirty[i] = false;
    }
  }

  /** @inheritdoc */
  getPosition(bone: number, out: Vec3): Vec3 {
    if (this.stale[bone] !== 0) this.ensure(bone);
    return copy(out, this._positions[bone]!);
  }

  /** @inheritdoc */
  getRotation(bone: number, out: Quat): Quat {
    if (this.stale[bone] !== 0) this.ensure(bone);
    return copyQuat(out, this._rotations[bone]!);
  }

  /** @inheritdoc */
  setRotation(bone: number, rotation: ReadonlyQuat): void {
    if (bone <= 0) return;
    const p = this.parents[bone]!;
    const local = this.localRotations[bone]!;
    if (p < 0) {
      copyQuat(local, rotation);
    } else {
      if (this.stale[p] !== 0) this.ensure(p);
      conjugateMultiply(local, this._rotations[p]!, rotation);
    }
    normalizeQuat(local, local);
    this.rotationDirty[bone] = true;
    this.markStale(bone);
  }

  /** @inheritdoc */
  setPosition(bone: number, position: ReadonlyVec3): void {
    if (bone <= 0) return;
    const p = this.parents[bone]!;
    const local = this.localPositions[bone]!;
    if (p < 0) {
      copy(local, position);
    } else {
      if (this.stale[p] !== 0) this.ensure(p);
      inverseRotateVector(local, this._rotations[p]!, sub(tv, position, this._positions[p]!));
      const s = this._scales[p]!;
      local.x /= s.x;
      local.y /= s.y;
      local.z /= s.z;
    }
    this.positionDirty[bone] = true;
    this.markStale(bone);
  }

  /** Brings every stale bone's component-space pose up to date (parents first). */
  flush(): void {
    const stale = this.stale;
    for (let i = 1; i < stale.length; i++) {
      if (stale[i] !== 0) {
        this.forward(i);
        stale[i] = 0;
      }
    }
    this.anyStale = false;
  }

  /** Marks `bone` and its descendants stale. */
  private markStale(bone: number): void {
    const stale = this.stale;
    const end = this.subtreeEnd[bone]!;
    for (let i = bone; i < end; i++) stale[i] = 1;
    this.anyStale = true;
  }

  /** Recomputes a stale bone and its stale ancestors, top-down. */
  private ensure(bone: number): void {
    const stale = this.stale;
    const parents = this.parents;
    const chain = this.chain;
    let n = 0;
    for (let i = bone; i > 0 && stale[i] !== 0; i = parents[i]!) chain[n++] = i;
    for (let k = n - 1; k >= 0; k--) {
      const i = chain[k]!;
      this.forward(i);
      stale[i] = 0;
    }
  }

  /** @inheritdoc */
  storeDefaultLocalState(bones: readonly FixedBone[]): void {
    // Babylon's own values, bit for bit: restoring them must change nothing on an untouched bone
    this.defaults = bones.map((b) => {
      const rotation = new Quaternion();
      const position = new Vector3();
      this.readRawLocal(b.bone, position, rotation);
      return { id: b.bone, position: b.position ? position : null, rotation, animatedPosition: position.clone(), animatedRotation: rotation.clone() };
    });
    this.defaultIndex.fill(-1);
    this.defaults.forEach((d, k) => {
      this.defaultIndex[d.id] = k;
    });
    this.animatedValid = false;
  }

  private readRawLocal(id: number, position: Vector3, rotation: Quaternion): void {
    const node = this.nodes[id];
    if (node !== null && node !== undefined) {
      position.copyFrom(node.position);
      if (node.rotationQuaternion !== null) rotation.copyFrom(node.rotationQuaternion);
      else Quaternion.RotationYawPitchRollToRef(node.rotation.y, node.rotation.x, node.rotation.z, rotation);
    } else {
      const bone = this.bones[id]!;
      position.copyFrom(bone.position);
      rotation.copyFrom(bone.rotationQuaternion);
    }
  }

  /**
   * Writes back the local pose of the stored bones as `read` last found it (before the IK changed it):
   * the bones as the animation left them. No-op before the first read after storeDefaultLocalState.
   */
  restoreAnimatedPose(): void {
    if (!this.animatedValid) return;
    for (const d of this.defaults) this.writeLocal(d.id, d.animatedPosition, d.animatedRotation, true);
  }

  /** @inheritdoc Writes straight to Babylon (it runs before the animations, outside read/write). */
  fixTransforms(): void {
    for (const d of this.defaults) this.writeLocal(d.id, d.position, d.rotation, d.position !== null);
  }

  /**
   * Writes a local pose to Babylon, skipping values that are already equal: an untouched bone is left
   * bit for bit as it was (a Bone would otherwise recompose its float32 matrix and change its last bits).
   */
  private writeLocal(id: number, position: Vector3 | null, rotation: Quaternion, withPosition: boolean): void {
    const node = this.nodes[id];
    const writePosition = withPosition && position !== null;
    if (node !== null && node !== undefined) {
      if (this.usesEuler[id]) {
        rotation.toEulerAnglesToRef(bv);
        if (!node.rotation.equals(bv)) node.rotation.copyFrom(bv);
      } else if (!node.rotationQuaternion!.equals(rotation)) {
        node.rotationQuaternion!.copyFrom(rotation);
      }
      if (writePosition && !node.position.equals(position)) node.position.copyFrom(position);
    } else {
      const bone = this.bones[id]!;
      if (!bone.rotationQuaternion.equals(rotation)) bone.setRotationQuaternion(rotation);
      if (writePosition && !bone.position.equals(position)) bone.position = position;
    }
  }

  /**
   * Watches the nodes for disposal through their onDisposeObservable, so that {@link detachedState} need
   * not visit every node each frame. For a rig that lives on (the IK component's); remove with
   * {@link dispose}. Unwatched rigs (temporary ones) check the nodes each call.
   */
  watchDisposal(): void {
    if (this.disposeObservers.length > 0) return;
    for (const node of this.nodes) {
      if (node === null) continue;
      if (node.isDisposed()) this.nodeDisposed = true;
      const observer = node.onDisposeObservable.add(() => {
        this.nodeDisposed = true;
      });
      this.disposeObservers.push({ node, observer });
    }
  }

  /** Removes the observers of {@link watchDisposal} (the rig is not used afterwards). */
  dispose(): void {
    for (const { node, observer } of this.disposeObservers) node.onDisposeObservable.remove(observer);
    this.disposeObservers.length = 0;
  }

  /**
   * Why the rig cannot be read or written this frame: 0 when it can; 1 when the skeleton is no longer in
   * its scene (disposed, or removed with its asset container); 2 when a node the rig reads was disposed;
   * 3 when the mesh whose space a bone-only skeleton lives in was disposed. Allocation-free.
   */
  detachedState(): 0 | 1 | 2 | 3 {
    const skeletons = this.skeleton.getScene().skeletons;
    // where the skeleton was last found: O(1) every frame, a search only when the scene's list changed
    // (a plain indexOf every frame made each character's cost grow with the number of characters)
    let k = this.skeletonIndex;
    if (skeletons[k] !== this.skeleton) {
      k = skeletons.indexOf(this.skeleton);
      if (k < 0) return 1;
      this.skeletonIndex = k;
    }
    if (this.disposeObservers.length > 0) {
      // watched: set by the nodes' onDisposeObservable, no per-frame visit of every node
      if (this.nodeDisposed) return 2;
    } else {
      const nodes = this.nodes;
      for (let i = 1; i < nodes.length; i++) {
        const n = nodes[i];
        if (n !== null && n !== undefined && n.isDisposed()) return 2;
      }
    }
    if (this.nodes.length > 1 && this.nodes[1] === null && this.mesh !== null && this.mesh.isDisposed()) return 3;
    return 0;
  }

  // The transforms below are written out rather than calling Vector3.TransformCoordinatesToRef, which
  // hands three doubles to a helper V8 does not always inline (each call then boxes them).

  /** World point → component space. */
  worldToComponentPoint(world: ReadonlyVec3, out: Vec3): Vec3 {
    return transformPoint(this.worldToComponent.m, world, out);
  }

  /** Component point → world. */
  componentToWorldPoint(component: ReadonlyVec3, out: Vector3): Vector3 {
    transformPoint(this.componentToWorld.m, component, tv3);
    return out.set(tv3.x, tv3.y, tv3.z);
  }

  /** World direction/offset → component space (scale included, so lengths convert too). */
  worldToComponentVector(world: ReadonlyVec3, out: Vec3): Vec3 {
    return transformVector(this.worldToComponent.m, world, out);
  }

  /** Component direction/offset → world. */
  componentToWorldVector(component: ReadonlyVec3, out: Vector3): Vector3 {
    transformVector(this.componentToWorld.m, component, tv3);
    return out.set(tv3.x, tv3.y, tv3.z);
  }

  /**
   * World rotation → component space. In a mirrored component space (glTF in a left-handed scene) the
   * result is the proper rotation whose Y and Z axes match the world rotation's; its X axis is mirrored.
   */
  worldToComponentRotation(world: ReadonlyQuat, out: Quat): Quat {
    conjugateMultiply(out, this.componentRotation, world);
    if (this.mirrored) mirrorX(out);
    return out;
  }

  /** Component rotation → world (the inverse of worldToComponentRotation). */
  componentToWorldRotation(component: ReadonlyQuat, out: Quaternion): Quaternion {
    copyQuat(tq, component);
    if (this.mirrored) mirrorX(tq);
    multiply(tq, this.componentRotation, tq);
    return out.set(tq.x, tq.y, tq.z, tq.w);
  }

  /** Reads component space; false when it is unchanged since the last read. */
  private readComponentSpace(): boolean {
    const root = this.componentRoot;
    const c = this.componentToWorld;
    if (root === null) {
      if (this.componentValid) return false;
      Matrix.IdentityToRef(c);
    } else {
      const w = currentWorldMatrix(root);
      // unchanged since the last read (a character standing still): nothing to derive again
      if (this.componentValid && matrixEquals(w.m, c.m)) return false;
      c.copyFrom(w);
    }
    this.componentValid = true;
    c.invertToRef(this.worldToComponent);
    const m = c.m;
    // rows are the axes (Babylon's row-vector convention)
    // (Math.hypot takes its arguments as a rest array and allocates on every call)
    const lx = Math.sqrt(m[0]! * m[0]! + m[1]! * m[1]! + m[2]! * m[2]!);
    const ly = Math.sqrt(m[4]! * m[4]! + m[5]! * m[5]! + m[6]! * m[6]!);
    const lz = Math.sqrt(m[8]! * m[8]! + m[9]! * m[9]! + m[10]! * m[10]!);
    this.componentScale = (lx + ly + lz) / 3;
    rotationFromMatrix(m, this.componentRotation);
    this.mirrored = c.determinant() < 0;
    return true;
  }

  /**
   * The character root's orientation in component space (id 0): its world up and forward brought in.
   * Skipped when neither component space nor the root's world matrix changed since the last read.
   */
  private readCharacterRoot(componentChanged: boolean): void {
    const root = this.characterRoot;
    const up = tv;
    const forward = tv2;
    let w: Float32Array | Float64Array | readonly number[] | null = null;
    if (root !== null) {
      w = currentWorldMatrix(root).m;
      const last = this.characterMatrix;
      if (!componentChanged && this.characterValid && matrixEquals(w, last)) return;
      for (let i = 0; i < 16; i++) last[i] = w[i]!;
    } else if (!componentChanged && this.characterValid) {
      return;
    }
    this.characterValid = true;
    if (w === null) {
      up.x = 0;
      up.y = 1;
      up.z = 0;
      forward.x = 0;
      forward.y = 0;
      forward.z = 1;
    } else {
      up.x = w[4]!;
      up.y = w[5]!;
      up.z = w[6]!;
      forward.x = w[8]!;
      forward.y = w[9]!;
      forward.z = w[10]!;
    }
    this.worldToComponentVector(up, up);
    this.worldToComponentVector(forward, forward);
    lookRotation(this.localRotations[0]!, forward, up);
    copyQuat(this._rotations[0]!, this.localRotations[0]!);
    if (w !== null) {
      tv.x = w[12]!;
      tv.y = w[13]!;
      tv.z = w[14]!;
      this.worldToComponentPoint(tv, this._positions[0]!);
    }
  }

  /** Forward kinematics of one bone from its parent (which must be up to date). */
  private forward(i: number): void {
    const p = this.parents[i]!;
    const pos = this._positions[i]!;
    const rot = this._rotations[i]!;
    const scl = this._scales[i]!;
    const lp = this.localPositions[i]!;
    const ls = this.localScales[i]!;
    if (p < 0) {
      copy(pos, lp);
      copyQuat(rot, this.localRotations[i]!);
      copy(scl, ls);
    } else {
      const ps = this._scales[p]!;
      tv.x = lp.x * ps.x;
      tv.y = lp.y * ps.y;
      tv.z = lp.z * ps.z;
      const pr = this._rotations[p]!;
      rotateVector(tv, pr, tv);
      const pp = this._positions[p]!;
      pos.x = pp.x + tv.x;
      pos.y = pp.y + tv.y;
      pos.z = pp.z + tv.z;
      multiply(rot, pr, this.localRotations[i]!);
      scl.x = ps.x * ls.x;
      scl.y = ps.y * ls.y;
      scl.z = ps.z * ls.z;
    }
  }
}

/** The parts of a Babylon node this file reads beyond its public typings (internal in @babylonjs/core 9). */
interface NodeSyncState {
  /** Set by `markAsDirty` and by a new parent, position, rotation or scaling object. */
  _isDirty: boolean;
}

/**
 * The node's world matrix, exact, without recomputing it when Babylon's cached one is current: when the
 * node is frozen, or when `isSynchronized()` holds (neither the node's nor any ancestor's position,
 * rotation or scaling changed since it was computed, and no ancestor was recomputed after it) and the
 * node is not marked dirty. This is the test `computeWorldMatrix()` itself applies, minus its
 * same-render-id shortcut, which would return a stale matrix after a parent moved in place within the
 * frame. Forcing (`computeWorldMatrix(true)`) only when something did change leaves the node's and its
 * ancestors' update ids alone otherwise, so Babylon does not recompute every mesh of the character
 * afterwards. Allocation-free.
 */
export function currentWorldMatrix(node: TransformNode): Matrix {
  if (!(node as unknown as NodeSyncState)._isDirty && (node.isWorldMatrixFrozen || node.isSynchronized())) return node.worldMatrixFromCache;
  return node.computeWorldMatrix(true);
}

/** Exact equality of two 4×4 matrices' elements. */
function matrixEquals(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  for (let i = 0; i < 16; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The proper rotation whose Y and Z axes are the Y and Z axes (rows) of the Babylon world matrix `m`:
 * its rotation when `m` is unmirrored; under a mirror (glTF's `__root__` in a left-handed scene) Y and Z
 * match and X is mirrored. The convention of every world rotation this library reads from a node.
 */
export function rotationFromMatrix(m: ArrayLike<number>, out: Quat): Quat {
  axisY.x = m[4]!;
  axisY.y = m[5]!;
  axisY.z = m[6]!;
  axisZ.x = m[8]!;
  axisZ.y = m[9]!;
  axisZ.z = m[10]!;
  return lookRotation(out, axisZ, axisY);
}

/** Row-vector point transform by a Babylon matrix (with the projective divide Babylon applies). */
function transformPoint(m: ArrayLike<number>, v: ReadonlyVec3, out: Vec3): Vec3 {
  // the vector, not its three numbers: doubles passed to a call V8 does not inline are boxed
  const x = v.x;
  const y = v.y;
  const z = v.z;
  const rx = x * m[0]! + y * m[4]! + z * m[8]! + m[12]!;
  const ry = x * m[1]! + y * m[5]! + z * m[9]! + m[13]!;
  const rz = x * m[2]! + y * m[6]! + z * m[10]! + m[14]!;
  const rw = x * m[3]! + y * m[7]! + z * m[11]! + m[15]!;
  const k = rw !== 0 && rw !== 1 ? 1 / rw : 1;
  out.x = rx * k;
  out.y = ry * k;
  out.z = rz * k;
  return out;
}

/** Row-vector direction transform by a Babylon matrix (no translation). */
function transformVector(m: ArrayLike<number>, v: ReadonlyVec3, out: Vec3): Vec3 {
  const x = v.x;
  const y = v.y;
  const z = v.z;
  out.x = x * m[0]! + y * m[4]! + z * m[8]!;
  out.y = x * m[1]! + y * m[5]! + z * m[9]!;
  out.z = x * m[2]! + y * m[6]! + z * m[10]!;
  return out;
}

/** Conjugation by the mirror across the YZ plane: (x, y, z, w) → (x, −y, −z, w). */
function mirrorX(q: Quat): void {
  q.y = -q.y;
  q.z = -q.z;
}
