/**
 * FinalIK's look and aim clamp as a fraction: how far from a base direction toward a target direction a
 * part may turn. Allocation-free.
 * @module
 */
import { NumberRef } from "../math/number-ref.js";
import { type ReadonlyVec3, angleByRef } from "../math/vec3.js";

const angle = new NumberRef();

/**
 * Writes into `out.value` the fraction, in [0, 1], of the angle θ between `base` and `target` that a part
 * clamped by `clampWeight` (read from `clampWeightRef.value`, likewise the smoothing) turns: FinalIK's
 * clampWeight with clampSmoothing (0..2) rounds of x ↦ sin(xπ/2). With dot = 1 − θ/π: 1 while
 * dot ≥ clampWeight, else (dot/clampWeight, smoothed) × (1 − clampWeight)/(1 − dot).
 * So the turn never exceeds (1 − clampWeight) × 180° from `base`: clampWeight 0 allows everything,
 * 0.5 allows 90°, 1 allows nothing; a target behind fades the turn out instead of flipping sides.
 */
export function clampFractionByRef(
  out: NumberRef,
  base: ReadonlyVec3,
  target: ReadonlyVec3,
  clampWeightRef: Readonly<NumberRef>,
  clampSmoothingRef: Readonly<NumberRef>,
): NumberRef {
  const clampWeight = clampWeightRef.value;
  const clampSmoothing = clampSmoothingRef.value;
  if (!(clampWeight > 0)) {
    out.value = 1;
    return out;
  }
  if (clampWeight >= 1) {
    out.value = 0;
    return out;
  }
  const dot = 1 - angleByRef(angle, base, target).value / Math.PI;
  if (dot >= clampWeight) {
    out.value = 1;
    return out;
  }
  const reach = (1 - clampWeight) / (1 - dot);
  let m = dot / clampWeight;
  // FinalIK allows 0..2 rounds; more would only sharpen the same curve
  const rounds = clampSmoothing < 2 ? clampSmoothing : 2;
  for (let i = 0; i < rounds; i++) m = Math.sin(m * Math.PI * 0.5);
  out.value = m * (reach < 1 ? reach : 1);
  return out;
}
