/**
 * The bound on a chain solver's iterations in one solve (CCDIK, FABRIK, FABRIKRoot; JacobianIK's lower).
 * @module
 */

/**
 * The most iterations one CCD or FABRIK solve runs, whatever `maxIterations` says: an unreachable target never
 * meets the tolerance, so `Infinity` (which the settings accept) hung the frame. Ten thousand is past what the
 * tightest tolerances here ask (a 60-bone CCD chain within 1e-5 of its length: 3,000).
 */
export const MAX_CHAIN_ITERATIONS = 10_000;

/** JacobianIK's bound: each of its iterations solves a linear system over every joint (default 100). */
export const MAX_JACOBIAN_ITERATIONS = 1_000;

/** `maxIterations` as a loop bound: at most `most`; NaN and negatives 0. */
export function iterationBound(maxIterations: number, most = MAX_CHAIN_ITERATIONS): number {
  return maxIterations > 0 ? (maxIterations < most ? maxIterations : most) : 0;
}
