import { Quat, multiply, multiplyConjugate, normalizeQuat, quatFromArray, quatToArray } from "../math/quat.js";
import { DampedLeastSquares } from "./damped-least-squares.js";
import { eulerXYZFromQuat, quatFromEulerXYZ } from "./euler-xyz.js";
import { EffectorRows } from "./effector-rows.js";
import type { JacobianEffector } from "./jacobian-effector.js";
import type { JacobianJoint } from "./jacobian-joint.js";

const p = new Quat();
const pz = new Quat();
const qa = new Quat();
const qb = new Quat();

/**
 * The flat state of an {@link IKSolverJacobian}: joints, angles, effector rows, the Jacobian and the damped
 * normal matrix, all in Float64Arrays allocated at setup. Forward kinematics, the error vector, the
 * Jacobian and the damped step; nothing here allocates, and doubles move between methods through fields
 * and arrays, never as arguments or return values.
 */
export class JacobianKinematics {
  /** Number of joints. */
  readonly n: number;
  /** Bone id per joint. */
  readonly bone: Int32Array;
  /** Parent joint per joint (−1 for a root). */
  readonly parent: Int32Array;
  /** First angle of each joint in {@link theta}. */
  readonly dofStart: Int32Array;
  /** Angles per joint: 3, 1 (hinge) or 0 (locked). */
  readonly dofCount: Uint8Array;
  /** Unit hinge axis per joint (parent frame), 3 numbers each. */
  readonly hinge: Float64Array;
  /** Rest local rotation per joint, 4 numbers each (set at setup). */
  readonly rest: Float64Array;
  /** The rotation the angles act on per joint: local = E(θ)·base. */
  readonly base: Float64Array;
  /** Animated local rotation per joint (read each update). */
  readonly anim: Float64Array;
  /** Offset from the parent joint in the parent's frame; a root's component-space position. */
  readonly localPos: Float64Array;
  /** World (component-space) rotation per joint. */
  readonly wRot: Float64Array;
  /** World position per joint (roots stay where they were read). */
  readonly wPos: Float64Array;
  /** The root joints' parent frame. */
  readonly parentFrame = new Quat();
  /** Total length of the joints (scale of the problem). */
  length = 1;
  /** Total degrees of freedom. */
  readonly dofs: number;
  /** Current angles. */
  readonly theta: Float64Array;
  private readonly best: Float64Array;
  private readonly lo: Float64Array;
  private readonly hi: Float64Array;
  /** Scratch for a path of joints (tip to root). */
  readonly path: Int32Array;
  /** World axis per angle, 3 numbers each. */
  private readonly axes: Float64Array;
  /** The effectors' rows: targets, weights, priorities. */
  readonly fx = new EffectorRows();
  /** Σ of the weighted squared errors at the current angles. */
  errorSq = 0;
  /** {@link errorSq} at the best angles. */
  bestErrorSq = 0;
  /** Largest unweighted effector error at the current angles (rotation as angle × length). */
  maxError = 0;
  /** The damped step over {@link theta}, holding the Jacobian and the error vector. */
  readonly dls: DampedLeastSquares;

  /** Allocates the joint arrays for `joints` (validated by the solver). */
  constructor(joints: readonly JacobianJoint[]) {
    const n = joints.length;
    this.n = n;
    this.bone = Int32Array.from(joints, (j) => j.bone);
    this.parent = Int32Array.from(joints, (j, i) => j.parent ?? i - 1);
    this.dofCount = Uint8Array.from(joints, (j) => (j.locked === true ? 0 : j.hingeAxis !== undefined ? 1 : 3));
    this.dofStart = new Int32Array(n);
    let d = 0;
    for (let i = 0; i < n; i++) {
      this.dofStart[i] = d;
      d += this.dofCount[i]!;
    }
    this.dofs = d;
    this.hinge = new Float64Array(n * 3);
    joints.forEach((j, i) => {
      const a = j.hingeAxis;
      if (a === undefined) return;
      const l = Math.hypot(a.x, a.y, a.z);
      this.hinge[i * 3] = a.x / l;
      this.hinge[i * 3 + 1] = a.y / l;
      this.hinge[i * 3 + 2] = a.z / l;
    });
    this.rest = new Float64Array(n * 4);
    this.base = new Float64Array(n * 4);
    this.anim = new Float64Array(n * 4);
    this.localPos = new Float64Array(n * 3);
    this.wRot = new Float64Array(n * 4);
    this.wPos = new Float64Array(n * 3);
    this.theta = new Float64Array(d);
    this.best = new Float64Array(d);
    this.lo = new Float64Array(d).fill(-Infinity);
    this.hi = new Float64Array(d).fill(Infinity);
    joints.forEach((j, i) => {
      for (let k = 0; k < this.dofCount[i]!; k++) {
        if (j.min !== undefined) this.lo[this.dofStart[i]! + k] = j.min[k]!;
        if (j.max !== undefined) this.hi[this.dofStart[i]! + k] = j.max[k]!;
      }
    });
    this.axes = new Float64Array(d * 3);
    this.path = new Int32Array(n);
    this.dls = new DampedLeastSquares(this.theta, this.lo, this.hi);
  }

  /** Index of the joint on `bone`, or −1. */
  jointOf(bone: number): number {
    return this.bone.indexOf(bone);
  }

  /** Allocates the effector rows (6 per effector: position and rotation). Setup time. */
  setEffectors(effectors: readonly JacobianEffector[]): void {
    this.dls.allocate(this.fx.allocate(effectors), effectors.length);
  }

  /**
   * Expresses joint `i`'s animated local rotation `local` in its angles (clamped to the limits) and sets the
   * rotation they act on.
   */
  setAnglesFrom(i: number, local: Quat): void {
    const o = i * 4;
    const ds = this.dofStart[i]!;
    const dc = this.dofCount[i]!;
    if (dc === 0) {
      quatToArray(this.base, o, local);
      return;
    }
    quatFromArray(qa, this.rest, o);
    multiplyConjugate(qb, local, qa);
    if (dc === 3) {
      eulerXYZFromQuat(this.theta, ds, qb);
      quatToArray(this.base, o, qa);
    } else {
      if (qb.w < 0) {
        qb.x = -qb.x;
        qb.y = -qb.y;
        qb.z = -qb.z;
        qb.w = -qb.w;
      }
      const ax = this.hinge[i * 3]!;
      const ay = this.hinge[i * 3 + 1]!;
      const az = this.hinge[i * 3 + 2]!;
      // the twist about the axis is the hinge's angle; the rest of the animated rotation is kept in base
      const th = 2 * Math.atan2(qb.x * ax + qb.y * ay + qb.z * az, qb.w);
      this.theta[ds] = th;
      const s = Math.sin(-0.5 * th);
      qa.x = ax * s;
      qa.y = ay * s;
      qa.z = az * s;
      qa.w = Math.cos(-0.5 * th);
      multiply(qb, qa, local);
      quatToArray(this.base, o, normalizeQuat(qb, qb));
    }
    for (let d = ds; d < ds + dc; d++) {
      const t = this.theta[d]!;
      this.theta[d] = t < this.lo[d]! ? this.lo[d]! : t > this.hi[d]! ? this.hi[d]! : t;
    }
  }

  /** Writes joint `i`'s local rotation at the current angles into `out`. */
  solvedLocal(out: Quat, i: number): Quat {
    const dc = this.dofCount[i]!;
    const ds = this.dofStart[i]!;
    quatFromArray(qb, this.base, i * 4);
    if (dc === 0) return normalizeQuat(out, qb);
    if (dc === 3) {
      quatFromEulerXYZ(qa, this.theta, ds);
    } else {
      const h = 0.5 * this.theta[ds]!;
      const s = Math.sin(h);
      qa.x = this.hinge[i * 3]! * s;
      qa.y = this.hinge[i * 3 + 1]! * s;
      qa.z = this.hinge[i * 3 + 2]! * s;
      qa.w = Math.cos(h);
    }
    multiply(out, qa, qb);
    return normalizeQuat(out, out);
  }

  /** Takes the effectors' targets for this update (see {@link EffectorRows.activate}); false when none is on. */
  activate(effectors: readonly JacobianEffector[]): boolean {
    const fx = this.fx;
    const on = fx.activate(effectors);
    this.dls.rows = fx.rows;
    this.dls.levels = fx.levels;
    this.dls.levelStart = fx.levelStart;
    return on;
  }

  /** Pulls unreachable targets in to their reach (see {@link EffectorRows.clampTargets}). */
  clampTargets(): void {
    this.fx.clampTargets(this.parent, this.localPos, this.wPos);
  }

  /** Forward kinematics at the current angles: world rotations, positions and every angle's world axis. */
  forward(): void {
    const th = this.theta;
    const ax = this.axes;
    for (let i = 0; i < this.n; i++) {
      const par = this.parent[i]!;
      if (par < 0) {
        p.x = this.parentFrame.x;
        p.y = this.parentFrame.y;
        p.z = this.parentFrame.z;
        p.w = this.parentFrame.w;
      } else {
        quatFromArray(p, this.wRot, par * 4);
        // position = parent position + parent rotation applied to the local offset
        const o = i * 3;
        const vx = this.localPos[o]!;
        const vy = this.localPos[o + 1]!;
        const vz = this.localPos[o + 2]!;
        const tx = 2 * (p.y * vz - p.z * vy);
        const ty = 2 * (p.z * vx - p.x * vz);
        const tz = 2 * (p.x * vy - p.y * vx);
        this.wPos[o] = this.wPos[par * 3]! + vx + p.w * tx + (p.y * tz - p.z * ty);
        this.wPos[o + 1] = this.wPos[par * 3 + 1]! + vy + p.w * ty + (p.z * tx - p.x * tz);
        this.wPos[o + 2] = this.wPos[par * 3 + 2]! + vz + p.w * tz + (p.x * ty - p.y * tx);
      }
      const dc = this.dofCount[i]!;
      const ds = this.dofStart[i]!;
      quatFromArray(qb, this.base, i * 4);
      if (dc === 3) {
        const hx = 0.5 * th[ds]!;
        const hy = 0.5 * th[ds + 1]!;
        const hz = 0.5 * th[ds + 2]!;
        // z axis: the parent's; y axis: after the z turn; x axis: after the z and y turns
        column(ax, (ds + 2) * 3, p, 2);
        qa.x = 0;
        qa.y = 0;
        qa.z = Math.sin(hz);
        qa.w = Math.cos(hz);
        multiply(pz, p, qa);
        column(ax, (ds + 1) * 3, pz, 1);
        qa.x = 0;
        qa.y = Math.sin(hy);
        qa.z = 0;
        qa.w = Math.cos(hy);
        multiply(pz, pz, qa);
        column(ax, ds * 3, pz, 0);
        qa.x = Math.sin(hx);
        qa.y = 0;
        qa.z = 0;
        qa.w = Math.cos(hx);
        multiply(pz, pz, qa);
        multiply(pz, pz, qb);
      } else if (dc === 1) {
        const h = 0.5 * th[ds]!;
        const s = Math.sin(h);
        const hxv = this.hinge[i * 3]!;
        const hyv = this.hinge[i * 3 + 1]!;
        const hzv = this.hinge[i * 3 + 2]!;
        qa.x = hxv * s;
        qa.y = hyv * s;
        qa.z = hzv * s;
        qa.w = Math.cos(h);
        // the hinge axis in world: the parent's rotation applied to it
        const o = ds * 3;
        const tx = 2 * (p.y * hzv - p.z * hyv);
        const ty = 2 * (p.z * hxv - p.x * hzv);
        const tz = 2 * (p.x * hyv - p.y * hxv);
        ax[o] = hxv + p.w * tx + (p.y * tz - p.z * ty);
        ax[o + 1] = hyv + p.w * ty + (p.z * tx - p.x * tz);
        ax[o + 2] = hzv + p.w * tz + (p.x * ty - p.y * tx);
        multiply(pz, p, qa);
        multiply(pz, pz, qb);
      } else {
        multiply(pz, p, qb);
      }
      quatToArray(this.wRot, i * 4, normalizeQuat(pz, pz));
    }
  }

  /** The weighted error vector at the current angles, {@link errorSq} and {@link maxError}. */
  computeError(): void {
    const L = this.length;
    const fx = this.fx;
    const err = this.dls.err;
    fx.levelErr.fill(0);
    let sq = 0;
    let worst = 0;
    for (let e = 0; e < fx.active.length; e++) {
      if (fx.active[e] !== 1) continue;
      const r = fx.rowStart[e]!;
      const j = fx.effJoint[e]! * 3;
      const dx = fx.tgt[e * 3]! - this.wPos[j]!;
      const dy = fx.tgt[e * 3 + 1]! - this.wPos[j + 1]!;
      const dz = fx.tgt[e * 3 + 2]! - this.wPos[j + 2]!;
      const d2 = dx * dx + dy * dy + dz * dz;
      const s = fx.sw[e]!;
      err[r] = dx * s;
      err[r + 1] = dy * s;
      err[r + 2] = dz * s;
      if (d2 > worst * worst) worst = Math.sqrt(d2);
      const lvl = fx.levelOf[e]!;
      fx.levelErr[lvl] += d2 * s * s;
      if (fx.hasRot[e] !== 1) continue;
      // rotation error: the rotation vector of target · current⁻¹ (shorter way)
      quatFromArray(qa, fx.tgtRot, e * 4);
      quatFromArray(qb, this.wRot, fx.effJoint[e]! * 4);
      multiplyConjugate(qa, qa, qb);
      if (qa.w < 0) {
        qa.x = -qa.x;
        qa.y = -qa.y;
        qa.z = -qa.z;
        qa.w = -qa.w;
      }
      const vl = Math.sqrt(qa.x * qa.x + qa.y * qa.y + qa.z * qa.z);
      const angle = 2 * Math.atan2(vl, qa.w);
      const k = vl > 0 ? (angle / vl) * L * fx.swr[e]! : 0;
      err[r + 3] = qa.x * k;
      err[r + 4] = qa.y * k;
      err[r + 5] = qa.z * k;
      fx.levelErr[lvl] += (qa.x * qa.x + qa.y * qa.y + qa.z * qa.z) * k * k;
      if (angle * L > worst) worst = angle * L;
    }
    for (let l = 0; l < fx.levels; l++) sq += fx.levelErr[l]!;
    this.errorSq = sq;
    this.maxError = worst;
  }

  /** Keeps the current angles as the best so far. */
  saveBest(): void {
    this.best.set(this.theta);
    this.bestErrorSq = this.errorSq;
    this.fx.saveLevels();
  }

  /** Returns to the best angles, their kinematics and error. */
  restoreBest(): void {
    this.theta.set(this.best);
    this.forward();
    this.computeError();
  }

  /** The weighted Jacobian of the active effectors at the current kinematics (rows × dofs, row-major). */
  buildJacobian(): void {
    const D = this.dofs;
    const J = this.dls.jac;
    const L = this.length;
    const fx = this.fx;
    J.fill(0, 0, fx.rows * D);
    for (let e = 0; e < fx.active.length; e++) {
      if (fx.active[e] !== 1) continue;
      const r = fx.rowStart[e]! * D;
      const je = fx.effJoint[e]! * 3;
      const ex = this.wPos[je]!;
      const ey = this.wPos[je + 1]!;
      const ez = this.wPos[je + 2]!;
      const s = fx.sw[e]!;
      const rot = fx.hasRot[e] === 1;
      const sr = rot ? fx.swr[e]! * L : 0;
      // the joints that move this effector: its own and its ancestors
      for (let k = fx.effJoint[e]!; k >= 0; k = this.parent[k]!) {
        const rx = ex - this.wPos[k * 3]!;
        const ry = ey - this.wPos[k * 3 + 1]!;
        const rz = ez - this.wPos[k * 3 + 2]!;
        const ds = this.dofStart[k]!;
        for (let d = ds; d < ds + this.dofCount[k]!; d++) {
          const axx = this.axes[d * 3]!;
          const axy = this.axes[d * 3 + 1]!;
          const axz = this.axes[d * 3 + 2]!;
          J[r + d] = (axy * rz - axz * ry) * s;
          J[r + D + d] = (axz * rx - axx * rz) * s;
          J[r + 2 * D + d] = (axx * ry - axy * rx) * s;
          if (rot) {
            J[r + 3 * D + d] = axx * sr;
            J[r + 4 * D + d] = axy * sr;
            J[r + 5 * D + d] = axz * sr;
          }
        }
      }
    }
  }
}

/** Writes column `c` (0 x, 1 y, 2 z) of unit `q`'s rotation matrix into `out` at `o`. */
function column(out: Float64Array, o: number, q: Quat, c: number): void {
  const x = q.x;
  const y = q.y;
  const z = q.z;
  const w = q.w;
  if (c === 0) {
    out[o] = 1 - 2 * (y * y + z * z);
    out[o + 1] = 2 * (x * y + w * z);
    out[o + 2] = 2 * (x * z - w * y);
  } else if (c === 1) {
    out[o] = 2 * (x * y - w * z);
    out[o + 1] = 1 - 2 * (x * x + z * z);
    out[o + 2] = 2 * (y * z + w * x);
  } else {
    out[o] = 2 * (x * z + w * y);
    out[o + 1] = 2 * (y * z - w * x);
    out[o + 2] = 1 - 2 * (x * x + y * y);
  }
}
