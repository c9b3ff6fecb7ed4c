import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { BipedReferences } from "../../src/babylon/biped-references.js";
import { worldPos } from "./scene-probes.js";

/** The limb segments compared: both arms' upper and lower bones, both legs'. */
export function limbSegments(r: BipedReferences): [Bone, Bone][] {
  return [
    [r.leftUpperArm, r.leftForearm],
    [r.leftForearm, r.leftHand],
    [r.rightUpperArm, r.rightForearm],
    [r.rightForearm, r.rightHand],
    [r.leftThigh, r.leftCalf],
    [r.leftCalf, r.leftFoot],
    [r.rightThigh, r.rightCalf],
    [r.rightCalf, r.rightFoot],
  ];
}

/** The world direction of a segment, first joint to second. */
export const segmentDirection = ([from, to]: [Bone, Bone]): Vector3 =>
  worldPos(to).subtract(worldPos(from)).normalize();

/** The angle between unit vectors, degrees. */
export const angleDegrees = (u: Vector3, v: Vector3): number =>
  (Math.acos(Math.min(1, Math.max(-1, Vector3.Dot(u, v)))) * 180) / Math.PI;

/**
 * Renders `frames` frames of whatever plays on two characters and measures how their limbs agree: `worst`, the
 * largest angle between a segment of `a` and the same segment of `b` (`bySegment`: each segment's, in
 * {@link limbSegments}' order); `swing`, the most a segment of `b` turned away from where it was before the first
 * frame (degrees).
 */
export function limbAgreement(
  scene: Scene,
  a: BipedReferences,
  b: BipedReferences,
  frames: number,
): { worst: number; swing: number; bySegment: number[] } {
  scene.render();
  const rest = limbSegments(b).map(segmentDirection);
  const bySegment = rest.map(() => 0);
  let swing = 0;
  for (let f = 0; f < frames; f++) {
    scene.render();
    const sa = limbSegments(a).map(segmentDirection);
    const sb = limbSegments(b).map(segmentDirection);
    for (let i = 0; i < sa.length; i++) {
      bySegment[i] = Math.max(bySegment[i]!, angleDegrees(sa[i]!, sb[i]!));
      swing = Math.max(swing, angleDegrees(rest[i]!, sb[i]!));
    }
  }
  return { worst: Math.max(...bySegment), swing, bySegment };
}
