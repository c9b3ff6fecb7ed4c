/** The Jacobian solver's small numerics: Euler XYZ angles (R = Rz·Ry·Rx) and the dense Cholesky solve. */
import { describe, expect, it } from "vitest";
import { choleskySolve } from "../../../src/jacobian/cholesky.js";
import { eulerXYZFromQuat, quatFromEulerXYZ } from "../../../src/jacobian/euler-xyz.js";
import { Quat } from "../../../src/math/quat.js";
import { Random } from "../../helpers/random.js";

type Q = { x: number; y: number; z: number; w: number };
const mul = (a: Q, b: Q): Q => ({
  x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
  y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
  z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
  w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
});
const axisAngle = (x: number, y: number, z: number, a: number): Q => ({
  x: x * Math.sin(a / 2),
  y: y * Math.sin(a / 2),
  z: z * Math.sin(a / 2),
  w: Math.cos(a / 2),
});
/** Same rotation (q and −q alike). */
const sameRotation = (a: Q, b: Q): number => 1 - Math.abs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);

describe("Euler XYZ (extrinsic: about the parent's X, then Y, then Z)", () => {
  it("builds Rz·Ry·Rx and reads it back (10,000 seeded angles, gimbal lock included)", () => {
    const rng = new Random(3);
    const th = new Float64Array(3);
    const back = new Float64Array(3);
    const out = new Quat();
    const rebuilt = new Quat();
    for (let k = 0; k < 10_000; k++) {
      th[0] = rng.range(-Math.PI, Math.PI);
      th[1] = k % 100 === 0 ? (k % 200 === 0 ? Math.PI / 2 : -Math.PI / 2) : rng.range(-Math.PI / 2, Math.PI / 2);
      th[2] = rng.range(-Math.PI, Math.PI);
      const ref = mul(axisAngle(0, 0, 1, th[2]!), mul(axisAngle(0, 1, 0, th[1]!), axisAngle(1, 0, 0, th[0]!)));
      quatFromEulerXYZ(out, th, 0);
      expect(sameRotation(out, ref)).toBeLessThan(1e-14);
      eulerXYZFromQuat(back, 0, out);
      quatFromEulerXYZ(rebuilt, back, 0);
      expect(sameRotation(rebuilt, ref)).toBeLessThan(1e-12);
      if (Math.abs(Math.abs(th[1]!) - Math.PI / 2) > 1e-3) {
        for (let i = 0; i < 3; i++) expect(back[i]).toBeCloseTo(th[i]!, 9);
      }
    }
  });
});

describe("choleskySolve", () => {
  it("solves random symmetric positive definite systems to rounding, in place at a row stride", () => {
    const rng = new Random(5);
    for (let k = 0; k < 500; k++) {
      const n = 1 + rng.int(12);
      const stride = n + rng.int(3);
      const m = Array.from({ length: n }, () => Array.from({ length: n }, () => rng.range(-1, 1)));
      const a = new Float64Array(stride * n);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          let s = i === j ? 0.1 : 0;
          for (let r = 0; r < n; r++) s += m[i]![r]! * m[j]![r]!;
          a[i * stride + j] = s;
        }
      }
      const copy = Float64Array.from(a);
      const x = Array.from({ length: n }, () => rng.range(-1, 1));
      const b = new Float64Array(n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) b[i]! += copy[i * stride + j]! * x[j]!;
      expect(choleskySolve(a, b, n, stride)).toBe(true);
      for (let i = 0; i < n; i++) expect(Math.abs(b[i]! - x[i]!)).toBeLessThan(1e-8);
    }
  });

  it("reports a matrix that is not positive definite", () => {
    const a = new Float64Array([1, 2, 2, 1]);
    expect(choleskySolve(a, new Float64Array(2), 2, 2)).toBe(false);
    expect(choleskySolve(new Float64Array([Number.NaN]), new Float64Array(1), 1, 1)).toBe(false);
  });
});
