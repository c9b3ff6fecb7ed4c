import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Node } from "@babylonjs/core/node.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import {
  Quat,
  type ReadonlyQuat,
  conjugateMultiply,
  copyQuat,
  lookRotation,
  multiply,
} from "../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";
import type { FixedBone, RestorablePose } from "../mapping/biped-mapping.js";

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

/** Flags of `owned`: the channel holds what the IK wrote. */
const OWN_ROTATION = 1;
const OWN_POSITION = 2;

const tv = new Vec3();
const tv2 = new Vec3();
const tq = new Quat();
const tv3 = new Vec3();
const bq = new Quaternion();
const bv = new Vector3();
const bv2 = new Vector3();
const rigMatrix = new Matrix();
const skinPoseWorld = new Matrix();
const externalMatrix = new Matrix();
const restoreMatrix = new Matrix();
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
 * written through the bones, in the space of the mesh they deform: its world matrix, preceded by its pose
 * matrix when the skeleton has `needInitialSkinMatrix` (files from Babylon's 3ds Max and Maya exporters),
 * as Babylon skins them.
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

  // The pose, flat (one contiguous block per character, no heap object per vector): local and
  // component-space position (3 per id, at id * 3), rotation (4, at id * 4) and scale (3).
  // The component-space pose is brought up to date lazily: setRotation / setPosition only change the
  // bone's local value and mark its subtree stale; a stale bone is recomputed (from its parent) when it is
  // read. Each bone is then computed once per change of an ancestor that precedes a read, not once per
  // write. The arithmetic is that of math/quat.ts (normalizeQuat, multiply, rotateVector…), written out.
  private readonly lpos: Float64Array;
  private readonly lrot: Float64Array;
  private readonly lscl: Float64Array;
  private readonly wpos: Float64Array;
  private readonly wrot: Float64Array;
  private readonly wscl: Float64Array;
  /**
   * Component-space linear part (9 per id, rows = the images of the local axes, Babylon's row-vector
   * convention), kept only where a child needs it: where the bone's frame is not a rotation times its
   * per-axis scale (an ancestor's non-uniform scale sheared it) or its own scale is non-uniform.
   */
  private readonly wlin: Float64Array;
  /**
   * 1 where the bone's component-space linear part is its rotation with its per-axis scale (no strict
   * ancestor has a non-uniform scale): FK by quaternions, bit for bit as for uniform-scale rigs; 0 where a
   * non-uniform scale above shears it (or the bone was moved under a node outside the rig), and FK composes
   * the linear parts as Babylon does. Set by `read`, where scales and parents are read.
   */
  private readonly aligned: Uint8Array;
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
  /**
   * Per id, when its node was moved under a node outside the rig after the rig was built: the new parent's
   * transform in component space (translation 3, linear part 9 as rows, proper rotation 4).
   */
  private external: Float64Array | null = null;
  /** 1 where `external` holds the id's parent transform this frame. */
  private readonly hasExternal: Uint8Array;
  /** 1 where the bone's local scale is uniform (to 1e-5) at the last read. */
  private readonly uniformScale: Uint8Array;
  /** 1 where the bone has a grandchild in the rig. */
  private readonly hasGrandchild: Uint8Array;
  /** Warning cause and message per bone and kind (built once, on first need). */
  private readonly problemTexts = new Map<number, readonly [string, string]>();
  /** Bumped whenever the local pose changes (read, setRotation, setPosition): the views below follow it. */
  private version = 0;
  private viewVersion = -1;
  private localViewVersion = -1;
  private readonly positionViews: Vec3[];
  private readonly rotationViews: Quat[];
  private readonly scaleViews: Vec3[];
  private readonly localPositionViews: Vec3[];
  private readonly localRotationViews: Quat[];
  private readonly localScaleViews: Vec3[];
  /** 1 where the component-space pose is stale (an ancestor's or the bone's local value changed). */
  private readonly stale: Uint8Array;
  /** True when any entry of `stale` may be set. */
  private anyStale = false;
  private _poseIsCurrent = false;
  /** Scratch chain for `ensure` (a bone and its stale ancestors). */
  private readonly chain: Int32Array;

  /** World matrix of component space this frame. */
  readonly componentToWorld = new Matrix();
  /** Inverse of componentToWorld. */
  readonly worldToComponent = new Matrix();
  /** Rotation part of componentToWorld in Babylon's convention (rotationFromMatrix: Y flipped under a mirror). */
  readonly componentRotation = new Quat();
  /** Uniform scale of component space in the world (mean of the axes' lengths). */
  componentScale = 1;
  /** False until componentToWorld and what derives from it were read once. */
  private componentValid = false;
  /** The character root's world matrix at the last read (id 0 was derived from it). */
  private readonly characterMatrix = new Float64Array(16);
  /** Index of the skeleton in its scene's `skeletons` when last found there. */
  private skeletonIndex = 0;
  /** The skeleton's scene (a skeleton never changes scene). */
  private readonly scene: Scene;
  /** True for a skeleton without linked TransformNodes (read and written through its bones). */
  private readonly boneOnly: boolean;
  /** True between watchDisposal and dispose. */
  private watching = false;

  private readonly boneIds = new Map<Bone, number>();
  // per-bone flags, 0 or 1 (subarrays of one block, see the constructor)
  private readonly rotationDirty: Uint8Array;
  private readonly positionDirty: Uint8Array;
  // FixTransforms state, flat: for the k-th stored bone (the bones the mapping writes), its id, and
  // position (3) + rotation (4) at k * 7 of the animated pose the last read found (animatedValues) and of
  // what the IK last wrote to Babylon (writtenValues): Babylon's own doubles, bit for bit. `owned` says which
  // of the bone's channels hold what the IK wrote (OWN_ROTATION, OWN_POSITION), as far as the IK knows.
  private fixIds = new Int32Array(0);
  private animatedValues = new Float64Array(0);
  private writtenValues = new Float64Array(0);
  /**
   * Plain Bones only: each stored bone's local matrix as the last read found it (16 at k * 16). A Bone
   * recomposes its matrix from rotation, position and decomposed scale when either is set, which loses a
   * sheared matrix's last bits (a .babylon file's 4-decimal matrices): the matrix itself is restored.
   */
  private animatedMatrices = new Float64Array(0);
  private owned = new Uint8Array(0);
  /** True when some entry of `owned` may be set. */
  private anyOwned = false;
  /** True when a non-finite value was set since the last read, or the last write refused one (reset by read). */
  private rejected = false;
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
    // One block for the pose's numbers and one for the flags: with many characters each frame fetches a
    // character's data from memory again, and separate arrays each cost their own header and partly used
    // lines (npm run bench:touch; bench/README.md).
    const pose = new Float64Array(n * 29);
    this.lpos = pose.subarray(0, n * 3);
    this.lrot = pose.subarray(n * 3, n * 7);
    this.lscl = pose.subarray(n * 7, n * 10).fill(1);
    this.wpos = pose.subarray(n * 10, n * 13);
    this.wrot = pose.subarray(n * 13, n * 17);
    this.wscl = pose.subarray(n * 17, n * 20).fill(1);
    this.wlin = pose.subarray(n * 20, n * 29);
    for (let i = 0; i < n; i++) {
      this.lrot[i * 4 + 3] = 1;
      this.wrot[i * 4 + 3] = 1;
    }
    this.positionViews = this.bones.map(() => new Vec3());
    this.rotationViews = this.bones.map(() => new Quat());
    this.scaleViews = this.bones.map(() => new Vec3(1, 1, 1));
    this.localPositionViews = this.bones.map(() => new Vec3());
    this.localRotationViews = this.bones.map(() => new Quat());
    this.localScaleViews = this.bones.map(() => new Vec3(1, 1, 1));
    const flags = new Uint8Array(n * 7);
    this.stale = flags.subarray(0, n);
    this.rotationDirty = flags.subarray(n, 2 * n);
    this.positionDirty = flags.subarray(2 * n, 3 * n);
    this.aligned = flags.subarray(3 * n, 4 * n).fill(1);
    this.hasGrandchild = flags.subarray(4 * n, 5 * n);
    this.hasExternal = flags.subarray(5 * n, 6 * n);
    this.uniformScale = flags.subarray(6 * n, 7 * n).fill(1);
    this.builtParents = this.bones.map((b, i) => {
      if (i === 0) return null;
      const node = this.nodes[i];
      return node !== null && node !== undefined ? node.parent : b!.getParent();
    });
    for (let i = 1; i < n; i++) {
      const p = this.parents[i]!;
      const g = p > 0 ? this.parents[p]! : -1;
      if (g > 0) this.hasGrandchild[g] = 1;
    }
    const ints = new Int32Array(n * 2);
    this.chain = ints.subarray(0, n);
    this.defaultIndex = ints.subarray(n, 2 * n).fill(-1);
    this.scene = skeleton.getScene();
    this.boneOnly = this.nodes.length > 1 && this.nodes[1] === null;
    this.read();
  }

  /**
   * Component-space positions, up to date whenever read through this property (a copy of the rig's flat
   * pose, refreshed on access after a change: read it, do not write it; use setPosition).
   */
  get positions(): readonly Vec3[] {
    this.syncViews();
    return this.positionViews;
  }

  /** Component-space rotations (as {@link positions}). */
  get rotations(): readonly Quat[] {
    this.syncViews();
    return this.rotationViews;
  }

  /** Component-space scales (product of local scales; shear from non-uniform scale is ignored). */
  get scales(): readonly Vec3[] {
    this.syncViews();
    return this.scaleViews;
  }

  /** Local positions (as {@link positions}). */
  get localPositions(): readonly Vec3[] {
    this.syncLocalViews();
    return this.localPositionViews;
  }

  /** Local rotations (as {@link positions}). */
  get localRotations(): readonly Quat[] {
    this.syncLocalViews();
    return this.localRotationViews;
  }

  /** Local scales (as {@link positions}). */
  get localScales(): readonly Vec3[] {
    this.syncLocalViews();
    return this.localScaleViews;
  }

  private syncViews(): void {
    if (this.anyStale) this.flush();
    if (this.viewVersion === this.version) return;
    this.viewVersion = this.version;
    copyViews(this.wpos, this.wrot, this.wscl, this.positionViews, this.rotationViews, this.scaleViews);
  }

  private syncLocalViews(): void {
    if (this.localViewVersion === this.version) return;
    this.localViewVersion = this.version;
    copyViews(this.lpos, this.lrot, this.lscl, this.localPositionViews, this.localRotationViews, this.localScaleViews);
  }

  /** Number of ids (character root + mapped bones). */
  get count(): number {
    return this.bones.length;
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
    if (parent !== null) currentWorldMatrix(parent as TransformNode).multiplyToRef(this.worldToComponent, externalMatrix);
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
      text =
        kind === "reparented"
          ? [`reparented:${name}`, `Bone "${name}" was moved under another bone of the skeleton (or a node hanging from one) after the IK was created: the IK is skipped while it is (the bones keep the animated pose). Create the IK again for the new hierarchy.`]
          : kind === "collapsed"
          ? [`scale-collapsed:${name}`, `Bone "${name}" is scaled to ${scale}: the bones below it collapse to a point, so the IK is skipped while it is (the bones keep the animated pose).`]
          : [
              `scale-non-uniform:${name}`,
              `Bone "${name}" has the non-uniform scale ${scale}: the bones below it that the IK turns are sheared rather than turned rigidly, so targets are missed by about the scale's unevenness times the limb's length. Give bones uniform scales (scale the mesh or the armature instead).`,
            ];
      this.problemTexts.set(key, text);
    }
    return text;
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
    if (this.anyOwned) this.restoreAnimatedPose();
    this.rejected = false;
    const componentChanged = this.readComponentSpace();
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
      if (node !== null && node !== undefined) {
        const parent = node.parent;
        if (parent !== this.builtParents[i] || this.hasExternal[i] !== 0) this.readExternalParent(i, parent);
        p = node.position;
        const nq = node.rotationQuaternion;
        q = nq !== null ? nq : Quaternion.RotationYawPitchRollToRef(node.rotation.y, node.rotation.x, node.rotation.z, bq);
        sc = node.scaling;
      } else {
        const bone = this.bones[i]!;
        if (bone.getParent() !== this.builtParents[i] && reparented < 0) reparented = i;
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
      const uniform = isUniform(sx, sy, sz);
      this.uniformScale[i] = uniform ? 1 : 0;
      const parent = this.parents[i]!;
      this.aligned[i] = this.hasExternal[i] !== 0 ? 0 : parent < 0 ? 1 : this.aligned[parent]! & this.uniformScale[parent]!;
      if (this.subtreeEnd[i]! > i + 1) {
        // hidden by scale (or a broken scale): the bones below collapse, nothing to solve
        const ax = sx < 0 ? -sx : sx;
        const ay = sy < 0 ? -sy : sy;
        const az = sz < 0 ? -sz : sz;
        if (!(ax > 1e-6 && ay > 1e-6 && az > 1e-6 && ax < 1e30 && ay < 1e30 && az < 1e30)) {
          if (collapsed < 0) collapsed = i;
        } else if (!uniform && sheared < 0 && this.hasGrandchild[i] !== 0 && !isUniformWithin(sx, sy, sz, 1e-3)) {
          sheared = i;
        }
      }
      // the animated pose exactly as Babylon holds it (raw, before normalisation), for restoring; copied
      // object to object (see ARCHITECTURE.md, "Doubles across calls")
      const k = this.defaultIndex[i]!;
      if (k >= 0) {
        // (Babylon's fields read directly: no double crosses a call)
        const a = this.animatedValues;
        const o = k * 7;
        a[o] = p._x;
        a[o + 1] = p._y;
        a[o + 2] = p._z;
        a[o + 3] = q._x;
        a[o + 4] = q._y;
        a[o + 5] = q._z;
        a[o + 6] = q._w;
        if (node === null || node === undefined) {
          const lm = this.bones[i]!.getLocalMatrix().m;
          const am = this.animatedMatrices;
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
    for (let i = 1; i < this.bones.length; i++) this.forward(i);
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

  /** The bone's world matrix from the rig's pose: its component-space scale, rotation and position, then component space to world. */
  worldMatrixToRef(bone: number, out: Matrix): Matrix {
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
      const l = this.wlin;
      const o = bone * 9;
      Matrix.FromValuesToRef(l[o]!, l[o + 1]!, l[o + 2]!, 0, l[o + 3]!, l[o + 4]!, l[o + 5]!, 0, l[o + 6]!, l[o + 7]!, l[o + 8]!, 0, bv2._x, bv2._y, bv2._z, 1, rigMatrix);
    }
    return rigMatrix.multiplyToRef(this.componentToWorld, out);
  }

  /** The bone's world position from the rig's pose, into `out`. */
  getWorldPosition(bone: number, out: Vector3): Vector3 {
    return this.componentToWorldPoint(this.getPosition(bone, tv), out);
  }

  /** The bone's world rotation from the rig's pose in Babylon's convention (see worldToComponentRotation), into `out`. */
  getWorldRotation(bone: number, out: Quaternion): Quaternion {
    return this.componentToWorldRotation(this.getRotation(bone, tq), out);
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
      const k = this.defaultIndex[i]!;
      if (node !== null && node !== undefined) {
        if (rd) {
          // (asked each time: a node may be switched between Euler and quaternion rotation at any point)
          const nq = node.rotationQuaternion;
          if (nq === null) {
            bq.set(lrot[o4]!, lrot[o4 + 1]!, lrot[o4 + 2]!, lrot[o4 + 3]!);
            bq.toEulerAnglesToRef(bv);
            node.rotation.copyFrom(bv);
            // remembered as read() will see it: the quaternion of the Euler angles written
            if (k >= 0) this.remember(k, Quaternion.RotationYawPitchRollToRef(bv.y, bv.x, bv.z, bq), null);
          } else {
            nq.set(lrot[o4]!, lrot[o4 + 1]!, lrot[o4 + 2]!, lrot[o4 + 3]!);
            if (k >= 0) this.remember(k, nq, null);
          }
        }
        if (pd) {
          node.position.set(lpos[o3]!, lpos[o3 + 1]!, lpos[o3 + 2]!);
          if (k >= 0) this.remember(k, null, node.position);
        }
      } else {
        const bone = this.bones[i]!;
        if (rd) {
          bq.set(lrot[o4]!, lrot[o4 + 1]!, lrot[o4 + 2]!, lrot[o4 + 3]!);
          bone.setRotationQuaternion(bq);
          if (k >= 0) this.remember(k, bq, null);
        }
        if (pd) {
          bv.set(lpos[o3]!, lpos[o3 + 1]!, lpos[o3 + 2]!);
          bone.position = bv;
          if (k >= 0) this.remember(k, null, bv);
        }
      }
      this.rotationDirty[i] = 0;
      this.positionDirty[i] = 0;
    }
    return true;
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
        sum += lrot[o4]! - lrot[o4]! + (lrot[o4 + 1]! - lrot[o4 + 1]!) + (lrot[o4 + 2]! - lrot[o4 + 2]!) + (lrot[o4 + 3]! - lrot[o4 + 3]!);
      }
      if (this.positionDirty[i] !== 0) {
        const o3 = i * 3;
        sum += lpos[o3]! - lpos[o3]! + (lpos[o3 + 1]! - lpos[o3 + 1]!) + (lpos[o3 + 2]! - lpos[o3 + 2]!);
      }
    }
    return sum === 0;
  }

  /** Records what was just written to stored bone `k` (Babylon's fields, read directly). */
  private remember(k: number, rotation: Quaternion | null, position: Vector3 | null): void {
    const w = this.writtenValues;
    const o = k * 7;
    if (rotation !== null) {
      w[o + 3] = rotation._x;
      w[o + 4] = rotation._y;
      w[o + 5] = rotation._z;
      w[o + 6] = rotation._w;
      this.owned[k]! |= OWN_ROTATION;
    }
    if (position !== null) {
      w[o] = position._x;
      w[o + 1] = position._y;
      w[o + 2] = position._z;
      this.owned[k]! |= OWN_POSITION;
    }
    this.anyOwned = true;
  }

  /** @inheritdoc */
  isSheared(bone: number): boolean {
    return this.aligned[bone] === 0;
  }

  /** @inheritdoc */
  getPosition(bone: number, out: Vec3): Vec3 {
    return this.readVec3(this.wpos, bone, out);
  }

  /** Component-space scale of `bone` (product of local scales) into `out`. */
  getScale(bone: number, out: Vec3): Vec3 {
    return this.readVec3(this.wscl, bone, out);
  }

  /** Bone `bone`'s entry of a component-space array, brought up to date first. */
  private readVec3(w: Float64Array, bone: number, out: Vec3): Vec3 {
    if (this.stale[bone] !== 0) this.ensure(bone);
    const o = bone * 3;
    out.x = w[o]!;
    out.y = w[o + 1]!;
    out.z = w[o + 2]!;
    return out;
  }

  /** @inheritdoc */
  getRotation(bone: number, out: Quat): Quat {
    if (this.stale[bone] !== 0) this.ensure(bone);
    const w = this.wrot;
    const o = bone * 4;
    out.x = w[o]!;
    out.y = w[o + 1]!;
    out.z = w[o + 2]!;
    out.w = w[o + 3]!;
    return out;
  }

  /** @inheritdoc */
  setRotation(bone: number, rotation: ReadonlyQuat): void {
    if (bone <= 0) return;
    const p = this.parents[bone]!;
    let x = rotation.x;
    let y = rotation.y;
    let z = rotation.z;
    let w = rotation.w;
    let r: Float64Array | null = null;
    let o = 0;
    if (this.hasExternal[bone] !== 0) {
      r = this.external!;
      o = bone * 16 + 12;
    } else if (p >= 0) {
      if (this.stale[p] !== 0) this.ensure(p);
      r = this.wrot;
      o = p * 4;
    }
    if (r !== null) {
      // conjugateMultiply(local, parent rotation, rotation)
      const ax = -r[o]!;
      const ay = -r[o + 1]!;
      const az = -r[o + 2]!;
      const aw = r[o + 3]!;
      const bx = x;
      const by = y;
      const bz = z;
      const bw = w;
      x = aw * bx + ax * bw + ay * bz - az * by;
      y = aw * by - ax * bz + ay * bw + az * bx;
      z = aw * bz + ax * by - ay * bx + az * bw;
      w = aw * bw - ax * bx - ay * by - az * bz;
    }
    // normalizeQuat
    const l = Math.sqrt(x * x + y * y + z * z + w * w);
    const lrot = this.lrot;
    const o4 = bone * 4;
    if (!(l > 0) || l === Infinity) {
      // not a rotation (NaN, ±∞ or zero, e.g. from a NaN set into the solver): the write is refused
      this.rejected = true;
      lrot[o4] = 0;
      lrot[o4 + 1] = 0;
      lrot[o4 + 2] = 0;
      lrot[o4 + 3] = 1;
    } else {
      const inv = 1 / l;
      lrot[o4] = x * inv;
      lrot[o4 + 1] = y * inv;
      lrot[o4 + 2] = z * inv;
      lrot[o4 + 3] = w * inv;
    }
    this.rotationDirty[bone] = 1;
    this.markStale(bone);
  }

  /** @inheritdoc */
  setPosition(bone: number, position: ReadonlyVec3): void {
    if (bone <= 0) return;
    const p = this.parents[bone]!;
    const lpos = this.lpos;
    const o3 = bone * 3;
    if (this.hasExternal[bone] !== 0) {
      // (position − the new parent's position) × the inverse of its linear part
      const e = this.external!;
      const o = bone * 16;
      solveRows(e, o + 3, position.x - e[o]!, position.y - e[o + 1]!, position.z - e[o + 2]!, lpos, o3);
    } else if (p < 0) {
      lpos[o3] = position.x;
      lpos[o3 + 1] = position.y;
      lpos[o3 + 2] = position.z;
    } else {
      if (this.stale[p] !== 0) this.ensure(p);
      const wp = this.wpos;
      const p3 = p * 3;
      const vx = position.x - wp[p3]!;
      const vy = position.y - wp[p3 + 1]!;
      const vz = position.z - wp[p3 + 2]!;
      if (this.aligned[p] === 0) {
        // (position − parent position) × the inverse of the parent's linear part
        solveRows(this.wlin, p * 9, vx, vy, vz, lpos, o3);
        this.positionDirty[bone] = 1;
        this.markStale(bone);
        return;
      }
      // inverseRotateVector(local, parent rotation, position − parent position) / parent scale
      const r = this.wrot;
      const p4 = p * 4;
      const qx = -r[p4]!;
      const qy = -r[p4 + 1]!;
      const qz = -r[p4 + 2]!;
      const qw = r[p4 + 3]!;
      const tx = 2 * (qy * vz - qz * vy);
      const ty = 2 * (qz * vx - qx * vz);
      const tz = 2 * (qx * vy - qy * vx);
      const ws = this.wscl;
      lpos[o3] = (vx + qw * tx + (qy * tz - qz * ty)) / ws[p3]!;
      lpos[o3 + 1] = (vy + qw * ty + (qz * tx - qx * tz)) / ws[p3 + 1]!;
      lpos[o3 + 2] = (vz + qw * tz + (qx * ty - qy * tx)) / ws[p3 + 2]!;
    }
    this.positionDirty[bone] = 1;
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
    this.version++;
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
    const n = bones.length;
    this.fixIds = new Int32Array(n);
    const values = new Float64Array(n * 14);
    this.animatedValues = values.subarray(0, n * 7);
    this.writtenValues = values.subarray(n * 7, n * 14);
    this.owned = new Uint8Array(n);
    this.animatedMatrices = new Float64Array(this.boneOnly ? n * 16 : 0);
    this.anyOwned = false;
    this.defaultIndex.fill(-1);
    const rotation = new Quaternion();
    const position = new Vector3();
    bones.forEach((b, k) => {
      this.readRawLocal(b.bone, position, rotation);
      this.fixIds[k] = b.bone;
      this.animatedValues.set([position._x, position._y, position._z, rotation._x, rotation._y, rotation._z, rotation._w], k * 7);
      this.defaultIndex[b.bone] = k;
    });
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
   * Undoes what the IK wrote, where it still stands: each channel (local rotation, local position) of the
   * bones the mapping writes that still holds exactly what {@link write} put there gets back the value the
   * last `read` found (the animated pose, Babylon's doubles bit for bit). A channel something else set since
   * (an animation, `goToFrame`, user code) is that code's pose and is left alone; so is every bone when the
   * IK wrote nothing. Allocation-free; nothing to do in a frame whose FixTransforms already ran.
   */
  restoreAnimatedPose(): void {
    this._poseIsCurrent = false;
    if (!this.anyOwned) return;
    this.anyOwned = false;
    const ids = this.fixIds;
    const owned = this.owned;
    for (let k = 0; k < ids.length; k++) {
      const own = owned[k]!;
      if (own === 0) continue;
      owned[k] = 0;
      this.undoLocal(ids[k]!, k * 7, own);
    }
  }

  /**
   * FixTransforms, before the animations: {@link restoreAnimatedPose}. The IK's own output is taken off,
   * so nothing it wrote can accumulate on a channel no animation drives, while a pose the IK did not write
   * (a paused or stopped clip, user code) is kept as it is: with every weight 0 the bones are exactly as
   * without the IK. Writes straight to Babylon (it runs outside read/write).
   */
  fixTransforms(): void {
    this.restoreAnimatedPose();
  }

  /**
   * Restores stored bone `id`'s channels in `own` whose Babylon value still equals what the IK wrote (at
   * `o` in writtenValues) to the animated value (at `o` in animatedValues). Babylon's fields are compared
   * directly, and written through a scratch Babylon object and copyFrom (which marks them dirty): no
   * double crosses a call (see ARCHITECTURE.md, "Doubles across calls").
   */
  private undoLocal(id: number, o: number, own: number): void {
    const w = this.writtenValues;
    const a = this.animatedValues;
    const node = this.nodes[id];
    let q: Quaternion;
    let p: Vector3;
    const nq = node !== null && node !== undefined ? node.rotationQuaternion : null;
    if (node !== null && node !== undefined) {
      q = nq !== null ? nq : Quaternion.RotationYawPitchRollToRef(node.rotation.y, node.rotation.x, node.rotation.z, bq);
      p = node.position;
    } else {
      const bone = this.bones[id]!;
      q = bone.rotationQuaternion;
      p = bone.position;
      if (this.undoBoneMatrix(bone, q, p, o, own)) return;
    }
    if ((own & OWN_ROTATION) !== 0 && q._x === w[o + 3] && q._y === w[o + 4] && q._z === w[o + 5] && q._w === w[o + 6]) {
      scratchQuaternion(a, o + 3);
      if (node !== null && node !== undefined) {
        if (nq !== null) nq.copyFrom(bq);
        else {
          bq.toEulerAnglesToRef(bv);
          node.rotation.copyFrom(bv);
        }
      } else {
        this.bones[id]!.setRotationQuaternion(bq);
      }
    }
    if ((own & OWN_POSITION) !== 0 && p._x === w[o] && p._y === w[o + 1] && p._z === w[o + 2]) {
      if (node !== null && node !== undefined) p.copyFrom(scratchVector(a, o));
      else this.bones[id]!.position = scratchVector(a, o);
    }
  }

  /**
   * A plain Bone whose channels all still hold what the IK wrote or what the last read found (its scale
   * too) gets back the local matrix that read found, bit for bit; false when something else changed it.
   */
  private undoBoneMatrix(bone: Bone, q: Quaternion, p: Vector3, o: number, own: number): boolean {
    const w = this.writtenValues;
    const a = this.animatedValues;
    const r = (own & OWN_ROTATION) !== 0 ? w : a;
    const t = (own & OWN_POSITION) !== 0 ? w : a;
    if (q._x !== r[o + 3] || q._y !== r[o + 4] || q._z !== r[o + 5] || q._w !== r[o + 6]) return false;
    if (p._x !== t[o] || p._y !== t[o + 1] || p._z !== t[o + 2]) return false;
    const k = o / 7;
    const id3 = this.fixIds[k]! * 3;
    const sc = bone.scaling;
    const l = this.lscl;
    if (sc._x !== l[id3] || sc._y !== l[id3 + 1] || sc._z !== l[id3 + 2]) return false;
    Matrix.FromArrayToRef(this.animatedMatrices, k * 16, restoreMatrix);
    // the setter animations use: copies the matrix, marks the bone dirty and to be decomposed
    (bone as unknown as BoneMatrixState)._matrix = restoreMatrix;
    return true;
  }

  /**
   * Watches the nodes for disposal through their onDisposeObservable, so that {@link detachedState} need
   * not visit every node each frame. For a rig that lives on (the IK component's); remove with
   * {@link dispose}. Unwatched rigs (temporary ones) check the nodes each call.
   */
  watchDisposal(): void {
    if (this.watching) return;
    this.watching = true;
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
    this.watching = false;
  }

  /**
   * Why the rig cannot be read or written this frame: 0 when it can; 1 when the skeleton is no longer in
   * its scene (disposed, or removed with its asset container); 2 when a node the rig reads was disposed;
   * 3 when the mesh whose space a bone-only skeleton lives in was disposed. Allocation-free.
   */
  detachedState(): 0 | 1 | 2 | 3 {
    // (every field read here lives on the rig itself, the scene's list aside: with many characters, each
    // Babylon object touched once per frame is a cache miss)
    const skeletons = this.scene.skeletons;
    // where the skeleton was last found: O(1) every frame, a search only when the scene's list changed
    // (a plain indexOf every frame made each character's cost grow with the number of characters)
    let k = this.skeletonIndex;
    if (skeletons[k] !== this.skeleton) {
      k = skeletons.indexOf(this.skeleton);
      if (k < 0) return 1;
      this.skeletonIndex = k;
    }
    if (this.watching) {
      // watched: set by the nodes' onDisposeObservable, no per-frame visit of every node
      if (this.nodeDisposed) return 2;
    } else {
      const nodes = this.nodes;
      for (let i = 1; i < nodes.length; i++) {
        const n = nodes[i];
        if (n !== null && n !== undefined && n.isDisposed()) return 2;
      }
    }
    if (this.boneOnly && this.mesh !== null && this.mesh.isDisposed()) return 3;
    return 0;
  }

  // The transforms below are written out rather than calling Vector3.TransformCoordinatesToRef, which
  // hands three doubles to a helper (see ARCHITECTURE.md, "Doubles across calls").

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
   * World rotation → component space. World rotations are in Babylon's convention (what
   * `Matrix.decompose` and a node's `absoluteRotationQuaternion` give): in a mirrored component space
   * (glTF's `__root__` in a left-handed scene) a bone's world matrix decomposes with its Y axis flipped,
   * so a bone's `absoluteRotationQuaternion` converts to its own component rotation.
   */
  worldToComponentRotation(world: ReadonlyQuat, out: Quat): Quat {
    conjugateMultiply(out, this.componentRotation, world);
    if (this.mirrored) mirrorY(out);
    return out;
  }

  /** Component rotation → world in Babylon's convention (the inverse of worldToComponentRotation). */
  componentToWorldRotation(component: ReadonlyQuat, out: Quaternion): Quaternion {
    copyQuat(tq, component);
    if (this.mirrored) mirrorY(tq);
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
      let w = currentWorldMatrix(root);
      if (this.boneOnly && this.skeleton.needInitialSkinMatrix) {
        // Babylon skins such a skeleton with root bone × the mesh's pose matrix (the inverse of its first
        // world matrix), then the mesh's world matrix: the bones live in the mesh's initial world frame.
        // (read after the world matrix: computing it is what sets the pose matrix; reading first would
        // make Babylon create an identity one)
        root.getPoseMatrix().multiplyToRef(w, skinPoseWorld);
        w = skinPoseWorld;
      }
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
    // the sign of the linear part's determinant (an affine matrix's 4×4 determinant equals it), written
    // out: Matrix.determinant() returns a double (see ARCHITECTURE.md, "Doubles across calls")
    this.mirrored = m[0]! * (m[5]! * m[10]! - m[6]! * m[9]!) - m[1]! * (m[4]! * m[10]! - m[6]! * m[8]!) + m[2]! * (m[4]! * m[9]! - m[5]! * m[8]!) < 0;
    return true;
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
    this.lrot[0] = this.wrot[0] = tq.x;
    this.lrot[1] = this.wrot[1] = tq.y;
    this.lrot[2] = this.wrot[2] = tq.z;
    this.lrot[3] = this.wrot[3] = tq.w;
    if (w !== null) {
      tv.x = w[12]!;
      tv.y = w[13]!;
      tv.z = w[14]!;
      this.worldToComponentPoint(tv, tv3);
      this.wpos[0] = tv3.x;
      this.wpos[1] = tv3.y;
      this.wpos[2] = tv3.z;
    }
  }

  /**
   * Forward kinematics of one bone from its parent (which must be up to date), as Babylon composes it:
   * local = scale · rotation · translation with row vectors, world = local × parent world. Where no
   * non-uniform scale lies above, that is quaternion arithmetic (rotation of the scaled local position);
   * below a non-uniform scale, the parent's linear part is a general matrix and is applied as one.
   */
  private forward(i: number): void {
    if (this.hasExternal[i] !== 0) {
      this.forwardExternal(i);
      return;
    }
    const p = this.parents[i]!;
    const lpos = this.lpos;
    const lrot = this.lrot;
    const lscl = this.lscl;
    const wpos = this.wpos;
    const wrot = this.wrot;
    const wscl = this.wscl;
    const i3 = i * 3;
    const i4 = i * 4;
    if (p < 0) {
      wpos[i3] = lpos[i3]!;
      wpos[i3 + 1] = lpos[i3 + 1]!;
      wpos[i3 + 2] = lpos[i3 + 2]!;
      wrot[i4] = lrot[i4]!;
      wrot[i4 + 1] = lrot[i4 + 1]!;
      wrot[i4 + 2] = lrot[i4 + 2]!;
      wrot[i4 + 3] = lrot[i4 + 3]!;
      wscl[i3] = lscl[i3]!;
      wscl[i3 + 1] = lscl[i3 + 1]!;
      wscl[i3 + 2] = lscl[i3 + 2]!;
      if (this.uniformScale[i] === 0) this.alignedLinear(i);
      return;
    }
    const p3 = p * 3;
    const p4 = p * 4;
    const psx = wscl[p3]!;
    const psy = wscl[p3 + 1]!;
    const psz = wscl[p3 + 2]!;
    const qx = wrot[p4]!;
    const qy = wrot[p4 + 1]!;
    const qz = wrot[p4 + 2]!;
    const qw = wrot[p4 + 3]!;
    const parentAligned = this.aligned[p] !== 0;
    if (parentAligned) {
      // rotateVector(parent rotation, local position × parent scale)
      const vx = lpos[i3]! * psx;
      const vy = lpos[i3 + 1]! * psy;
      const vz = lpos[i3 + 2]! * psz;
      const tx = 2 * (qy * vz - qz * vy);
      const ty = 2 * (qz * vx - qx * vz);
      const tz = 2 * (qx * vy - qy * vx);
      wpos[i3] = wpos[p3]! + (vx + qw * tx + (qy * tz - qz * ty));
      wpos[i3 + 1] = wpos[p3 + 1]! + (vy + qw * ty + (qz * tx - qx * tz));
      wpos[i3 + 2] = wpos[p3 + 2]! + (vz + qw * tz + (qx * ty - qy * tx));
    } else {
      // local position × the parent's linear part (row vector)
      const m = this.wlin;
      const o = p * 9;
      const x = lpos[i3]!;
      const y = lpos[i3 + 1]!;
      const z = lpos[i3 + 2]!;
      wpos[i3] = wpos[p3]! + x * m[o]! + y * m[o + 3]! + z * m[o + 6]!;
      wpos[i3 + 1] = wpos[p3 + 1]! + x * m[o + 1]! + y * m[o + 4]! + z * m[o + 7]!;
      wpos[i3 + 2] = wpos[p3 + 2]! + x * m[o + 2]! + y * m[o + 5]! + z * m[o + 8]!;
    }
    // multiply(parent rotation, local rotation)
    const bx = lrot[i4]!;
    const by = lrot[i4 + 1]!;
    const bz = lrot[i4 + 2]!;
    const bw = lrot[i4 + 3]!;
    wrot[i4] = qw * bx + qx * bw + qy * bz - qz * by;
    wrot[i4 + 1] = qw * by - qx * bz + qy * bw + qz * bx;
    wrot[i4 + 2] = qw * bz + qx * by - qy * bx + qz * bw;
    wrot[i4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
    wscl[i3] = psx * lscl[i3]!;
    wscl[i3 + 1] = psy * lscl[i3 + 1]!;
    wscl[i3 + 2] = psz * lscl[i3 + 2]!;
    // (an aligned bone's scale is its own times a uniform factor: uniform when its own is)
    if (this.aligned[i] !== 0) {
      if (this.uniformScale[i] === 0) this.alignedLinear(i);
    } else {
      this.shearedLinear(i, this.wlin, p * 9);
    }
  }

  /** FK of a bone moved under a node outside the rig: from that node's transform in component space. */
  private forwardExternal(i: number): void {
    const e = this.external!;
    const o = i * 16;
    const lpos = this.lpos;
    const lrot = this.lrot;
    const lscl = this.lscl;
    const wpos = this.wpos;
    const wrot = this.wrot;
    const wscl = this.wscl;
    const i3 = i * 3;
    const i4 = i * 4;
    const x = lpos[i3]!;
    const y = lpos[i3 + 1]!;
    const z = lpos[i3 + 2]!;
    wpos[i3] = e[o]! + x * e[o + 3]! + y * e[o + 6]! + z * e[o + 9]!;
    wpos[i3 + 1] = e[o + 1]! + x * e[o + 4]! + y * e[o + 7]! + z * e[o + 10]!;
    wpos[i3 + 2] = e[o + 2]! + x * e[o + 5]! + y * e[o + 8]! + z * e[o + 11]!;
    const qx = e[o + 12]!;
    const qy = e[o + 13]!;
    const qz = e[o + 14]!;
    const qw = e[o + 15]!;
    const bx = lrot[i4]!;
    const by = lrot[i4 + 1]!;
    const bz = lrot[i4 + 2]!;
    const bw = lrot[i4 + 3]!;
    wrot[i4] = qw * bx + qx * bw + qy * bz - qz * by;
    wrot[i4 + 1] = qw * by - qx * bz + qy * bw + qz * bx;
    wrot[i4 + 2] = qw * bz + qx * by - qy * bx + qz * bw;
    wrot[i4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
    // the parent's mean axis length stands for its scale (exact when it is uniform)
    const k =
      (Math.sqrt(e[o + 3]! * e[o + 3]! + e[o + 4]! * e[o + 4]! + e[o + 5]! * e[o + 5]!) +
        Math.sqrt(e[o + 6]! * e[o + 6]! + e[o + 7]! * e[o + 7]! + e[o + 8]! * e[o + 8]!) +
        Math.sqrt(e[o + 9]! * e[o + 9]! + e[o + 10]! * e[o + 10]! + e[o + 11]! * e[o + 11]!)) /
      3;
    wscl[i3] = k * lscl[i3]!;
    wscl[i3 + 1] = k * lscl[i3 + 1]!;
    wscl[i3 + 2] = k * lscl[i3 + 2]!;
    this.shearedLinear(i, e, o + 3);
  }

  /** The linear part of an aligned bone (its per-axis scale, then its rotation) into wlin, for its children. */
  private alignedLinear(i: number): void {
    const r = this.wrot;
    const s = this.wscl;
    rotationRows(r[i * 4]!, r[i * 4 + 1]!, r[i * 4 + 2]!, r[i * 4 + 3]!, s[i * 3]!, s[i * 3 + 1]!, s[i * 3 + 2]!, this.wlin, i * 9);
  }

  /**
   * The linear part of a bone under a shearing parent: local scale · local rotation · the parent's linear
   * part (9 numbers as rows at q in `pm`).
   */
  private shearedLinear(i: number, pm: Float64Array, q: number): void {
    const r = this.lrot;
    const s = this.lscl;
    const m = this.wlin;
    const o = i * 9;
    rotationRows(r[i * 4]!, r[i * 4 + 1]!, r[i * 4 + 2]!, r[i * 4 + 3]!, s[i * 3]!, s[i * 3 + 1]!, s[i * 3 + 2]!, m, o);
    for (let row = 0; row < 9; row += 3) {
      const a = m[o + row]!;
      const b = m[o + row + 1]!;
      const c = m[o + row + 2]!;
      m[o + row] = a * pm[q]! + b * pm[q + 3]! + c * pm[q + 6]!;
      m[o + row + 1] = a * pm[q + 1]! + b * pm[q + 4]! + c * pm[q + 7]!;
      m[o + row + 2] = a * pm[q + 2]! + b * pm[q + 5]! + c * pm[q + 8]!;
    }
  }
}

/**
 * True when a scale is uniform to 1e-5 of its size: exporters' float32 decompositions leave that much
 * (1–4e-6 seen on glTF legs); treating it as uniform moves a grandchild by less, and keeps such rigs on the
 * quaternion FK, bit for bit.
 */
function isUniform(x: number, y: number, z: number): boolean {
  return isUniformWithin(x, y, z, 1e-5);
}

/** True when the three scale factors differ by at most `tolerance` times the largest. */
function isUniformWithin(x: number, y: number, z: number, tolerance: number): boolean {
  const ax = x < 0 ? -x : x;
  const ay = y < 0 ? -y : y;
  const az = z < 0 ? -z : z;
  const e = tolerance * (ax > ay ? (ax > az ? ax : az) : ay > az ? ay : az);
  const dxy = x - y;
  const dyz = y - z;
  return (dxy < 0 ? -dxy : dxy) <= e && (dyz < 0 ? -dyz : dyz) <= e;
}

/** Rows of diag(sx, sy, sz) · R(q) (row vectors: row k is q applied to axis k, times s_k) into m at o. */
function rotationRows(x: number, y: number, z: number, w: number, sx: number, sy: number, sz: number, m: Float64Array, o: number): void {
  m[o] = sx * (1 - 2 * (y * y + z * z));
  m[o + 1] = sx * 2 * (x * y + w * z);
  m[o + 2] = sx * 2 * (x * z - w * y);
  m[o + 3] = sy * 2 * (x * y - w * z);
  m[o + 4] = sy * (1 - 2 * (x * x + z * z));
  m[o + 5] = sy * 2 * (y * z + w * x);
  m[o + 6] = sz * 2 * (x * z + w * y);
  m[o + 7] = sz * 2 * (y * z - w * x);
  m[o + 8] = sz * (1 - 2 * (x * x + y * y));
}

/** Solves v = x · M for the row vector x (M: 3×3 rows at o in m) into out at k, by Cramer's rule. */
function solveRows(m: Float64Array, o: number, vx: number, vy: number, vz: number, out: Float64Array, k: number): void {
  const a = m[o]!;
  const b = m[o + 1]!;
  const c = m[o + 2]!;
  const d = m[o + 3]!;
  const e = m[o + 4]!;
  const f = m[o + 5]!;
  const g = m[o + 6]!;
  const h = m[o + 7]!;
  const i = m[o + 8]!;
  // x_k = Σ_j C_kj v_j / det(M), C_kj the cofactors of M's row k
  const c00 = e * i - f * h;
  const c01 = f * g - d * i;
  const c02 = d * h - e * g;
  const inv = 1 / (a * c00 + b * c01 + c * c02);
  out[k] = (vx * c00 + vy * c01 + vz * c02) * inv;
  out[k + 1] = (vx * (c * h - b * i) + vy * (a * i - c * g) + vz * (b * g - a * h)) * inv;
  out[k + 2] = (vx * (b * f - c * e) + vy * (c * d - a * f) + vz * (a * e - b * d)) * inv;
}

/** The scratch Babylon quaternion `bq` holding v[o..o+3] (fields set directly: no call takes a double). */
function scratchQuaternion(v: Float64Array, o: number): Quaternion {
  bq._x = v[o]!;
  bq._y = v[o + 1]!;
  bq._z = v[o + 2]!;
  bq._w = v[o + 3]!;
  return bq;
}

/** The scratch Babylon vector `bv` holding v[o..o+2]. */
function scratchVector(v: Float64Array, o: number): Vector3 {
  bv._x = v[o]!;
  bv._y = v[o + 1]!;
  bv._z = v[o + 2]!;
  return bv;
}

/** Copies a flat pose into per-id vector and quaternion objects. */
function copyViews(pos: Float64Array, rot: Float64Array, scl: Float64Array, pv: Vec3[], rv: Quat[], sv: Vec3[]): void {
  for (let i = 0; i < pv.length; i++) {
    const p = pv[i]!;
    const r = rv[i]!;
    const s = sv[i]!;
    p.x = pos[i * 3]!;
    p.y = pos[i * 3 + 1]!;
    p.z = pos[i * 3 + 2]!;
    r.x = rot[i * 4]!;
    r.y = rot[i * 4 + 1]!;
    r.z = rot[i * 4 + 2]!;
    r.w = rot[i * 4 + 3]!;
    s.x = scl[i * 3]!;
    s.y = scl[i * 3 + 1]!;
    s.z = scl[i * 3 + 2]!;
  }
}

/** A Bone's internal local-matrix setter (the one animations of plain Bones go through; @babylonjs/core 9). */
interface BoneMatrixState {
  _matrix: Matrix;
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
 * The rotation of the Babylon world matrix `m` in Babylon's convention, as `m.decompose` gives it: its
 * Z axis is the matrix's Z axis (row) and its Y axis the matrix's Y axis, flipped when the determinant is
 * negative (a mirror, such as glTF's `__root__` in a left-handed scene), which leaves X matching too. The
 * convention of every world rotation this library reads from a node or reports (effector rotations,
 * targets, `getWorldRotation`). Built from the Z and Y axes rather than the 3×3 block, so it stays a
 * rotation under shear.
 */
export function rotationFromMatrix(m: ArrayLike<number>, out: Quat): Quat {
  // the sign of the linear part's determinant, written out as in readComponentSpace;
  // < 0 as for BabylonRig.mirrored (at exactly 0 decompose has no rotation either: it returns identity)
  const flip = m[0]! * (m[5]! * m[10]! - m[6]! * m[9]!) - m[1]! * (m[4]! * m[10]! - m[6]! * m[8]!) + m[2]! * (m[4]! * m[9]! - m[5]! * m[8]!) < 0;
  axisY.x = flip ? -m[4]! : m[4]!;
  axisY.y = flip ? -m[5]! : m[5]!;
  axisY.z = flip ? -m[6]! : m[6]!;
  axisZ.x = m[8]!;
  axisZ.y = m[9]!;
  axisZ.z = m[10]!;
  return lookRotation(out, axisZ, axisY);
}

/**
 * True when the Babylon world matrix `m` has a rotation to read: its Z and Y axes (rows) finite, not zero
 * and not parallel (lookRotation's own test). A node scaled to 0, or with a NaN in its chain, has none;
 * rotationFromMatrix would return an arbitrary fallback for it.
 */
export function hasRotation(m: ArrayLike<number>): boolean {
  const zx = m[8]!;
  const zy = m[9]!;
  const zz = m[10]!;
  const yx = m[4]!;
  const yy = m[5]!;
  const yz = m[6]!;
  const zl = zx * zx + zy * zy + zz * zz;
  const yl = yx * yx + yy * yy + yz * yz;
  const cx = yy * zz - yz * zy;
  const cy = yz * zx - yx * zz;
  const cz = yx * zy - yy * zx;
  const xl = cx * cx + cy * cy + cz * cz;
  // squared lengths: |y × z| > 1e-12 |y| |z|; every comparison false for NaN
  return zl > 0 && zl < Infinity && yl > 0 && yl < Infinity && xl > 1e-24 * yl * zl;
}

/** Row-vector point transform by a Babylon matrix (with the projective divide Babylon applies). */
function transformPoint(m: ArrayLike<number>, v: ReadonlyVec3, out: Vec3): Vec3 {
  // the vector, not its three numbers (see ARCHITECTURE.md, "Doubles across calls")
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

/** Conjugation by the mirror across the XZ plane (Y flipped, Babylon's decomposition): (x, y, z, w) → (−x, y, −z, w). */
function mirrorY(q: Quat): void {
  q.x = -q.x;
  q.z = -q.z;
}
