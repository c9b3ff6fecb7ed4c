/** Clamps to [0, 1]; NaN gives 0, so a bad weight switches its effect off instead of spreading. */
export function clamp01(v: number): number {
  return v > 0 ? (v < 1 ? v : 1) : 0;
}
