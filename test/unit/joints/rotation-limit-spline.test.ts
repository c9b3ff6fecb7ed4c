/**
 * RotationLimitSpline on hand-picked rotations: a constant curve is RotationLimitAngle's cone, a curve of the
 * azimuth limits each direction by its own angle along the swing's arc, joined smoothly across 0°/360°.
 */
import { describe, expect, it } from "vitest";
import { RotationLimitAngle } from "../../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitSpline } from "../../../src/joints/limits/rotation-limit-spline.js";
import { Quat } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { type A, qaxis, qmul, qrotate, relative, swingTwist } from "../../helpers/limit-reference.js";
import { Random } from "../../helpers/random.js";

const DEG = Math.PI / 180;
const X = { x: 1, y: 0, z: 0 };
const rest = qaxis({ x: 0.36, y: 0.48, z: 0.8 }, 0.9);

/** The rotation swinging +X by `polar`° toward the azimuth `azimuth`° (0 toward +Y, 90 toward +Z), on rest. */
function swungTo(polar: number, azimuth: number, twist = 0): Quat {
  const axis = { x: 0, y: -Math.sin(azimuth * DEG), z: Math.cos(azimuth * DEG) };
  const q = qmul(rest, qmul(qaxis(axis, polar * DEG), qaxis(X, twist * DEG)));
  return new Quat(q.x, q.y, q.z, q.w);
}

/** Polar angle and azimuth (degrees) of where the output takes +X, relative to rest. */
function aimOf(local: Quat): { polar: number; azimuth: number } {
  const d: A = qrotate(relative(rest, local), X);
  return {
    polar: Math.atan2(Math.hypot(d.y, d.z), d.x) / DEG,
    azimuth: (((Math.atan2(d.z, d.y) / DEG) % 360) + 360) % 360,
  };
}

/** Four lobes of different sizes, so a mirrored azimuth reads another limit. */
const lobes = () => {
  const l = new RotationLimitSpline(new Vec3(1, 0, 0), new Vec3(0, 1, 0), [
    { time: 0, value: 60 },
    { time: 90, value: 20 },
    { time: 180, value: 40 },
    { time: 270, value: 10 },
  ]);
  l.setDefaultLocalRotation(rest);
  return l;
};

describe("RotationLimitSpline", () => {
  it("with a constant curve, is RotationLimitAngle's cone and twist", () => {
    const spline = new RotationLimitSpline(new Vec3(0.3, 1, -0.2), new Vec3(1, 0, 0), [{ time: 10, value: 35 }], 25);
    const angle = new RotationLimitAngle(new Vec3(0.3, 1, -0.2), 35, 25);
    spline.setDefaultLocalRotation(rest);
    angle.setDefaultLocalRotation(rest);
    const rng = new Random(4);
    for (let k = 0; k < 2000; k++) {
      const q = rng.unitQuaternion();
      const a = new Quat(q.x, q.y, q.z, q.w);
      const b = new Quat(q.x, q.y, q.z, q.w);
      expect(spline.apply(a)).toBe(angle.apply(b));
      expect(Math.abs(a.x - b.x) + Math.abs(a.y - b.y) + Math.abs(a.z - b.z) + Math.abs(a.w - b.w)).toBeLessThan(1e-12);
    }
  });

  it("limits each direction by the curve's angle there, keeping the direction it swung toward", () => {
    const l = lobes();
    const wide = swungTo(50, 0);
    const before = [wide.x, wide.y, wide.z, wide.w];
    expect(l.apply(wide)).toBe(false);
    expect([wide.x, wide.y, wide.z, wide.w]).toEqual(before);
    for (const azimuth of [90, 270, 135, 300]) {
      const q = swungTo(70, azimuth, 10);
      expect(l.apply(q)).toBe(true);
      const aim = aimOf(q);
      expect(aim.polar).toBeCloseTo(l.limitAt(azimuth), 9);
      expect(aim.azimuth).toBeCloseTo(azimuth, 9);
      expect(swingTwist(relative(rest, q), X).twist / DEG).toBeCloseTo(10, 9);
    }
    expect(l.limitAt(90)).toBeCloseTo(20, 12);
    expect(l.limitAt(270)).toBeCloseTo(10, 12);
    expect(l.limitAt(45)).toBeGreaterThan(20);
    expect(l.limitAt(45)).toBeLessThan(60);
  });

  it("joins smoothly across 0°/360° and reads azimuths modulo a turn", () => {
    const l = new RotationLimitSpline(new Vec3(1, 0, 0), new Vec3(0, 1, 0), [
      { time: 30, value: 50 },
      { time: 150, value: 25 },
      { time: 330, value: 40 },
    ]);
    expect(l.limitAt(359.9999)).toBeCloseTo(l.limitAt(0.0001), 3);
    // the slope on either side of 0° agrees
    const left = (l.limitAt(0) - l.limitAt(-1)) / 1;
    const right = (l.limitAt(1) - l.limitAt(0)) / 1;
    expect(Math.abs(left - right)).toBeLessThan(0.05);
    expect(l.limitAt(-30)).toBe(l.limitAt(330));
    expect(l.limitAt(390)).toBe(l.limitAt(30));
    expect(l.limitAt(30)).toBeCloseTo(50, 12);
  });

  it("makes the cross axis perpendicular to the axis; no keys leave the swing free", () => {
    const tilted = new RotationLimitSpline(new Vec3(1, 0, 0), new Vec3(0.5, 1, 0));
    expect([tilted.crossAxis.x, tilted.crossAxis.y, tilted.crossAxis.z]).toEqual([0, 1, 0]);
    const along = new RotationLimitSpline(new Vec3(0, 0, 2), new Vec3(0, 0, 1));
    const c = along.crossAxis;
    expect(Math.abs(c.z)).toBeLessThan(1e-12);
    expect(Math.hypot(c.x, c.y, c.z)).toBeCloseTo(1, 12);
    const free = new RotationLimitSpline(new Vec3(1, 0, 0), new Vec3(0, 1, 0), [{ time: Number.NaN, value: 3 }]);
    free.setDefaultLocalRotation(rest);
    const back = swungTo(179, 40);
    expect(free.apply(back)).toBe(false);
    expect(free.keys).toHaveLength(1);
  });
});
