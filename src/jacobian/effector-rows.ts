import { ON_POINT } from "../math/on-point.js";
import { Quat, normalizeQuat, quatToArray } from "../math/quat.js";
import type { JacobianEffector } from "./jacobian-effector.js";

const qa = new Quat();

/**
 * The effectors of an {@link IKSolverJacobian} as rows of the least-squares system: which are on this
 * update, their targets and weights, and their rows grouped by priority (highest first), in flat arrays
 * allocated at setup.
 */
export class EffectorRows {
  /** Joint index per effector. */
  effJoint = new Int32Array(0);
  /** 1 per effector in use this update. */
  active = new Uint8Array(0);
  /** 1 per effector whose rotation target is in use this update. */
  hasRot = new Uint8Array(0);
  /** √weight per effector. */
  sw = new Float64Array(0);
  /** √(weight · rotationWeight) per effector. */
  swr = new Float64Array(0);
  /** Target position per effector (clamped to its reach), 3 numbers each. */
  tgt = new Float64Array(0);
  /** Unit target rotation per effector, 4 numbers each. */
  tgtRot = new Float64Array(0);
  /** First row per effector. */
  rowStart = new Int32Array(0);
  /** Rows in use. */
  rows = 0;
  /** Priority level per effector (0 the highest). */
  levelOf = new Int32Array(0);
  /** Number of priority levels in use. */
  levels = 0;
  /** First row per level, and one past the last at [levels]. */
  levelStart = new Int32Array(1);
  /** Weighted squared error per level at the current angles. */
  levelErr = new Float64Array(0);
  /** {@link levelErr} at the best angles. */
  bestLevelErr = new Float64Array(0);
  /**
   * 1 per effector whose target the last {@link clampTargets} found on its root joint (within {@link ON_POINT}
   * of its path), where float noise has no direction, and replaced by the effector's animated position.
   */
  onRoot = new Uint8Array(0);
  /** How many targets the last {@link clampTargets} pulled in. */
  clamped = 0;
  /** The last effector {@link clampTargets} pulled in (−1 for none). */
  lastClamped = -1;
  /** Squared error below which two level errors count as equal (rounding), set per update. */
  floorSq = 0;
  /**
   * Squared error under which a level above the lowest counts as met in {@link improved}: the null-space steps of
   * the levels below raise it at second order, and a strict comparison would reject every one of them.
   */
  bandSq = 0;
  /**
   * Relative difference under which two errors of a level above the lowest count as equal (what a correction leaves
   * of a residual it cannot remove).
   */
  rel = 1e-15;
  /** The level the last {@link improved} decided on, or −1 when every level was equal. */
  decided = -1;
  private order = new Int32Array(0);
  private prio = new Float64Array(0);

  /** Allocates for `effectors` (setup time); returns the most rows they can take. */
  allocate(effectors: readonly JacobianEffector[]): number {
    const e = effectors.length;
    this.effJoint = Int32Array.from(effectors, (x) => x.joint);
    this.active = new Uint8Array(e);
    this.onRoot = new Uint8Array(e);
    this.hasRot = new Uint8Array(e);
    this.sw = new Float64Array(e);
    this.swr = new Float64Array(e);
    this.tgt = new Float64Array(e * 3);
    this.tgtRot = new Float64Array(e * 4);
    this.rowStart = new Int32Array(e);
    this.levelOf = new Int32Array(e);
    this.levelStart = new Int32Array(e + 1);
    this.levelErr = new Float64Array(e);
    this.bestLevelErr = new Float64Array(e);
    this.order = new Int32Array(e);
    this.prio = new Float64Array(e);
    return e * 6;
  }

  /** Number of effectors on this update. */
  get activeCount(): number {
    let c = 0;
    for (let e = 0; e < this.active.length; e++) c += this.active[e]!;
    return c;
  }

  /**
   * Takes the effectors' targets, weights and priorities for this update; false when none is usable. An
   * effector with a non-finite or non-positive weight or a non-finite target is off; a non-finite rotation
   * target or rotation weight drops only the rotation; a non-finite priority counts as 0.
   */
  activate(effectors: readonly JacobianEffector[]): boolean {
    let on = 0;
    for (let e = 0; e < effectors.length; e++) {
      const x = effectors[e]!;
      const t = x.position;
      const w = x.weight;
      const ok = w > 0 && w < Infinity && Number.isFinite(t.x) && Number.isFinite(t.y) && Number.isFinite(t.z);
      this.active[e] = ok ? 1 : 0;
      this.hasRot[e] = 0;
      this.onRoot[e] = 0;
      if (!ok) continue;
      this.sw[e] = Math.sqrt(w);
      this.tgt[e * 3] = t.x;
      this.tgt[e * 3 + 1] = t.y;
      this.tgt[e * 3 + 2] = t.z;
      const pr = x.priority;
      this.prio[e] = pr > -Infinity && pr < Infinity ? pr : 0;
      // insertion by priority, highest first, stable for equal priorities
      let i = on++;
      while (i > 0 && this.prio[this.order[i - 1]!]! < this.prio[e]!) {
        this.order[i] = this.order[i - 1]!;
        i--;
      }
      this.order[i] = e;
      const r = x.rotation;
      const rw = x.rotationWeight;
      if (r === null || !(rw > 0 && rw < Infinity)) continue;
      const rn = r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w;
      if (rn > 0 && rn < Infinity) {
        normalizeQuat(qa, r);
        this.hasRot[e] = 1;
        this.swr[e] = Math.sqrt(w * rw);
        quatToArray(this.tgtRot, e * 4, qa);
      }
    }
    let rows = 0;
    let levels = 0;
    for (let i = 0; i < on; i++) {
      const e = this.order[i]!;
      if (i === 0 || this.prio[e]! !== this.prio[this.order[i - 1]!]!) this.levelStart[levels++] = rows;
      this.levelOf[e] = levels - 1;
      this.rowStart[e] = rows;
      rows += this.hasRot[e] === 1 ? 6 : 3;
    }
    this.levelStart[levels] = rows;
    this.levels = levels;
    this.rows = rows;
    return rows > 0;
  }

  /**
   * Replaces each target farther from its effector's root joint than the effector's path straightened by
   * the point at that reach on the line to it (the joints' parents, local offsets and world positions given),
   * and a target on its root joint by the effector's animated position ({@link onRoot}).
   */
  clampTargets(parent: Int32Array, localPos: Float64Array, wPos: Float64Array): void {
    this.clamped = 0;
    this.lastClamped = -1;
    for (let e = 0; e < this.active.length; e++) {
      if (this.active[e] !== 1) continue;
      let j = this.effJoint[e]!;
      let reach = 0;
      while (parent[j]! >= 0) {
        const o = j * 3;
        const x = localPos[o]!;
        const y = localPos[o + 1]!;
        const z = localPos[o + 2]!;
        reach += Math.sqrt(x * x + y * y + z * z);
        j = parent[j]!;
      }
      const o = e * 3;
      const dx = this.tgt[o]! - wPos[j * 3]!;
      const dy = this.tgt[o + 1]! - wPos[j * 3 + 1]!;
      const dz = this.tgt[o + 2]! - wPos[j * 3 + 2]!;
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (!(d > ON_POINT * reach) && reach > 0) {
        this.keepAnimated(e, wPos);
        continue;
      }
      if (d > reach) {
        const s = reach / d;
        this.tgt[o] = wPos[j * 3]! + dx * s;
        this.tgt[o + 1] = wPos[j * 3 + 1]! + dy * s;
        this.tgt[o + 2] = wPos[j * 3 + 2]! + dz * s;
        this.clamped++;
        this.lastClamped = e;
      }
    }
  }

  /**
   * Puts effector `e`'s target where the effector is (its animated position: read, not yet solved). A fold
   * toward a point near the root is no answer either: the reachable points nearest it form a sphere, the least
   * squares drift along it where the iterations happen to end, a new way each frame.
   */
  private keepAnimated(e: number, wPos: Float64Array): void {
    const a = this.effJoint[e]! * 3;
    const o = e * 3;
    this.tgt[o] = wPos[a]!;
    this.tgt[o + 1] = wPos[a + 1]!;
    this.tgt[o + 2] = wPos[a + 2]!;
    this.onRoot[e] = 1;
  }

  /** Keeps the current level errors as the best. */
  saveLevels(): void {
    this.bestLevelErr.set(this.levelErr);
  }

  /**
   * True when the current errors beat the best ones, compared level by level from the highest priority: the first
   * level that differs by more than {@link floorSq} and a relative {@link rel} decides ({@link decided}); errors of a
   * level above the lowest under {@link bandSq} count as equal.
   */
  improved(): boolean {
    const floorSq = this.floorSq;
    for (let l = 0; l < this.levels; l++) {
      // the lowest level is never corrected: it is compared to rounding alone
      const upper = l < this.levels - 1;
      const band = upper ? this.bandSq : 0;
      const now = this.levelErr[l]! > band ? this.levelErr[l]! : band;
      const best = this.bestLevelErr[l]! > band ? this.bestLevelErr[l]! : band;
      const eps = floorSq + best * (upper ? this.rel : 1e-15);
      this.decided = l;
      if (now < best - eps) return true;
      if (now > best + eps) return false;
    }
    this.decided = -1;
    return false;
  }

  /** True when one of the first `levels` levels is above both its best error and the band (as {@link improved}). */
  rose(levels: number): boolean {
    for (let l = 0; l < levels; l++) {
      const best = this.bestLevelErr[l]! > this.bandSq ? this.bestLevelErr[l]! : this.bandSq;
      if (this.levelErr[l]! > best + this.floorSq + best * this.rel) return true;
    }
    return false;
  }
}
