/**
 * The checks the rotation limits' constructors share: degrees that are numbers, ranges given low to high, and
 * radians that cannot be degrees.
 * @module
 */
import type { ReadonlyVec3 } from "../../math/vec3.js";
import { FBBIKError } from "../../solver/errors.js";

/** Throws an {@link FBBIKError} for `component` naming every value of `values` (degrees) that is not finite. */
export function checkFiniteDegrees(component: string, values: Readonly<Record<string, number>>): void {
  const problems = Object.entries(values)
    .filter(([, v]) => !Number.isFinite(v))
    .map(([name, v]) => `${name} is ${v}: a finite number of degrees is needed`);
  if (problems.length > 0) throw new FBBIKError(problems, component);
}

/** Throws an {@link FBBIKError} for `component` when the range [`min`, `max`] (degrees) is not low to high. */
export function checkDegreeRange(component: string, min: number, max: number): void {
  checkFiniteDegrees(component, { min, max });
  if (min > max)
    throw new FBBIKError(
      [`min ${min}° is above max ${max}°: give the range low to high (min ${max}, max ${min} to swap them)`],
      component,
    );
}

const AXES = ["x", "y", "z"] as const;

/**
 * Throws an {@link FBBIKError} for `component` naming each axis whose radian range [`min`, `max`] is not finite,
 * not low to high, or beyond ±2π (degrees given where radians are read).
 */
export function checkRadianRanges(component: string, min: ReadonlyVec3, max: ReadonlyVec3): void {
  const problems: string[] = [];
  for (const a of AXES) {
    const lo = min[a];
    const hi = max[a];
    if (!Number.isFinite(lo) || !Number.isFinite(hi)) problems.push(`${a}: ${lo} to ${hi} is not finite`);
    else if (Math.abs(lo) > 2 * Math.PI || Math.abs(hi) > 2 * Math.PI)
      problems.push(
        `${a}: ${lo} to ${hi} is beyond ±2π: the range is in radians (degrees × π/180, ` +
          `${((lo * Math.PI) / 180).toFixed(4)} to ${((hi * Math.PI) / 180).toFixed(4)} if these were degrees)`,
      );
    else if (lo > hi) problems.push(`${a}: min ${lo} is above max ${hi}: give the range low to high`);
  }
  if (problems.length > 0) throw new FBBIKError(problems, component);
}
