/** Walking for the ground scenario: a procedural walk-in-place, a clip's pace, and a closed path to walk on. */
import { Animation } from "@babylonjs/core/Animations/animation";
import { AnimationGroup } from "@babylonjs/core/Animations/animationGroup";
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Scene } from "@babylonjs/core/scene";
import { jointOf, localRotation, parentWorldMatrix } from "./bone-world";
import { bonePos, type Character, worldPos } from "./kit";

/**
 * A walk-in-place for models without a walk clip: each leg in turn lifts its knee (hip and knee flex about
 * the character's right axis), with a moment of double support between. Keys on the thigh and calf joints;
 * the turn's order and sign are checked numerically (a mirrored glTF root can flip them).
 */
export function walkInPlace(c: Character, scene: Scene, period = 1.2): AnimationGroup {
  const r = c.ik.references;
  const group = new AnimationGroup(`walk ${c.root.name}`, scene);
  const fps = 30;
  const frames = Math.round(period * fps);
  const legs: [Bone, Bone, Bone, number][] = [
    [r.leftThigh, r.leftCalf, r.leftFoot, 0],
    [r.rightThigh, r.rightCalf, r.rightFoot, 0.5],
  ];
  for (const [thigh, calf, foot, offset] of legs) {
    for (const [bone, child, angle, sign] of [
      [thigh, calf, 0.6, 1],
      [calf, foot, 1.1, -1],
    ] as const) {
      const n = jointOf(bone);
      const base = localRotation(n);
      const parentInv = parentWorldMatrix(bone).clone().invert();
      const axis = Vector3.TransformNormal(c.right, parentInv).normalize();
      // which construction moves the child forward (thigh) / backward (calf) for a positive angle?
      const before = Vector3.Dot(bonePos(child).subtract(bonePos(bone)), c.forward);
      let best: (a: number) => Quaternion = (a) => Quaternion.RotationAxis(axis, a).multiply(base);
      let bestGain = -Infinity;
      for (const make of [
        (a: number) => Quaternion.RotationAxis(axis, a).multiply(base),
        (a: number) => base.multiply(Quaternion.RotationAxis(axis, a)),
        (a: number) => Quaternion.RotationAxis(axis, -a).multiply(base),
        (a: number) => base.multiply(Quaternion.RotationAxis(axis, -a)),
      ]) {
        n.rotationQuaternion = make(0.3);
        const gain = sign * (Vector3.Dot(bonePos(child).subtract(bonePos(bone)), c.forward) - before);
        if (gain > bestGain) {
          bestGain = gain;
          best = make;
        }
      }
      n.rotationQuaternion = base;
      bonePos(bone);
      const anim = new Animation(
        `walk ${n.name}`,
        "rotationQuaternion",
        fps,
        Animation.ANIMATIONTYPE_QUATERNION,
        Animation.ANIMATIONLOOPMODE_CYCLE,
      );
      const keys = [];
      for (let f = 0; f <= frames; f += 2) {
        // swing during 42 % of the cycle, standing otherwise
        const p = (f / frames + 1 - offset) % 1;
        const lift = p < 0.42 ? Math.sin((Math.PI * p) / 0.42) : 0;
        keys.push({ frame: f, value: best(angle * lift) });
      }
      anim.setKeys(keys);
      group.addTargetedAnimation(anim, n);
    }
  }
  return group;
}

/** What a walk clip does to the feet, measured by sampling it (see {@link measureGait}). */
export interface Gait {
  /** How fast a standing foot moves backward under the body (world units per second of clip): the pace. */
  speed: number;
  /** Each foot's lowest ankle height above the character root over the cycle (left, right). */
  lowest: [number, number];
}

/**
 * Samples a started in-place walk `clip` over one cycle (then puts it back at its start) and measures its
 * pace: the median backward speed of a foot while it is within 1 % of the height of its lowest, which is
 * how fast the character must move for its standing feet not to skate.
 */
export function measureGait(c: Character, clip: AnimationGroup, samples = 48): Gait {
  const feet = [c.ik.references.leftFoot, c.ik.references.rightFoot];
  const fps = clip.targetedAnimations[0]?.animation.framePerSecond ?? 60;
  const rootY = worldPos(c.root).y;
  const track = feet.map(() => [] as { along: number; y: number }[]);
  for (let k = 0; k < samples; k++) {
    clip.goToFrame(clip.from + ((clip.to - clip.from) * k) / samples);
    feet.forEach((f, i) => {
      const p = bonePos(f);
      track[i]!.push({ along: Vector3.Dot(p, c.forward), y: p.y - rootY });
    });
  }
  clip.goToFrame(clip.from);
  const dt = (clip.to - clip.from) / fps / samples;
  const speeds: number[] = [];
  const lowest = track.map((t) => Math.min(...t.map((s) => s.y))) as [number, number];
  track.forEach((t, i) => {
    for (let k = 0; k < samples; k++) {
      const a = t[k]!;
      const b = t[(k + 1) % samples]!;
      if (a.y < lowest[i]! + 0.01 * c.h && b.y < lowest[i]! + 0.01 * c.h) speeds.push((a.along - b.along) / dt);
    }
  });
  speeds.sort((x, y) => x - y);
  return { speed: Math.max(0, speeds[speeds.length >> 1] ?? 0), lowest };
}

/**
 * A closed walk on the ground: along `forward` for `length` from `origin` (lane A), a U-turn to the left
 * of `radius`, back along lane B (2 × radius to the left), and a U-turn to the left to the start. The
 * position and heading at a distance `u` along it come from {@link at}, allocation-free.
 */
export class LoopPath {
  /** The whole loop's length. */
  readonly total: number;

  constructor(
    readonly origin: Vector3,
    readonly forward: Vector3,
    /** The walker's right on lane A (the loop turns the other way). */
    readonly right: Vector3,
    readonly length: number,
    readonly radius: number,
  ) {
    this.total = 2 * length + 2 * Math.PI * radius;
  }

  /** Where the walker is (y = the origin's) and where it heads, `u` along the loop (any u: it wraps). */
  at(u: number, pos: Vector3, dir: Vector3): void {
    const { origin: o, forward: f, right: r, length: L, radius: rad } = this;
    const arc = Math.PI * rad;
    u = ((u % this.total) + this.total) % this.total;
    // s along lane A from the origin, lat to the right; heading fh × forward + rh × right
    let s = u;
    let lat = 0;
    let fh = 1;
    let rh = 0;
    if (u >= 2 * L + arc) {
      const t = (u - 2 * L - arc) / rad;
      s = -rad * Math.sin(t);
      lat = -rad - rad * Math.cos(t);
      fh = -Math.cos(t);
      rh = Math.sin(t);
    } else if (u >= L + arc) {
      s = 2 * L + arc - u;
      lat = -2 * rad;
      fh = -1;
    } else if (u >= L) {
      const t = (u - L) / rad;
      s = L + rad * Math.sin(t);
      lat = rad * Math.cos(t) - rad;
      fh = Math.cos(t);
      rh = -Math.sin(t);
    }
    pos.set(o.x + f.x * s + r.x * lat, o.y, o.z + f.z * s + r.z * lat);
    dir.set(f.x * fh + r.x * rh, 0, f.z * fh + r.z * rh);
  }
}
