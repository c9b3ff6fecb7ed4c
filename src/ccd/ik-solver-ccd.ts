/**
 * Cyclic coordinate descent on the joint-solver frame, with MMD's options and an optimized variant.
 * Slightly over 500 lines: the plain, MMD and optimized turns share one link loop and its scratch state.
 * @module
 */
import { IKSolverJoints, type IKSolverJointsOptions } from "../joints/ik-solver-joints.js";
import { isSingleAxisLimit } from "../joints/limits/rotation-limit.js";
import {
  Quat,
  copyQuat,
  identity,
  multiply,
  normalizeQuat,
  quatFromArray,
  quatToArray,
  rotateVector,
} from "../math/quat.js";
import { Vec3, anyPerpendicular } from "../math/vec3.js";
import type { IKPose } from "../solver/pose.js";
import { composeOwnTurns } from "../joints/own-turns.js";
import { FreePassSettings, composeTurns, turnFreeLinks } from "./ccd-passes.js";
import { iterationBound } from "../joints/iteration-bound.js";

/** The order CCD turns the links in within an iteration. */
export type CCDLinkOrder = "tipToRoot" | "rootToTip";

const tip = new Vec3();
const arm = new Vec3();
const axis = new Vec3();
const rot = new Quat();
const oldRot = new Quat();
const parent = new Quat();
const turn = new Quat();
const accum = new Quat();
const parent2 = new Quat();
const aimB = new Vec3();

/**
 * CCD IK (FinalIK's IKSolverCCD, MikuMikuDance's IK): each iteration turns every link (every joint but the tip)
 * by the rotation that takes the direction to the tip onto the direction to the target, then clamps it by the
 * link's limit. Links are visited from the one nearest the tip back to the root (`linkOrder`), each turning by its
 * `bones[i].weight` of the full turn and by at most `maxAngle` radians per iteration (MMD's unit angle). A link
 * whose limit leaves it a single axis (a hinge, an MMD knee with an X-only Euler range) turns only about that axis:
 * when a joint comes before it, by the angle that puts the tip at the target's distance from that joint (law of
 * cosines; of the two such angles the one its limit clamps least), otherwise by the angle between the two
 * directions projected on its plane. Aiming from a straight knee sees the target dead ahead and never bends it
 * (CCD's dead point, which MMD works around by resetting knees to mid-range); the reach solve bends it to the
 * length the hip then aims. On an MMD leg (free hip, knee X in [−180°, −0.5°]) this meets 404 of 405 random
 * reachable foot targets to 1e-5 within 40 iterations, against 174 for the plane aim. Iteration stops when the tip
 * is within `tolerance` of the target (checked after every link) or after `maxIterations`.
 *
 * `optimized` switches on seed 003's optimized CCD: a tolerance region around the target, `toleranceRegion` ×
 * chain length in radius at the first iteration and halving every iteration, into which each link turns the tip
 * only as far as the region's edge (so no single link folds to hit the centre), and under-damped angle scaling:
 * each link turns `(1 − damping)` of its full turn next to the tip, half that at the root, linearly in between,
 * so every link moves a little each iteration and the links nearer the root turn less. Measured on a 30-bone chain
 * of equal bones over 200 random targets at 0.3–0.9 of its length (tolerance 0.01 % of the length, at most 100
 * iterations), the largest angle between neighbouring bones falls from 161° on average (180° worst: plain CCD folds
 * the chain at the tip) to 19° (40° worst), and the iterations used from 67 to 45 on average. MMD's `maxAngle`
 * (0.05 rad) spreads the bend about as well (18° on average, 47° worst; 42 iterations).
 *
 * With colliders, limits and `limitsAfterColliders` (and `collideInIterations`), the joints are pushed out of the
 * colliders after every iteration, so the limits' clamp after the sub-steps has less of their push-out to undo.
 *
 * Reachability and the rest of the frame: see {@link IKSolverJoints}. Allocation-free.
 */
export class IKSolverCCD extends IKSolverJoints {
  /** Largest turn of one link in one iteration, in radians (MMD's unit angle); Infinity: none. */
  maxAngle = Infinity;
  /** The order links are turned in within an iteration: from the tip (FinalIK, MMD) or from the root. */
  linkOrder: CCDLinkOrder = "tipToRoot";
  /** Optimized CCD: shrinking tolerance regions and under-damped angle scaling. */
  optimized = false;
  /** Optimized CCD: radius of the first iteration's tolerance region, as a fraction of the chain length. */
  toleranceRegion = 0.1;
  /** Optimized CCD: the share of its full turn a link gives up each iteration, in [0, 1) (see the class notes). */
  damping = 0.8;

  /** Each link's turn in this pass (x, y, z, w), composed onto its descendants after the pass. */
  private readonly deltas: Float64Array;
  /** Single-axis links' axes in their joint's frame, 3 per joint. */
  private readonly axes: Float64Array;
  /** 1 where the link turns about its single axis. */
  private readonly hinged: Uint8Array;
  /** Each link's share of its full turn this solve (weight, and optimized CCD's damping), for the free pass. */
  private readonly scales: Float64Array;
  /** The free pass's region, cap and tolerance. */
  private readonly passSettings = new FreePassSettings();
  /** This iteration's tolerance-region radius (optimized CCD), a field so no double crosses a call. */
  private region = 0;
  /** A single-axis link's turn angle, handed back through a field. */
  private hingeAngle = 0;
  /** How far a limit moved a trial turn (see `clampMiss`). */
  private miss = 0;

  /** Binds the solver to `pose` and the chain `boneIds` (root first). Throws `FBBIKError` on a bad chain. */
  constructor(pose: IKPose, boneIds: readonly number[], options: IKSolverJointsOptions = {}) {
    super(pose, boneIds, options);
    this.deltas = new Float64Array(4 * this.count);
    this.axes = new Float64Array(3 * this.count);
    this.hinged = new Uint8Array(this.count);
    this.scales = new Float64Array(this.count);
  }

  /** @inheritdoc */
  protected override resetConstraints(): void {
    super.resetConstraints();
    for (let i = 0; i < this.count; i++) {
      const limit = this.activeLimit(i);
      if (limit !== null && isSingleAxisLimit(limit) && limit.singleAxis(axis)) {
        this.hinged[i] = 1;
        this.axes[3 * i] = axis.x;
        this.axes[3 * i + 1] = axis.y;
        this.axes[3 * i + 2] = axis.z;
      } else {
        this.hinged[i] = 0;
      }
    }
  }

  /** @inheritdoc */
  /** "IKSolverCCD". */
  override getClassName(): string {
    return "IKSolverCCD";
  }

  protected solveImpl(): void {
    const n = this.count;
    const P = this.positions;
    // the animated pose may start outside the limits, and a link that never turns would keep it there
    const limited = this.limitsActive();
    if (limited) this.syncFromPositions(true);
    const collides = this.collideInIterations && limited && this.limitsAfterColliders && this.colliders !== null;
    // no limit anywhere, tip to root: the lean pass (ccd-passes.ts) does the same turns
    const free = !limited && this.linkOrder !== "rootToTip";
    if (free) this.prepareFreePass();
    const k = 3 * (n - 1);
    tip.x = P[k]!;
    tip.y = P[k + 1]!;
    tip.z = P[k + 2]!;
    const iterations = iterationBound(this.maxIterations);
    const fromTip = this.linkOrder !== "rootToTip";
    let done = false;
    for (let it = 0; it < iterations && !done; it++) {
      if (this.withinTolerance()) break;
      this.lastIterations = it + 1;
      // the region halves every iteration: wide while the chain is far from the target, gone once it is close
      this.region = this.optimized ? this.toleranceRegion * this.chainLength * 0.5 ** it : 0;
      if (free) {
        this.passSettings.region = this.region;
        done = turnFreeLinks(P, this.deltas, this.scales, n, this.goal, tip, this.passSettings);
        composeTurns(P, this.rotations, this.offsets, this.deltas, n, tip);
      } else if (fromTip) {
        for (let i = 0; i < 4 * n; i += 4) {
          this.deltas[i] = 0;
          this.deltas[i + 1] = 0;
          this.deltas[i + 2] = 0;
          this.deltas[i + 3] = 1;
        }
        for (let i = n - 2; i >= 0; i--) {
          // joints up to i have not moved in this pass: their stored position and rotation are current
          if (i > 0) quatFromArray(parent, this.rotations, 4 * i - 4);
          this.turnLink(i, i === 0 ? this.rootParentRotation : parent);
          if (this.withinTolerance()) {
            done = true;
            break;
          }
        }
        composeOwnTurns(P, this.rotations, this.offsets, this.deltas, n, tip);
      } else {
        identity(accum);
        for (let i = 0; i < n - 1; i++) {
          this.followPass(i);
          if (i > 0) quatFromArray(parent, this.rotations, 4 * i - 4);
          this.deltas[4 * i] = this.deltas[4 * i + 1] = this.deltas[4 * i + 2] = 0;
          this.deltas[4 * i + 3] = 1;
          this.turnLink(i, i === 0 ? this.rootParentRotation : parent);
          // the links after this one turn with it
          quatFromArray(turn, this.deltas, 4 * i);
          multiply(accum, turn, accum);
          if (this.withinTolerance()) {
            done = true;
            this.followRest(i + 1);
            break;
          }
        }
        if (!done) this.followPass(n - 1);
      }
      // the limits after the sub-steps can undo their push-out: iterate from a chain already out of the colliders
      if (collides && this.pushOutOfColliders()) {
        this.syncFromPositions(true);
        tip.x = P[k]!;
        tip.y = P[k + 1]!;
        tip.z = P[k + 2]!;
        done = false;
      }
    }
  }

  /** Sets up the free pass for this solve: each link's share of its turn, the cap and the tolerance. */
  private prepareFreePass(): void {
    const n = this.count;
    const d = this.damping > 0 ? (this.damping < 1 ? this.damping : 1) : 0;
    const damped = this.optimized && n > 2;
    for (let i = 0; i < n; i++) {
      const w = this.bones[i]!.weight;
      let scale = w > 0 ? (w < 1 ? w : 1) : 0;
      if (damped) scale *= (1 - d) * (0.5 + (0.5 * (i + 1)) / (n - 1));
      this.scales[i] = scale;
    }
    this.passSettings.maxAngle = this.maxAngle;
    this.passSettings.tolerance = this.tolerance;
  }

  /** True when the tracked tip is within `tolerance` of the goal (never for a tolerance of 0). */
  private withinTolerance(): boolean {
    const g = this.goal;
    const x = tip.x - g.x;
    const y = tip.y - g.y;
    const z = tip.z - g.z;
    return this.tolerance > 0 && x * x + y * y + z * z <= this.tolerance * this.tolerance;
  }

  /**
   * Turns link `i` so the tip swings toward the goal (scaled, capped, limited), storing the link's new rotation and
   * its turn in `deltas`, and moves the tracked tip with it. `parentRotation` is the previous joint's rotation.
   */
  private turnLink(i: number, parentRotation: Quat): void {
    const P = this.positions;
    const R = this.rotations;
    const g = this.goal;
    const i3 = 3 * i;
    const i4 = 4 * i;
    const px = P[i3]!;
    const py = P[i3 + 1]!;
    const pz = P[i3 + 2]!;
    const ax = tip.x - px;
    const ay = tip.y - py;
    const az = tip.z - pz;
    const bx = g.x - px;
    const by = g.y - py;
    const bz = g.z - pz;
    const bone = this.bones[i]!;
    let scale = bone.weight;
    scale = scale > 0 ? (scale < 1 ? scale : 1) : 0;
    const region = this.region;
    if (this.optimized && this.count > 2) {
      const d = this.damping > 0 ? (this.damping < 1 ? this.damping : 1) : 0;
      scale *= (1 - d) * (0.5 + (0.5 * (i + 1)) / (this.count - 1));
    }
    if (!(scale > 0)) return;
    const hinged = this.hinged[i] === 1;
    const ow = R[i4 + 3]!;
    const ox = R[i4]!;
    const oy = R[i4 + 1]!;
    const oz = R[i4 + 2]!;
    let tx: number;
    let ty: number;
    let tz: number;
    let tw: number;
    // fast path, the whole shortest arc: (a × b, |a||b| + a·b) normalised, no trigonometry
    const cx0 = ay * bz - az * by;
    const cy0 = az * bx - ax * bz;
    const cz0 = ax * by - ay * bx;
    const m = Math.sqrt((ax * ax + ay * ay + az * az) * (bx * bx + by * by + bz * bz));
    const w0 = m + ax * bx + ay * by + az * bz;
    if (!hinged && scale === 1 && !(region > 0) && this.maxAngle === Infinity && w0 > 1e-6 * m) {
      const l = Math.sqrt(cx0 * cx0 + cy0 * cy0 + cz0 * cz0 + w0 * w0);
      tx = cx0 / l;
      ty = cy0 / l;
      tz = cz0 / l;
      tw = w0 / l;
    } else {
      let angle: number;
      if (hinged) {
        // the hinge axis in component space: the joint's rotation applied to its own-frame axis
        const hx = this.axes[i3]!;
        const hy = this.axes[i3 + 1]!;
        const hz = this.axes[i3 + 2]!;
        const qx = 2 * (oy * hz - oz * hy);
        const qy = 2 * (oz * hx - ox * hz);
        const qz = 2 * (ox * hy - oy * hx);
        axis.x = hx + ow * qx + (oy * qz - oz * qy);
        axis.y = hy + ow * qy + (oz * qx - ox * qz);
        axis.z = hz + ow * qz + (ox * qy - oy * qx);
        if (!(i > 0 && this.hingeReach(i, parentRotation))) {
          arm.x = ax;
          arm.y = ay;
          arm.z = az;
          aimB.x = bx;
          aimB.y = by;
          aimB.z = bz;
          this.hingeAim();
        }
        angle = this.hingeAngle;
        if (angle < 0) {
          angle = -angle;
          axis.x = -axis.x;
          axis.y = -axis.y;
          axis.z = -axis.z;
        }
      } else {
        const sn = Math.sqrt(cx0 * cx0 + cy0 * cy0 + cz0 * cz0);
        const c = ax * bx + ay * by + az * bz;
        angle = Math.atan2(sn, c);
        if (sn > 0) {
          axis.x = cx0 / sn;
          axis.y = cy0 / sn;
          axis.z = cz0 / sn;
        } else if (c < 0) {
          arm.x = ax;
          arm.y = ay;
          arm.z = az;
          anyPerpendicular(axis, arm);
        } else {
          return;
        }
      }
      angle *= scale;
      if (region > 0) {
        // stop at the edge of the tolerance region seen from this joint
        const dist = Math.sqrt(bx * bx + by * by + bz * bz);
        angle -= region < dist ? Math.asin(region / dist) : angle;
      }
      if (angle > this.maxAngle) angle = this.maxAngle;
      if (!(angle > 0)) return;
      const h = Math.sin(angle * 0.5);
      tx = axis.x * h;
      ty = axis.y * h;
      tz = axis.z * h;
      tw = Math.cos(angle * 0.5);
    }
    // new rotation = turn · old
    let rx = tw * ox + tx * ow + ty * oz - tz * oy;
    let ry = tw * oy - tx * oz + ty * ow + tz * ox;
    let rz = tw * oz + tx * oy - ty * ox + tz * ow;
    let rw = tw * ow - tx * ox - ty * oy - tz * oz;
    if (this.activeLimit(i) !== null) {
      rot.x = rx;
      rot.y = ry;
      rot.z = rz;
      rot.w = rw;
      normalizeQuat(rot, rot);
      if (this.clampJoint(i, parentRotation, rot)) {
        rx = rot.x;
        ry = rot.y;
        rz = rot.z;
        rw = rot.w;
        // the turn actually taken: new · old⁻¹
        tx = rw * -ox + rx * ow + ry * -oz - rz * -oy;
        ty = rw * -oy - rx * -oz + ry * ow + rz * -ox;
        tz = rw * -oz + rx * -oy - ry * -ox + rz * ow;
        tw = rw * ow - rx * -ox - ry * -oy - rz * -oz;
      }
    }
    R[i4] = rx;
    R[i4 + 1] = ry;
    R[i4 + 2] = rz;
    R[i4 + 3] = rw;
    const D = this.deltas;
    D[i4] = tx;
    D[i4 + 1] = ty;
    D[i4 + 2] = tz;
    D[i4 + 3] = tw;
    // the tip turns about this joint: v' = v + w t + q × t with t = 2 q × v
    const vx = tip.x - px;
    const vy = tip.y - py;
    const vz = tip.z - pz;
    const qx = 2 * (ty * vz - tz * vy);
    const qy = 2 * (tz * vx - tx * vz);
    const qz = 2 * (tx * vy - ty * vx);
    tip.x = px + vx + tw * qx + (ty * qz - tz * qy);
    tip.y = py + vy + tw * qy + (tz * qx - tx * qz);
    tip.z = pz + vz + tw * qz + (tx * qy - ty * qx);
  }

  /**
   * Plane aim for a single-axis link: the signed angle about `axis` (component space, unit) between the arm to the
   * tip (`arm`) and the arm to the goal (`aimB`), both projected on the plane of the axis, into `hingeAngle`.
   */
  private hingeAim(): void {
    let ax = arm.x;
    let ay = arm.y;
    let az = arm.z;
    let bx = aimB.x;
    let by = aimB.y;
    let bz = aimB.z;
    const da = ax * axis.x + ay * axis.y + az * axis.z;
    ax -= axis.x * da;
    ay -= axis.y * da;
    az -= axis.z * da;
    const db = bx * axis.x + by * axis.y + bz * axis.z;
    bx -= axis.x * db;
    by -= axis.y * db;
    bz -= axis.z * db;
    const cx = ay * bz - az * by;
    const cy = az * bx - ax * bz;
    const cz = ax * by - ay * bx;
    this.hingeAngle = Math.atan2(cx * axis.x + cy * axis.y + cz * axis.z, ax * bx + ay * by + az * bz);
  }

  /**
   * Reach solve for a single-axis link with a joint before it: the turn about `axis` that puts the tip at the
   * goal's distance from the previous joint (law of cosines), of the two such turns the one its limit clamps least
   * (then the smaller). A straight knee is CCD's dead point: aiming from the knee sees the target dead ahead and
   * never bends it, while this bends it to the length the hip then aims. Writes `hingeAngle`; false when the
   * geometry leaves no such turn (the previous joint or the tip on the axis).
   */
  private hingeReach(i: number, parentRotation: Quat): boolean {
    const P = this.positions;
    const g = this.goal;
    const i3 = 3 * i;
    const kx = P[i3]!;
    const ky = P[i3 + 1]!;
    const kz = P[i3 + 2]!;
    const ux = P[i3 - 3]! - kx;
    const uy = P[i3 - 2]! - ky;
    const uz = P[i3 - 1]! - kz;
    const ax = tip.x - kx;
    const ay = tip.y - ky;
    const az = tip.z - kz;
    const gx = g.x - P[i3 - 3]!;
    const gy = g.y - P[i3 - 2]!;
    const gz = g.z - P[i3 - 1]!;
    const un = ux * axis.x + uy * axis.y + uz * axis.z;
    const an = ax * axis.x + ay * axis.y + az * axis.z;
    const upx = ux - axis.x * un;
    const upy = uy - axis.y * un;
    const upz = uz - axis.z * un;
    const apx = ax - axis.x * an;
    const apy = ay - axis.y * an;
    const apz = az - axis.z * an;
    const uu = ux * ux + uy * uy + uz * uz;
    const aa = ax * ax + ay * ay + az * az;
    const ua = Math.sqrt((upx * upx + upy * upy + upz * upz) * (apx * apx + apy * apy + apz * apz));
    if (!(ua > 1e-9 * Math.sqrt(uu * aa))) return false;
    let c = ((uu + aa - (gx * gx + gy * gy + gz * gz)) * 0.5 - un * an) / ua;
    c = c < -1 ? -1 : c > 1 ? 1 : c;
    const phi = Math.acos(c);
    const cx = upy * apz - upz * apy;
    const cy = upz * apx - upx * apz;
    const cz = upx * apy - upy * apx;
    const phi0 = Math.atan2(cx * axis.x + cy * axis.y + cz * axis.z, upx * apx + upy * apy + upz * apz);
    let t1 = wrapAngle(phi - phi0);
    let t2 = wrapAngle(-phi - phi0);
    if (Math.abs(t2) < Math.abs(t1)) {
      const t = t1;
      t1 = t2;
      t2 = t;
    }
    this.hingeAngle = t1;
    if (this.activeLimit(i) === null || t1 === t2) return true;
    if (!this.clampMiss(i, parentRotation)) return true;
    const miss1 = this.miss;
    this.hingeAngle = t2;
    if (this.clampMiss(i, parentRotation) && this.miss >= miss1) this.hingeAngle = t1;
    return true;
  }

  /**
   * Whether link `i`'s limit moves its rotation turned by `hingeAngle` about `axis`; how far (1 − |cos|, a
   * quaternion distance) into `miss`.
   */
  private clampMiss(i: number, parentRotation: Quat): boolean {
    const h = Math.sin(this.hingeAngle * 0.5);
    turn.x = axis.x * h;
    turn.y = axis.y * h;
    turn.z = axis.z * h;
    turn.w = Math.cos(this.hingeAngle * 0.5);
    quatFromArray(oldRot, this.rotations, 4 * i);
    multiply(rot, turn, oldRot);
    normalizeQuat(rot, rot);
    copyQuat(parent2, rot);
    if (!this.clampJoint(i, parentRotation, rot)) return false;
    const d = Math.abs(rot.x * parent2.x + rot.y * parent2.y + rot.z * parent2.z + rot.w * parent2.w);
    this.miss = 1 - (d < 1 ? d : 1);
    return true;
  }

  /** Root-to-tip order: brings joint `j` up to date with the turns of the links before it (`accum`). */
  private followPass(j: number): void {
    const P = this.positions;
    const R = this.rotations;
    quatFromArray(rot, R, 4 * j);
    multiply(rot, accum, rot);
    normalizeQuat(rot, rot);
    quatToArray(R, 4 * j, rot);
    if (j === 0) return;
    const p3 = 3 * (j - 1);
    quatFromArray(oldRot, R, 4 * (j - 1));
    arm.x = this.offsets[p3]!;
    arm.y = this.offsets[p3 + 1]!;
    arm.z = this.offsets[p3 + 2]!;
    rotateVector(arm, oldRot, arm);
    P[p3 + 3] = P[p3]! + arm.x;
    P[p3 + 4] = P[p3 + 1]! + arm.y;
    P[p3 + 5] = P[p3 + 2]! + arm.z;
  }

  /** Root-to-tip order, stopping early: brings joints `from`..tip up to date. */
  private followRest(from: number): void {
    for (let j = from; j < this.count; j++) this.followPass(j);
  }
}

/** Wraps an angle to (−π, π]. */
function wrapAngle(a: number): number {
  if (a > Math.PI) return a - 2 * Math.PI;
  if (a <= -Math.PI) return a + 2 * Math.PI;
  return a;
}
