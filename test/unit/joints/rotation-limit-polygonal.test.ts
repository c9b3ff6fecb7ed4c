/**
 * RotationLimitPolygonal on hand-picked rotations: the reach cone it keeps (convex and concave outlines, either
 * order), the nearest point it clamps to, the twist, smoothing, and the polygons it refuses.
 */
import { describe, expect, it } from "vitest";
import { RotationLimitAngle } from "../../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitPolygonal } from "../../../src/joints/limits/rotation-limit-polygonal.js";
import { Quat } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { FBBIKError } from "../../../src/solver/errors.js";
import {
  type A,
  type Q,
  polygonMargin,
  qaxis,
  qmul,
  qrotate,
  relative,
  swingTwist,
} from "../../helpers/limit-reference.js";

const DEG = Math.PI / 180;
const X = { x: 1, y: 0, z: 0 };
const q = (a: Q): Quat => new Quat(a.x, a.y, a.z, a.w);
const rest = qaxis({ x: 0.36, y: 0.48, z: 0.8 }, 0.9);

/** The direction `polar` degrees from +X toward the azimuth `azimuth` (degrees, from +Y toward +Z). */
function dirAt(polar: number, azimuth: number): Vec3 {
  const p = polar * DEG;
  const a = azimuth * DEG;
  return new Vec3(Math.cos(p), Math.sin(p) * Math.cos(a), Math.sin(p) * Math.sin(a));
}

/** The rotation (relative to rest) swinging +X to `polar`° at `azimuth`°, then on top of rest. */
function swungTo(polar: number, azimuth: number): Quat {
  const axis = { x: 0, y: -Math.sin(azimuth * DEG), z: Math.cos(azimuth * DEG) };
  return q(qmul(rest, qaxis(axis, polar * DEG)));
}

/** Where the limit's output takes +X, relative to rest. */
function axisAfter(local: Quat): A {
  return qrotate(relative(rest, local), X);
}

function limitOf(points: Vec3[], twist = 180): RotationLimitPolygonal {
  const l = new RotationLimitPolygonal(new Vec3(1, 0, 0), points, twist);
  l.setDefaultLocalRotation(rest);
  return l;
}

const polarOf = (d: A): number => Math.atan2(Math.hypot(d.y, d.z), d.x) / DEG;

describe("RotationLimitPolygonal", () => {
  it("by default keeps +X in a square cone of 45° toward ±Y and ±Z", () => {
    const l = new RotationLimitPolygonal();
    l.setDefaultLocalRotation(rest);
    const inside = swungTo(44, 90);
    const before = [inside.x, inside.y, inside.z, inside.w];
    expect(l.apply(inside)).toBe(false);
    expect([inside.x, inside.y, inside.z, inside.w]).toEqual(before);
    const out = swungTo(60, 90);
    expect(l.apply(out)).toBe(true);
    expect(polarOf(axisAfter(out))).toBeCloseTo(45, 9);
    // the square's edge is nearer the axis between its corners: atan(tan 45° / √2) ≈ 35.26° at 45° azimuth
    const diagonal = swungTo(40, 45);
    expect(l.apply(diagonal)).toBe(true);
    expect(polarOf(axisAfter(diagonal))).toBeCloseTo(Math.atan(1 / Math.SQRT2) / DEG, 9);
  });

  it("keeps a concave (star) outline: inside a tip, outside between tips", () => {
    // five tips at 60°, five notches at 20° between them
    const star = Array.from({ length: 10 }, (_, k) => dirAt(k % 2 === 0 ? 60 : 20, k * 36));
    const l = limitOf(star);
    const tip = swungTo(55, 0);
    expect(l.apply(tip)).toBe(false);
    const notch = swungTo(30, 36);
    expect(l.apply(notch)).toBe(true);
    const d = axisAfter(notch);
    expect(Math.abs(polygonMargin(d, X, star))).toBeLessThan(1e-9);
    // the star's own points come back as they were given, and the outline is the same polygon
    expect(l.points.length).toBe(10);
    expect(l.outlinePoints.length).toBe(10);
  });

  it("clamps to the outline's nearest point, whichever way round the points were given", () => {
    const pts = [dirAt(50, 0), dirAt(30, 100), dirAt(70, 200), dirAt(40, 290)];
    const a = limitOf(pts);
    const b = limitOf([...pts].reverse());
    for (const [polar, azimuth] of [
      [80, 10],
      [120, 150],
      [170, 250],
      [60, 330],
    ] as const) {
      const la = swungTo(polar, azimuth);
      const lb = swungTo(polar, azimuth);
      expect(a.apply(la)).toBe(true);
      b.apply(lb);
      expect(
        Math.abs(la.x - lb.x) + Math.abs(la.y - lb.y) + Math.abs(la.z - lb.z) + Math.abs(la.w - lb.w),
      ).toBeLessThan(1e-12);
      // no point of the outline (sampled along each edge) is nearer the asked-for direction
      const asked = axisAfter(swungTo(polar, azimuth));
      const got = axisAfter(la);
      const angle = (u: A, v: A) => Math.acos(Math.min(1, u.x * v.x + u.y * v.y + u.z * v.z));
      let nearest = Infinity;
      for (let i = 0; i < pts.length; i++) {
        const p = pts[i]!;
        const r = pts[(i + 1) % pts.length]!;
        for (let t = 0; t <= 1; t += 1 / 2000) {
          const s = { x: p.x + (r.x - p.x) * t, y: p.y + (r.y - p.y) * t, z: p.z + (r.z - p.z) * t };
          const n = Math.hypot(s.x, s.y, s.z);
          nearest = Math.min(nearest, angle(asked, { x: s.x / n, y: s.y / n, z: s.z / n }));
        }
      }
      expect(angle(asked, got)).toBeLessThanOrEqual(nearest + 1e-9);
      expect(angle(asked, got)).toBeGreaterThan(nearest - 1e-5);
      // on the outline, and applying again changes nothing
      expect(Math.abs(polygonMargin(got, X, pts))).toBeLessThan(1e-9);
      const again = new Quat(la.x, la.y, la.z, la.w);
      expect(a.apply(again)).toBe(false);
    }
  });

  it("clamps the twist as RotationLimitAngle does and keeps the swing's direction", () => {
    const l = limitOf([dirAt(80, 0), dirAt(80, 120), dirAt(80, 240)], 20);
    const angle = new RotationLimitAngle(new Vec3(1, 0, 0), 179, 20);
    angle.setDefaultLocalRotation(rest);
    const local = q(qmul(rest, qmul(qaxis({ x: 0, y: 0, z: 1 }, 30 * DEG), qaxis(X, 50 * DEG))));
    const same = new Quat(local.x, local.y, local.z, local.w);
    expect(l.apply(local)).toBe(true);
    angle.apply(same);
    const st = swingTwist(relative(rest, local), X);
    expect(st.twist / DEG).toBeCloseTo(20, 9);
    expect(st.swing / DEG).toBeCloseTo(30, 9);
    expect(Math.abs(local.x - same.x) + Math.abs(local.y - same.y) + Math.abs(local.z - same.z)).toBeLessThan(1e-15);
  });

  it("smoothIterations rounds the outline between the points and keeps the points", () => {
    const l = limitOf([dirAt(45, 0), dirAt(45, 90), dirAt(45, 180), dirAt(45, 270)]);
    const diagonal = () => {
      const d = swungTo(60, 45);
      l.apply(d);
      return polarOf(axisAfter(d));
    };
    const square = diagonal();
    l.smoothIterations = 2;
    expect(l.outlinePoints.length).toBe(16);
    expect(l.points.length).toBe(4);
    const round = diagonal();
    // the curve bulges out between the corners, toward the 45° circle through them
    expect(square).toBeCloseTo(35.26, 2);
    expect(round).toBeGreaterThan(square + 5);
    expect(round).toBeLessThan(46);
    l.smoothIterations = 99;
    expect(l.smoothIterations).toBe(3);
    l.smoothIterations = Number.NaN;
    expect(l.smoothIterations).toBe(0);
    expect(diagonal()).toBeCloseTo(square, 12);
  });

  it("refuses what is not a polygon around the axis, naming it, and keeps the polygon it had", () => {
    const l = limitOf([dirAt(30, 0), dirAt(30, 120), dirAt(30, 240)]);
    const fails = (pts: Vec3[], words: RegExp) => {
      let error: unknown;
      try {
        l.setPoints(pts);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FBBIKError);
      expect((error as FBBIKError).message).toMatch(words);
      expect((error as FBBIKError).component).toBe("RotationLimitPolygonal");
    };
    fails([dirAt(30, 0), dirAt(30, 90)], /at least 3 points/);
    fails([dirAt(30, 0), new Vec3(2, 0, 0), dirAt(30, 200)], /point 1 lies on the axis/);
    fails([dirAt(30, 0), new Vec3(0, 0, 0), dirAt(30, 200)], /point 1 is not a direction/);
    // all on one side: they turn there and back, not around
    fails([dirAt(30, 0), dirAt(30, 40), dirAt(30, 80)], /once around the axis/);
    // once around, but doubling back on the way: a sector seen from behind
    fails([dirAt(30, 0), dirAt(30, 120), dirAt(30, 100), dirAt(30, 240)], /points 1 and 2 turn -20\.0° about the axis/);
    expect(l.points.map((p) => polarOf(p))).toEqual([30, 30, 30].map((v) => expect.closeTo(v, 9)));
    const out = swungTo(50, 0);
    expect(l.apply(out)).toBe(true);
    expect(polarOf(axisAfter(out))).toBeCloseTo(30, 9);
  });

  it("leaves the swing free in directions the outline reaches past 90°, and clamps the opposite pole", () => {
    const l = limitOf([dirAt(150, 0), dirAt(150, 120), dirAt(150, 240)]);
    const wide = swungTo(120, 60);
    expect(l.apply(wide)).toBe(false);
    const back = q(qmul(rest, qaxis({ x: 0, y: 1, z: 0 }, Math.PI)));
    expect(l.apply(back)).toBe(true);
    expect(polygonMargin(axisAfter(back), X, l.outlinePoints)).toBeLessThan(1e-9);
  });
});
