// Longer than most files on purpose: `read` and `write` are each one pass over the bones touching every
// Babylon object once; the other concerns live beside it (rig-shape, component-space, animated-pose-store).
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Node } from "@babylonjs/core/node.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import { Quat, type ReadonlyQuat, lookRotation } from "../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";
import type { FixedBone, RestorablePose } from "../mapping/biped-mapping.js";
import { FlatPose } from "../mapping/flat-pose.js";
import { isUniform, isUniformWithin, mirrorAxis } from "../mapping/flat-pose-kernels.js";
import type { OutputFade } from "./lod/output-fade.js";
import { AnimatedPoseStore } from "./animated-pose-store.js";
import { defaultCharacterRoot } from "./character-root.js";
import { ComponentSpace } from "./component-space.js";
import type { MeshAdoption } from "./mesh-adoption.js";
import { RigAttachment, RigDetachment } from "./rig-attachment.js";
import { rigProblemText } from "./rig-problems.js";
import { rigShape } from "./rig-shape.js";
import { currentWorldMatrix, matrixEquals, rotationFromMatrix } from "./world-matrix.js";
import { moduleMatrix } from "./module-matrix.js";

/** Options of {@link BabylonRig}. */
export interface BabylonRigOptions {
  /**
   * The character's root: its up and forward define the character's orientation (FinalIK's
   * `references.root`). Default: the model's own top node (glTF's `__root__`, also inside a clone's name,
   * or the skinned mesh), not the nodes the application parents it to.
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
const bv2 = new Vector3();
const rigMatrix = moduleMatrix();
const externalMatrix = moduleMatrix();
const shownSpace = moduleMatrix();

/**
 * A Babylon skeleton seen as an {@link RestorablePose}: the mapped bones and their ancestors as a
 * {@link FlatPose} (flat depth-first arrays with forward kinematics of our own into component space, the
 * frame of the root bone's parent). Babylon objects are touched once per bone per frame: `read` copies
 * local transforms in, `write` copies changed local rotations and positions out.
 *
 * glTF skeletons have bones linked to TransformNodes that the animations drive: the rig reads and writes
 * those nodes. Skeletons without linked nodes (.babylon files, skeletons built in code) are read and
 * written through the bones, in the space of the mesh they deform: its world matrix, preceded by its pose
 * matrix when the skeleton has `needInitialSkinMatrix` (files from Babylon's 3ds Max and Maya exporters),
 * as Babylon skins them.
 *
 * Bone id 0 is the character root (orientation only, never written); skeleton bones follow.
 */
export class BabylonRig extends FlatPose implements RestorablePose {
  /** The skeleton. */
  readonly skeleton: Skeleton;
  /** Babylon bones by id (null for id 0, the character root, and for non-joint nodes). */
  readonly bones: (Bone | null)[];
  /** TransformNodes by id (null for bone-only skeletons and for id 0). */
  readonly nodes: (TransformNode | null)[];
  /**
   * The node whose world matrix is component space (glTF: the root bone node's parent; a bone-only skeleton's mesh,
   * or another mesh it skins once that one is disposed), or null for identity.
   */
  get componentRoot(): TransformNode | null {
    return this.spaceNode;
  }
  /** The character root node (orientation), or null. */
  get characterRoot(): TransformNode | null {
    return this.rootNode;
  }
  /**
   * How many times a bone-only skeleton's mesh was disposed or left the scene and another mesh the skeleton skins took
   * its place (component space and, when it was that mesh, the character root moved there; see {@link detachment}).
   */
  meshesAdopted = 0;
  /**
   * Notified when a bone-only skeleton's mesh was disposed or left the scene and the rig moved to another mesh it
   * skins (see {@link detachment}), as soon as that is noticed: what kept the character root or the mesh follows it
   * here.
   */
  readonly onMeshAdoptedObservable = new Observable<MeshAdoption>();
  private spaceNode: TransformNode | null;
  private rootNode: TransformNode | null;
  /** True when the character root was given (`characterRoot`): it stays whatever mesh is adopted. */
  private readonly rootGiven: boolean;
  /** Component space in the world, and the conversions (read each frame by `read`). */
  readonly space = new ComponentSpace();
  /**
   * A bone with bones of the rig below it whose scale is (nearly) 0 or not finite at the last read, or -1:
   * everything below it collapses to a point, so the pose cannot be solved this frame.
   */
  collapsedBone = -1;
  /**
   * A bone whose non-uniform scale (beyond 1e-3) at the last read shears bones below it that the IK turns
   * (a grandchild in the rig), or -1: the solver's rigid bones do not hold there.
   */
  shearedBone = -1;
  /**
   * A bone whose parent changed since the rig was built to another node of the rig or a node hanging from
   * one (or, for a skeleton without linked nodes, to any other bone), or -1: the rig's hierarchy no longer
   * holds.
   */
  reparentedBone = -1;
  /** The parent each id had when the rig was built (node, or bone for bone-only skeletons). */
  private readonly builtParents: (Node | Bone | null)[];
  /** Warning cause and message per bone and kind (built once, on first need). */
  private readonly problemTexts = new Map<number, readonly [string, string]>();
  private _poseIsCurrent = false;
  /** The character root's world matrix at the last read (id 0 was derived from it). */
  private readonly characterMatrix = new Float64Array(16);
  /** True for a skeleton without linked TransformNodes (read and written through its bones). */
  private readonly boneOnly: boolean;
  private readonly boneIds = new Map<Bone, number>();
  /** FixTransforms' state: the animated pose of the bones the mapping writes, and what the IK wrote. */
  private readonly store: AnimatedPoseStore;
  private readonly attachment: RigAttachment;
  /**
   * 1 where {@link write} wrote the local rotation (position) since the last read: a hook that writes during the
   * update (Recoil, HitReaction) takes the dirty marks, and an enable fade after it must still weigh what it wrote.
   */
  private readonly rotationWritten: Uint8Array;
  private readonly positionWritten: Uint8Array;

  /**
   * Builds the rig over `include` (the bones the IK reads or writes) and all their ancestors.
   */
  constructor(skeleton: Skeleton, include: readonly Bone[], options: BabylonRigOptions = {}) {
    const shape = rigShape(skeleton, include, options);
    super(shape.parents);
    this.skeleton = skeleton;
    this.bones = shape.bones;
    this.nodes = shape.nodes;
    this.spaceNode = shape.componentRoot;
    this.bones.forEach((b, i) => {
      if (b !== null) this.boneIds.set(b, i);
    });
    this.rootGiven = options.characterRoot !== undefined;
    this.rootNode =
      options.characterRoot !== undefined ? options.characterRoot : defaultCharacterRoot(skeleton, this.spaceNode);
    this.builtParents = this.bones.map((b, i) => {
      if (i === 0) return null;
      const node = this.nodes[i];
      return node !== null && node !== undefined ? node.parent : b!.getParent();
    });
    this.boneOnly = this.nodes.length > 1 && this.nodes[1] === null;
    const written = new Uint8Array(this.bones.length * 2);
    this.rotationWritten = written.subarray(0, this.bones.length);
    this.positionWritten = written.subarray(this.bones.length);
    this.store = new AnimatedPoseStore(this.nodes, this.bones, this.lscl, this.boneOnly);
    const probe = this.bones.findIndex((b, i) => i > 0 && b !== null && this.nodes[i] !== null);
    this.attachment = new RigAttachment(
      skeleton.getScene(),
      skeleton,
      this.nodes,
      this.boneOnly ? shape.mesh : null,
      probe > 0 ? { bone: this.bones[probe]!, node: this.nodes[probe]! } : null,
      this.bones,
    );
    this.read();
  }

  /** World matrix of component space this frame. */
  get componentToWorld(): Matrix {
    return this.space.componentToWorld;
  }

  /** Inverse of componentToWorld. */
  get worldToComponent(): Matrix {
    return this.space.worldToComponent;
  }

  /** Rotation part of componentToWorld in Babylon's convention (rotationFromMatrix: Y flipped under a mirror). */
  get componentRotation(): Quat {
    return this.space.rotation;
  }

  /** Uniform scale of component space in the world (mean of the axes' lengths). */
  get componentScale(): number {
    return this.space.scale;
  }

  /** True when component space is mirrored in the world (glTF in a left-handed scene). */
  get mirrored(): boolean {
    return this.space.mirrored;
  }

  /** The id of a Babylon bone, or -1 when it is not in the rig. */
  idOf(bone: Bone): number {
    return this.boneIds.get(bone) ?? -1;
  }

  /**
   * A node moved under another parent after the rig was built: under a node outside the rig, that parent's
   * transform in component space is read for FK (Babylon composes with it); under a node of the rig or one
   * hanging from it (whose world matrix the solve would change), the rig's hierarchy no longer holds
   * (reparentedBone). Back under its own parent, the override is dropped.
   */
  private readExternalParent(i: number, parent: Node | null): void {
    if (parent === this.builtParents[i]) {
      this.hasExternal[i] = 0;
      return;
    }
    for (let a: Node | null = parent; a !== null && a !== this.componentRoot; a = a.parent) {
      if (this.nodes.includes(a as TransformNode)) {
        this.hasExternal[i] = 0;
        if (this.reparentedBone < 0) this.reparentedBone = i;
        return;
      }
    }
    const e = (this.external ??= new Float64Array(this.bones.length * 16));
    const o = i * 16;
    // the parent's world matrix × world → component (row vectors); a parent at the scene root: world → component
    if (parent !== null)
      currentWorldMatrix(parent as TransformNode).multiplyToRef(this.worldToComponent, externalMatrix);
    else externalMatrix.copyFrom(this.worldToComponent);
    const m = externalMatrix.m;
    e[o] = m[12]!;
    e[o + 1] = m[13]!;
    e[o + 2] = m[14]!;
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) e[o + 3 + r * 3 + c] = m[r * 4 + c]!;
    rotationFromMatrix(m, tq);
    e[o + 12] = tq.x;
    e[o + 13] = tq.y;
    e[o + 14] = tq.z;
    e[o + 15] = tq.w;
    this.hasExternal[i] = 1;
  }

  /**
   * The warning (cause, message) for what the last read found on bone `id`: `collapsed` for
   * {@link collapsedBone}, `sheared` for {@link shearedBone}, `reparented` for {@link reparentedBone}.
   * Built once per bone and kind.
   */
  problem(kind: "collapsed" | "sheared" | "reparented", id: number): readonly [string, string] {
    const key = kind === "collapsed" ? -id : kind === "reparented" ? id + 0.5 : id;
    let text = this.problemTexts.get(key);
    if (text === undefined) {
      const name = this.getName(id);
      const s = this.localScales[id]!;
      const scale = `(${[s.x, s.y, s.z].map((v) => +v.toPrecision(4)).join(", ")})`;
      text = rigProblemText(kind, name, scale);
      this.problemTexts.set(key, text);
    }
    return text;
  }

  /**
   * The warning (cause, message) when the pose just read cannot be solved (a bone scaled to 0 above others,
   * or moved under another bone of the skeleton), or null: every IK on this rig skips such a frame.
   */
  blockingProblem(): readonly [string, string] | null {
    if (this.collapsedBone >= 0) return this.problem("collapsed", this.collapsedBone);
    if (this.reparentedBone >= 0) return this.problem("reparented", this.reparentedBone);
    return null;
  }

  /** The warning when a non-uniform scale shears bones the IK turns (solved anyway), or null. */
  shearProblem(): readonly [string, string] | null {
    return this.shearedBone >= 0 ? this.problem("sheared", this.shearedBone) : null;
  }

  /** Bone name for messages. */
  getName(id: number): string {
    if (id === 0) return this.characterRoot?.name ?? "(character root)";
    return this.bones[id]?.name ?? this.nodes[id]?.name ?? `bone ${id}`;
  }

  /**
   * Reads component space and every mapped bone's local transform from Babylon, then runs FK. What the IK
   * wrote and still stands is undone first ({@link restoreAnimatedPose}), so the read always sees the pose
   * as the animation and other code left it.
   */
  read(): void {
    if (this.store.holdsWrites) this.restoreAnimatedPose();
    this.rejected = false;
    this.rotationWritten.fill(0);
    this.positionWritten.fill(0);
    const componentChanged = this.space.read(this.componentRoot, this.boneOnly && this.skeleton.needInitialSkinMatrix);
    let collapsed = -1;
    let sheared = -1;
    let reparented = -1;
    this.reparentedBone = -1;
    const lpos = this.lpos;
    const lrot = this.lrot;
    const lscl = this.lscl;
    for (let i = 1; i < this.bones.length; i++) {
      const node = this.nodes[i];
      let p: Vector3;
      let q: Quaternion;
      let sc: Vector3;
      let decomposing = false;
      if (node !== null && node !== undefined) {
        const parent = node.parent;
        if (parent !== this.builtParents[i] || this.hasExternal[i] !== 0) this.readExternalParent(i, parent);
        p = node.position;
        const nq = node.rotationQuaternion;
        q =
          nq !== null
            ? nq
            : Quaternion.RotationYawPitchRollToRef(node.rotation.y, node.rotation.x, node.rotation.z, bq);
        sc = node.scaling;
      } else {
        const bone = this.bones[i]!;
        if (bone.getParent() !== this.builtParents[i] && reparented < 0) reparented = i;
        // whether the getters below decompose the bone's matrix (the store keeps that decomposition)
        decomposing = (bone as unknown as { _needToDecompose: boolean })._needToDecompose;
        p = bone.position;
        q = bone.rotationQuaternion;
        sc = bone.scaling;
      }
      const o3 = i * 3;
      const o4 = i * 4;
      lpos[o3] = p.x;
      lpos[o3 + 1] = p.y;
      lpos[o3 + 2] = p.z;
      const sx = sc.x;
      const sy = sc.y;
      const sz = sc.z;
      lscl[o3] = sx;
      lscl[o3 + 1] = sy;
      lscl[o3 + 2] = sz;
      // which FK each bone takes this frame (scales and parents change only here; parents come first)
      let uniform = isUniform(lscl, o3);
      // a mirror (a side mirrored by a negative scale) is uniform after a half turn: FK stays rigid below it
      const mirror = uniform ? 0 : mirrorAxis(lscl, o3);
      if (mirror !== 0) uniform = true;
      this.mirrorAxis[i] = mirror;
      this.uniformScale[i] = uniform ? 1 : 0;
      const parent = this.parents[i]!;
      this.aligned[i] =
        this.hasExternal[i] !== 0 ? 0 : parent < 0 ? 1 : this.aligned[parent]! & this.uniformScale[parent]!;
      if (this.subtreeEnd[i]! > i + 1) {
        // hidden by scale (or a broken scale): the bones below collapse, nothing to solve
        const ax = sx < 0 ? -sx : sx;
        const ay = sy < 0 ? -sy : sy;
        const az = sz < 0 ? -sz : sz;
        if (!(ax > 1e-6 && ay > 1e-6 && az > 1e-6 && ax < 1e30 && ay < 1e30 && az < 1e30)) {
          if (collapsed < 0) collapsed = i;
        } else if (!uniform && sheared < 0 && this.hasGrandchild[i] !== 0 && !isUniformWithin(lscl, o3, 1e-3)) {
          sheared = i;
        }
      }
      // the animated pose exactly as Babylon holds it (raw, before normalisation), for restoring; copied
      // object to object (see ARCHITECTURE.md, "Doubles across calls")
      const k = this.store.indexOf[i]!;
      if (k >= 0) {
        // (Babylon's fields read directly: no double crosses a call)
        const a = this.store.animated;
        const o = k * 7;
        a[o] = p._x;
        a[o + 1] = p._y;
        a[o + 2] = p._z;
        a[o + 3] = q._x;
        a[o + 4] = q._y;
        a[o + 5] = q._z;
        a[o + 6] = q._w;
        if (node !== null && node !== undefined) this.store.noteEulerRead(k, node.rotationQuaternion, node.rotation);
        else if (!this.store.noteBoneRead(k, this.bones[i]!, decomposing)) {
          const lm = this.bones[i]!.getLocalMatrix().m;
          const am = this.store.animatedMatrices;
          const om = k * 16;
          for (let j = 0; j < 16; j++) am[om + j] = lm[j]!;
        }
      }
      // normalizeQuat
      const qx = q.x;
      const qy = q.y;
      const qz = q.z;
      const qw = q.w;
      const l = Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
      if (!(l > 0) || l === Infinity) {
        lrot[o4] = 0;
        lrot[o4 + 1] = 0;
        lrot[o4 + 2] = 0;
        lrot[o4 + 3] = 1;
      } else {
        const inv = 1 / l;
        lrot[o4] = qx * inv;
        lrot[o4 + 1] = qy * inv;
        lrot[o4 + 2] = qz * inv;
        lrot[o4 + 3] = qw * inv;
      }
      this.rotationDirty[i] = 0;
      this.positionDirty[i] = 0;
    }
    this.collapsedBone = collapsed;
    this.shearedBone = sheared;
    if (reparented >= 0) this.reparentedBone = reparented;
    this.readCharacterRoot(componentChanged);
    for (let i = 1; i < this.bones.length; i++) this.forwardKinematics(i);
    this.stale.fill(0);
    this.anyStale = false;
    this.version++;
    this._poseIsCurrent = true;
  }

  /**
   * True from `read()` to `write()`: the rig holds this update's pose (as animated, plus what hooks have
   * set through it since), so a bone's world transform can be taken from it instead of from Babylon. False
   * outside an update, where Babylon's nodes may have moved on (animations, user code).
   */
  get poseIsCurrent(): boolean {
    return this._poseIsCurrent;
  }

  /**
   * The bone's world matrix from the rig's pose: its component-space scale, rotation and position, then component space
   * to world.
   */
  worldMatrixToRef(bone: number, out: Matrix): Matrix {
    return this.componentMatrix(bone).multiplyToRef(this.componentToWorld, out);
  }

  /**
   * @internal The bone's world matrix as shown now: the rig's pose (the last solve's) carried by component space's
   * world matrix now, so a character moved since the last read carries the bone with it.
   */
  _shownWorldMatrixToRef(bone: number, out: Matrix): Matrix {
    const now = this._componentToWorldNow(shownSpace);
    return this.componentMatrix(bone).multiplyToRef(now, out);
  }

  /** The bone's component-space matrix from the rig's pose, in a scratch matrix. */
  private componentMatrix(bone: number): Matrix {
    // the scratch Babylon objects' fields written directly, not through `set`
    // (see ARCHITECTURE.md, "Doubles across calls")
    const p = this.getPosition(bone, tv);
    bv2._x = p.x;
    bv2._y = p.y;
    bv2._z = p.z;
    const r = this.getRotation(bone, tq);
    bq._x = r.x;
    bq._y = r.y;
    bq._z = r.z;
    bq._w = r.w;
    const s = this.getScale(bone, tv);
    bv._x = s.x;
    bv._y = s.y;
    bv._z = s.z;
    if (this.aligned[bone] !== 0) {
      Matrix.ComposeToRef(bv, bq, bv2, rigMatrix);
    } else {
      // sheared by a non-uniform scale above: the linear part FK composed, not scale · rotation
      const l = this.clin;
      const o = bone * 9;
      Matrix.FromValuesToRef(
        l[o]!,
        l[o + 1]!,
        l[o + 2]!,
        0,
        l[o + 3]!,
        l[o + 4]!,
        l[o + 5]!,
        0,
        l[o + 6]!,
        l[o + 7]!,
        l[o + 8]!,
        0,
        bv2._x,
        bv2._y,
        bv2._z,
        1,
        rigMatrix,
      );
    }
    return rigMatrix;
  }

  /** The bone's world position from the rig's pose, into `out`. */
  getWorldPosition(bone: number, out: Vector3): Vector3 {
    return this.componentToWorldPoint(this.getPosition(bone, tv), out);
  }

  /**
   * The bone's world rotation from the rig's pose in Babylon's convention (see worldToComponentRotation), into `out`.
   */
  getWorldRotation(bone: number, out: Quaternion): Quaternion {
    const r = this.getRotation(bone, tq);
    if (this.mirroredFrame(bone)) {
      // Babylon reads a mirrored frame with its Y axis flipped: the rotation half turned about Y (r × y)
      const x = r.x;
      r.x = -r.z;
      r.z = x;
      const w = r.w;
      r.w = -r.y;
      r.y = w;
    }
    return this.componentToWorldRotation(r, out);
  }

  /**
   * A world rotation in Babylon's convention (a node's `absoluteRotationQuaternion`) as the component rotation bone
   * `bone` takes to show it (-1: any bone), into `out`: {@link worldToComponentRotation}, and for a bone whose frame a
   * mirror scale turns inside out, the half turn {@link getWorldRotation} reads undone.
   */
  worldToBoneRotation(bone: number, world: ReadonlyQuat, out: Quat): Quat {
    this.space.worldToComponentRotation(world, out);
    if (bone > 0 && this.mirroredFrame(bone)) {
      // out × y⁻¹
      const x = out.x;
      out.x = out.z;
      out.z = -x;
      const w = out.w;
      out.w = out.y;
      out.y = -w;
    }
    return out;
  }

  /**
   * True where a mirror scale on the bone or above it (an odd number of them) turns its frame inside out in
   * component space: its sign-uniform scale is negative (FK's reading, see FlatPose's mirrorAxis).
   */
  private mirroredFrame(bone: number): boolean {
    return this.aligned[bone] !== 0 && this.getScale(bone, tv3).x < 0;
  }

  /**
   * Writes the local rotations and positions changed since `read` back to Babylon, and remembers what it
   * wrote to the bones FixTransforms covers. When any of them is not finite, or a rotation set since the
   * read was not one (NaN or ±∞, e.g. set into the solver by a hook), nothing is written, the bones keep
   * the pose read, and it returns false ({@link writeRejected} until the next read).
   */
  write(): boolean {
    this._poseIsCurrent = false;
    if (this.rejected || !this.changesFinite()) {
      this.rotationDirty.fill(0);
      this.positionDirty.fill(0);
      this.rejected = true;
      return false;
    }
    for (let i = 1; i < this.bones.length; i++) {
      const rd = this.rotationDirty[i] !== 0;
      const pd = this.positionDirty[i] !== 0;
      if (!rd && !pd) continue;
      const node = this.nodes[i];
      const lrot = this.lrot;
      const lpos = this.lpos;
      const o3 = i * 3;
      const o4 = i * 4;
      const k = this.store.indexOf[i]!;
      if (node !== null && node !== undefined) {
        if (rd) {
          // (asked each time: a node may be switched between Euler and quaternion rotation at any point)
          const nq = node.rotationQuaternion;
          if (nq === null) {
            bq.set(lrot[o4]!, lrot[o4 + 1]!, lrot[o4 + 2]!, lrot[o4 + 3]!);
            bq.toEulerAnglesToRef(bv);
            node.rotation.copyFrom(bv);
            // remembered as read() will see it: the quaternion of the Euler angles written
            if (k >= 0) this.store.remember(k, Quaternion.RotationYawPitchRollToRef(bv.y, bv.x, bv.z, bq), null, bv);
          } else {
            // fields written as `set` writes them (see ARCHITECTURE.md, "Doubles across calls")
            nq._x = lrot[o4]!;
            nq._y = lrot[o4 + 1]!;
            nq._z = lrot[o4 + 2]!;
            nq._w = lrot[o4 + 3]!;
            nq._isDirty = true;
            if (k >= 0) this.store.remember(k, nq, null);
          }
        }
        if (pd) {
          const np = node.position;
          np._x = lpos[o3]!;
          np._y = lpos[o3 + 1]!;
          np._z = lpos[o3 + 2]!;
          np._isDirty = true;
          if (k >= 0) this.store.remember(k, null, np);
        }
      } else {
        const bone = this.bones[i]!;
        if (rd) {
          bq._x = lrot[o4]!;
          bq._y = lrot[o4 + 1]!;
          bq._z = lrot[o4 + 2]!;
          bq._w = lrot[o4 + 3]!;
          bq._isDirty = true;
          bone.setRotationQuaternion(bq);
          if (k >= 0) this.store.remember(k, bq, null);
        }
        if (pd) {
          bv._x = lpos[o3]!;
          bv._y = lpos[o3 + 1]!;
          bv._z = lpos[o3 + 2]!;
          bv._isDirty = true;
          bone.position = bv;
          if (k >= 0) this.store.remember(k, null, bv);
        }
      }
      if (rd) this.rotationWritten[i] = 1;
      if (pd) this.positionWritten[i] = 1;
      this.rotationDirty[i] = 0;
      this.positionDirty[i] = 0;
    }
    return true;
  }

  /**
   * @internal Level of detail: cross-fades the local pose about to be written ({@link OutputFade.apply}) and
   * marks what it changed stale for FK. Allocation-free.
   */
  _fadeOutput(fade: OutputFade): void {
    const indexOf = this.store.indexOf;
    // what was written since the read is this update's output too (lrot and lpos still hold it): weighed, not
    // taken for the animated pose (Recoil's hand turn, written after the solve, had the whole output off at once)
    for (let i = 1; i < indexOf.length; i++) {
      if (this.rotationWritten[i] !== 0) this.rotationDirty[i] = 1;
      if (this.positionWritten[i] !== 0) this.positionDirty[i] = 1;
    }
    fade.apply(this.lrot, this.lpos, this.rotationDirty, this.positionDirty, indexOf, this.store.animated);
    if (!fade.active) return;
    for (let i = 1; i < indexOf.length; i++) if (indexOf[i]! >= 0 && this.stale[i] === 0) this.markStale(i);
  }

  /**
   * @internal Component space's world matrix now, into `out` (`componentToWorld` is the last read's): where
   * the pose stands if the character moved since.
   */
  _componentToWorldNow(out: Matrix): Matrix {
    return ComponentSpace.worldNowToRef(this.componentRoot, this.boneOnly && this.skeleton.needInitialSkinMatrix, out);
  }

  /** @internal Level of detail: the offsets of the last settled output, before a fade starts from it. */
  _captureFade(fade: OutputFade): void {
    fade.capture(this.store.indexOf, this.store.animated);
  }

  /** True when the last {@link write} refused a non-finite pose (until the next read). */
  get writeRejected(): boolean {
    return this.rejected;
  }

  /** True when every local value `write` would write is finite. */
  private changesFinite(): boolean {
    const lrot = this.lrot;
    const lpos = this.lpos;
    // x − x is 0 for a finite x and NaN for NaN and ±∞: one comparison at the end
    let sum = 0;
    for (let i = 1; i < this.bones.length; i++) {
      if (this.rotationDirty[i] !== 0) {
        const o4 = i * 4;
        sum +=
          lrot[o4]! -
          lrot[o4]! +
          (lrot[o4 + 1]! - lrot[o4 + 1]!) +
          (lrot[o4 + 2]! - lrot[o4 + 2]!) +
          (lrot[o4 + 3]! - lrot[o4 + 3]!);
      }
      if (this.positionDirty[i] !== 0) {
        const o3 = i * 3;
        sum += lpos[o3]! - lpos[o3]! + (lpos[o3 + 1]! - lpos[o3 + 1]!) + (lpos[o3 + 2]! - lpos[o3 + 2]!);
      }
    }
    return sum === 0;
  }

  /** @inheritdoc */
  storeDefaultLocalState(bones: readonly FixedBone[]): void {
    this.store.store(bones);
  }

  /**
   * Undoes what the IK wrote, where it still stands (`AnimatedPoseStore.restore`): with every weight
   * 0 the bones are exactly as without the IK. Allocation-free; nothing to do in a frame whose
   * FixTransforms already ran.
   */
  restoreAnimatedPose(): void {
    this._poseIsCurrent = false;
    this.store.restore();
  }

  /**
   * Writes back what the last {@link restoreAnimatedPose} took off (`AnimatedPoseStore.reapply`): between frames,
   * once a component being created has read the animated pose underneath. Allocation-free.
   */
  reapplyOutput(): void {
    this._poseIsCurrent = false;
    this.store.reapply();
  }

  /**
   * FixTransforms on a copy Babylon took of a bone's property (`AnimatedPoseStore.undoOnCopy`): what the IK
   * wrote and still owns becomes, in `value`, the animated value it replaced.
   */
  undoOnCopy(target: object, path: string, value: object): void {
    this.store.undoOnCopy(target, path, value);
  }

  /**
   * FixTransforms, before the animations: {@link restoreAnimatedPose}. The IK's own output is taken off,
   * so nothing it wrote can accumulate on a channel no animation drives, while a pose the IK did not write
   * (a paused or stopped clip, user code) is kept as it is. Writes straight to Babylon (it runs outside
   * read/write).
   */
  fixTransforms(): void {
    this.restoreAnimatedPose();
  }

  /** Watches the nodes for disposal (`RigAttachment.watch`); for a rig that lives on. */
  watchDisposal(): void {
    this.attachment.watch();
  }

  /** Removes the observers of {@link watchDisposal} (the rig is not used afterwards). */
  dispose(): void {
    this.attachment.dispose();
    this.onMeshAdoptedObservable.clear();
  }

  /**
   * Why the rig cannot be read or written this frame ({@link RigDetachment}; Attached when it can). A bone-only
   * skeleton whose mesh was disposed while another mesh it skins stays (clothes, armour: Babylon skins each in its
   * own space) moves to that mesh and stays attached; MeshDisposed once none is left. Its mesh taken out of the scene
   * undisposed (`scene.removeMesh`, an asset container's `removeAllFromScene`) it moves likewise (seen on a watched
   * rig, through the scene's mesh observables), and stays there when that mesh comes back; with no other mesh it
   * stays in the removed one (expected back) until one skinned by the skeleton is added, or a mesh in the scene is
   * given the skeleton (looked for each frame while it waits: Babylon notifies no such change).
   */
  detachment(): RigDetachment {
    const state = this.attachment.state();
    if (state === RigDetachment.MeshDisposed) return this.adoptMesh() ? this.attachment.state() : state;
    const attachment = this.attachment;
    // the mesh only left the scene (it may come back): moved off while another shows the character, else kept;
    // while it waits, a mesh given the skeleton after it was added (no event) is looked for
    const waited = attachment.waitsForMesh && this.skinnedMesh() !== null;
    if (state === RigDetachment.Attached && (attachment.meshLeft || waited)) {
      const back = this.skeleton.getScene().meshes.includes(this.spaceNode as AbstractMesh);
      if (back || !this.adoptMesh()) attachment.meshStays(back);
    }
    return state;
  }

  /** Another mesh in the scene the skeleton skins: not an instance (it draws its source's skin), not disposed. */
  private skinnedMesh(): AbstractMesh | null {
    const meshes = this.skeleton.getScene().meshes;
    for (let i = 0; i < meshes.length; i++) {
      const m = meshes[i]!;
      if (m.skeleton === this.skeleton && m !== this.spaceNode && !m.isAnInstance && !m.isDisposed()) return m;
    }
    return null;
  }

  /** Moves component space (and a default character root that was the mesh) to another mesh the skeleton skins. */
  private adoptMesh(): boolean {
    // (an instance has no skin of its own: it draws its source's, which is the mesh that left)
    const mesh = this.skinnedMesh();
    if (mesh === null) return false;
    const formerMesh = this.spaceNode;
    const formerRoot = this.rootNode;
    this.spaceNode = mesh;
    this.attachment.meshMoved(mesh);
    if (!this.rootGiven && (formerRoot === null || formerRoot === formerMesh || formerRoot.isDisposed()))
      this.rootNode = defaultCharacterRoot(this.skeleton, mesh);
    this.meshesAdopted++;
    if (this.onMeshAdoptedObservable.hasObservers()) {
      // (rare: once per mesh disposed or removed; what it allocates is not a frame's)
      const formerSpace = this.space.componentToWorld.clone();
      const space = this._componentToWorldNow(formerSpace.clone());
      this.onMeshAdoptedObservable.notifyObservers({
        formerMesh,
        formerRoot,
        mesh,
        root: this.rootNode,
        formerSpace,
        space,
      });
    }
    return true;
  }

  /** World point → component space. */
  worldToComponentPoint(world: ReadonlyVec3, out: Vec3): Vec3 {
    return this.space.worldToComponentPoint(world, out);
  }

  /** Component point → world. */
  componentToWorldPoint(component: ReadonlyVec3, out: Vector3): Vector3 {
    return this.space.componentToWorldPoint(component, out);
  }

  /** World direction/offset → component space (scale included, so lengths convert too). */
  worldToComponentVector(world: ReadonlyVec3, out: Vec3): Vec3 {
    return this.space.worldToComponentVector(world, out);
  }

  /** Component direction/offset → world. */
  componentToWorldVector(component: ReadonlyVec3, out: Vector3): Vector3 {
    return this.space.componentToWorldVector(component, out);
  }

  /** World rotation (Babylon's convention, see {@link ComponentSpace}) → component space. */
  worldToComponentRotation(world: ReadonlyQuat, out: Quat): Quat {
    return this.space.worldToComponentRotation(world, out);
  }

  /** Component rotation → world in Babylon's convention. */
  componentToWorldRotation(component: ReadonlyQuat, out: Quaternion): Quaternion {
    return this.space.componentToWorldRotation(component, out);
  }

  /**
   * The character root's orientation in component space (id 0): its world up and forward brought in.
   * Skipped when neither component space nor the root's world matrix changed since the last read (the
   * first read always derives it: component space is new then).
   */
  private readCharacterRoot(componentChanged: boolean): void {
    const root = this.characterRoot;
    const up = tv;
    const forward = tv2;
    let w: Float32Array | Float64Array | readonly number[] | null = null;
    if (root !== null) {
      w = currentWorldMatrix(root).m;
      const last = this.characterMatrix;
      if (!componentChanged && matrixEquals(w, last)) return;
      for (let i = 0; i < 16; i++) last[i] = w[i]!;
    } else if (!componentChanged) {
      return;
    }
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
    lookRotation(tq, forward, up);
    this.lrot[0] = this.crot[0] = tq.x;
    this.lrot[1] = this.crot[1] = tq.y;
    this.lrot[2] = this.crot[2] = tq.z;
    this.lrot[3] = this.crot[3] = tq.w;
    if (w !== null) {
      tv.x = w[12]!;
      tv.y = w[13]!;
      tv.z = w[14]!;
      this.worldToComponentPoint(tv, tv3);
      this.cpos[0] = tv3.x;
      this.cpos[1] = tv3.y;
      this.cpos[2] = tv3.z;
    }
  }
}
