/**
 * Value-returning vector helpers on plain `{x, y, z}` records, for setup-time code (reference detection,
 * validation) where readability matters more than allocation. Hot paths use the out-parameter functions
 * of `vec3.ts` instead.
 * @module
 */

/** A point or direction. */
export interface P3 {
  /** The x component. */
  readonly x: number;
  /** The y component. */
  readonly y: number;
  /** The z component. */
  readonly z: number;
}

export const v3 = (x: number, y: number, z: number): P3 => ({ x, y, z });
export const vsub = (a: P3, b: P3): P3 => v3(a.x - b.x, a.y - b.y, a.z - b.z);
export const vadd = (a: P3, b: P3): P3 => v3(a.x + b.x, a.y + b.y, a.z + b.z);
export const vscale = (a: P3, s: number): P3 => v3(a.x * s, a.y * s, a.z * s);
export const vdot = (a: P3, b: P3): number => a.x * b.x + a.y * b.y + a.z * b.z;
export const vcross = (a: P3, b: P3): P3 => v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
export const vlen = (a: P3): number => Math.sqrt(vdot(a, a));
/** Unit vector along `a`, or (0, 0, 0) when `a` has no length. */
export const vnorm = (a: P3): P3 => {
  const l = vlen(a);
  return l > 0 ? vscale(a, 1 / l) : v3(0, 0, 0);
};
/** `a` without its component along the unit vector `axis`. */
export const vreject = (a: P3, axis: P3): P3 => vsub(a, vscale(axis, vdot(a, axis)));
