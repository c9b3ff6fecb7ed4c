/**
 * The creature's procedural walk, posed by hand as an animation would be (made for flat ground at the root's
 * height): an alternating tripod (a tetrapod on eight legs). The legs go in two groups half a cycle apart; in its
 * swing half a leg's hip turns it forward and lifts it, in its stance half the hip turns it back, the tip on the
 * root's plane. The phase comes from the distance walked, so a standing tip keeps its place (the middle legs'
 * exactly; the others, turning on a slant, slide a little sideways).
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Creature } from "./props/creature";

/** Half the hip's swing about the vertical, radians. */
const SWING = 0.32;
/** The hip's lift at the top of a swing, radians. */
const LIFT = 0.38;

export class CreatureGait {
  /** How far the body moves per cycle for its standing tips not to slide (the middle legs'). */
  readonly stride: number;
  /** Per leg, the group: 0 or 1 (half a cycle later). */
  readonly group: number[];
  /** Per leg, the vertical axis signed so that a positive turn swings its tip forward. */
  private readonly yawAxis: Vector3[];
  /** Per leg, the horizontal axis signed so that a positive turn lifts its tip. */
  private readonly liftAxis: Vector3[];
  private readonly q = new Quaternion();
  private readonly q2 = new Quaternion();

  constructor(private readonly creature: Creature) {
    const up = Vector3.Up();
    const perSide = creature.legs.length / 2;
    this.group = creature.outs.map((_, i) => ((i % perSide) + (creature.left[i] ? 1 : 0)) % 2);
    // the signs measured, whatever the rotation convention: a turn's effect on the leg's outward direction
    const turned = (axis: Vector3, out: Vector3) => {
      Quaternion.RotationAxisToRef(axis, 0.1, this.q);
      return out.applyRotationQuaternion(this.q);
    };
    this.yawAxis = creature.outs.map((out) => (turned(up, out).z > out.z ? up.clone() : up.negate()));
    this.liftAxis = creature.outs.map((out) => {
      const axis = Vector3.Cross(out, up).normalize();
      return turned(axis, out).y > 0 ? axis : axis.negate();
    });
    // a middle leg (out across the body) moves its tip 2 × SWING × reach along the body per stance
    this.stride = 2 * (2 * Math.sin(SWING) * creature.reach);
  }

  /** True when leg `i` stands (its stance half) at phase `phase` (cycles), and how far into it (0–1). */
  stance(i: number, phase: number): number {
    const p = (((phase + 0.5 * this.group[i]!) % 1) + 1) % 1;
    return p >= 0.5 ? (p - 0.5) / 0.5 : -1;
  }

  /** Poses every leg at `phase` (cycles): the hips turned, the knees and ankles at rest. */
  pose(phase: number): void {
    const { nodes } = this.creature;
    for (let i = 0; i < nodes.length; i++) {
      const p = (((phase + 0.5 * this.group[i]!) % 1) + 1) % 1;
      // swing: forward from −SWING to +SWING, lifted; stance: back at the body's pace, on the ground
      const swing = p < 0.5;
      const s = swing ? p / 0.5 : (p - 0.5) / 0.5;
      // the tip's travel along the body is sin(yaw) × reach: stance keeps it linear in the phase
      const along = swing ? -Math.cos(Math.PI * s) : 1 - 2 * s;
      const yaw = Math.asin(along * Math.sin(SWING));
      const lift = swing ? LIFT * Math.sin(Math.PI * s) : 0;
      Quaternion.RotationAxisToRef(this.yawAxis[i]!, yaw, this.q);
      Quaternion.RotationAxisToRef(this.liftAxis[i]!, lift, this.q2);
      // lift in the leg's own plane first, then turn it about the vertical
      this.q.multiplyToRef(this.q2, nodes[i]![0]!.rotationQuaternion!);
      for (let j = 1; j < nodes[i]!.length; j++) nodes[i]![j]!.rotationQuaternion!.set(0, 0, 0, 1);
    }
  }
}
