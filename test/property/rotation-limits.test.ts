/**
 * Property tests of the rotation limits over 10,000 seeded random rotations each: every output is inside its
 * limit (to 1e-9 rad, measured with the independent reference in test/helpers/limit-reference.ts), and a rotation
 * already inside comes back bit-exact.
 */
import { describe, expect, it } from "vitest";
import { RotationLimitAngle } from "../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitEuler } from "../../src/joints/limits/rotation-limit-euler.js";
import { RotationLimitHinge } from "../../src/joints/limits/rotation-limit-hinge.js";
import { Quat } from "../../src/math/quat.js";
import { Vec3 } from "../../src/math/vec3.js";
import { type Q, eulerXYZ, qaxis, qmul, relative, swingTwist } from "../helpers/limit-reference.js";
import { Random } from "../helpers/random.js";

const N = 10_000;
const EPS = 1e-9;
const DEG = Math.PI / 180;
const HALF_PI = Math.PI / 2;

function randomRange(rng: Random, lo: number, hi: number): [number, number] {
  // a fixed axis now and then (MMD's knee: two axes at 0)
  if (rng.next() < 0.2) return [0, 0];
  const a = rng.range(lo, hi);
  const b = rng.range(lo, hi);
  return a < b ? [a, b] : [b, a];
}

const toQuat = (a: Q): Quat => new Quat(a.x, a.y, a.z, a.w);

describe("rotation limits over 10,000 seeded random rotations", () => {
  it("RotationLimitEuler: every output's XYZ angles are inside the box; rotations inside are untouched", () => {
    const rng = new Random(1801);
    let changed = 0;
    for (let k = 0; k < N; k++) {
      const [x0, x1] = randomRange(rng, -Math.PI, Math.PI);
      const [y0, y1] = randomRange(rng, -HALF_PI + 1e-3, HALF_PI - 1e-3);
      const [z0, z1] = randomRange(rng, -Math.PI, Math.PI);
      const limit = new RotationLimitEuler(new Vec3(x0, y0, z0), new Vec3(x1, y1, z1));
      const rest = rng.unitQuaternion();
      limit.setDefaultLocalRotation(rest);
      const local = toQuat(rng.unitQuaternion());
      if (limit.apply(local)) changed++;
      const e = eulerXYZ(relative(rest, local));
      const ok =
        e.x >= x0 - EPS && e.x <= x1 + EPS && e.y >= y0 - EPS && e.y <= y1 + EPS && e.z >= z0 - EPS && e.z <= z1 + EPS;
      if (!ok) throw new Error(`sample ${k}: ${JSON.stringify(e)} outside [${x0},${x1}]×[${y0},${y1}]×[${z0},${z1}]`);
      // a rotation built inside the box
      const a = rng.range(x0, x1);
      const b = rng.range(y0, y1);
      const c = rng.range(z0, z1);
      const inside = qmul(
        rest,
        qmul(qaxis({ x: 1, y: 0, z: 0 }, a), qmul(qaxis({ x: 0, y: 1, z: 0 }, b), qaxis({ x: 0, y: 0, z: 1 }, c))),
      );
      const q = toQuat(inside);
      expect(limit.apply(q)).toBe(false);
      expect([q.x, q.y, q.z, q.w]).toEqual([inside.x, inside.y, inside.z, inside.w]);
    }
    expect(changed).toBeGreaterThan(N / 2);
  });

  it("RotationLimitHinge: every output turns about the axis within the range; rotations inside are untouched", () => {
    const rng = new Random(1802);
    for (let k = 0; k < N; k++) {
      const lo = rng.range(-180, 180);
      const hi = rng.range(lo, 180);
      const ax = rng.unitVector();
      const limit = new RotationLimitHinge(new Vec3(ax.x * 3, ax.y * 3, ax.z * 3), lo, hi);
      const rest = rng.unitQuaternion();
      limit.setDefaultLocalRotation(rest);
      const local = toQuat(rng.unitQuaternion());
      limit.apply(local);
      const st = swingTwist(relative(rest, local), ax);
      if (!(st.swing <= EPS && st.twist >= lo * DEG - EPS && st.twist <= hi * DEG + EPS)) {
        throw new Error(`sample ${k}: swing ${st.swing}, twist ${st.twist} outside [${lo}°, ${hi}°]`);
      }
      const inside = qmul(rest, qaxis(ax, rng.range(lo, hi) * DEG));
      const q = toQuat(inside);
      expect(limit.apply(q)).toBe(false);
      expect([q.x, q.y, q.z, q.w]).toEqual([inside.x, inside.y, inside.z, inside.w]);
    }
  });

  it("RotationLimitAngle: every output's swing and twist are within the limits; rotations inside are untouched", () => {
    const rng = new Random(1803);
    for (let k = 0; k < N; k++) {
      const swingLimit = rng.range(0, 179);
      const twistLimit = rng.range(0, 180);
      const ax = rng.unitVector();
      const limit = new RotationLimitAngle(new Vec3(ax.x, ax.y, ax.z), swingLimit, twistLimit);
      const rest = rng.unitQuaternion();
      limit.setDefaultLocalRotation(rest);
      const local = toQuat(rng.unitQuaternion());
      limit.apply(local);
      const st = swingTwist(relative(rest, local), ax);
      if (!(st.swing <= swingLimit * DEG + EPS && Math.abs(st.twist) <= twistLimit * DEG + EPS)) {
        throw new Error(`sample ${k}: swing ${st.swing}, twist ${st.twist} outside ${swingLimit}°/${twistLimit}°`);
      }
      // inside: a twist within range, then a swing about an axis perpendicular to the limit's axis
      const p = rng.unitVector();
      const d = p.x * ax.x + p.y * ax.y + p.z * ax.z;
      const px = p.x - ax.x * d;
      const py = p.y - ax.y * d;
      const pz = p.z - ax.z * d;
      const pl = Math.hypot(px, py, pz);
      const swingQ = qaxis({ x: px / pl, y: py / pl, z: pz / pl }, rng.range(0, swingLimit) * DEG);
      const inside = qmul(rest, qmul(swingQ, qaxis(ax, rng.range(-twistLimit, twistLimit) * DEG)));
      const q = toQuat(inside);
      expect(limit.apply(q)).toBe(false);
      expect([q.x, q.y, q.z, q.w]).toEqual([inside.x, inside.y, inside.z, inside.w]);
    }
  });
});
