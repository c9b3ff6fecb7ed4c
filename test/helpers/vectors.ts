/**
 * Plain value-returning vector math on any `{x, y, z}`, for test expectations. Written independently of
 * src/math so that expected values never run through the code under test.
 */

export type V = { x: number; y: number; z: number };

export const v = (x: number, y: number, z: number): V => ({ x, y, z });
export const clone = (a: V): V => ({ x: a.x, y: a.y, z: a.z });
export const add = (a: V, b: V): V => v(a.x + b.x, a.y + b.y, a.z + b.z);
export const sub = (a: V, b: V): V => v(a.x - b.x, a.y - b.y, a.z - b.z);
export const mul = (a: V, s: number): V => v(a.x * s, a.y * s, a.z * s);
export const dot = (a: V, b: V): number => a.x * b.x + a.y * b.y + a.z * b.z;
export const cross = (a: V, b: V): V => v(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
export const len = (a: V): number => Math.hypot(a.x, a.y, a.z);
export const dist = (a: V, b: V): number => Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z);
export const unit = (a: V): V => {
  const l = len(a);
  return v(a.x / l, a.y / l, a.z / l);
};
/** Component of `a` perpendicular to `axis`. */
export const perp = (a: V, axis: V): V => sub(a, mul(axis, dot(a, axis) / dot(axis, axis)));
/** Angle between two vectors in degrees. */
export const angleDeg = (a: V, b: V): number => (Math.atan2(len(cross(a, b)), dot(a, b)) * 180) / Math.PI;
