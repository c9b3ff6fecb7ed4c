/**
 * addReachCurvature adds the positive part of e × the Hessian of a leg's reach distance in the pelvis's turn. The
 * Hessian is measured here by finite differences of the turned distance; the positive part P of a symmetric S is
 * the one matrix with P ⪰ 0, P − S ⪰ 0 and P (P − S) = 0.
 */
import { describe, expect, it } from "vitest";
import { NumberRef } from "../../../src/math/number-ref.js";
import { Quat, fromAxisAngle, rotateVector } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { addReachCurvature } from "../../../src/solver/reach-curvature.js";
import { Random } from "../../helpers/random.js";

/** |toTarget + lever − turn(ω) lever|: the thigh's distance to its target once the pelvis turns by ω. */
function distance(lever: Vec3, toTarget: Vec3, w: readonly number[]): number {
  const angle = Math.hypot(w[0]!, w[1]!, w[2]!);
  const turn =
    angle > 0 ? fromAxisAngle(new Quat(), new Vec3(w[0]! / angle, w[1]! / angle, w[2]! / angle), angle) : new Quat();
  const p = rotateVector(new Vec3(), turn, lever);
  return Math.hypot(toTarget.x + lever.x - p.x, toTarget.y + lever.y - p.y, toTarget.z + lever.z - p.z);
}

/** The Hessian of `distance` at ω = 0 by central differences (row-major 3 × 3). */
function hessian(lever: Vec3, toTarget: Vec3): number[] {
  const h = 1e-4;
  const out: number[] = [];
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) {
      const at = (a: number, b: number) => {
        const w = [0, 0, 0];
        w[i]! += a * h;
        w[j]! += b * h;
        return distance(lever, toTarget, w);
      };
      out.push((at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h * h));
    }
  return out;
}

/** The smallest eigenvalue of a symmetric 3 × 3 matrix (the trigonometric solution of its characteristic cubic). */
function smallestEigenvalue(a: readonly number[]): number {
  const off = a[1]! ** 2 + a[2]! ** 2 + a[5]! ** 2;
  const q = (a[0]! + a[4]! + a[8]!) / 3;
  const p = Math.sqrt(((a[0]! - q) ** 2 + (a[4]! - q) ** 2 + (a[8]! - q) ** 2 + 2 * off) / 6);
  if (!(p > 0)) return q;
  const b = a.map((v, k) => (v - (k % 4 === 0 ? q : 0)) / p);
  const det =
    b[0]! * (b[4]! * b[8]! - b[5]! * b[7]!) -
    b[1]! * (b[3]! * b[8]! - b[5]! * b[6]!) +
    b[2]! * (b[3]! * b[7]! - b[4]! * b[6]!);
  const phi = Math.acos(Math.max(-1, Math.min(1, det / 2))) / 3;
  return q + 2 * p * Math.cos(phi + (2 * Math.PI) / 3);
}

function product(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) out.push(a[3 * i]! * b[j]! + a[3 * i + 1]! * b[3 + j]! + a[3 * i + 2]! * b[6 + j]!);
  return out;
}

describe("addReachCurvature", () => {
  it("adds the positive part of e × the reach distance's Hessian in the pelvis's turn", () => {
    const r = new Random(7);
    const cases: [Vec3, Vec3][] = [
      // a lever in line with the target (the thigh swung toward it) and straight away from it: no n across u
      [new Vec3(0, -0.1, 0), new Vec3(0, -0.8, 0)],
      [new Vec3(0, 0.1, 0), new Vec3(0, -0.8, 0)],
    ];
    for (let k = 0; k < 200; k++) {
      const lever = new Vec3(r.range(-0.2, 0.2), r.range(-0.2, 0.2), r.range(-0.2, 0.2));
      const toTarget = new Vec3(r.range(-1, 1), r.range(-1, 1), r.range(-1, 1));
      cases.push([lever, toTarget]);
    }
    let negativeParts = 0;
    for (const [lever, toTarget] of cases) {
      const e = 0.05 + 0.3 * r.next();
      const added = new Float64Array(9);
      addReachCurvature(added, lever, toTarget, new NumberRef(e));
      const s = hessian(lever, toTarget).map((v) => e * v);
      const p = Array.from(added);
      const rest = p.map((v, k) => v - s[k]!);
      const scale = Math.max(...s.map(Math.abs));
      expect(smallestEigenvalue(p)).toBeGreaterThan(-1e-6 * scale);
      expect(smallestEigenvalue(rest)).toBeGreaterThan(-1e-6 * scale);
      for (const v of product(p, rest)) expect(Math.abs(v)).toBeLessThan(1e-6 * scale * scale);
      if (smallestEigenvalue(s) < -1e-3 * scale) negativeParts++;
    }
    // the curvature is indefinite almost always (its u–n block's determinant is −b²/4): the positive part matters
    expect(negativeParts).toBeGreaterThan(150);
  });

  it("adds nothing for a leg within reach", () => {
    const added = new Float64Array(9);
    addReachCurvature(added, new Vec3(0.1, -0.05, 0), new Vec3(0.1, -0.8, 0.1), new NumberRef(0));
    expect(Array.from(added)).toEqual(new Array(9).fill(0));
  });
});
