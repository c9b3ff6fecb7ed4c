/**
 * The elbow's side about the shoulder–hand line, for the scenario tests that compare solved elbows with a clip's
 * (hands-on-clip-elbows, fbbik-elbow-swivel, limb-arm-modifier), and the summary of their angles.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";

/** The part of `p − s` perpendicular to the unit `axis`, unit: the elbow's side about the shoulder–hand line. */
export function elbowSide(s: Vector3, axis: Vector3, p: Vector3): Vector3 {
  const o = p.subtract(s);
  return o.subtract(axis.scale(Vector3.Dot(o, axis))).normalize();
}

/** The angle in degrees between the unit vectors `a` and `b`. */
export function degrees(a: Vector3, b: Vector3): number {
  return (Math.acos(Math.max(-1, Math.min(1, Vector3.Dot(a, b)))) * 180) / Math.PI;
}

/** Mean, 90th percentile and worst of `a`. */
export function summary(a: readonly number[]): { mean: number; p90: number; max: number } {
  const s = [...a].sort((x, y) => x - y);
  return {
    mean: s.reduce((x, y) => x + y, 0) / s.length,
    p90: s[Math.floor(0.9 * (s.length - 1))]!,
    max: s[s.length - 1]!,
  };
}
