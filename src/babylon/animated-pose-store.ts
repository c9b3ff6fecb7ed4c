import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FixedBone } from "../mapping/biped-mapping.js";
import { moduleMatrix } from "./module-matrix.js";

/** Flags of `owned`: the channel holds what the IK wrote. */
const OWN_ROTATION = 1;
const OWN_POSITION = 2;

const bq = new Quaternion();
const bv = new Vector3();
const bs = new Vector3();
const bm = moduleMatrix();

/**
 * FinalIK's StoreDefaultLocalState / FixTransforms for a Babylon rig, with one difference: only what the IK
 * wrote and still stands is undone. For the k-th stored bone (the bones the mapping writes): its id, and
 * position (3) + rotation (4) at k * 7 of the animated pose the last read found (`animated`) and of what the
 * IK last wrote to Babylon (`written`), Babylon's own doubles bit for bit; `owned` says which of the bone's
 * channels hold what the IK wrote, as far as the IK knows. Allocation-free after `store`.
 */
export class AnimatedPoseStore {
  /** Per rig id, the index k of its stored entry, or -1. */
  readonly indexOf: Int32Array;
  /** Animated local position + rotation of each stored bone at k * 7 (filled by the rig's read). */
  animated = new Float64Array(0);
  /**
   * Plain Bones only: each stored bone's local matrix as the last read found it (16 at k * 16). A Bone
   * recomposes its matrix from rotation, position and decomposed scale when either is set, which loses a
   * sheared matrix's last bits (a .babylon file's 4-decimal matrices): the matrix itself is restored.
   */
  animatedMatrices = new Float64Array(0);
  /**
   * Plain Bones: each stored bone's local position (3), rotation (4) and scale (3) at k * 10, as the bone held them
   * with its stored matrix (`exact`): Babylon's own decomposition of it, or the values it was composed from.
   * Restoring puts them back with the matrix, so the next read does not decompose the matrix again
   * (Matrix.decompose, one of the frame's larger costs on such rigs) and a clip setting one of them keeps the others.
   */
  private decomposed = new Float64Array(0);
  /** 1 where `decomposed` holds the local values of `animatedMatrices`' entry. */
  private exact = new Uint8Array(0);
  /** The bone's local matrix `updateFlag` right after a restore that put the decomposition back, or -1. */
  private restoredFlag = new Float64Array(0);
  /**
   * Linked nodes read with Euler angles (`rotationQuaternion` null): the angles as read (3 at k * 3), restored as
   * they were, since angles from the quaternion differ in their last bits (or their branch, which a cross-fade of
   * Euler angles turns through); `euler[k]` is 1 when they are the read's.
   */
  private animatedEuler = new Float64Array(0);
  private euler = new Uint8Array(0);
  private ids = new Int32Array(0);
  private written = new Float64Array(0);
  private owned = new Uint8Array(0);
  /** True when some entry of `owned` may be set. */
  private anyOwned = false;
  /** Linked nodes written with Euler angles: the angles written (3 at k * 3) where `writtenEuler[k]` is 1. */
  private writtenAngles = new Float64Array(0);
  private writtenEuler = new Uint8Array(0);
  /** The channels the last restore undid, per stored bone (`owned`'s flags), while `undoneValid`. */
  private undone = new Uint8Array(0);
  /** True from a restore that undid something until the next write or {@link reapply}. */
  private undoneValid = false;

  /**
   * @param nodes the rig's TransformNodes by id (null where it reads a Bone)
   * @param bones the rig's Bones by id
   * @param localScales the rig's local scales as read (3 per id)
   * @param boneOnly true for a skeleton without linked nodes
   */
  constructor(
    private readonly nodes: readonly (TransformNode | null)[],
    private readonly bones: readonly (Bone | null)[],
    private readonly localScales: Float64Array,
    private readonly boneOnly: boolean,
  ) {
    this.indexOf = new Int32Array(nodes.length).fill(-1);
  }

  /** True when the IK may own a channel (restore has something to do). */
  get holdsWrites(): boolean {
    return this.anyOwned;
  }

  /** Remembers `bones`' current local state (FinalIK's StoreDefaultLocalState). */
  store(bones: readonly FixedBone[]): void {
    // Babylon's own values, bit for bit: restoring them must change nothing on an untouched bone
    const n = bones.length;
    this.ids = new Int32Array(n);
    const values = new Float64Array(n * 14);
    this.animated = values.subarray(0, n * 7);
    this.written = values.subarray(n * 7, n * 14);
    this.owned = new Uint8Array(n);
    this.undone = new Uint8Array(n);
    this.undoneValid = false;
    this.writtenAngles = new Float64Array(this.boneOnly ? 0 : n * 3);
    this.writtenEuler = new Uint8Array(this.boneOnly ? 0 : n);
    this.animatedMatrices = new Float64Array(this.boneOnly ? n * 16 : 0);
    this.animatedEuler = new Float64Array(this.boneOnly ? 0 : n * 3);
    this.euler = new Uint8Array(this.boneOnly ? 0 : n);
    this.decomposed = new Float64Array(this.boneOnly ? n * 10 : 0);
    this.exact = new Uint8Array(this.boneOnly ? n : 0);
    this.restoredFlag = new Float64Array(this.boneOnly ? n : 0).fill(-1);
    this.anyOwned = false;
    this.indexOf.fill(-1);
    const rotation = new Quaternion();
    const position = new Vector3();
    bones.forEach((b, k) => {
      this.readRawLocal(b.bone, position, rotation);
      this.ids[k] = b.bone;
      this.animated.set(
        [position._x, position._y, position._z, rotation._x, rotation._y, rotation._z, rotation._w],
        k * 7,
      );
      this.indexOf[b.bone] = k;
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
   * Plain Bones, called by the rig's read of stored bone `k` after its local getters ran: `decomposing` says the
   * getters just decomposed the bone's matrix (it was marked so before them). Keeps the bone's local values, which
   * are its pose either way: just decomposed from its matrix, or the ones its matrix is composed from (set through
   * `position` or `rotationQuaternion`, a clip on those, or put back by the last restore). True when they and the
   * matrix are what the last restore put back, untouched since (the stored matrix need not be copied again).
   */
  noteBoneRead(k: number, bone: Bone, decomposing: boolean): boolean {
    const b = bone as unknown as BoneLocalState;
    const p = b._localPosition;
    const q = b._localRotation;
    const s = b._localScaling;
    const d = this.decomposed;
    const o = k * 10;
    if (
      !decomposing &&
      this.exact[k] !== 0 &&
      !b._needToCompose &&
      b._localMatrix.updateFlag === this.restoredFlag[k] &&
      p._x === d[o] &&
      p._y === d[o + 1] &&
      p._z === d[o + 2] &&
      q._x === d[o + 3] &&
      q._y === d[o + 4] &&
      q._z === d[o + 5] &&
      q._w === d[o + 6] &&
      s._x === d[o + 7] &&
      s._y === d[o + 8] &&
      s._z === d[o + 9]
    )
      return true;
    // restored with the matrix, these spare the next set of one channel a decomposition of the (Float32) matrix,
    // whose rounding a clip on `rotationQuaternion` would carry into the position and scale frame after frame
    d[o] = p._x;
    d[o + 1] = p._y;
    d[o + 2] = p._z;
    d[o + 3] = q._x;
    d[o + 4] = q._y;
    d[o + 5] = q._z;
    d[o + 6] = q._w;
    d[o + 7] = s._x;
    d[o + 8] = s._y;
    d[o + 9] = s._z;
    this.exact[k] = 1;
    return false;
  }

  /** Linked nodes, called by the rig's read of stored bone `k`: keeps its Euler angles when it has no quaternion. */
  noteEulerRead(k: number, quaternion: Quaternion | null, angles: Vector3): void {
    if (quaternion !== null) {
      this.euler[k] = 0;
      return;
    }
    const e = this.animatedEuler;
    e[k * 3] = angles._x;
    e[k * 3 + 1] = angles._y;
    e[k * 3 + 2] = angles._z;
    this.euler[k] = 1;
  }

  /**
   * Records what was just written to stored bone `k` (Babylon's fields, read directly); `angles`, the Euler angles
   * written to a node without a quaternion (`rotation` their quaternion).
   */
  remember(k: number, rotation: Quaternion | null, position: Vector3 | null, angles: Vector3 | null = null): void {
    const w = this.written;
    const o = k * 7;
    this.undoneValid = false;
    if (angles !== null) {
      const e = this.writtenAngles;
      e[k * 3] = angles._x;
      e[k * 3 + 1] = angles._y;
      e[k * 3 + 2] = angles._z;
    }
    if (rotation !== null && !this.boneOnly) this.writtenEuler[k] = angles !== null ? 1 : 0;
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

  /**
   * Undoes what the IK wrote, where it still stands: each channel (local rotation, local position) of the
   * stored bones that still holds exactly what was remembered gets back the value the last read found (the
   * animated pose, Babylon's doubles bit for bit). A channel something else set since (an animation,
   * `goToFrame`, user code) is that code's pose and is left alone.
   */
  restore(): void {
    if (!this.anyOwned) {
      // nothing stands: an older restore's channels must not be put back
      this.undoneValid = false;
      return;
    }
    this.anyOwned = false;
    const ids = this.ids;
    const owned = this.owned;
    const undone = this.undone;
    for (let k = 0; k < ids.length; k++) {
      const own = owned[k]!;
      undone[k] = 0;
      if (own === 0) continue;
      owned[k] = 0;
      undone[k] = this.undoLocal(ids[k]!, k * 7, own);
    }
    this.undoneValid = true;
  }

  /**
   * Writes back what the last {@link restore} undid, as the IK wrote it (the same calls on the same values, so
   * Babylon composes the same bits), and owns it again: between frames, after a read of the animated pose
   * underneath. Nothing once the IK wrote since, or after a reapply.
   */
  reapply(): void {
    if (!this.undoneValid) return;
    this.undoneValid = false;
    const ids = this.ids;
    const undone = this.undone;
    for (let k = 0; k < ids.length; k++) {
      const own = undone[k]!;
      if (own === 0) continue;
      undone[k] = 0;
      this.redoLocal(ids[k]!, k, own);
      this.owned[k] = own;
      this.anyOwned = true;
    }
  }

  /** Writes stored bone `id`'s channels in `own` from `written`, as the rig's write does. */
  private redoLocal(id: number, k: number, own: number): void {
    const w = this.written;
    const o = k * 7;
    const node = this.nodes[id];
    if (node !== null && node !== undefined) {
      if ((own & OWN_ROTATION) !== 0) {
        const nq = node.rotationQuaternion;
        if (nq !== null) {
          nq._x = w[o + 3]!;
          nq._y = w[o + 4]!;
          nq._z = w[o + 5]!;
          nq._w = w[o + 6]!;
          nq._isDirty = true;
        } else if (this.writtenEuler[k] === 1) {
          node.rotation.copyFrom(scratchVector(this.writtenAngles, k * 3));
        } else {
          node.rotation.copyFrom(scratchQuaternion(w, o + 3).toEulerAnglesToRef(bv));
        }
      }
      if ((own & OWN_POSITION) !== 0) {
        const p = node.position;
        p._x = w[o]!;
        p._y = w[o + 1]!;
        p._z = w[o + 2]!;
        p._isDirty = true;
      }
      return;
    }
    const bone = this.bones[id]!;
    if ((own & OWN_ROTATION) !== 0) bone.setRotationQuaternion(scratchQuaternion(w, o + 3));
    if ((own & OWN_POSITION) !== 0) bone.position = scratchVector(w, o);
  }

  /**
   * Restores stored bone `id`'s channels in `own` whose Babylon value still equals what the IK wrote (at
   * `o`) to the animated value; returns the channels restored. Babylon's fields are compared directly, and
   * written through a scratch Babylon object and copyFrom (which marks them dirty): no double crosses a call
   * (see ARCHITECTURE.md, "Doubles across calls").
   */
  private undoLocal(id: number, o: number, own: number): number {
    const w = this.written;
    const a = this.animated;
    const node = this.nodes[id];
    let q: Quaternion;
    let p: Vector3;
    const nq = node !== null && node !== undefined ? node.rotationQuaternion : null;
    if (node !== null && node !== undefined) {
      q =
        nq !== null ? nq : Quaternion.RotationYawPitchRollToRef(node.rotation.y, node.rotation.x, node.rotation.z, bq);
      p = node.position;
    } else {
      const bone = this.bones[id]!;
      q = bone.rotationQuaternion;
      p = bone.position;
      if (this.undoBoneMatrix(bone, q, p, o, own)) return own;
    }
    let undid = 0;
    if (
      (own & OWN_ROTATION) !== 0 &&
      q._x === w[o + 3] &&
      q._y === w[o + 4] &&
      q._z === w[o + 5] &&
      q._w === w[o + 6]
    ) {
      scratchQuaternion(a, o + 3);
      if (node !== null && node !== undefined) {
        if (nq !== null) nq.copyFrom(bq);
        else node.rotation.copyFrom(this.animatedAngles(o / 7));
      } else {
        this.bones[id]!.setRotationQuaternion(bq);
      }
      undid |= OWN_ROTATION;
    }
    if ((own & OWN_POSITION) !== 0 && p._x === w[o] && p._y === w[o + 1] && p._z === w[o + 2]) {
      if (node !== null && node !== undefined) p.copyFrom(scratchVector(a, o));
      else this.bones[id]!.position = scratchVector(a, o);
      undid |= OWN_POSITION;
    }
    return undid;
  }

  /**
   * FixTransforms on a copy Babylon took of a property (a blend's start value, `_originalBlendValue`): when
   * `value`, a copy of `target`'s `path` (a linked node's `rotationQuaternion` or `position`, a plain Bone's
   * `_matrix`), holds what the IK wrote there and still owns, it becomes the animated value that write replaced.
   */
  undoOnCopy(target: object, path: string, value: object): void {
    if (!this.anyOwned) return;
    let id = this.nodes.indexOf(target as TransformNode);
    if (id < 0) id = this.bones.indexOf(target as Bone);
    const k = id < 0 ? -1 : this.indexOf[id]!;
    if (k < 0) return;
    const own = this.owned[k]!;
    const o = k * 7;
    const w = this.written;
    if (path === "rotationQuaternion" && (own & OWN_ROTATION) !== 0) {
      const q = value as Quaternion;
      if (q._x === w[o + 3] && q._y === w[o + 4] && q._z === w[o + 5] && q._w === w[o + 6]) {
        q.copyFrom(scratchQuaternion(this.animated, o + 3));
      }
    } else if (path === "rotation" && (own & OWN_ROTATION) !== 0 && this.nodes[id] != null) {
      // a node's Euler angles: the IK remembered the quaternion of the angles it wrote
      const e = value as Vector3;
      Quaternion.RotationYawPitchRollToRef(e._y, e._x, e._z, bq);
      if (bq._x === w[o + 3] && bq._y === w[o + 4] && bq._z === w[o + 5] && bq._w === w[o + 6]) {
        e.copyFrom(this.animatedAngles(k));
      }
    } else if (path === "position" && (own & OWN_POSITION) !== 0) {
      const p = value as Vector3;
      if (p._x === w[o] && p._y === w[o + 1] && p._z === w[o + 2]) p.copyFrom(scratchVector(this.animated, o));
    } else if (path === "_matrix" && this.nodes[id] == null && this.matrixHoldsWrite(value as Matrix, k, own)) {
      Matrix.FromArrayToRef(this.animatedMatrices, k * 16, value as Matrix);
    }
  }

  /**
   * True when local matrix `m` of stored bone `k` is what Babylon composes from the channels as the IK left them
   * (bit for bit): the IK's write seen through a matrix, as a later IK's restore or a blend's copy leaves it. The
   * channels' own check cannot see it there: a restored matrix decomposes into other bits than were written.
   */
  private matrixHoldsWrite(m: Matrix, k: number, own: number): boolean {
    if (own === 0) return false;
    const o = k * 7;
    const r = (own & OWN_ROTATION) !== 0 ? this.written : this.animated;
    const l = this.localScales;
    const id3 = this.ids[k]! * 3;
    bs._x = l[id3]!;
    bs._y = l[id3 + 1]!;
    bs._z = l[id3 + 2]!;
    // the Bone's own compose (Bone._compose), on the same doubles
    Matrix.ComposeToRef(
      bs,
      scratchQuaternion(r, o + 3),
      scratchVector((own & OWN_POSITION) !== 0 ? this.written : this.animated, o),
      bm,
    );
    const a = m.m;
    const b = bm.m;
    for (let i = 0; i < 16; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  /** The scratch `bv` holding stored node `k`'s animated Euler angles: as read, or from its animated quaternion. */
  private animatedAngles(k: number): Vector3 {
    if (this.euler[k] !== 1) return scratchQuaternion(this.animated, k * 7 + 3).toEulerAnglesToRef(bv);
    return scratchVector(this.animatedEuler, k * 3);
  }

  /** True when a plain Bone's channels all still hold what the IK wrote or what the last read found (scale too). */
  private boneHoldsWrite(bone: Bone, q: Quaternion, p: Vector3, o: number, own: number): boolean {
    const w = this.written;
    const a = this.animated;
    const r = (own & OWN_ROTATION) !== 0 ? w : a;
    const t = (own & OWN_POSITION) !== 0 ? w : a;
    if (q._x !== r[o + 3] || q._y !== r[o + 4] || q._z !== r[o + 5] || q._w !== r[o + 6]) return false;
    if (p._x !== t[o] || p._y !== t[o + 1] || p._z !== t[o + 2]) return false;
    const id3 = this.ids[o / 7]! * 3;
    const sc = bone.scaling;
    const l = this.localScales;
    return sc._x === l[id3] && sc._y === l[id3 + 1] && sc._z === l[id3 + 2];
  }

  /**
   * A plain Bone whose channels all still hold what the IK wrote or what the last read found (its scale
   * too) gets back the local matrix that read found, bit for bit; false when something else changed it.
   */
  private undoBoneMatrix(bone: Bone, q: Quaternion, p: Vector3, o: number, own: number): boolean {
    const k = o / 7;
    const b = bone as unknown as BoneLocalState;
    // a later IK on the bone restored its matrix to what this one wrote (local values waiting to compose are not that)
    const held =
      this.boneHoldsWrite(bone, q, p, o, own) || (!b._needToCompose && this.matrixHoldsWrite(b._localMatrix, k, own));
    if (!held) return false;
    // what the `_matrix` setter animations use does (the matrix copied, the bone marked dirty and to be
    // decomposed), without the copy through a scratch matrix
    b._needToCompose = false;
    Matrix.FromArrayToRef(this.animatedMatrices, k * 16, b._localMatrix);
    bone.markAsDirty();
    b._needToDecompose = true;
    if (this.exact[k] !== 0) this.putDecomposition(b, k);
    return true;
  }

  /**
   * Gives a bone whose matrix was just restored the local values Babylon's decomposition of that matrix gave at the
   * read (bit for bit, as `_decompose` would set them), so it need not decompose it again.
   */
  private putDecomposition(b: BoneLocalState, k: number): void {
    const d = this.decomposed;
    const o = k * 10;
    const p = b._localPosition;
    const q = b._localRotation;
    const s = b._localScaling;
    p._x = d[o]!;
    p._y = d[o + 1]!;
    p._z = d[o + 2]!;
    p._isDirty = true;
    q._x = d[o + 3]!;
    q._y = d[o + 4]!;
    q._z = d[o + 5]!;
    q._w = d[o + 6]!;
    q._isDirty = true;
    s._x = d[o + 7]!;
    s._y = d[o + 8]!;
    s._z = d[o + 9]!;
    s._isDirty = true;
    b._needToDecompose = false;
    this.restoredFlag[k] = b._localMatrix.updateFlag;
  }
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

/** A Bone's internal local state (@babylonjs/core 9): the matrix setter animations of plain Bones go through. */
interface BoneLocalState {
  _matrix: Matrix;
  _localMatrix: Matrix;
  _localPosition: Vector3 & { _isDirty: boolean };
  _localRotation: Quaternion & { _isDirty: boolean };
  _localScaling: Vector3 & { _isDirty: boolean };
  _needToDecompose: boolean;
  _needToCompose: boolean;
}
