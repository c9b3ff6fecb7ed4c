/**
 * Property tests of the rotation limits over 10,000 seeded random rotations each: every output is inside its
 * limit (to 1e-9 rad, measured with the independent reference in test/helpers/limit-reference.ts), and a rotation
 * already inside comes back bit-exact.
 */
import { describe, expect, it } from "vitest";
import { RotationLimitAngle } from "../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitEuler } from "../../src/joints/limits/rotation-limit-euler.js";
import { RotationLimitHinge } from "../../src/joints/limits/rotation-limit-hinge.js";
import { RotationLimitPolygonal } from "../../src/joints/limits/rotation-limit-polygonal.js";
import { RotationLimitSpline } from "../../src/joints/limits/rotation-limit-spline.js";
import { Quat } from "../../src/math/quat.js";
import { Vec3 } from "../../src/math/vec3.js";
import {
  type Q,
  eulerXYZ,
  polygonMargin,
  qaxis,
  qmul,
  qrotate,
  relative,
  swingTwist,
} from "../helpers/limit-reference.js";
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

  it("RotationLimitPolygonal: every output's axis is inside the outline and its twist in range; inside is untouched", () => {
    const rng = new Random(2611);
    let clamped = 0;
    for (let k = 0; k < N; k++) {
      const ax = rng.unitVector();
      // a polygon seen from the axis: 3–9 points at sorted azimuths (no gap of 180° or more), polar angles 5°–170°
      const r = rng.unitVector();
      const c = { x: ax.y * r.z - ax.z * r.y, y: ax.z * r.x - ax.x * r.z, z: ax.x * r.y - ax.y * r.x };
      const cl = Math.hypot(c.x, c.y, c.z);
      const b1 = { x: c.x / cl, y: c.y / cl, z: c.z / cl };
      const b2 = { x: ax.y * b1.z - ax.z * b1.y, y: ax.z * b1.x - ax.x * b1.z, z: ax.x * b1.y - ax.y * b1.x };
      const n = 3 + rng.int(7);
      let azimuths: number[];
      do {
        azimuths = Array.from({ length: n }, () => rng.range(0, 2 * Math.PI)).sort((a, b) => a - b);
      } while (
        azimuths.some((a, i) => (i + 1 < n ? azimuths[i + 1]! : azimuths[0]! + 2 * Math.PI) - a > Math.PI - 0.05)
      );
      const points = azimuths.map((phi) => {
        const polar = rng.range(5, 170) * DEG;
        const s = Math.sin(polar);
        return new Vec3(
          ax.x * Math.cos(polar) + (b1.x * Math.cos(phi) + b2.x * Math.sin(phi)) * s,
          ax.y * Math.cos(polar) + (b1.y * Math.cos(phi) + b2.y * Math.sin(phi)) * s,
          ax.z * Math.cos(polar) + (b1.z * Math.cos(phi) + b2.z * Math.sin(phi)) * s,
        );
      });
      if (rng.next() < 0.5) points.reverse();
      const twistLimit = rng.next() < 0.2 ? 180 : rng.range(0, 180);
      const limit = new RotationLimitPolygonal(new Vec3(ax.x, ax.y, ax.z), points, twistLimit);
      // smoothing a very uneven outline may fold it: the limit refuses, and keeps the polygon as given
      if (rng.next() < 0.3) {
        try {
          limit.smoothIterations = 1 + rng.int(2);
        } catch {
          expect(limit.smoothIterations).toBe(0);
        }
      }
      const outline = limit.outlinePoints;
      const rest = rng.unitQuaternion();
      limit.setDefaultLocalRotation(rest);
      const local = toQuat(rng.unitQuaternion());
      if (limit.apply(local)) clamped++;
      const rel = relative(rest, local);
      const st = swingTwist(rel, ax);
      const margin = polygonMargin(qrotate(rel, ax), ax, outline);
      if (!(margin <= EPS && Math.abs(st.twist) <= twistLimit * DEG + EPS)) {
        throw new Error(`sample ${k}: ${margin} rad outside the outline, twist ${st.twist} for ${twistLimit}°`);
      }
      // a clamped rotation stays put
      const again = new Quat(local.x, local.y, local.z, local.w);
      limit.apply(again);
      expect(Math.abs(again.x - local.x) + Math.abs(again.y - local.y) + Math.abs(again.z - local.z)).toBeLessThan(
        1e-12,
      );
      // inside: a twist within range, then a swing to a direction inside the outline
      let inside: Q | null = null;
      for (let tries = 0; tries < 20 && inside === null; tries++) {
        const d = rng.unitVector();
        if (polygonMargin(d, ax, outline) > -1e-6) continue;
        const dd = d.x * ax.x + d.y * ax.y + d.z * ax.z;
        const perp = { x: ax.y * d.z - ax.z * d.y, y: ax.z * d.x - ax.x * d.z, z: ax.x * d.y - ax.y * d.x };
        const pl = Math.hypot(perp.x, perp.y, perp.z);
        if (pl < 1e-9) continue;
        const swingQ = qaxis({ x: perp.x / pl, y: perp.y / pl, z: perp.z / pl }, Math.atan2(pl, dd));
        inside = qmul(rest, qmul(swingQ, qaxis(ax, rng.range(-twistLimit, twistLimit) * DEG)));
      }
      if (inside === null) continue;
      const qi = toQuat(inside);
      expect(limit.apply(qi)).toBe(false);
      expect([qi.x, qi.y, qi.z, qi.w]).toEqual([inside.x, inside.y, inside.z, inside.w]);
    }
    // most random rotations are outside a random cone
    expect(clamped).toBeGreaterThan(N / 2);
  });

  it("RotationLimitSpline: every output's swing is within the curve's limit toward it, keeping its azimuth", () => {
    const rng = new Random(3011);
    let clamped = 0;
    for (let k = 0; k < N; k++) {
      const ax = rng.unitVector();
      const cr = rng.unitVector();
      const keys = Array.from({ length: 1 + rng.int(6) }, () => ({
        time: rng.range(-360, 720),
        value: rng.range(5, 170),
      }));
      const twistLimit = rng.next() < 0.2 ? 180 : rng.range(0, 180);
      const limit = new RotationLimitSpline(new Vec3(ax.x, ax.y, ax.z), new Vec3(cr.x, cr.y, cr.z), keys, twistLimit);
      const c = limit.crossAxis;
      const side = { x: ax.y * c.z - ax.z * c.y, y: ax.z * c.x - ax.x * c.z, z: ax.x * c.y - ax.y * c.x };
      const aim = (q: Q): { polar: number; azimuth: number } => {
        const d = qrotate(q, ax);
        const along = d.x * ax.x + d.y * ax.y + d.z * ax.z;
        const u = d.x * c.x + d.y * c.y + d.z * c.z;
        const v = d.x * side.x + d.y * side.y + d.z * side.z;
        return { polar: Math.atan2(Math.hypot(u, v), along), azimuth: Math.atan2(v, u) / DEG };
      };
      const rest = rng.unitQuaternion();
      limit.setDefaultLocalRotation(rest);
      const q0 = rng.unitQuaternion();
      const local = toQuat(q0);
      const before = aim(relative(rest, q0));
      if (limit.apply(local)) clamped++;
      const rel = relative(rest, local);
      const after = aim(rel);
      const st = swingTwist(rel, ax);
      const allowed = limit.limitAt(after.azimuth) * DEG;
      if (!(after.polar <= allowed + EPS && Math.abs(st.twist) <= twistLimit * DEG + EPS)) {
        throw new Error(`sample ${k}: swing ${after.polar} past ${allowed}, twist ${st.twist} for ${twistLimit}°`);
      }
      // a swing brought back keeps the direction it swung toward (none left where the limit is 0°)
      const allowedThere = limit.limitAt(before.azimuth) * DEG;
      if (before.polar > allowedThere + 1e-6 && before.polar < Math.PI - 1e-6 && allowedThere > 1e-6) {
        const turn = Math.abs(((after.azimuth - before.azimuth + 540) % 360) - 180);
        if (turn > 1e-6) throw new Error(`sample ${k}: azimuth moved ${turn}°`);
      }
      // inside: a twist within range, then a swing inside the limit toward a random azimuth
      const phi = rng.range(0, 360);
      const swingAxis = {
        x: -Math.sin(phi * DEG) * c.x + Math.cos(phi * DEG) * side.x,
        y: -Math.sin(phi * DEG) * c.y + Math.cos(phi * DEG) * side.y,
        z: -Math.sin(phi * DEG) * c.z + Math.cos(phi * DEG) * side.z,
      };
      const inside = qmul(
        rest,
        qmul(
          qaxis(swingAxis, rng.range(0, limit.limitAt(phi)) * DEG),
          qaxis(ax, rng.range(-twistLimit, twistLimit) * DEG),
        ),
      );
      const qi = toQuat(inside);
      expect(limit.apply(qi)).toBe(false);
      expect([qi.x, qi.y, qi.z, qi.w]).toEqual([inside.x, inside.y, inside.z, inside.w]);
    }
    expect(clamped).toBeGreaterThan(N / 2);
  });
});
