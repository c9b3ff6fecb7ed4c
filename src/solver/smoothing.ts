/** How a push or reach force is shaped before it is applied (FinalIK's FBIKChain.Smoothing). */
export enum Smoothing {
  /** The force as computed. */
  None = 0,
  /** The force squared: small forces fade out, which steadies the pose. */
  Exponential = 1,
  /** The force cubed. */
  Cubic = 2,
}

/** Applies `smoothing` to the force `f`. */
export function applySmoothing(f: number, smoothing: Smoothing): number {
  if (smoothing === Smoothing.Exponential) return f * f;
  if (smoothing === Smoothing.Cubic) return f * f * f;
  return f;
}
