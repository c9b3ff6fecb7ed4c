import { NumberRef } from "../../math/number-ref.js";
import { type Quat as QuatType, Quat, fromToRotation, identity, slerpByRef } from "../../math/quat.js";
import { Vec3, copy, cross, dot, isFiniteVec, normalize, projectOnPlane, sub } from "../../math/vec3.js";
import type { ReadonlyVec3 } from "../../math/vec3.js";
import { matrixEquals } from "../../math/matrix-equals.js";
import { carryByMotion } from "./ground-motion.js";
import { type GroundingBody, GroundingHit, GroundingQuality } from "./grounding-common.js";
import type { Grounding } from "./grounding.js";

const tv = new Vec3();
const tv2 = new Vec3();
const tv3 = new Vec3();
/** Simple's plane through its three contacts. */
const planeNormal = new Vec3();
const tq = new Quat();
const DEG = Math.PI / 180;

/**
 * One foot of the grounding solver (FinalIK's Grounding.Leg): probes the ground under the foot, eases the
 * foot's vertical offset toward the ground height difference and its rotation toward the ground normal.
 *
 * The convention is FinalIK's: the character root stands on the ground, so a foot keeps its animated
 * height above the ground under it. `ikOffset` is how far the foot goes *down* along `up` (negative: up),
 * the ground under the foot being `heightFromGround` below the root.
 */
export class GroundingLeg {
  /** Input: the foot bone's animated world position, set before each {@link Grounding.update}. */
  readonly footPosition = new Vec3();
  /**
   * Input: the thigh bone's animated world position, with {@link legLength} what lets the pelvis lower for
   * this foot's reach ({@link Grounding.pelvisReachWeight}).
   */
  readonly thighPosition = new Vec3();
  /** Input: the leg's length, thigh to knee to foot (0, the default: unknown, the pelvis ignores this leg's reach). */
  legLength = 0;
  /** Output: where the foot should go (the animated position moved by `ikOffset` along −up). */
  readonly ikPosition = new Vec3();
  /** Output: the eased vertical offset of the foot, downward positive (FinalIK's IKOffset). */
  ikOffset = 0;
  /** Output: the rotation to apply to the foot in world space (identity on flat ground). */
  readonly rotationOffset = new Quat();
  /** How far the ground under the foot is below the root (minus the grounding's heightOffset). */
  heightFromGround = 0;
  /** True when the ground under the foot is less than maxStep below the root. */
  isGrounded = false;
  /**
   * The foot's horizontal velocity (world units per second), which `prediction` probes ahead by: over the ground
   * the foot stood on at the last update when the raycast named it ({@link GroundingHit.ground}: a ship's deck, a
   * lift), so a foot standing on moving ground has none; over the world otherwise (FinalIK's).
   */
  readonly velocity = new Vec3();
  /**
   * The ground normal last found under the foot (unit, facing up), which the foot turns to. A foot lifted out
   * of its probes' reach while the root stands on ground keeps the last one (not in FinalIK, see {@link process}).
   */
  readonly groundNormal = new Vec3(0, 1, 0);
  /** The ground point under the foot last found. */
  readonly groundPoint = new Vec3();
  /** The heel ray's hit (or its miss default). */
  readonly heelHit = new GroundingHit();
  /** The toe ray's hit (Simple) or the sphere probe's contact (Best). */
  readonly probeHit = new GroundingHit();
  /** The side ray's hit (Simple). */
  readonly sideHit = new GroundingHit();
  /** False until the first update after construction or {@link reset}. */
  initiated = false;
  private readonly grounding: Grounding;
  private readonly lastPosition = new Vec3();
  private readonly predictionOffset = new Vec3();
  private readonly r = new Quat();
  /** The ground the heel ray hit at the last update (null: unnamed), and its world matrix then and now. */
  private ground: GroundingBody | null = null;
  private readonly groundWas = new Float64Array(16);
  private readonly groundNow = new Float64Array(16);

  /** A leg of `grounding`. */
  constructor(grounding: Grounding) {
    this.grounding = grounding;
  }

  /** Forgets the motion and the offsets (teleports): the next update starts from the animated foot. */
  reset(): void {
    this.initiated = false;
    this.ground = null;
    this.ikOffset = 0;
    this.heightFromGround = 0;
    this.velocity.x = this.velocity.y = this.velocity.z = 0;
    identity(this.r);
    identity(this.rotationOffset);
    this.groundNormal.x = this.groundNormal.z = 0;
    this.groundNormal.y = 1;
    copy(this.ikPosition, this.footPosition);
  }

  /**
   * Probes and eases the leg by the grounding's `deltaTime` (called by {@link Grounding.update}). With a
   * time step ≤ 0 or a non-finite `footPosition` nothing is probed or eased: only `ikPosition` follows the
   * current `footPosition`.
   *
   * A probe that finds nothing (the foot higher than `maxStep` above the ground, as a running stride's
   * swing lifts it on a slope) leaves the ground normal as last found while the root is grounded, so the foot
   * lands turned to the slope rather than eased back toward flat. FinalIK turns it toward up then; with the
   * root off the ground (a fall, a ledge) so does this.
   */
  process(): void {
    const g = this.grounding;
    const deltaTime = g.deltaTime;
    const up = g.up;
    const foot = this.footPosition;
    if (!this.initiated) {
      copy(this.lastPosition, foot);
      this.ground = null;
      this.initiated = true;
    }
    // a non-finite foot eases nothing (and is not remembered as the last position)
    if (deltaTime > 0 && isFiniteVec(foot)) {
      // the last position carried by the ground's motion since: the velocity is the foot's over its ground
      const ground = this.ground;
      const now = this.groundNow;
      if (ground?.worldMatrixToRef(now) && !matrixEquals(now, this.groundWas))
        carryByMotion(this.lastPosition, this.groundWas, now);
      // horizontal velocity of the animated foot, for predicting where it lands: over the time it moved, which
      // a long frame or frames the grounder sat out make longer than the (clamped) step
      projectOnPlane(tv, sub(tv, foot, this.lastPosition), up);
      const frameTime = g.frameTime;
      this.velocity.x = tv.x / frameTime;
      this.velocity.y = tv.y / frameTime;
      this.velocity.z = tv.z / frameTime;
      copy(this.lastPosition, foot);
      const p = this.predictionOffset;
      p.x = this.velocity.x * g.prediction;
      p.y = this.velocity.y * g.prediction;
      p.z = this.velocity.z * g.prediction;
      let under: GroundingBody | null = null;
      if (g.maxStep > 0) {
        this.probe();
        this.ease();
        under = this.heelHit.ground;
      }
      // the ground the foot stands on (the heel ray's), and where it is, for the next update
      this.ground = under?.worldMatrixToRef(this.groundWas) ? under : null;
    }
    // written out, as everything this step runs per frame (see ARCHITECTURE.md, "Doubles across calls")
    const down = -this.ikOffset;
    const ik = this.ikPosition;
    ik.x = foot.x + up.x * down;
    ik.y = foot.y + up.y * down;
    ik.z = foot.z + up.z * down;
  }

  private probe(): void {
    const g = this.grounding;
    const up = g.up;
    const foot = this.footPosition;
    const pred = this.predictionOffset;
    const at = tv3;
    switch (g.quality) {
      case GroundingQuality.Fastest: {
        const hit = g.probeRay(add3(at, foot, pred), this.heelHit);
        copy(this.groundPoint, this.heelHit.point);
        this.keepNormal(hit, this.heelHit.normal);
        this.setHeightAbove(this.heelHit.point);
        break;
      }
      case GroundingQuality.Simple: {
        const heel = this.heelHit;
        const toe = this.probeHit;
        const side = this.sideHit;
        let hit = g.probeRay(add3(at, foot, pred), heel);
        // the toe ahead and the side beside the predicted foot, written out (doubles across calls)
        const ahead = (g.footRadius + g.footCenterOffset) * g.lengthScale;
        const fw = g.forward;
        at.x = foot.x + pred.x + fw.x * ahead;
        at.y = foot.y + pred.y + fw.y * ahead;
        at.z = foot.z + pred.z + fw.z * ahead;
        if (g.probeRay(at, toe)) hit = true;
        const aside = g.footRadius * 0.5 * g.lengthScale;
        const rt = g.right;
        at.x = foot.x + pred.x + rt.x * aside;
        at.y = foot.y + pred.y + rt.y * aside;
        at.z = foot.z + pred.z + rt.z * aside;
        if (g.probeRay(at, side)) hit = true;
        // the plane through the three contacts, facing up
        const n = cross(planeNormal, sub(tv, toe.point, heel.point), sub(tv2, side.point, heel.point));
        if (dot(n, up) < 0) {
          n.x = -n.x;
          n.y = -n.y;
          n.z = -n.z;
        }
        normalize(n, n);
        if (!(dot(n, up) > 1e-6)) copy(n, heel.normal);
        this.setFootToPlane(n, heel.point, heel.point);
        this.keepNormal(hit, n);
        break;
      }
      default: {
        // heel under the foot now; the sphere under the foot centre where it is going
        const heel = this.heelHit;
        g.probeRay(foot, heel);
        const ahead = g.footCenterOffset * g.lengthScale;
        const fw = g.forward;
        at.x = foot.x + fw.x * ahead + pred.x;
        at.y = foot.y + fw.y * ahead + pred.y;
        at.z = foot.z + fw.z * ahead + pred.z;
        const hit = g.probeSphere(at, this.probeHit);
        this.setFootToPlane(this.probeHit.normal, this.probeHit.point, heel.point);
        this.keepNormal(hit, this.probeHit.normal);
        break;
      }
    }
    this.isGrounded = this.heightFromGround < g.maxStep * g.lengthScale;
  }

  /** The normal the foot turns to: the probe's, or on a miss with the root grounded the last found (see process). */
  private keepNormal(hit: boolean, n: ReadonlyVec3): void {
    if (hit || !this.grounding.rootGrounded) copy(this.groundNormal, n);
  }

  /**
   * The ground under the foot is the plane (n, planePoint) met by the vertical through the foot;
   * it may not be lower than the heel's contact (the heel does not sink into a ledge).
   */
  private setFootToPlane(n: ReadonlyVec3, planePoint: ReadonlyVec3, heelPoint: ReadonlyVec3): void {
    // written out rather than through dot/scaleAndAdd/heightAbove: this runs once per foot per frame inside
    // a large function where V8 may not inline them (see ARCHITECTURE.md, "Doubles across calls")
    const g = this.grounding;
    const u = g.up;
    const foot = this.footPosition;
    const dx = planePoint.x - foot.x;
    const dy = planePoint.y - foot.y;
    const dz = planePoint.z - foot.z;
    const c = n.x * u.x + n.y * u.y + n.z * u.z;
    const t = c > 1e-6 ? (dx * n.x + dy * n.y + dz * n.z) / c : dx * u.x + dy * u.y + dz * u.z;
    const gp = this.groundPoint;
    gp.x = foot.x + u.x * t;
    gp.y = foot.y + u.y * t;
    gp.z = foot.z + u.z * t;
    const r = g.rootPosition;
    const lift = g.heightOffset * g.lengthScale;
    const h = (r.x - gp.x) * u.x + (r.y - gp.y) * u.y + (r.z - gp.z) * u.z - lift;
    const heel = (r.x - heelPoint.x) * u.x + (r.y - heelPoint.y) * u.y + (r.z - heelPoint.z) * u.z - lift;
    this.heightFromGround = h < heel ? h : heel;
  }

  /** heightFromGround = how far `p` is below the root along up, less heightOffset (no double returned). */
  private setHeightAbove(p: ReadonlyVec3): void {
    const g = this.grounding;
    const r = g.rootPosition;
    const u = g.up;
    this.heightFromGround = (r.x - p.x) * u.x + (r.y - p.y) * u.y + (r.z - p.z) * u.z - g.heightOffset * g.lengthScale;
  }

  private ease(): void {
    const g = this.grounding;
    const deltaTime = g.deltaTime;
    const up = g.up;
    const maxStep = g.maxStep * g.lengthScale;
    // the clamps written out (see ARCHITECTURE.md, "Doubles across calls"); NaN clamps to the low end
    const below = this.heightFromGround;
    const target = g.rootGrounded ? (below >= -maxStep ? (below <= maxStep ? below : maxStep) : -maxStep) : 0;
    // a constant rate first (footSpeed × the character's length unit per second), then an exponential ease
    let o = this.ikOffset;
    const step = deltaTime * g.footSpeed * g.lengthUnit * g.lengthScale;
    if (o < target) o = o + step > target ? target : o + step;
    else if (o > target) o = o - step < target ? target : o - step;
    const ease = deltaTime * g.footSpeed;
    o += (target - o) * (ease >= 0 ? (ease <= 1 ? ease : 1) : 0);
    // a foot is lifted at most to maxStep above the root
    const foot = this.footPosition;
    const root = g.rootPosition;
    const legHeight = (foot.x - root.x) * up.x + (foot.y - root.y) * up.y + (foot.z - root.z) * up.z;
    const room = maxStep - legHeight;
    const lowest = -(room >= 0 ? (room <= maxStep ? room : maxStep) : 0);
    // a non-finite step (a non-finite foot or root position, an overflow) must not stay in the eased state
    if (Number.isFinite(o)) this.ikOffset = o < lowest ? lowest : o;

    // rotation toward the ground normal, limited to maxFootRotationAngle
    const q = fromToRotation(tq, up, this.groundNormal);
    const limit = g.maxFootRotationAngle;
    const maxAngle = (limit >= 0 ? (limit <= 90 ? limit : 90) : 0) * DEG;
    const angle = 2 * Math.atan2(Math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z), Math.abs(q.w));
    // the interpolation parameters go through a typed array (see ARCHITECTURE.md, "Doubles across calls")
    if (angle > maxAngle) {
      fraction.value = maxAngle / angle;
      slerpByRef(q, IDENTITY, q, fraction);
    }
    const turn = deltaTime * g.footRotationSpeed;
    fraction.value = turn >= 0 ? (turn <= 1 ? turn : 1) : 0;
    slerpByRef(this.r, this.r, q, fraction);
    const weight = g.footRotationWeight;
    fraction.value = weight >= 0 ? (weight <= 1 ? weight : 1) : 0;
    slerpByRef(this.rotationOffset, IDENTITY, this.r, fraction);
  }
}

const IDENTITY: QuatType = new Quat();
/** The slerp fraction, handed over by reference (see NumberRef). */
const fraction = new NumberRef();

function add3(out: Vec3, a: ReadonlyVec3, b: ReadonlyVec3): Vec3 {
  out.x = a.x + b.x;
  out.y = a.y + b.y;
  out.z = a.z + b.z;
  return out;
}
