/**
 * Reference measures of rotation limits for tests, written with plain numbers apart from the code under test:
 * Euler angles of the XYZ (x outermost) decomposition, swing and twist about an axis.
 */
export type Q = { x: number; y: number; z: number; w: number };
export type A = { x: number; y: number; z: number };

/** a · b (Hamilton product). */
export function qmul(a: Q, b: Q): Q {
  return {
    x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
    y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
    z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
    w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
  };
}

/** Conjugate (inverse of a unit quaternion). */
export const qconj = (a: Q): Q => ({ x: -a.x, y: -a.y, z: -a.z, w: a.w });

/** Rotation of `angle` rad about unit `axis`. */
export function qaxis(axis: A, angle: number): Q {
  const s = Math.sin(angle / 2);
  return { x: axis.x * s, y: axis.y * s, z: axis.z * s, w: Math.cos(angle / 2) };
}

/** Rotation relative to rest: rest⁻¹ · q. */
export const relative = (rest: Q, q: Q): Q => qmul(qconj(rest), q);

/** Euler angles (x, y, z) with q = Rx(x) · Ry(y) · Rz(z), from the rotation matrix. */
export function eulerXYZ(q: Q): A {
  const n = Math.hypot(q.x, q.y, q.z, q.w);
  const x = q.x / n;
  const y = q.y / n;
  const z = q.z / n;
  const w = q.w / n;
  const m00 = 1 - 2 * (y * y + z * z);
  const m01 = 2 * (x * y - z * w);
  const m02 = 2 * (x * z + y * w);
  const m12 = 2 * (y * z - x * w);
  const m22 = 1 - 2 * (x * x + y * y);
  return { x: Math.atan2(-m12, m22), y: Math.asin(Math.max(-1, Math.min(1, m02))), z: Math.atan2(-m01, m00) };
}

/** Twist angle about unit `axis` (in (−π, π]) and the swing angle (in [0, π]) of q = swing · twist. */
export function swingTwist(q: Q, axis: A): { swing: number; twist: number } {
  const s = q.w < 0 ? -1 : 1;
  const w = q.w * s;
  const t = (q.x * axis.x + q.y * axis.y + q.z * axis.z) * s;
  const twist = 2 * Math.atan2(t, w);
  const sx = q.x * s - t * axis.x;
  const sy = q.y * s - t * axis.y;
  const sz = q.z * s - t * axis.z;
  // |swing's vector part| = |q.v − t·axis|, its scalar part = sqrt(w² + t²)
  const swing = 2 * Math.atan2(Math.hypot(sx, sy, sz), Math.hypot(w, t));
  return { swing, twist };
}

/** Angle of the rotation taking a to b, in [0, π]. */
export function angleBetween(a: Q, b: Q): number {
  const r = relative(a, b);
  return 2 * Math.atan2(Math.hypot(r.x, r.y, r.z), Math.abs(r.w));
}

/** `v` rotated by the unit quaternion `q`. */
export function qrotate(q: Q, v: A): A {
  const r = qmul(qmul(q, { x: v.x, y: v.y, z: v.z, w: 0 }), qconj(q));
  return { x: r.x, y: r.y, z: r.z };
}

const dot3 = (a: A, b: A): number => a.x * b.x + a.y * b.y + a.z * b.z;
const cross3 = (a: A, b: A): A => ({ x: a.y * b.z - a.z * b.y, y: a.z * b.x - a.x * b.z, z: a.x * b.y - a.y * b.x });

/**
 * How far (radians of polar angle from the unit `axis`) the unit direction `d` is outside the spherical polygon
 * `pts` (ordered either way around the axis, star-shaped about it): ≤ 0 inside. Worked out by azimuths (atan2)
 * and the outline's polar angle at d's azimuth, not by the planes the limit uses.
 */
export function polygonMargin(d: A, axis: A, pts: readonly A[]): number {
  const u0 = Math.abs(axis.x) < 0.9 ? { x: 1, y: 0, z: 0 } : { x: 0, y: 1, z: 0 };
  const u = cross3(axis, u0);
  const ul = Math.hypot(u.x, u.y, u.z);
  const e1 = { x: u.x / ul, y: u.y / ul, z: u.z / ul };
  const e2 = cross3(axis, e1);
  const azimuth = (p: A): number => Math.atan2(dot3(p, e2), dot3(p, e1));
  const sorted = [...pts].sort((p, q) => azimuth(p) - azimuth(q));
  const phi = azimuth(d);
  let i = sorted.length - 1;
  for (let k = 0; k < sorted.length; k++) if (azimuth(sorted[k]!) <= phi) i = k;
  const p = sorted[i]!;
  const q = sorted[(i + 1) % sorted.length]!;
  let n = cross3(p, q);
  if (dot3(n, axis) < 0) n = { x: -n.x, y: -n.y, z: -n.z };
  const uphi = {
    x: e1.x * Math.cos(phi) + e2.x * Math.sin(phi),
    y: e1.y * Math.cos(phi) + e2.y * Math.sin(phi),
    z: e1.z * Math.cos(phi) + e2.z * Math.sin(phi),
  };
  const boundary = Math.atan2(dot3(n, axis), -dot3(n, uphi));
  const c = dot3(d, axis);
  const polar = Math.atan2(Math.hypot(d.x - axis.x * c, d.y - axis.y * c, d.z - axis.z * c), c);
  return polar - boundary;
}
