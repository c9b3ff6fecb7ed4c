/**
 * The rotation limits on hand-picked rotations: what each keeps, what it clamps, and what it leaves bit-exact.
 */
import { describe, expect, it } from "vitest";
import { RotationLimitAngle } from "../../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitEuler } from "../../../src/joints/limits/rotation-limit-euler.js";
import { RotationLimitHinge } from "../../../src/joints/limits/rotation-limit-hinge.js";
import { RotationLimitPolygonal } from "../../../src/joints/limits/rotation-limit-polygonal.js";
import { RotationLimitSpline } from "../../../src/joints/limits/rotation-limit-spline.js";
import { isSingleAxisLimit } from "../../../src/joints/limits/rotation-limit.js";
import { Quat } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { FBBIKError } from "../../../src/solver/errors.js";
import { type Q, eulerXYZ, qaxis, qmul, relative, swingTwist } from "../../helpers/limit-reference.js";

const DEG = Math.PI / 180;
const X = { x: 1, y: 0, z: 0 };
const Y = { x: 0, y: 1, z: 0 };
const Z = { x: 0, y: 0, z: 1 };
const q = (a: Q): Quat => new Quat(a.x, a.y, a.z, a.w);

describe("RotationLimitEuler", () => {
  const rest = qaxis({ x: 0.6, y: 0.8, z: 0 }, 0.7);
  const knee = (): RotationLimitEuler => {
    const l = new RotationLimitEuler(new Vec3(-Math.PI, 0, 0), new Vec3(-0.5 * DEG, 0, 0));
    l.setDefaultLocalRotation(rest);
    return l;
  };

  it("an MMD knee (X in [−180°, −0.5°]) turns a sideways bend into a pure X bend inside the range", () => {
    const l = knee();
    const local = q(qmul(rest, qmul(qaxis(X, -1.0), qaxis(Y, 0.4))));
    expect(l.apply(local)).toBe(true);
    const e = eulerXYZ(relative(rest, local));
    expect(e.x).toBeCloseTo(-1.0, 12);
    expect(Math.abs(e.y)).toBeLessThan(1e-12);
    expect(Math.abs(e.z)).toBeLessThan(1e-12);
  });

  it("a knee bent backwards is put at the range's end nearest in angle (−0.5°)", () => {
    const l = knee();
    const local = q(qmul(rest, qaxis(X, 0.6)));
    l.apply(local);
    expect(eulerXYZ(relative(rest, local)).x).toBeCloseTo(-0.5 * DEG, 12);
  });

  it("leaves a rotation inside the box bit-exact and reports no change", () => {
    const l = new RotationLimitEuler(new Vec3(-1, -0.5, -0.2), new Vec3(1, 0.5, 0.2));
    l.setDefaultLocalRotation(rest);
    const r = qmul(rest, qmul(qaxis(X, 0.3), qmul(qaxis(Y, -0.2), qaxis(Z, 0.1))));
    const local = q(r);
    expect(l.apply(local)).toBe(false);
    expect([local.x, local.y, local.z, local.w]).toEqual([r.x, r.y, r.z, r.w]);
  });

  it("clamps each angle of the XYZ decomposition to its own range", () => {
    const l = new RotationLimitEuler(new Vec3(-0.1, -0.2, -0.3), new Vec3(0.1, 0.2, 0.3));
    l.setDefaultLocalRotation(rest);
    const local = q(qmul(rest, qmul(qaxis(X, 0.5), qmul(qaxis(Y, -0.4), qaxis(Z, 0.2)))));
    l.apply(local);
    const e = eulerXYZ(relative(rest, local));
    expect(e.x).toBeCloseTo(0.1, 12);
    expect(e.y).toBeCloseTo(-0.2, 12);
    expect(e.z).toBeCloseTo(0.2, 12);
  });

  it("reports a single free axis only when the other two are fixed at 0", () => {
    const axis = new Vec3();
    expect(knee().singleAxis(axis)).toBe(true);
    expect([axis.x, axis.y, axis.z]).toEqual([1, 0, 0]);
    expect(new RotationLimitEuler(new Vec3(0, -1, 0), new Vec3(0, 1, 0)).singleAxis(axis)).toBe(true);
    expect(axis.y).toBe(1);
    expect(new RotationLimitEuler(new Vec3(-1, -1, 0), new Vec3(1, 1, 0)).singleAxis(axis)).toBe(false);
    expect(isSingleAxisLimit(knee())).toBe(true);
    expect(isSingleAxisLimit(new RotationLimitAngle())).toBe(false);
  });
});

describe("RotationLimitHinge", () => {
  const rest = qaxis({ x: 0, y: 0.6, z: 0.8 }, -0.4);
  const axis = { x: 0, y: 0, z: 1 };

  it("drops the swing and keeps the twist about the axis", () => {
    const l = new RotationLimitHinge(new Vec3(0, 0, 2), -45, 90);
    l.setDefaultLocalRotation(rest);
    const local = q(qmul(rest, qmul(qaxis(X, 0.3), qaxis(axis, 0.5))));
    expect(l.apply(local)).toBe(true);
    const st = swingTwist(relative(rest, local), axis);
    expect(st.swing).toBeLessThan(1e-12);
    expect(st.twist).toBeCloseTo(0.5, 12);
  });

  it("clamps the angle to the nearer end around the circle", () => {
    const l = new RotationLimitHinge(new Vec3(0, 0, 1), -45, 90);
    l.setDefaultLocalRotation(rest);
    const a = q(qmul(rest, qaxis(axis, 100 * DEG)));
    l.apply(a);
    expect(swingTwist(relative(rest, a), axis).twist).toBeCloseTo(90 * DEG, 12);
    // −170° is 125° from −45° but only 100° from 90° the other way round the circle
    const b = q(qmul(rest, qaxis(axis, -170 * DEG)));
    l.apply(b);
    expect(swingTwist(relative(rest, b), axis).twist).toBeCloseTo(90 * DEG, 12);
    const c = q(qmul(rest, qaxis(axis, -60 * DEG)));
    l.apply(c);
    expect(swingTwist(relative(rest, c), axis).twist).toBeCloseTo(-45 * DEG, 12);
  });

  it("leaves a rotation about the axis inside the range bit-exact", () => {
    const l = new RotationLimitHinge(new Vec3(0, 0, 1), -45, 90);
    l.setDefaultLocalRotation(rest);
    const r = qmul(rest, qaxis(axis, 0.7));
    const local = q(r);
    expect(l.apply(local)).toBe(false);
    expect([local.x, local.y, local.z, local.w]).toEqual([r.x, r.y, r.z, r.w]);
  });
});

describe("RotationLimitAngle", () => {
  const rest = qaxis({ x: 0.48, y: 0.6, z: 0.64 }, 1.1);

  it("keeps the axis within the swing cone and the twist within its range", () => {
    const l = new RotationLimitAngle(new Vec3(0, 1, 0), 30, 20);
    l.setDefaultLocalRotation(rest);
    const local = q(qmul(rest, qmul(qaxis(X, 1.2), qaxis(Y, 0.9))));
    expect(l.apply(local)).toBe(true);
    const st = swingTwist(relative(rest, local), Y);
    expect(st.swing).toBeCloseTo(30 * DEG, 12);
    expect(st.twist).toBeCloseTo(20 * DEG, 12);
  });

  it("clamps the swing along its own arc (the swing axis is kept)", () => {
    const l = new RotationLimitAngle(new Vec3(1, 0, 0), 10, 180);
    l.setDefaultLocalRotation(rest);
    const local = q(qmul(rest, qaxis({ x: 0, y: 0.6, z: 0.8 }, 0.9)));
    l.apply(local);
    const r = relative(rest, local);
    const s = Math.hypot(r.x, r.y, r.z);
    expect(r.y / s).toBeCloseTo(0.6, 12);
    expect(r.z / s).toBeCloseTo(0.8, 12);
    expect(2 * Math.atan2(s, r.w)).toBeCloseTo(10 * DEG, 12);
  });

  it("leaves a rotation inside bit-exact; a 180° limit leaves the swing free", () => {
    const l = new RotationLimitAngle(new Vec3(1, 0, 0), 45, 30);
    l.setDefaultLocalRotation(rest);
    const r = qmul(rest, qmul(qaxis(Y, 0.5), qaxis(X, -0.4)));
    const local = q(r);
    expect(l.apply(local)).toBe(false);
    expect([local.x, local.y, local.z, local.w]).toEqual([r.x, r.y, r.z, r.w]);
    const free = new RotationLimitAngle(new Vec3(1, 0, 0), 180, 180);
    free.setDefaultLocalRotation(rest);
    const big = q(qmul(rest, qaxis(Y, 3)));
    expect(free.apply(big)).toBe(false);
  });
});

describe("the limits' constructor arguments", () => {
  it("a hinge range given high to low, or not finite, throws an FBBIKError saying how to give it", () => {
    expect(() => new RotationLimitHinge(new Vec3(1, 0, 0), 90, -45)).toThrow(FBBIKError);
    expect(() => new RotationLimitHinge(new Vec3(1, 0, 0), 90, -45)).toThrow(/min 90° is above max -45°/);
    expect(() => new RotationLimitHinge(new Vec3(1, 0, 0), Number.NaN, 10)).toThrow(/min is NaN/);
    expect(() => new RotationLimitHinge(new Vec3(1, 0, 0), -45, -45)).not.toThrow();
  });

  it("a swing or twist limit that is not finite throws, naming it", () => {
    expect(() => new RotationLimitAngle(new Vec3(0, 1, 0), Number.NaN, 10)).toThrow(/limit is NaN/);
    expect(() => new RotationLimitAngle(new Vec3(0, 1, 0), 30, Number.POSITIVE_INFINITY)).toThrow(
      /twistLimit is Infinity/,
    );
    expect(() => new RotationLimitPolygonal(new Vec3(0, 1, 0), undefined, Number.NaN)).toThrow(FBBIKError);
    expect(() => new RotationLimitSpline(new Vec3(0, 1, 0), new Vec3(1, 0, 0), undefined, Number.NaN)).toThrow(
      FBBIKError,
    );
  });

  it("an Euler range in degrees (beyond ±2π) throws with the radians it meant; high to low throws", () => {
    const degrees = (): RotationLimitEuler => new RotationLimitEuler(new Vec3(-180, 0, 0), new Vec3(-0.5, 0, 0));
    expect(degrees).toThrow(FBBIKError);
    expect(degrees).toThrow(/x: -180 to -0.5 is beyond ±2π: the range is in radians .*-3.1416 to -0.0087/);
    expect(() => new RotationLimitEuler(new Vec3(0, 0, 0.4), new Vec3(0, 0, -0.4))).toThrow(/z: min 0.4 is above/);
    expect(() => new RotationLimitEuler(new Vec3(-Math.PI, 0, 0), new Vec3(-0.5 * DEG, 0, 0))).not.toThrow();
  });
});
