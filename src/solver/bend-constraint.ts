// Over 500 lines: FinalIK's IKConstraintBend (LimitBend, GetDir) plus the natural-side carry and fold it
// needs (ARCHITECTURE.md, deviation 9) share the bend plane's scratch state; split, they would pass it around.
import { ELBOW_BACK, STRAIGHT_ELBOW_BACK, naturalPole } from "./natural-pole.js";
import { swivelToFittedElbow } from "./elbow-swivel.js";
import { FoldMemory } from "./fold-memory.js";
import { TurnLimitMemory } from "./turn-limit-memory.js";
import { clampDirectionByRef, orthoNormalize } from "../math/direction.js";
import {
  Quat,
  copyQuat,
  fromToRotation,
  inverseRotateVector,
  isIdentityApprox,
  multiply,
  nlerpByRef,
  rotateVector,
} from "../math/quat.js";
import {
  type ReadonlyVec3,
  Vec3,
  copy,
  cross,
  isZero,
  lengthSq,
  lerpByRef,
  negate,
  normalize,
  set,
  sub,
} from "../math/vec3.js";
import { NumberRef } from "../math/number-ref.js";
import { animatedBendNormal, animatedBendPlane } from "./animated-bend.js";
import type { IKNode } from "./node.js";
import type { IKPose } from "./pose.js";

const v1 = new Vec3();
const v2 = new Vec3();
const v3 = new Vec3();
const v4 = new Vec3();
const v5 = new Vec3();
const carry = new Vec3();
const unitAxis = new Vec3();
const q1 = new Quat();
const q2 = new Quat();
const q3 = new Quat();
/** Weights handed to the interpolation helpers by reference (see NumberRef). */
const weight = new NumberRef();
/** How well the animation defines a limb's bend plane, [0, 1] (a NumberRef: see above). */
const planeTrust = new NumberRef();
/** How usable the last pole unitPole computed is, [0, 1] (a NumberRef: see above). */
const poleGate = new NumberRef();
/** The elbow pole's ELBOW_BACK for this frame's swivel carry (a NumberRef: see above; natural-pole.ts). */
const carryBack = new NumberRef(ELBOW_BACK);
/** How far the fitted elbow side replaces the carried bend this frame (a NumberRef: see above). */
const swivelAmount = new NumberRef();
/**
 * The largest angle between a driven elbow's or knee's bend and its natural pole (80°: 10° inside its natural side).
 */
const NATURAL_LIMIT = (80 * Math.PI) / 180;
const NATURAL_LIMIT_COS = Math.cos(NATURAL_LIMIT);
/**
 * How far the solve moves a limb's end from its animated place about the limb's first node (in limb lengths)
 * before the natural-side fold starts (the solver's own rounding stays below) and from which it is full.
 */
const FOLD_MOVE_LOW = 0.02;
const FOLD_MOVE_HIGH = 0.1;
/**
 * The end's move (in limb lengths, as FOLD_MOVE_*, without the weight's share) over which the fold's rate limit
 * (fold-memory.ts) fades out: a target this far from the clip's is no small correction of it, and the limb folds to
 * its natural side at once (nearer, 4,000 random targets of test/scenario/natural-bends left elbows off it), but for
 * a partial fold's change of side.
 */
const FOLD_MEMORY_MOVE_LOW = 0.2;
const FOLD_MEMORY_MOVE_HIGH = 0.5;
/** Pole lengths (limb axis off the sagittal plane) between which the natural-side limit fades in. */
const NATURAL_POLE_LOW = 0.2;
const NATURAL_POLE_HIGH = 0.4;
/** Pole lengths between which the swivel carry fades in (it needs the pole's direction, not only its side). */
const CARRY_POLE_LOW = 0.35;
const CARRY_POLE_HIGH = 0.7;
/** The end's move (in limb lengths, as FOLD_MOVE_*) over which the fitted elbow side fades in. */
const FITTED_MOVE_LOW = 0.05;
const FITTED_MOVE_HIGH = 0.2;
const FORWARD_POLE_LOW = 0.1;
const FORWARD_POLE_HIGH = 0.3;

/** What limitBend and getDir read from the solver. */
export interface BendSolver {
  /** The solver's master weight. */
  readonly ikPositionWeight: number;
  /**
   * The end effector's rotation turns this frame's animated bend plane ({@link BendConstraint.readAnimatedBend})
   * instead of the setup pose's (FinalIK). Absent: false.
   */
  readonly animatedBendNormal?: boolean;
  /**
   * Counts the solver's updates: the fitted elbow side's swivel, the effector rotation's blend and the natural-side
   * fold limit their turns only across consecutive ones (turn-limit-memory.ts, fold-memory.ts). Absent: no limit.
   */
  readonly updateCount?: number;
}

/**
 * Bend direction of a three-bone limb (FinalIK's IKConstraintBend): which way the elbow or knee points.
 * By default it carries the animated bend plane along with the limb; a bend goal, an explicit
 * `direction` with `weight`, the end effector's rotation and the plane rotation offset of
 * maintainRelativePositionWeight steer it.
 */
export class BendConstraint {
  /** Upper arm or thigh. */
  bone1: IKNode | null = null;
  /** Forearm or calf. */
  bone2: IKNode | null = null;
  /** Hand or foot. */
  bone3: IKNode | null = null;
  /**
   * Component-space position the elbow/knee should point at, or null. While set, `direction` follows it
   * every frame (FinalIK's bendGoal Transform; the Babylon layer copies a node's position here).
   */
  bendGoal: Vec3 | null = null;
  /** Bend direction used with `weight` (component space). Recomputed at initiate. */
  readonly direction = new Vec3(1, 0, 0);
  /** Twist of the bend plane from the end effector's maintainRelativePositionWeight (set by the biped). */
  readonly rotationOffset = new Quat();
  /** Weight of `direction` / the bend goal against the animated bend, [0, 1]. Default 0. */
  weight = 0;
  /** Bend direction in the first bone's space, captured at initiate. */
  readonly defaultLocalDirection = new Vec3();
  /** Bend-plane normal in the last bone's space, captured at initiate. */
  readonly defaultChildDirection = new Vec3();
  /** This frame's animated bend-plane normal in the last bone's space ({@link readAnimatedBend}). */
  readonly animatedChildDirection = new Vec3();
  /** LimitBend allows the lower bone to deviate this weight from the default bend (0.505 ≈ 89°). */
  clampF = 0.505;
  /** True once initiate succeeded. */
  initiated = false;
  /** True when the limb was straight at initiate, so the default bend direction is a guess. */
  straightAtInitiate = false;
  /**
   * Which way the middle joint flexes in the character's sagittal plane: 1 for a knee (in front of the
   * hip–ankle line while the leg hangs), −1 for an elbow (behind the shoulder–wrist line while the arm
   * hangs), 0 for no natural-side limit (a limb outside a biped). Set by the biped at setup.
   */
  naturalSide = 0;
  /** The character's forward for this limb (component space, unit), refreshed by the biped before the final pass. */
  readonly naturalForward = new Vec3(0, 0, 1);
  /** The character's up for this limb (component space, unit, perpendicular to naturalForward). */
  readonly naturalUp = new Vec3(0, 1, 0);
  /**
   * The character's left–right axis for this limb (component space, unit): the side a fully inverted bend turns
   * through.
   */
  readonly naturalLateral = new Vec3(1, 0, 0);
  /**
   * How far an arm whose hand the solve moves away from the animation's turns its elbow about the shoulder–hand
   * line toward the side fitted to motion capture (LimbIK's `arm` table, elbow-pole.ts) instead of carrying the
   * animation's, [0, 1] (not in FinalIK). It fades in as the hand moves from where the animation has it about the
   * shoulder (5 % to 20 % of the arm's length), so a hand on the animation's keeps the animation's elbow; the hand
   * effector's rotation, a bend goal or direction and the natural-side limit still act on top. 0 (default):
   * FinalIK's bend. Arms of a biped only (the biped sets {@link elbowOutward}).
   */
  naturalElbowWeight = 0;
  /** The arm's frame for the fitted elbow side (component space, unit): forward, turned with the chest each frame. */
  readonly elbowForward = new Vec3(0, 0, 1);
  /** The arm's frame: up. */
  readonly elbowUp = new Vec3(0, 1, 0);
  /** The arm's frame: away from the body on the arm's side; zero when the biped has not set the frame. */
  readonly elbowOutward = new Vec3(0, 0, 0);
  private limbOrientationsSet = false;
  // the fitted elbow side's, the rotation blend's and the natural-side fold's last turns, the full body's only
  // memories of an earlier frame
  private readonly swivelMemory = new TurnLimitMemory();
  private readonly blendMemory = new TurnLimitMemory();
  private readonly foldMemory = new FoldMemory();
  // the rotation blend's angles are measured from this zero (unit, across blendAxis), carried from update to update
  // with the limb axis by the shortest arc, so an angle changes only as its bend turns about the axis
  private readonly blendZero = new Vec3(Number.NaN, Number.NaN, Number.NaN);
  private readonly blendAxis = new Vec3(Number.NaN, Number.NaN, Number.NaN);
  // the effector rotation weight the rotation blend last used
  private lastRotationWeight = 0;
  // this update's solver counts its updates (getDir), so the fold may use its memory
  private foldMemoryOn = false;
  // cos of the allowed cone's angle for the last clamp weight: the weight rarely changes between frames
  private coneClampWeight = Number.NaN;
  private coneCos = 1;
  // how far the solve moved the end from where the animation has it about the first node, in limb lengths
  // (getDir, for the natural-side fold)
  private axisMove = 0;
  // the animated limb axis (first node → end) before LimitBend turns the lower bone: the clip's, for axisMove
  private readonly clipAxis = new Vec3();
  // whether LimitBend read clipAxis since the last getDir (getDir called alone measures from the pose it reads)
  private clipAxisRead = false;

  /** Assigns the three limb nodes. */
  setBones(bone1: IKNode, bone2: IKNode, bone3: IKNode): void {
    this.bone1 = bone1;
    this.bone2 = bone2;
    this.bone3 = bone3;
  }

  /**
   * Captures the default bend direction from the animated pose (node bone positions and rotations must
   * be read). `straightFallback`, when given, is the side a limb that is straight in this pose should bend
   * toward (component space). Returns false when bones are missing.
   */
  initiate(straightFallback: ReadonlyVec3 | null = null): boolean {
    const b1 = this.bone1;
    const b2 = this.bone2;
    const b3 = this.bone3;
    if (b1 === null || b2 === null || b3 === null) return false;
    const limb = sub(v1, b3.bonePosition, b1.bonePosition);
    const upper = sub(v2, b2.bonePosition, b1.bonePosition);
    // a straight limb leaves the bend plane undefined; orthoNormalize still yields a perpendicular
    cross(v3, limb, upper);
    // sin² of the bend angle below 1e-6 (about 0.06°): no usable bend plane
    this.straightAtInitiate = lengthSq(v3) <= 1e-6 * lengthSq(limb) * lengthSq(upper);
    // direction: the elbow/knee side, perpendicular to the upper bone, in the bend plane
    const dir = copy(this.direction, this.straightAtInitiate && straightFallback !== null ? straightFallback : upper);
    orthoNormalize(limb, dir);
    sub(v2, b2.bonePosition, b1.bonePosition);
    orthoNormalize(v2, dir);
    this.initiated = true;
    if (!this.limbOrientationsSet) {
      inverseRotateVector(this.defaultLocalDirection, b1.boneRotation, dir);
      sub(v1, b3.bonePosition, b1.bonePosition);
      normalize(v1, v1);
      cross(v1, v1, dir);
      inverseRotateVector(this.defaultChildDirection, b3.boneRotation, v1);
    }
    copy(this.animatedChildDirection, this.defaultChildDirection);
    return true;
  }

  /**
   * Overrides the default bend axes in bone space (FinalIK's SetLimbOrientation): `upper` is the first
   * bone's local axis pointing to the bend side, `last` the last bone's local bend-plane normal. Used for
   * rigs whose limbs are straight at initiate.
   */
  setLimbOrientation(upper: Vec3, last: Vec3): void {
    normalize(this.defaultLocalDirection, upper);
    normalize(this.defaultChildDirection, last);
    this.limbOrientationsSet = true;
  }

  /**
   * Reads this frame's animated bend-plane normal in the last bone's space (before LimitBend changes the
   * animated bend), for {@link getDir} when the solver's `animatedBendNormal` is on; the setup pose's normal
   * where the animated limb is straight.
   */
  readAnimatedBend(): void {
    if (!this.initiated) return;
    const b3 = this.bone3!;
    animatedBendNormal(
      this.animatedChildDirection,
      this.bone1!.bonePosition,
      this.bone2!.bonePosition,
      b3.bonePosition,
      b3.boneRotation,
      this.defaultChildDirection,
    );
  }

  /**
   * LimitBend: un-inverts an elbow or knee in the animated pose before solving (FinalIK rotates the real
   * bones; here the pose and the node snapshots change together). The lower bone is clamped to within
   * about 89° × solverWeight of the default bend side; when the end effector is weighted the bend plane
   * of a nearly straight limb (whose animated plane is undefined) also turns toward the default bend side by
   * positionWeight × solverWeight. The last bone keeps its rotation.
   */
  limitBend(pose: IKPose, solver: BendSolver, endPositionWeight: Readonly<NumberRef>): void {
    if (!this.initiated) return;
    // weights by reference (see ARCHITECTURE.md, "Doubles across calls")
    const solverWeight = solver.ikPositionWeight;
    const positionWeight = endPositionWeight.value;
    const b1 = this.bone1!;
    const b2 = this.bone2!;
    const b3 = this.bone3!;
    sub(this.clipAxis, b3.bonePosition, b1.bonePosition);
    this.clipAxisRead = true;
    // n: the side the lower bone must not face away from
    rotateVector(v1, b1.boneRotation, this.defaultLocalDirection);
    negate(v1, v1);
    const a = sub(v2, b3.bonePosition, b2.bonePosition);
    // inside the allowed cone (angle < π(1 − clampWeight)) nothing changes: test that inline, so the
    // clamp only runs for a limb that needs it
    const clampWeight = this.clampF * solverWeight;
    const al = Math.sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
    const cosA = al > 0 ? (a.x * v1.x + a.y * v1.y + a.z * v1.z) / al : 1;
    if (clampWeight !== this.coneClampWeight) {
      this.coneClampWeight = clampWeight;
      this.coneCos = Math.cos(Math.PI * (1 - clampWeight));
    }
    const inside = !(clampWeight > 0) || (clampWeight < 1 && cosA > this.coneCos + 1e-12);
    // outside it, FinalIK's ClampDirection (math/direction.ts) as the turn of the lower bone it makes, written out
    // here: taken in a few frames of a jog, a call stayed cold, V8's interpreter boxing every double of the clamp
    // and its slerp (50 B a frame; see ARCHITECTURE.md, "Doubles across calls")
    let changed = false;
    if (!inside) {
      // v1 is unit; the angle θ from it to the lower bone, as angleByRef measures it
      const cx = a.y * v1.z - a.z * v1.y;
      const cy = a.z * v1.x - a.x * v1.z;
      const cz = a.x * v1.y - a.y * v1.x;
      const sinL = Math.sqrt(cx * cx + cy * cy + cz * cz);
      const cosL = a.x * v1.x + a.y * v1.y + a.z * v1.z;
      const theta = sinL === 0 && cosL === 0 ? 0 : Math.atan2(sinL, cosL);
      const dot = 1 - theta / Math.PI;
      changed = !(clampWeight < 1) || !(dot > clampWeight);
      // the clamped direction lies between v1 and the bone, tθ from v1 (t = 0 at clampWeight 1): the bone turns
      // about bone × v1 by (1 − t)θ; a bone opposite v1 (or not finite) leaves no axis, and the helpers take it
      let t = 0;
      if (clampWeight < 1) {
        let targetMlp = 1 - (clampWeight - dot) / (1 - dot);
        targetMlp = targetMlp < 0 ? 0 : targetMlp > 1 ? 1 : targetMlp;
        const mlp = dot / clampWeight;
        t = (mlp < 0 ? 0 : mlp > 1 ? 1 : mlp) * targetMlp;
      }
      if (changed && sinL > 1e-9 * al) {
        const half = 0.5 * (1 - t) * theta;
        const k = Math.sin(half) / sinL;
        q1.x = cx * k;
        q1.y = cy * k;
        q1.z = cz * k;
        q1.w = Math.cos(half);
      } else if (changed) {
        weight.value = clampWeight;
        clampDirectionByRef(v3, a, v1, weight, 0);
        fromToRotation(q1, a, v3);
      }
    }
    const lastRotation = copyQuat(q3, b3.boneRotation);
    // two turns of the middle bone by q1, each then written and read back at one place: the clamp (when changed),
    // then the plane turn; the last bone keeps its rotation (set again after each: the turn reads only positions)
    for (let stage = 0; stage < 2; stage++) {
      if (stage === 0 && !changed) continue;
      if (stage === 1) {
        // the plane turn only stands in for a bend plane the animation leaves undefined (a nearly straight
        // limb): a bent limb keeps its animated plane, which a rig whose elbow does not hinge about a fixed axis
        // of the upper bone (UAL's) has elsewhere than the setup pose's (not in FinalIK: ARCHITECTURE.md,
        // deviation 7)
        let turn = 0;
        if (positionWeight > 0) {
          animatedBendPlane(v2, planeTrust, b1.bonePosition, b2.bonePosition, b3.bonePosition);
          const trust = planeTrust.value;
          turn = trust >= 1 ? 0 : positionWeight * solverWeight * (1 - trust);
        }
        if (turn > 0) {
          const normal = sub(v2, b2.bonePosition, b1.bonePosition);
          const tangent = sub(v3, b3.bonePosition, b2.bonePosition);
          orthoNormalize(normal, tangent);
          fromToRotation(q1, tangent, v1);
        }
        // a bend plane already on the default side needs no turn (and no rounding-level rewrite of the bone)
        if (!(turn > 0 && !(Math.abs(q1.w) > 1 - 1e-15))) break;
        weight.value = turn;
      }
      // q1 · the middle bone's rotation (quat.ts's multiply) and the pose's re-read below, written out: taken in a
      // few frames of a jog, a call reached those small functions' own code, which V8 leaves in its interpreter
      // once dropped, as every hot caller inlines them (ARCHITECTURE.md, "Doubles across calls")
      const r = b2.boneRotation;
      const ax = q1.x;
      const ay = q1.y;
      const az = q1.z;
      const aw = q1.w;
      q2.x = aw * r.x + ax * r.w + ay * r.z - az * r.y;
      q2.y = aw * r.y - ax * r.z + ay * r.w + az * r.x;
      q2.z = aw * r.z + ax * r.y - ay * r.x + az * r.w;
      q2.w = aw * r.w - ax * r.x - ay * r.y - az * r.z;
      if (stage === 1) nlerpByRef(q2, r, q2, weight);
      pose.setRotation(b2.bone, q2);
      pose.setRotation(b3.bone, lastRotation);
      const rot = pose.componentRotations;
      const pos = pose.componentPositions;
      if (rot !== undefined && pos !== undefined && pose.bringUpToDate !== undefined) {
        // FK of the two bones first (integers only: no double a cold call could box)
        pose.bringUpToDate(b3.bone);
        const o2 = b2.bone * 4;
        const o3 = b3.bone * 4;
        const p3 = b3.bone * 3;
        r.x = rot[o2]!;
        r.y = rot[o2 + 1]!;
        r.z = rot[o2 + 2]!;
        r.w = rot[o2 + 3]!;
        const t = b3.bonePosition;
        t.x = pos[p3]!;
        t.y = pos[p3 + 1]!;
        t.z = pos[p3 + 2]!;
        const u = b3.boneRotation;
        u.x = rot[o3]!;
        u.y = rot[o3 + 1]!;
        u.z = rot[o3 + 2]!;
        u.w = rot[o3 + 3]!;
      } else {
        refresh(pose, b2, b3);
      }
    }
  }

  /**
   * The bend direction for the final trigonometric pass, written into `out` (component space, not
   * necessarily unit). Zero when not initiated.
   */
  getDir(out: Vec3, solver: BendSolver): Vec3 {
    if (!this.initiated) return set(out, 0, 0, 0);
    const b1 = this.bone1!;
    const b2 = this.bone2!;
    const b3 = this.bone3!;
    const w = this.weight * solver.ikPositionWeight;
    const goal = this.bendGoal;
    if (goal !== null) {
      sub(v1, goal, b1.solverPosition);
      if (!isZero(v1)) copy(this.direction, v1);
    }
    if (w >= 1) return normalize(out, this.direction);
    // the animated bend direction, carried along with the swing of the limb
    const s = sub(v2, b3.solverPosition, b1.solverPosition);
    sub(v1, b3.bonePosition, b1.bonePosition);
    if (this.naturalSide !== 0) {
      // from the clip's end, not LimitBend's: an end the solve leaves on the clip's hand keeps the clip's bend
      const a = this.clipAxisRead ? this.clipAxis : v1;
      this.clipAxisRead = false;
      const dx = s.x - a.x;
      const dy = s.y - a.y;
      const dz = s.z - a.z;
      const limb = b1.length + b2.length;
      this.axisMove = limb > 0 ? Math.sqrt(dx * dx + dy * dy + dz * dz) / limb : 0;
    }
    fromToRotation(q1, v1, s);
    sub(v3, b2.bonePosition, b1.bonePosition);
    rotateVector(out, q1, v3);
    if (this.naturalSide !== 0) this.carryAroundPole(out, v1, v3, s);
    if (this.naturalElbowWeight > 0 && this.naturalSide < 0) this.swivelToFitted(out, s, solver);
    const erw = b3.effectorRotationWeight;
    if (erw > 0) {
      // the effector's rotation defines the bend plane through the default (or this frame's animated) normal
      const child = solver.animatedBendNormal === true ? this.animatedChildDirection : this.defaultChildDirection;
      rotateVector(v1, b3.solverRotation, child);
      cross(v1, s, v1);
      negate(v1, v1);
      this.matchAcrossAxis(out, v1, s);
      // the carried bend, for the blend's turn limit
      copy(v5, out);
      weight.value = erw;
      lerpByRef(out, out, v1, weight);
      const count = solver.updateCount;
      if (count !== undefined) {
        this.blendMemory.update = count;
        this.limitRotationBlend(out, v5, v1, s);
      }
    }
    if (!isIdentityApprox(this.rotationOffset)) {
      // keep only the swing part of the offset about the solved limb axis, then twist the plane
      rotateVector(v1, this.rotationOffset, s);
      fromToRotation(q1, v1, s);
      multiply(q1, q1, this.rotationOffset);
      rotateVector(out, q1, out);
    }
    if (this.naturalSide !== 0) {
      const count = solver.updateCount;
      this.foldMemoryOn = count !== undefined;
      if (count !== undefined) this.foldMemory.update = count;
      this.limitToNaturalSide(out, s);
    }
    if (w <= 0) return out;
    // Deviation from FinalIK for scale invariance: blend unit directions (FinalIK blends the
    // upper-bone-length vector with the unit direction, which depends on the rig's units).
    normalize(out, out);
    normalize(v1, this.direction);
    weight.value = w;
    return lerpByRef(out, out, v1, weight);
  }

  /**
   * Scales the rotation's bend `rotation` (perpendicular to the limb axis `axis`) to the length of the carried bend
   * `carried` across that axis (not in FinalIK: ARCHITECTURE.md, deviation 33). A nearly straight limb's carried
   * bend is short across the axis, so in FinalIK's linear blend the rotation's bend took the plane over at a small
   * weight and handed it back only at 0: a fade of the weight turned the arm about its axis at the last frame (Soldier
   * letting go of a box, 70°). At equal lengths the plane turns with the weight.
   */
  private matchAcrossAxis(carried: ReadonlyVec3, rotation: Vec3, axis: ReadonlyVec3): void {
    const aa = axis.x * axis.x + axis.y * axis.y + axis.z * axis.z;
    if (!(aa > 0)) return;
    const k = (carried.x * axis.x + carried.y * axis.y + carried.z * axis.z) / aa;
    const px = carried.x - axis.x * k;
    const py = carried.y - axis.y * k;
    const pz = carried.z - axis.z * k;
    const across = Math.sqrt(px * px + py * py + pz * pz);
    const length = Math.sqrt(rotation.x * rotation.x + rotation.y * rotation.y + rotation.z * rotation.z);
    // a carried bend along the axis has no plane of its own: the rotation's takes it, as in FinalIK
    if (!(across > 0) || !(length > 0)) return;
    const f = across / length;
    rotation.x *= f;
    rotation.y *= f;
    rotation.z *= f;
  }

  /**
   * Limits the turn about the limb axis `axis` of the effector rotation's blend `out` of the carried bend `carried`
   * and the rotation's bend `rotation` (not in FinalIK: ARCHITECTURE.md, deviation 31). Two bends nearly opposite
   * cancel at some weight, and there the linear blend's direction turns by up to half a turn in one frame as the
   * weight passes (Xbot's elbow moved 0.137 h in a frame of a grip's rotation weight fading); across consecutive
   * updates its angle turns by no more than the faster bend's or 10°, plus the weight's change times the angle
   * between the bends (a weight set at once still turns the blend at once), turn-limit-memory.ts.
   */
  private limitRotationBlend(out: Vec3, carried: ReadonlyVec3, rotation: ReadonlyVec3, axis: ReadonlyVec3): void {
    // read here, not passed (see ARCHITECTURE.md, "Doubles across calls")
    const w = this.bone3!.effectorRotationWeight;
    const al = Math.sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
    if (!(al > 0)) return;
    const zx = axis.x / al;
    const zy = axis.y / al;
    const zz = axis.z / al;
    // the zero carried from the last axis to this one by the shortest arc (v − (v·z)/(1 + a·z) (a + z) for v ⟂ a),
    // then made perpendicular to this axis again against rounding; NaN before the first update
    const zero = this.blendZero;
    const last = this.blendAxis;
    const c = last.x * zx + last.y * zy + last.z * zz;
    let ex = zero.x;
    let ey = zero.y;
    let ez = zero.z;
    if (c > -0.5) {
      const k = (ex * zx + ey * zy + ez * zz) / (1 + c);
      ex -= k * (last.x + zx);
      ey -= k * (last.y + zy);
      ez -= k * (last.z + zz);
    }
    let d = ex * zx + ey * zy + ez * zz;
    ex -= zx * d;
    ey -= zy * d;
    ez -= zz * d;
    let el = Math.sqrt(ex * ex + ey * ey + ez * ez);
    if (!(el > 1e-6)) {
      // no zero to carry (the first update, an axis turned back on itself): the rotation's bend, or any perpendicular
      d = rotation.x * zx + rotation.y * zy + rotation.z * zz;
      ex = rotation.x - zx * d;
      ey = rotation.y - zy * d;
      ez = rotation.z - zz * d;
      el = Math.sqrt(ex * ex + ey * ey + ez * ez);
      if (!(el > 1e-9 * al)) {
        // x, or y for an axis near x, made perpendicular
        const x = zx * zx < 0.5 ? 1 : 0;
        d = zx * x + zy * (1 - x);
        ex = x - zx * d;
        ey = 1 - x - zy * d;
        ez = -zz * d;
        el = Math.sqrt(ex * ex + ey * ey + ez * ez);
      }
    }
    ex /= el;
    ey /= el;
    ez /= el;
    zero.x = ex;
    zero.y = ey;
    zero.z = ez;
    last.x = zx;
    last.y = zy;
    last.z = zz;
    // q: the zero a quarter turn on about the axis
    const qx = zy * ez - zz * ey;
    const qy = zz * ex - zx * ez;
    const qz = zx * ey - zy * ex;
    const rx = rotation.x * ex + rotation.y * ey + rotation.z * ez;
    const ry = rotation.x * qx + rotation.y * qy + rotation.z * qz;
    const cx = carried.x * ex + carried.y * ey + carried.z * ez;
    const cy = carried.x * qx + carried.y * qy + carried.z * qz;
    const bx = out.x * ex + out.y * ey + out.z * ez;
    const by = out.x * qx + out.y * qy + out.z * qz;
    const rotationAngle = Math.atan2(ry, rx);
    const carriedAngle = Math.atan2(cy, cx);
    const blendAngle = Math.atan2(by, bx);
    let apart = rotationAngle - carriedAngle;
    apart = Math.abs(apart - 2 * Math.PI * Math.round(apart / (2 * Math.PI)));
    const memory = this.blendMemory;
    memory.reference = rotationAngle;
    memory.otherReference = carriedAngle;
    memory.turned = blendAngle;
    memory.slack = Math.abs(w - this.lastRotationWeight) * apart;
    memory.x = zx;
    memory.y = zy;
    memory.z = zz;
    memory.limit();
    this.lastRotationWeight = w;
    const t = memory.turned;
    if (t === blendAngle) return;
    // the blend's length across the axis kept (a blend that cancels: the bends' lengths blended), its part along kept
    let bl = Math.sqrt(bx * bx + by * by);
    if (!(bl > 0)) bl = (1 - w) * Math.sqrt(cx * cx + cy * cy) + w * Math.sqrt(rx * rx + ry * ry);
    const ct = Math.cos(t) * bl;
    const st = Math.sin(t) * bl;
    d = out.x * zx + out.y * zy + out.z * zz;
    out.x = zx * d + ex * ct + qx * st;
    out.y = zy * d + ey * ct + qy * st;
    out.z = zz * d + ez * ct + qz * st;
  }

  /** Turns `out` about the solved limb axis `axis` toward the fitted elbow side, by the hand's move and weights. */
  private swivelToFitted(out: Vec3, axis: ReadonlyVec3, solver: BendSolver): void {
    const o = this.elbowOutward;
    if (o.x === 0 && o.y === 0 && o.z === 0) return;
    const effectorWeight = this.bone3!.effectorPositionWeight;
    let moved = (this.axisMove - FITTED_MOVE_LOW) / (FITTED_MOVE_HIGH - FITTED_MOVE_LOW);
    moved = moved > 1 ? 1 : moved;
    if (!(moved > 0) || !(effectorWeight > 0)) return;
    const w = this.naturalElbowWeight;
    swivelAmount.value = moved * (effectorWeight < 1 ? effectorWeight : 1) * (w < 1 ? w : 1);
    const count = solver.updateCount;
    if (count !== undefined) this.swivelMemory.update = count;
    const memory = count === undefined ? null : this.swivelMemory;
    swivelToFittedElbow(out, axis, this.elbowForward, this.elbowUp, o, swivelAmount, memory);
  }

  /**
   * Carries the animated bend by its swivel about the limb's natural pole instead of by the shortest arc
   * from the animated limb axis `animatedAxis` to the solved one `axis`, by the end effector's position
   * weight: the angle between the animated bend `upper` (the upper bone, animated) and the animated
   * axis's pole is kept about the solved axis's pole. The shortest arc is singular where the solved axis
   * turns opposite the animated one (a target behind a hanging arm, or through the chest of a T-posed
   * one) and turns a hanging arm's elbow forward when the hand is raised overhead through the front.
   * Three pole fields cover the sphere: the natural pole (naturalPole), the character's forward made
   * perpendicular to the limb (vanishing for a limb pointing forward or back) and its up made
   * perpendicular (vanishing for a limb pointing up or down); each is used where it is defined at both
   * axes, the shortest arc only where none is. An elbow the animation leaves nearly straight bends to its default
   * side (LimitBend), straight back for a T-posed rig: its pole tilts from 45° below back (ELBOW_BACK) toward 27°
   * (STRAIGHT_ELBOW_BACK) for a sideways arm as the animated bend plane loses its trust (animatedBendPlane).
   * `out` holds the shortest-arc carry and receives the blend (its part along the axis is the same).
   */
  private carryAroundPole(out: Vec3, animatedAxis: ReadonlyVec3, upper: ReadonlyVec3, axis: ReadonlyVec3): void {
    const effectorWeight = this.bone3!.effectorPositionWeight;
    if (!(effectorWeight > 0)) return;
    if (this.naturalSide < 0) {
      animatedBendPlane(v4, planeTrust, this.bone1!.bonePosition, this.bone2!.bonePosition, this.bone3!.bonePosition);
      carryBack.value = ELBOW_BACK + (STRAIGHT_ELBOW_BACK - ELBOW_BACK) * (1 - planeTrust.value);
    }
    // (lengths written out: no double crosses a call, see ARCHITECTURE.md, "Doubles across calls")
    const d =
      (out.x * axis.x + out.y * axis.y + out.z * axis.z) / (axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
    // the up field first, the forward one over it, the natural pole's over both: out ← lerp(out, carry, gate);
    // the natural pole's at full gate and weight replaces the others (the usual case), so it goes first
    this.carryInField(carry, 1, animatedAxis, upper, axis);
    const g1 = poleGate.value;
    if (g1 >= 1 && effectorWeight >= 1) {
      out.x = carry.x + axis.x * d;
      out.y = carry.y + axis.y * d;
      out.z = carry.z + axis.z * d;
      return;
    }
    const c1x = carry.x;
    const c1y = carry.y;
    const c1z = carry.z;
    for (let field = 3; field >= 1; field--) {
      let g = g1;
      if (field === 1) {
        carry.x = c1x;
        carry.y = c1y;
        carry.z = c1z;
      } else {
        this.carryInField(carry, field, animatedAxis, upper, axis);
        g = poleGate.value;
      }
      if (!(g > 0)) continue;
      if (effectorWeight < 1) g *= effectorWeight;
      out.x += (carry.x + axis.x * d - out.x) * g;
      out.y += (carry.y + axis.y * d - out.y) * g;
      out.z += (carry.z + axis.z * d - out.z) * g;
    }
  }

  /**
   * The part of `upper` perpendicular to `animatedAxis`, turned about the pole of `field` (1 sagittal,
   * 2 forward) from the animated axis to `axis`, into `out`; how usable both poles are into poleGate.
   */
  private carryInField(
    out: Vec3,
    field: number,
    animatedAxis: ReadonlyVec3,
    upper: ReadonlyVec3,
    axis: ReadonlyVec3,
  ): void {
    const pa = v4;
    this.unitPole(pa, animatedAxis, field);
    const ga = poleGate.value;
    if (!(ga > 0)) return;
    const ps = v5;
    this.unitPole(ps, axis, field);
    const gs = poleGate.value;
    if (!(gs > 0)) return;
    poleGate.value = ga < gs ? ga : gs;
    const al = Math.sqrt(
      animatedAxis.x * animatedAxis.x + animatedAxis.y * animatedAxis.y + animatedAxis.z * animatedAxis.z,
    );
    const ax = animatedAxis.x / al;
    const ay = animatedAxis.y / al;
    const az = animatedAxis.z / al;
    // the animated swivel: components along the animated pole and along axis × pole
    const x = upper.x * pa.x + upper.y * pa.y + upper.z * pa.z;
    const y = (ay * pa.z - az * pa.y) * upper.x + (az * pa.x - ax * pa.z) * upper.y + (ax * pa.y - ay * pa.x) * upper.z;
    const sl = Math.sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
    const sx = axis.x / sl;
    const sy = axis.y / sl;
    const sz = axis.z / sl;
    out.x = ps.x * x + (sy * ps.z - sz * ps.y) * y;
    out.y = ps.y * x + (sz * ps.x - sx * ps.z) * y;
    out.z = ps.z * x + (sx * ps.y - sy * ps.x) * y;
  }

  /** The natural pole of a limb along the unit axis `z` into `out`, not normalised (see {@link naturalPole}). */
  private naturalPole(out: Vec3, z: ReadonlyVec3): void {
    naturalPole(out, z, this.naturalForward, this.naturalUp, this.naturalSide);
  }

  /**
   * The unit pole of `field` for a limb along `axis` into `out`, and into poleGate how usable it is (0 to
   * 1 as the pole's length grows, where it is continuous: 0.35–0.7 for field 1, 0.1–0.3 for the others).
   * Field 1: the natural pole (naturalPole, an elbow's with carryBack); field 2: the natural side's forward
   * (knees) or backward (elbows) made perpendicular to the axis; field 3: up made perpendicular to the axis (only a
   * reference for the carry where the other two vanish, a limb pointing straight forward or back).
   */
  private unitPole(out: Vec3, axis: ReadonlyVec3, field: number): void {
    poleGate.value = 0;
    const al = Math.sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
    if (!(al > 0)) return;
    const f = this.naturalForward;
    const df = (axis.x * f.x + axis.y * f.y + axis.z * f.z) / al;
    const k = this.naturalSide;
    if (field === 1) {
      unitAxis.x = axis.x / al;
      unitAxis.y = axis.y / al;
      unitAxis.z = axis.z / al;
      naturalPole(out, unitAxis, this.naturalForward, this.naturalUp, this.naturalSide, carryBack);
    } else if (field === 2) {
      out.x = k * (f.x - (axis.x / al) * df);
      out.y = k * (f.y - (axis.y / al) * df);
      out.z = k * (f.z - (axis.z / al) * df);
    } else {
      const u = this.naturalUp;
      const du = (axis.x * u.x + axis.y * u.y + axis.z * u.z) / al;
      out.x = u.x - (axis.x / al) * du;
      out.y = u.y - (axis.y / al) * du;
      out.z = u.z - (axis.z / al) * du;
    }
    const pl = Math.sqrt(out.x * out.x + out.y * out.y + out.z * out.z);
    const gate =
      field === 1
        ? (pl - CARRY_POLE_LOW) / (CARRY_POLE_HIGH - CARRY_POLE_LOW)
        : (pl - FORWARD_POLE_LOW) / (FORWARD_POLE_HIGH - FORWARD_POLE_LOW);
    if (!(gate > 0)) return;
    out.x /= pl;
    out.y /= pl;
    out.z /= pl;
    poleGate.value = gate > 1 ? 1 : gate;
  }

  /**
   * Keeps the bend direction `out` (component space, any length) on the limb's natural side of the solved
   * limb axis `axis`: within 80° of its natural pole (naturalPole: a knee forward of the hip–ankle line,
   * up for a leg raised forward; an elbow behind the shoulder–wrist line, down for an arm reaching
   * forward). A bend more than 80° from it folds back inside, on the side it came from. The fold is scaled by the
   * end effector's position weight and fades out as the limb points sideways (where the pole vanishes). Across
   * consecutive updates its turn changes by at most 20° an update beyond a fold fading out (fold-memory.ts), so the
   * limb does not swing with a pole that turns fast; not for an end far from the clip's, which folds at once, but for
   * a partial fold (a weight between 0 and 1) changing sides where the bend passes opposite the pole, whose folded
   * direction also turns at most 25° an update meanwhile.
   */
  private limitToNaturalSide(out: Vec3, axis: ReadonlyVec3): void {
    // read here, not passed (see ARCHITECTURE.md, "Doubles across calls")
    const effectorWeight = this.bone3!.effectorPositionWeight;
    if (!(effectorWeight > 0)) return;
    const al = Math.sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
    if (!(al > 0)) return;
    const zx = axis.x / al;
    const zy = axis.y / al;
    const zz = axis.z / al;
    const pole = v4;
    unitAxis.x = zx;
    unitAxis.y = zy;
    unitAxis.z = zz;
    this.naturalPole(pole, unitAxis);
    let px = pole.x;
    let py = pole.y;
    let pz = pole.z;
    const pl = Math.sqrt(px * px + py * py + pz * pz);
    let gate = (pl - NATURAL_POLE_LOW) / (NATURAL_POLE_HIGH - NATURAL_POLE_LOW);
    gate = gate > 1 ? 1 : gate;
    // a bend the solve leaves where the clip has it (the end on its animated place about the first node) is the
    // clip's, as in FinalIK: the fold comes in as the solve moves the end away from it
    let moved = (this.axisMove - FOLD_MOVE_LOW) / (FOLD_MOVE_HIGH - FOLD_MOVE_LOW);
    moved = moved > 1 ? 1 : moved;
    // one function to the end, no early return past here: the memory hears of every update, and a branch of its own
    // function that runs only in some frames runs cold and boxes its doubles (ARCHITECTURE.md, "Doubles across calls")
    let folding = gate > 0 && moved > 0;
    let angle = 0;
    let turn = 0;
    let sx = 0;
    let sy = 0;
    let sz = 0;
    let sl = 0;
    if (folding) {
      px /= pl;
      py /= pl;
      pz /= pl;
      // the bend's part perpendicular to the axis
      const d = out.x * zx + out.y * zy + out.z * zz;
      const bx = out.x - zx * d;
      const by = out.y - zy * d;
      const bz = out.z - zz * d;
      const bl = Math.sqrt(bx * bx + by * by + bz * bz);
      const ap = bl > 0 ? (bx * px + by * py + bz * pz) / bl : -1;
      folding = ap < NATURAL_LIMIT_COS;
      if (folding) {
        const k = gate * moved * (effectorWeight < 1 ? effectorWeight : 1);
        angle = Math.acos(ap < -1 ? -1 : ap);
        // Beyond the limit the bend folds back toward the pole, 180° (fully inverted) landing on the pole:
        // continuous all round the limb (a clamp to the limit would jump from one side to the other where
        // the bend passes opposite the pole), slope 0.8; by k, interpolated in angle, so a weight fading in
        // turns the bend gradually
        const full = (NATURAL_LIMIT * (Math.PI - angle)) / (Math.PI - NATURAL_LIMIT);
        turn = (angle - full) * k;
        // A partial fold jumps where the bend passes opposite the pole (it folds one way or the other): near there,
        // a bend the solve has moved little keeps the clip's, the room shrinking to nothing as the move reaches
        // full (the move without the weight's share, so a weight fading in still turns an inverted bend gradually)
        const reach =
          (this.axisMove / (effectorWeight < 1 ? effectorWeight : 1) - FOLD_MOVE_LOW) /
          (FOLD_MOVE_HIGH - FOLD_MOVE_LOW);
        if (reach < 1) {
          const room = (Math.PI - angle) / ((Math.PI - NATURAL_LIMIT) * (1 - reach));
          if (room < 1) turn *= room;
        }
        // the side the bend lies on, perpendicular to axis and pole
        const along = ap * bl;
        sx = bx - px * along;
        sy = by - py * along;
        sz = bz - pz * along;
        sl = Math.sqrt(sx * sx + sy * sy + sz * sz);
        if (!(sl > 1e-9 * bl)) {
          // exactly opposite the pole (or no bend at all): turn through the character's lateral axis
          const l = this.naturalLateral;
          const dl = l.x * zx + l.y * zy + l.z * zz;
          const dp = l.x * px + l.y * py + l.z * pz;
          sx = l.x - zx * dl - px * dp;
          sy = l.y - zy * dl - py * dp;
          sz = l.z - zz * dl - pz * dp;
          sl = Math.sqrt(sx * sx + sy * sy + sz * sz);
          folding = sl > 0;
        }
      }
    }
    if (this.foldMemoryOn) {
      // the turn about the axis, right-handed: toward the pole, so against the side's sense about axis × pole
      const q = (zy * pz - zz * py) * sx + (zz * px - zx * pz) * sy + (zx * py - zy * px) * sz;
      const sign = q < 0 ? -1 : 1;
      const memory = this.foldMemory;
      memory.turn = folding ? -sign * turn : 0;
      // the amount without the pole's gate: a pole that shortens is what the limit is for
      memory.amount = (moved > 0 ? moved : 0) * (effectorWeight < 1 ? effectorWeight : 1);
      memory.far =
        (this.axisMove / (effectorWeight < 1 ? effectorWeight : 1) - FOLD_MEMORY_MOVE_LOW) /
        (FOLD_MEMORY_MOVE_HIGH - FOLD_MEMORY_MOVE_LOW);
      // the share of a full fold (k above, here also where it does not fold): below 1 a change of side is limited
      memory.share = (gate > 0 ? gate : 0) * (moved > 0 ? moved : 0) * (effectorWeight < 1 ? effectorWeight : 1);
      memory.x = zx;
      memory.y = zy;
      memory.z = zz;
      memory.limit();
      const t = memory.turn;
      if (folding) {
        turn = -sign * t;
      } else if (t !== 0) {
        // no fold wanted, but the last one is still unwinding: the bend turned by what is left of it about the
        // axis (right-handed), its part along the axis kept
        const c = Math.cos(t);
        const sn = Math.sin(t);
        const d = out.x * zx + out.y * zy + out.z * zz;
        const bx = out.x - zx * d;
        const by = out.y - zy * d;
        const bz = out.z - zz * d;
        out.x = zx * d + bx * c + (zy * bz - zz * by) * sn;
        out.y = zy * d + by * c + (zz * bx - zx * bz) * sn;
        out.z = zz * d + bz * c + (zx * by - zy * bx) * sn;
      }
    }
    if (folding) {
      const folded = angle - turn;
      const cf = Math.cos(folded);
      const c = Math.sin(folded) / sl;
      out.x = px * cf + sx * c;
      out.y = py * cf + sy * c;
      out.z = pz * cf + sz * c;
    }
    if (this.foldMemoryOn) {
      // the folded bend's direction about the axis, limited while a side change is under way: the turn's limit
      // alone lets the bend's own turn add to the fold's
      const memory = this.foldMemory;
      memory.fx = out.x;
      memory.fy = out.y;
      memory.fz = out.z;
      memory.limitDirection();
      if (memory.held > 0) {
        out.x = memory.fx;
        out.y = memory.fy;
        out.z = memory.fz;
      }
    }
  }
}

function refresh(pose: IKPose, b2: IKNode, b3: IKNode): void {
  pose.getRotation(b2.bone, b2.boneRotation);
  pose.getPosition(b3.bone, b3.bonePosition);
  pose.getRotation(b3.bone, b3.boneRotation);
}
