import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { BabylonRig } from "../../babylon/babylon-rig.js";
import { type Quat, fromToRotation } from "../../math/quat.js";
import { Vec3 } from "../../math/vec3.js";
import type { Grounding } from "./grounding.js";
import { moveBoneInWorld } from "./grounder-setup.js";

const DEG = Math.PI / 180;
const tv = new Vec3();
const to = new Vec3();
const bv = new Vector3();

/**
 * Where GrounderQuadruped puts the body: how far the pelvis and the chest go along up for their legs (each
 * grounding's need, clamped), and the body's pitch between the two, eased. Per-frame values are fields (a double
 * handed to a call may be boxed: ARCHITECTURE.md, "Doubles across calls").
 */
export class QuadrupedBody {
  /** Input: the most the pelvis and the chest move, world units (this frame's scale). */
  maxHind = 0;
  maxFore = 0;
  /** Input: the pitch's weight, limits (degrees) and speed (rate per second). */
  pitchWeight = 0.5;
  minPitch = -25;
  maxPitch = 45;
  pitchSpeed = 5;
  /** Input: this frame's weight of the moves. */
  weight = 1;
  /** Output: the pelvis's and the chest's move along up, clamped, before the frame's weight. */
  hindNeed = 0;
  foreNeed = 0;
  /** Output: the eased pitch, degrees (positive: the chest up). */
  pitch = 0;
  /** The last {@link measure}'s need and mean hip along {@link forward}, and the forward it measured along. */
  private raw = 0;
  private hips = 0;
  private readonly forward = new Vec3();
  /** The pelvis's and the chest's animated world positions this frame. */
  private readonly pelvis = new Vec3();
  private readonly chest = new Vec3();

  /** Forgets the eased pitch (a teleport). */
  reset(): void {
    this.pitch = 0;
  }

  /** Keeps the animated world position of the pelvis (`hind`) or the chest. */
  setAnimated(p: Vector3, hind: boolean): void {
    const v = hind ? this.pelvis : this.chest;
    v.x = p.x;
    v.y = p.y;
    v.z = p.z;
  }

  /** The two needs from the groundings' legs this frame, and the pitch eased toward the slope between them. */
  update(hind: Grounding, fore: Grounding): void {
    // written out, no helper returning a double: one V8 does not inline would box it (ARCHITECTURE.md)
    const hf = hind.forward;
    const f = this.forward;
    f.x = hf.x;
    f.y = hf.y;
    f.z = hf.z;
    this.measure(hind);
    const hindRaw = this.raw;
    const hindHips = this.hips;
    this.measure(fore);
    const foreRaw = this.raw;
    const mh = this.maxHind > 0 ? this.maxHind : 0;
    const mf = this.maxFore > 0 ? this.maxFore : 0;
    this.hindNeed = hindRaw > -mh ? (hindRaw < mh ? hindRaw : mh) : -mh;
    this.foreNeed = foreRaw > -mf ? (foreRaw < mf ? foreRaw : mf) : -mf;
    // the slope between the two needs over the span from the hind to the fore hips along the body's forward
    const span = this.hips - hindHips;
    const pw = this.pitchWeight;
    const weight = pw > 0 ? (pw < 1 ? pw : 1) : 0;
    let target = span > 0 && span < Infinity ? (Math.atan2(foreRaw - hindRaw, span) / DEG) * weight : 0;
    const lo = this.minPitch < 0 ? (this.minPitch > -90 ? this.minPitch : -90) : 0;
    const hi = this.maxPitch > 0 ? (this.maxPitch < 90 ? this.maxPitch : 90) : 0;
    target = target > lo ? (target < hi ? target : hi) : lo;
    const step = hind.deltaTime * this.pitchSpeed;
    const k = step > 0 ? (step < 1 ? step : 1) : 0;
    const p = this.pitch + (target - this.pitch) * k;
    if (Number.isFinite(p)) this.pitch = p;
  }

  /**
   * Into {@link raw}, what `g`'s legs ask of the bone they hang from, along up: its pelvis offset (lowered for the
   * lower foot) and, when every foot stands on higher ground, up by the least raised; into {@link hips}, the mean of
   * its hips along {@link forward}.
   */
  private measure(g: Grounding): void {
    const up = g.up;
    const po = g.pelvis.ikOffset;
    let n = po.x * up.x + po.y * up.y + po.z * up.z;
    const legs = g.legs;
    let most = -Infinity;
    let sum = 0;
    const f = this.forward;
    for (let i = 0; i < legs.length; i++) {
      const leg = legs[i]!;
      const o = leg.ikOffset;
      if (o > most) most = o;
      const t = leg.thighPosition;
      sum += t.x * f.x + t.y * f.y + t.z * f.z;
    }
    if (most < 0) n -= most;
    this.raw = Number.isFinite(n) ? n : 0;
    this.hips = sum / legs.length;
  }

  /** The pitch as a world rotation turning `g`'s forward toward its up, into `out`. */
  pitchRotation(g: Grounding, out: Quat): Quat {
    const a = this.pitch * DEG;
    const c = Math.cos(a);
    const s = Math.sin(a);
    const f = g.forward;
    const u = g.up;
    to.x = f.x * c + u.x * s;
    to.y = f.y * c + u.y * s;
    to.z = f.z * c + u.z * s;
    return fromToRotation(out, f, to);
  }

  /**
   * Puts the pelvis at its animated world position moved along `up` by its need, then moves the chest along `up`
   * so it stands its need above its animated height (both by {@link weight}).
   */
  place(rig: BabylonRig, pelvisId: number, chestId: number, up: Vec3): void {
    const w = this.weight;
    const hindMove = this.hindNeed * w;
    const pelvis = this.pelvis;
    rig.getWorldPosition(pelvisId, bv);
    tv.x = pelvis.x + up.x * hindMove - bv.x;
    tv.y = pelvis.y + up.y * hindMove - bv.y;
    tv.z = pelvis.z + up.z * hindMove - bv.z;
    moveBoneInWorld(rig, pelvisId, tv);
    rig.getWorldPosition(chestId, bv);
    const chest = this.chest;
    const rise = (bv.x - chest.x) * up.x + (bv.y - chest.y) * up.y + (bv.z - chest.z) * up.z;
    const d = this.foreNeed * w - rise;
    tv.x = up.x * d;
    tv.y = up.y * d;
    tv.z = up.z * d;
    moveBoneInWorld(rig, chestId, tv);
  }
}
