/**
 * When a target counts as on a point of its own chain: the one threshold of every solver's ill-posed target.
 * @module
 */

/**
 * Fraction of a chain's length within which a target counts as on a point of the chain (its root, an aim
 * point): Babylon's world matrices are float32, so a node placed on a bone reads about 1e-7–1e-6 of the
 * chain's length off it, and aiming across that noise turned the chain a random way each frame.
 */
export const ON_POINT = 1e-4;
