import type { NumberRef } from "../math/number-ref.js";

/** How a push or reach force is shaped before it is applied (FinalIK's FBIKChain.Smoothing). */
export enum Smoothing {
  /** The force as computed. */
  None = 0,
  /** The force squared: small forces fade out, which steadies the pose. */
  Exponential = 1,
  /** The force cubed. */
  Cubic = 2,
}

/**
 * Applies `smoothing` to the force in `force.value`, in place: the chain's push and reach run per limb
 * per iteration (see ARCHITECTURE.md, "Doubles across calls").
 */
export function applySmoothing(force: NumberRef, smoothing: Smoothing): void {
  const f = force.value;
  if (smoothing === Smoothing.Exponential) force.value = f * f;
  else if (smoothing === Smoothing.Cubic) force.value = f * f * f;
}
