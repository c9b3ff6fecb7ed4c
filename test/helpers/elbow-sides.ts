/**
 * The elbow's side about the shoulder–hand line, for the scenario tests that compare solved elbows with a clip's
 * (hands-on-clip-elbows, fbbik-elbow-swivel, limb-arm-modifier), and the summary of their angles.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, type ModelName, loadModel } from "./babylon-scene.js";
import { height } from "./scene-probes.js";

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

/**
 * The clip tests' start: `name` with the clips `clips` picks loaded and stopped, the skeleton at rest, and a
 * FullBodyBipedIK the test updates itself; `h` the model's height. The caller disposes `m`.
 */
export async function clipModelWithIK(
  name: ModelName,
  clips: (clip: string) => boolean,
): Promise<{ m: LoadedModel; ik: FullBodyBipedIK; h: number }> {
  const m = await loadModel(name, { clips });
  try {
    for (const g of m.scene.animationGroups) g.stop();
    m.skeleton.returnToRest();
    m.scene.render();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton, { autoUpdate: false });
    return { m, ik, h: height(m) };
  } catch (e) {
    m.dispose();
    throw e;
  }
}
