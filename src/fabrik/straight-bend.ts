/**
 * FABRIK's start on a chain lying along the line to its target: its reaches move joints along lines to their
 * neighbours, so a (nearly) straight chain on that line stays straight and the tip ends short; the chain is bent
 * first, toward the side its limits let it bend.
 * @module
 */
import type { JointBone } from "../joints/joint-bone.js";
import { isSingleAxisLimit } from "../joints/limits/rotation-limit.js";
import { Quat, conjugateMultiply, inverseRotateVector, multiply, quatFromArray, rotateVector } from "../math/quat.js";
import { ON_POINT } from "../math/on-point.js";
import { type ReadonlyVec3, Vec3, anyPerpendicular } from "../math/vec3.js";

/**
 * A chain of two bones is bent first when no joint lies farther from the line from its root to the goal than the
 * bend it is given: there the bend is the two-bone answer in the chain's own plane, so it only saves iterations
 * (legs with a one-sided knee, targets 30° either side of straight below the hip: the foot 0.6 % of the leg off at
 * worst where it was 10 %; a quarter of the bend left 4.7 %).
 */
const TWO_BONES = 1;
/**
 * A longer chain only when no joint lies farther from that line than this share of its bend: its even bend is not
 * FABRIK's answer, and the demo tentacle's orbit, which a quarter bent on 100 of 640 frames, moved up to 44 % of
 * the chain in a frame where the switch came; at this share it never bends there.
 */
const LONGER = 0.05;

/** Halvings of the bend's angle: 2⁻²⁴ of its range, far finer than the iterations that follow need. */
const HALVINGS = 24;

const u = new Vec3();
const side = new Vec3();
const e = new Vec3();
const axis = new Vec3();
const parent = new Quat();
const local = new Quat();
const trial = new Quat();
const bend = new Quat();

/** The bend's numbers, fields so that no double crosses a call. */
export class StraightBend {
  /** The turn at each inner joint (radians) of the last bend. */
  angle = 0;
  /** Whether the last solve's chain was bent ({@link run} returned true). */
  bent = false;
  private cos = 1;
  private sin = 0;
  private chordX = 0;
  private chordY = 0;
  /** The chain's length this solve (read by ownSide: a double handed to a call is boxed). */
  private total = 0;

  /**
   * When the joints at `P` (3 per joint; `L` the bone lengths, `R` the rotations, 4 per joint) lie nearer the line
   * from the root to `goal` than the even bend that lands the tip there puts its farthest joint (a two-bone chain) or
   * 5 % of that (a longer one), places them on that bend, every inner joint turned alike (a two-bone limb: exactly
   * its answer), in the plane the chain bends in now (a straight one: a plane fixed in the root's frame), bulging
   * toward the side the first inner hinge (single-axis limit) bends to. True when it moved them (the rotations are
   * then the caller's to rebuild). The goal must be within reach. Allocation-free.
   */
  run(P: Float64Array, R: Float64Array, L: Float64Array, bones: readonly JointBone[], goal: ReadonlyVec3): boolean {
    this.bent = false;
    const n = bones.length;
    if (n < 3) return false;
    const rx = P[0]!;
    const ry = P[1]!;
    const rz = P[2]!;
    u.x = goal.x - rx;
    u.y = goal.y - ry;
    u.z = goal.z - rz;
    const d = Math.sqrt(u.x * u.x + u.y * u.y + u.z * u.z);
    if (!(d > 0)) return false;
    u.x /= d;
    u.y /= d;
    u.z /= d;
    let total = 0;
    for (let i = 0; i < n - 1; i++) total += L[i]!;
    if (!(d < total)) return false;
    // the farthest joint from the line to the goal; no bend puts a joint farther from its chord than half the length
    let far = 0;
    for (let k = 1; k < n; k++) {
      const k3 = 3 * k;
      e.x = P[k3]! - rx;
      e.y = P[k3 + 1]! - ry;
      e.z = P[k3 + 2]! - rz;
      const along = e.x * u.x + e.y * u.y + e.z * u.z;
      e.x -= along * u.x;
      e.y -= along * u.y;
      e.z -= along * u.z;
      const l = Math.sqrt(e.x * e.x + e.y * e.y + e.z * e.z);
      if (l > far) far = l;
    }
    const share = n === 3 ? TWO_BONES : LONGER;
    if (!(far < 0.5 * share * total)) return false;
    // the angle whose even bend spans d: the span shrinks as the angle grows, up to a closed polygon
    let lo = 0;
    let hi = Math.PI < (2 * Math.PI) / (n - 1) ? Math.PI : (2 * Math.PI) / (n - 1);
    for (let h = 0; h < HALVINGS; h++) {
      const mid = 0.5 * (lo + hi);
      this.cos = Math.cos(mid);
      this.sin = Math.sin(mid);
      this.chord(L, n);
      if (this.chordX * this.chordX + this.chordY * this.chordY > d * d) lo = mid;
      else hi = mid;
    }
    const angle = 0.5 * (lo + hi);
    this.angle = angle;
    this.cos = Math.cos(angle);
    this.sin = Math.sin(angle);
    // against the bend's farthest joint from its chord: a chain along that line stays straight. Here, not in a
    // method: reached on some solves only, such a method was left unoptimised, boxing 40 B a solve (the ball orbit)
    this.chord(L, n);
    const span = Math.sqrt(this.chordX * this.chordX + this.chordY * this.chordY);
    let need = 0;
    if (span > 0) {
      const cx = this.chordX / span;
      const cy = this.chordY / span;
      let px = 0;
      let py = 0;
      let dc = 1;
      let ds = 0;
      for (let i = 0; i < n - 2; i++) {
        px += L[i]! * dc;
        py += L[i]! * ds;
        const off = Math.abs(py * cx - px * cy);
        if (off > need) need = off;
        const t = dc * this.cos - ds * this.sin;
        ds = dc * this.sin + ds * this.cos;
        dc = t;
      }
    }
    if (!(far < share * need)) return false;
    this.total = total;
    const bent = this.ownSide(P, n);
    if (!this.hingeSide(R, bones, bent) && !bent) {
      // no bend to follow: a side fixed in the root's frame, so it turns with the character
      quatFromArray(parent, R, 0);
      inverseRotateVector(e, parent, u);
      anyPerpendicular(side, e);
      rotateVector(side, parent, side);
    }
    this.place(P, L, n);
    this.bent = true;
    return true;
  }

  /**
   * Sets {@link side} to the way the chain bends now (`n` joints at `P`, `total` long): the inner joint farthest from
   * the line from the root to the tip, off that line, across the line to the goal. False when the chain is straight
   * to float noise ({@link ON_POINT}) or bends along the line to the goal.
   */
  private ownSide(P: Float64Array, n: number): boolean {
    const rx = P[0]!;
    const ry = P[1]!;
    const rz = P[2]!;
    const t = 3 * (n - 1);
    let cx = P[t]! - rx;
    let cy = P[t + 1]! - ry;
    let cz = P[t + 2]! - rz;
    const cl = Math.sqrt(cx * cx + cy * cy + cz * cz);
    if (!(cl > 0)) return false;
    cx /= cl;
    cy /= cl;
    cz /= cl;
    let most = 0;
    for (let k = 1; k < n - 1; k++) {
      const k3 = 3 * k;
      e.x = P[k3]! - rx;
      e.y = P[k3 + 1]! - ry;
      e.z = P[k3 + 2]! - rz;
      const along = e.x * cx + e.y * cy + e.z * cz;
      e.x -= along * cx;
      e.y -= along * cy;
      e.z -= along * cz;
      const l = e.x * e.x + e.y * e.y + e.z * e.z;
      if (l > most) {
        most = l;
        side.x = e.x;
        side.y = e.y;
        side.z = e.z;
      }
    }
    if (!(most > 0)) return false;
    const along = side.x * u.x + side.y * u.y + side.z * u.z;
    side.x -= along * u.x;
    side.y -= along * u.y;
    side.z -= along * u.z;
    const l = Math.sqrt(side.x * side.x + side.y * side.y + side.z * side.z);
    if (!(l > ON_POINT * this.total)) return false;
    side.x /= l;
    side.y /= l;
    side.z /= l;
    return true;
  }

  /**
   * Sets `chordX`, `chordY` to the chord of the even bend whose turn has cosine `cos` and sine `sin` (bones `L`, `n`
   * joints): the bones' sum, in the plane where the first bone points along x.
   */
  private chord(L: Float64Array, n: number): void {
    let x = 0;
    let y = 0;
    let dc = 1;
    let ds = 0;
    for (let i = 0; i < n - 1; i++) {
      x += L[i]! * dc;
      y += L[i]! * ds;
      const t = dc * this.cos - ds * this.sin;
      ds = dc * this.sin + ds * this.cos;
      dc = t;
    }
    this.chordX = x;
    this.chordY = y;
  }

  /**
   * Where the first inner hinge lets the chain bulge: of its two turns by the bend's angle, the one its limit takes
   * less of (a one-sided knee: the side it flexes to). With the chain's own bend (`bent`, in {@link side}) within 60°
   * of that side or of its opposite, the bend kept, on the hinge's side; else {@link side} set to the hinge's. False
   * (nothing changed) without such a hinge, or when it allows both alike or its axis lies along the line.
   */
  private hingeSide(R: Float64Array, bones: readonly JointBone[], bent: boolean): boolean {
    const n = bones.length;
    for (let j = 1; j < n - 1; j++) {
      const limit = bones[j]!.limit;
      if (limit === null || !isSingleAxisLimit(limit) || !limit.singleAxis(axis)) continue;
      quatFromArray(parent, R, 4 * j - 4);
      quatFromArray(bend, R, 4 * j);
      conjugateMultiply(local, parent, bend);
      const half = 0.5 * (this.angle > 0.05 ? this.angle : 0.05);
      const s = Math.sin(half);
      const c = Math.cos(half);
      let kept = 0;
      for (let sign = 1; sign >= -1; sign -= 2) {
        // the joint turned about its hinge's axis in its own frame, then clamped: how much of it stays
        bend.x = axis.x * s * sign;
        bend.y = axis.y * s * sign;
        bend.z = axis.z * s * sign;
        bend.w = c;
        multiply(trial, local, bend);
        const x = trial.x;
        const y = trial.y;
        const z = trial.z;
        const w = trial.w;
        limit.apply(trial);
        const stays = Math.abs(x * trial.x + y * trial.y + z * trial.z + w * trial.w);
        kept += sign * stays;
      }
      if (kept > -1e-9 && kept < 1e-9) return false;
      // a turn by +angle about the hinge's axis a swings the next bone toward a × u: the chain bulges toward u × a
      quatFromArray(bend, R, 4 * j);
      rotateVector(axis, bend, axis);
      const cx = u.y * axis.z - u.z * axis.y;
      const cy = u.z * axis.x - u.x * axis.z;
      const cz = u.x * axis.y - u.y * axis.x;
      const l = Math.sqrt(cx * cx + cy * cy + cz * cz);
      if (!(l > 0.1)) return false;
      const way = kept > 0 ? 1 / l : -1 / l;
      const agree = (side.x * cx + side.y * cy + side.z * cz) * way;
      if (bent && (agree > 0.5 || agree < -0.5)) {
        // the animated bend's plane, on the side the hinge bends to
        if (agree < 0) {
          side.x = -side.x;
          side.y = -side.y;
          side.z = -side.z;
        }
        return true;
      }
      side.x = cx * way;
      side.y = cy * way;
      side.z = cz * way;
      return true;
    }
    return false;
  }

  /** Puts the joints on the even bend of {@link angle} from the root, its chord along `u`, bulging toward `side`. */
  private place(P: Float64Array, L: Float64Array, n: number): void {
    this.chord(L, n);
    const span = Math.sqrt(this.chordX * this.chordX + this.chordY * this.chordY);
    // the bones' directions turned by minus the chord's, mirrored so that the bend bulges toward the side
    let dc = this.chordX / span;
    let ds = this.chordY / span;
    for (let i = 0; i < n - 1; i++) {
      const k = 3 * i;
      const l = L[i]!;
      P[k + 3] = P[k]! + l * (dc * u.x + ds * side.x);
      P[k + 4] = P[k + 1]! + l * (dc * u.y + ds * side.y);
      P[k + 5] = P[k + 2]! + l * (dc * u.z + ds * side.z);
      const t = dc * this.cos + ds * this.sin;
      ds = ds * this.cos - dc * this.sin;
      dc = t;
    }
  }
}
