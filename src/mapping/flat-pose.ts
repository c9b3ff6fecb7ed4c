// Over 500 lines for one reason: the FK and the setters are written out on the flat arrays (no call per
// vector, see ARCHITECTURE.md "Doubles across calls"); the numeric kernels live in flat-pose-kernels.ts.
import { Quat, type ReadonlyQuat } from "../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";
import type { IKPose } from "../solver/pose.js";
import { copyViews, rotationRows, solveRows } from "./flat-pose-kernels.js";
import { subtreeEnds } from "./rig-topology.js";

/** The vector setPosition hands to solveRows. */
const rowVector = new Float64Array(3);

/**
 * A skeleton's pose as flat arrays with lazy forward kinematics into component space: local and
 * component-space position (3 per id, at id * 3), rotation (4, at id * 4) and scale (3), in depth-first
 * order so each bone's descendants are the ids right after it. No heap object per vector: with many
 * characters each frame fetches a character's data from memory again (npm run bench:touch).
 *
 * setRotation / setPosition only change the bone's local value and mark its subtree stale; a stale bone is
 * recomputed (from its parent) when it is read, so each bone is computed once per change of an ancestor
 * that precedes a read, not once per write. The arithmetic is that of math/quat.ts (normalizeQuat,
 * multiply, rotateVector…), written out. Engine-neutral: an adapter (BabylonRig) fills the local pose,
 * scales and external parents, and reads back what changed (`rotationDirty`, `positionDirty`).
 */
export class FlatPose implements IKPose {
  /** Parent ids (-1: directly in component space). */
  readonly parents: number[];
  /** One past the last descendant of each id. */
  readonly subtreeEnd: number[];
  /** Local position relative to the parent (3 per id). */
  protected readonly lpos: Float64Array;
  /** Local rotation relative to the parent, a quaternion x, y, z, w (4 per id). */
  protected readonly lrot: Float64Array;
  /** Local per-axis scale (3 per id). */
  protected readonly lscl: Float64Array;
  /** Component-space position (3 per id), kept up to date by FK. */
  protected readonly cpos: Float64Array;
  /** Component-space rotation, a quaternion x, y, z, w (4 per id), kept up to date by FK. */
  protected readonly crot: Float64Array;
  /** Component-space per-axis scale (3 per id). */
  protected readonly cscl: Float64Array;
  /**
   * Component-space linear part (9 per id, rows = the images of the local axes, Babylon's row-vector
   * convention), kept only where a child needs it: where the bone's frame is not a rotation times its
   * per-axis scale (an ancestor's non-uniform scale sheared it) or its own scale is non-uniform.
   */
  protected readonly clin: Float64Array;
  /**
   * 1 where the bone's component-space linear part is its rotation with its per-axis scale (no strict
   * ancestor has a non-uniform scale): FK by quaternions, bit for bit as for uniform-scale rigs; 0 where a
   * non-uniform scale above shears it (or the bone was moved under a node outside the rig), and FK composes
   * the linear parts. Set by the adapter's read, where scales and parents are read.
   */
  protected readonly aligned: Uint8Array;
  /** 1 where the bone's local scale is uniform (to 1e-5) at the last read. */
  protected readonly uniformScale: Uint8Array;
  /** 1 where the bone has a grandchild. */
  protected readonly hasGrandchild: Uint8Array;
  /**
   * Where the bone's local scale is a mirror (equal magnitudes, mixed signs: a side mirrored by a negative scale),
   * the axis (1–3) of the half turn that FK and setRotation put after its local rotation, so that the scale left is
   * sign-uniform and the bones below stay rigid ({@link mirrorAxis}); else 0. Set by the adapter's read.
   */
  protected readonly mirrorAxis: Uint8Array;
  /**
   * Per id, when the bone hangs from a node outside the pose: that parent's transform in component space
   * (translation 3, linear part 9 as rows, proper rotation 4).
   */
  protected external: Float64Array | null = null;
  /** 1 where `external` holds the id's parent transform this frame. */
  protected readonly hasExternal: Uint8Array;
  /** 1 where the local rotation changed since the adapter last read or wrote it. */
  protected readonly rotationDirty: Uint8Array;
  /** 1 where the local position changed since the adapter last read or wrote it. */
  protected readonly positionDirty: Uint8Array;
  /** True when a non-rotation (NaN, ±∞, zero) was set since the last read: the adapter refuses to write it. */
  protected rejected = false;
  /** Bumped whenever the local pose changes (read, setRotation, setPosition): the views below follow it. */
  protected version = 0;
  private viewVersion = -1;
  private localViewVersion = -1;
  private readonly positionViews: Vec3[];
  private readonly rotationViews: Quat[];
  private readonly scaleViews: Vec3[];
  private readonly localPositionViews: Vec3[];
  private readonly localRotationViews: Quat[];
  private readonly localScaleViews: Vec3[];
  /** 1 where the component-space pose is stale (an ancestor's or the bone's local value changed). */
  protected readonly stale: Uint8Array;
  /** True when any entry of `stale` may be set. */
  protected anyStale = false;
  /** Scratch chain for `ensure` (a bone and its stale ancestors). */
  private readonly chain: Int32Array;

  /** An identity pose over `parents` (depth-first: each parent before its children, subtrees contiguous). */
  constructor(parents: readonly number[]) {
    const n = parents.length;
    this.parents = [...parents];
    this.subtreeEnd = subtreeEnds(parents);
    // one block for the numbers and one for the flags (npm run bench:touch; bench/README.md)
    const pose = new Float64Array(n * 29);
    this.lpos = pose.subarray(0, n * 3);
    this.lrot = pose.subarray(n * 3, n * 7);
    this.lscl = pose.subarray(n * 7, n * 10).fill(1);
    this.cpos = pose.subarray(n * 10, n * 13);
    this.crot = pose.subarray(n * 13, n * 17);
    this.cscl = pose.subarray(n * 17, n * 20).fill(1);
    this.clin = pose.subarray(n * 20, n * 29);
    for (let i = 0; i < n; i++) {
      this.lrot[i * 4 + 3] = 1;
      this.crot[i * 4 + 3] = 1;
    }
    this.positionViews = parents.map(() => new Vec3());
    this.rotationViews = parents.map(() => new Quat());
    this.scaleViews = parents.map(() => new Vec3(1, 1, 1));
    this.localPositionViews = parents.map(() => new Vec3());
    this.localRotationViews = parents.map(() => new Quat());
    this.localScaleViews = parents.map(() => new Vec3(1, 1, 1));
    const flags = new Uint8Array(n * 8);
    this.stale = flags.subarray(0, n);
    this.rotationDirty = flags.subarray(n, 2 * n);
    this.positionDirty = flags.subarray(2 * n, 3 * n);
    this.aligned = flags.subarray(3 * n, 4 * n).fill(1);
    this.hasGrandchild = flags.subarray(4 * n, 5 * n);
    this.hasExternal = flags.subarray(5 * n, 6 * n);
    this.uniformScale = flags.subarray(6 * n, 7 * n).fill(1);
    this.mirrorAxis = flags.subarray(7 * n, 8 * n);
    for (let i = 1; i < n; i++) {
      const p = parents[i]!;
      const g = p > 0 ? parents[p]! : -1;
      if (g > 0) this.hasGrandchild[g] = 1;
    }
    this.chain = new Int32Array(n);
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
    copyViews(this.cpos, this.crot, this.cscl, this.positionViews, this.rotationViews, this.scaleViews);
  }

  private syncLocalViews(): void {
    if (this.localViewVersion === this.version) return;
    this.localViewVersion = this.version;
    copyViews(this.lpos, this.lrot, this.lscl, this.localPositionViews, this.localRotationViews, this.localScaleViews);
  }

  /** Number of ids. */
  get count(): number {
    return this.parents.length;
  }

  /** @internal The stored component-space rotations (IKPose's `componentRotations` says why). */
  get componentRotations(): Float64Array {
    return this.crot;
  }

  /** @internal The stored component-space positions (as {@link componentRotations}). */
  get componentPositions(): Float64Array {
    return this.cpos;
  }

  /** @internal Brings `bone`'s component-space pose (and its stale ancestors') up to date. */
  bringUpToDate(bone: number): void {
    if (this.stale[bone] !== 0) this.ensure(bone);
  }

  /** @inheritdoc */
  isSheared(bone: number): boolean {
    return this.aligned[bone] === 0;
  }

  /** @inheritdoc */
  getPosition(bone: number, out: Vec3): Vec3 {
    return this.readVec3(this.cpos, bone, out);
  }

  /** Component-space scale of `bone` (product of local scales) into `out`. */
  getScale(bone: number, out: Vec3): Vec3 {
    return this.readVec3(this.cscl, bone, out);
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
    const w = this.crot;
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
      r = this.crot;
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
    const mirror = this.mirrorAxis[bone]!;
    if (mirror !== 0) {
      // local × the half turn's inverse (FK put the half turn after the local rotation)
      const lx = x;
      const ly = y;
      const lz = z;
      const lw = w;
      if (mirror === 1) {
        x = -lw;
        y = -lz;
        z = ly;
        w = lx;
      } else if (mirror === 2) {
        x = lz;
        y = -lw;
        z = -lx;
        w = ly;
      } else {
        x = -ly;
        y = lx;
        z = -lw;
        w = lz;
      }
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
      const v = rowVector;
      v[0] = position.x - e[o]!;
      v[1] = position.y - e[o + 1]!;
      v[2] = position.z - e[o + 2]!;
      solveRows(e, o + 3, v, lpos, o3);
    } else if (p < 0) {
      lpos[o3] = position.x;
      lpos[o3 + 1] = position.y;
      lpos[o3 + 2] = position.z;
    } else {
      if (this.stale[p] !== 0) this.ensure(p);
      const wp = this.cpos;
      const p3 = p * 3;
      const vx = position.x - wp[p3]!;
      const vy = position.y - wp[p3 + 1]!;
      const vz = position.z - wp[p3 + 2]!;
      if (this.aligned[p] === 0) {
        // (position − parent position) × the inverse of the parent's linear part
        const v = rowVector;
        v[0] = vx;
        v[1] = vy;
        v[2] = vz;
        solveRows(this.clin, p * 9, v, lpos, o3);
        this.positionDirty[bone] = 1;
        this.markStale(bone);
        return;
      }
      // inverseRotateVector(local, parent rotation, position − parent position) / parent scale
      const r = this.crot;
      const p4 = p * 4;
      const qx = -r[p4]!;
      const qy = -r[p4 + 1]!;
      const qz = -r[p4 + 2]!;
      const qw = r[p4 + 3]!;
      const tx = 2 * (qy * vz - qz * vy);
      const ty = 2 * (qz * vx - qx * vz);
      const tz = 2 * (qx * vy - qy * vx);
      const ws = this.cscl;
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
        this.forwardKinematics(i);
        stale[i] = 0;
      }
    }
    this.anyStale = false;
  }

  /** Marks `bone` and its descendants stale. */
  protected markStale(bone: number): void {
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
      this.forwardKinematics(i);
      stale[i] = 0;
    }
  }

  /**
   * Forward kinematics of one bone from its parent (which must be up to date), as Babylon composes it:
   * local = scale · rotation · translation with row vectors, world = local × parent world. Where no
   * non-uniform scale lies above, that is quaternion arithmetic (rotation of the scaled local position);
   * below a non-uniform scale, the parent's linear part is a general matrix and is applied as one.
   */
  protected forwardKinematics(i: number): void {
    if (this.hasExternal[i] !== 0) {
      this.forwardKinematicsExternal(i);
      return;
    }
    const p = this.parents[i]!;
    const lpos = this.lpos;
    const lrot = this.lrot;
    const lscl = this.lscl;
    const cpos = this.cpos;
    const crot = this.crot;
    const cscl = this.cscl;
    const i3 = i * 3;
    const i4 = i * 4;
    if (p < 0) {
      cpos[i3] = lpos[i3]!;
      cpos[i3 + 1] = lpos[i3 + 1]!;
      cpos[i3 + 2] = lpos[i3 + 2]!;
      crot[i4] = lrot[i4]!;
      crot[i4 + 1] = lrot[i4 + 1]!;
      crot[i4 + 2] = lrot[i4 + 2]!;
      crot[i4 + 3] = lrot[i4 + 3]!;
      cscl[i3] = lscl[i3]!;
      cscl[i3 + 1] = lscl[i3 + 1]!;
      cscl[i3 + 2] = lscl[i3 + 2]!;
      if (this.mirrorAxis[i] !== 0) this.unmirror(i);
      if (this.uniformScale[i] === 0) this.alignedLinear(i);
      return;
    }
    const p3 = p * 3;
    const p4 = p * 4;
    const psx = cscl[p3]!;
    const psy = cscl[p3 + 1]!;
    const psz = cscl[p3 + 2]!;
    const qx = crot[p4]!;
    const qy = crot[p4 + 1]!;
    const qz = crot[p4 + 2]!;
    const qw = crot[p4 + 3]!;
    const parentAligned = this.aligned[p] !== 0;
    if (parentAligned) {
      // rotateVector(parent rotation, local position × parent scale)
      const vx = lpos[i3]! * psx;
      const vy = lpos[i3 + 1]! * psy;
      const vz = lpos[i3 + 2]! * psz;
      const tx = 2 * (qy * vz - qz * vy);
      const ty = 2 * (qz * vx - qx * vz);
      const tz = 2 * (qx * vy - qy * vx);
      cpos[i3] = cpos[p3]! + (vx + qw * tx + (qy * tz - qz * ty));
      cpos[i3 + 1] = cpos[p3 + 1]! + (vy + qw * ty + (qz * tx - qx * tz));
      cpos[i3 + 2] = cpos[p3 + 2]! + (vz + qw * tz + (qx * ty - qy * tx));
    } else {
      // local position × the parent's linear part (row vector)
      const m = this.clin;
      const o = p * 9;
      const x = lpos[i3]!;
      const y = lpos[i3 + 1]!;
      const z = lpos[i3 + 2]!;
      cpos[i3] = cpos[p3]! + x * m[o]! + y * m[o + 3]! + z * m[o + 6]!;
      cpos[i3 + 1] = cpos[p3 + 1]! + x * m[o + 1]! + y * m[o + 4]! + z * m[o + 7]!;
      cpos[i3 + 2] = cpos[p3 + 2]! + x * m[o + 2]! + y * m[o + 5]! + z * m[o + 8]!;
    }
    // multiply(parent rotation, local rotation)
    const bx = lrot[i4]!;
    const by = lrot[i4 + 1]!;
    const bz = lrot[i4 + 2]!;
    const bw = lrot[i4 + 3]!;
    crot[i4] = qw * bx + qx * bw + qy * bz - qz * by;
    crot[i4 + 1] = qw * by - qx * bz + qy * bw + qz * bx;
    crot[i4 + 2] = qw * bz + qx * by - qy * bx + qz * bw;
    crot[i4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
    cscl[i3] = psx * lscl[i3]!;
    cscl[i3 + 1] = psy * lscl[i3 + 1]!;
    cscl[i3 + 2] = psz * lscl[i3 + 2]!;
    if (this.mirrorAxis[i] !== 0) this.unmirror(i);
    // (an aligned bone's scale is its own times a uniform factor: uniform when its own is)
    if (this.aligned[i] !== 0) {
      if (this.uniformScale[i] === 0) this.alignedLinear(i);
    } else {
      this.shearedLinear(i, this.clin, p * 9);
    }
  }

  /** FK of a bone moved under a node outside the rig: from that node's transform in component space. */
  private forwardKinematicsExternal(i: number): void {
    const e = this.external!;
    const o = i * 16;
    const lpos = this.lpos;
    const lrot = this.lrot;
    const lscl = this.lscl;
    const cpos = this.cpos;
    const crot = this.crot;
    const cscl = this.cscl;
    const i3 = i * 3;
    const i4 = i * 4;
    const x = lpos[i3]!;
    const y = lpos[i3 + 1]!;
    const z = lpos[i3 + 2]!;
    cpos[i3] = e[o]! + x * e[o + 3]! + y * e[o + 6]! + z * e[o + 9]!;
    cpos[i3 + 1] = e[o + 1]! + x * e[o + 4]! + y * e[o + 7]! + z * e[o + 10]!;
    cpos[i3 + 2] = e[o + 2]! + x * e[o + 5]! + y * e[o + 8]! + z * e[o + 11]!;
    const qx = e[o + 12]!;
    const qy = e[o + 13]!;
    const qz = e[o + 14]!;
    const qw = e[o + 15]!;
    const bx = lrot[i4]!;
    const by = lrot[i4 + 1]!;
    const bz = lrot[i4 + 2]!;
    const bw = lrot[i4 + 3]!;
    crot[i4] = qw * bx + qx * bw + qy * bz - qz * by;
    crot[i4 + 1] = qw * by - qx * bz + qy * bw + qz * bx;
    crot[i4 + 2] = qw * bz + qx * by - qy * bx + qz * bw;
    crot[i4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
    // the parent's mean axis length stands for its scale (exact when it is uniform)
    const k =
      (Math.sqrt(e[o + 3]! * e[o + 3]! + e[o + 4]! * e[o + 4]! + e[o + 5]! * e[o + 5]!) +
        Math.sqrt(e[o + 6]! * e[o + 6]! + e[o + 7]! * e[o + 7]! + e[o + 8]! * e[o + 8]!) +
        Math.sqrt(e[o + 9]! * e[o + 9]! + e[o + 10]! * e[o + 10]! + e[o + 11]! * e[o + 11]!)) /
      3;
    cscl[i3] = k * lscl[i3]!;
    cscl[i3 + 1] = k * lscl[i3 + 1]!;
    cscl[i3 + 2] = k * lscl[i3 + 2]!;
    this.shearedLinear(i, e, o + 3);
  }

  /**
   * A mirrored bone's component rotation and scale as a sign-uniform scale after a half turn: the rotation times the
   * half turn about its {@link mirrorAxis} (q × axis), the scale's two other axes negated (the same matrix).
   */
  private unmirror(i: number): void {
    const crot = this.crot;
    const cscl = this.cscl;
    const i3 = i * 3;
    const i4 = i * 4;
    const qx = crot[i4]!;
    const qy = crot[i4 + 1]!;
    const qz = crot[i4 + 2]!;
    const qw = crot[i4 + 3]!;
    const a = this.mirrorAxis[i]!;
    if (a === 1) {
      crot[i4] = qw;
      crot[i4 + 1] = qz;
      crot[i4 + 2] = -qy;
      crot[i4 + 3] = -qx;
      cscl[i3 + 1] = -cscl[i3 + 1]!;
      cscl[i3 + 2] = -cscl[i3 + 2]!;
    } else if (a === 2) {
      crot[i4] = -qz;
      crot[i4 + 1] = qw;
      crot[i4 + 2] = qx;
      crot[i4 + 3] = -qy;
      cscl[i3] = -cscl[i3]!;
      cscl[i3 + 2] = -cscl[i3 + 2]!;
    } else {
      crot[i4] = qy;
      crot[i4 + 1] = -qx;
      crot[i4 + 2] = qw;
      crot[i4 + 3] = -qz;
      cscl[i3] = -cscl[i3]!;
      cscl[i3 + 1] = -cscl[i3 + 1]!;
    }
  }

  /** The linear part of an aligned bone (its per-axis scale, then its rotation) into clin, for its children. */
  private alignedLinear(i: number): void {
    rotationRows(this.crot, i * 4, this.cscl, i * 3, this.clin, i * 9);
  }

  /**
   * The linear part of a bone under a shearing parent: local scale · local rotation · the parent's linear
   * part (9 numbers as rows at q in `pm`).
   */
  private shearedLinear(i: number, pm: Float64Array, q: number): void {
    const m = this.clin;
    const o = i * 9;
    rotationRows(this.lrot, i * 4, this.lscl, i * 3, m, o);
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
