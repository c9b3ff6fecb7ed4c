/** Summary figures of a list of measurements, for scenario reports and bounds. */

/** Mean, rms, lowest and highest of `xs`. */
export function spread(xs: number[]): { mean: number; rms: number; min: number; max: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const rms = Math.sqrt(xs.reduce((a, b) => a + b * b, 0) / xs.length);
  return { mean, rms, min: Math.min(...xs), max: Math.max(...xs) };
}
