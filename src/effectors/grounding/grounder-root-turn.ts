import { Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { setQuaternionFields } from "../../babylon/babylon-fields.js";
import { currentWorldMatrix, isMirror, rotationFromMatrix } from "../../babylon/world-matrix.js";
import { NumberRef } from "../../math/number-ref.js";
import { Quat, conjugateMultiply, fromToRotation, multiply, slerpByRef } from "../../math/quat.js";
import { Vec3 } from "../../math/vec3.js";
import type { Grounding } from "./grounding.js";

const IDENTITY = new Quat();
const normal = new Vec3();
const tq = new Quat();
const parentRotation = new Quat();
const weightRef = new NumberRef();

/**
 * FinalIK's root rotation of GrounderIK: turns the character root toward the plane of the ground the feet stand
 * on (a spider or a mech on a slope), by `weight`, eased at `speed`, at most `maxAngle` degrees from the root's
 * own up. The turn is an offset on the root's rotation as its owner (a controller, an animation) leaves it: taken
 * off before the animations (as FixTransforms), so it never builds up.
 */
export class GrounderRootTurn {
  /** [0, 1] How much the root turns toward the feet's ground plane. */
  weight = 0.5;
  /** How fast the turn follows (rate per second). */
  speed = 5;
  /** [0, 90] The most the root turns, degrees. */
  maxAngle = 45;
  /** This frame's weight of the turn {@link write} writes (a field: a double handed to a call may be boxed). */
  frameWeight = 0;
  /** The eased world turn (on the left of the root's world rotation). */
  readonly offset = new Quat();
  /** The root's rotation as its owner left it, and what this wrote over it (valid while `written`). */
  private readonly animated = new Quat();
  private readonly wrote = new Quat();
  private written = false;
  /** True when the last {@link takeOff} undid a turn ({@link putBack} may write it again). */
  private takenOff = false;

  /**
   * Eases the turn toward the plane of the legs' `ikPosition` by `g.deltaTime` and writes it, scaled by
   * `frameWeight`, on `root`.
   */
  apply(root: TransformNode, g: Grounding, frameWeight: number): void {
    this.takeOff(root);
    const w = this.weight > 0 ? (this.weight < 1 ? this.weight : 1) : 0;
    if (legsPlaneNormal(g, normal)) {
      fromToRotation(tq, g.up, normal);
      // clamp the angle: the turn's cosine of half the angle against the most allowed
      const most = ((this.maxAngle > 0 ? (this.maxAngle < 90 ? this.maxAngle : 90) : 0) * Math.PI) / 180;
      const half = Math.acos(tq.w < 1 ? tq.w : 1);
      weightRef.value = (half > 0 && 2 * half > most ? most / (2 * half) : 1) * w;
      slerpByRef(tq, IDENTITY, tq, weightRef);
      const step = g.deltaTime * this.speed;
      weightRef.value = step > 0 ? (step < 1 ? step : 1) : 0;
      slerpByRef(this.offset, this.offset, tq, weightRef);
    }
    this.frameWeight = frameWeight;
    this.write(root);
  }

  /**
   * Writes {@link offset}, scaled by {@link frameWeight}, on `root` (whose turn must be off: {@link takeOff}), to be
   * taken off again by {@link takeOff}.
   */
  write(root: TransformNode): void {
    weightRef.value = this.frameWeight;
    slerpByRef(tq, IDENTITY, this.offset, weightRef);
    if (tq.x === 0 && tq.y === 0 && tq.z === 0) return;
    let q = root.rotationQuaternion;
    if (q === null) q = root.rotationQuaternion = Quaternion.FromEulerVector(root.rotation);
    // read and written field by field: Babylon's copyFrom hands the doubles on to a call (ARCHITECTURE.md)
    const a = this.animated;
    a.x = q._x;
    a.y = q._y;
    a.z = q._z;
    a.w = q._w;
    // the world turn as a local one: P⁻¹·T·P on the left of the local rotation (P the parent's world rotation)
    const parent = root.parent as TransformNode | null;
    if (parent !== null && "getWorldMatrix" in parent) {
      const m = currentWorldMatrix(parent).m;
      rotationFromMatrix(m, parentRotation);
      conjugateMultiply(tq, parentRotation, multiply(tq, tq, parentRotation));
      // a mirrored parent (rotationFromMatrix's Y flip): conjugating by the mirror turns the other way
      if (isMirror(m)) {
        tq.x = -tq.x;
        tq.z = -tq.z;
      }
    }
    const x = tq.w * q.x + tq.x * q.w + tq.y * q.z - tq.z * q.y;
    const y = tq.w * q.y - tq.x * q.z + tq.y * q.w + tq.z * q.x;
    const z = tq.w * q.z + tq.x * q.y - tq.y * q.x + tq.z * q.w;
    const qw = tq.w * q.w - tq.x * q.x - tq.y * q.y - tq.z * q.z;
    q._x = x;
    q._y = y;
    q._z = z;
    q._w = qw;
    q._isDirty = true;
    const wrote = this.wrote;
    wrote.x = x;
    wrote.y = y;
    wrote.z = z;
    wrote.w = qw;
    this.written = true;
  }

  /** Takes the turn off `root` when its rotation still holds what was written (FixTransforms). */
  takeOff(root: TransformNode | null): void {
    this.takenOff = false;
    if (!this.written || root === null) return;
    this.written = false;
    const q = root.rotationQuaternion;
    const w = this.wrote;
    if (q !== null && q._x === w.x && q._y === w.y && q._z === w.z && q._w === w.w) {
      setQuaternionFields(q, this.animated);
      this.takenOff = true;
    }
  }

  /** Writes back the turn the last {@link takeOff} took off `root` (once). */
  putBack(root: TransformNode | null): void {
    if (!this.takenOff || root === null) return;
    this.takenOff = false;
    const q = root.rotationQuaternion;
    if (q === null) return;
    setQuaternionFields(q, this.wrote);
    this.written = true;
  }

  /** Forgets the eased turn (a teleport). */
  reset(): void {
    this.offset.x = this.offset.y = this.offset.z = 0;
    this.offset.w = 1;
  }
}

/**
 * The unit normal, on the side of `g.up`, of the plane of the legs' `ikPosition`: the sum of every triangle's
 * (three legs or more, so the legs' order does not matter), or for two legs up made perpendicular to the line
 * between them. False when there is none (one leg, feet on one vertical line).
 */
function legsPlaneNormal(g: Grounding, out: Vec3): boolean {
  const legs = g.legs;
  const n = legs.length;
  const up = g.up;
  out.x = out.y = out.z = 0;
  if (n === 2) {
    const a = legs[0]!.ikPosition;
    const b = legs[1]!.ikPosition;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const dz = b.z - a.z;
    const dd = dx * dx + dy * dy + dz * dz;
    if (!(dd > 0)) return false;
    const k = (up.x * dx + up.y * dy + up.z * dz) / dd;
    out.x = up.x - dx * k;
    out.y = up.y - dy * k;
    out.z = up.z - dz * k;
  } else {
    for (let i = 0; i < n; i++) {
      const a = legs[i]!.ikPosition;
      for (let j = i + 1; j < n; j++) {
        const b = legs[j]!.ikPosition;
        for (let k = j + 1; k < n; k++) {
          const c = legs[k]!.ikPosition;
          const ux = b.x - a.x;
          const uy = b.y - a.y;
          const uz = b.z - a.z;
          const vx = c.x - a.x;
          const vy = c.y - a.y;
          const vz = c.z - a.z;
          let cx = uy * vz - uz * vy;
          let cy = uz * vx - ux * vz;
          let cz = ux * vy - uy * vx;
          // every triangle's normal on the side of up, weighted by its area
          if (cx * up.x + cy * up.y + cz * up.z < 0) {
            cx = -cx;
            cy = -cy;
            cz = -cz;
          }
          out.x += cx;
          out.y += cy;
          out.z += cz;
        }
      }
    }
  }
  const l = Math.sqrt(out.x * out.x + out.y * out.y + out.z * out.z);
  if (!(l > 0) || l === Infinity) return false;
  out.x /= l;
  out.y /= l;
  out.z /= l;
  return true;
}
