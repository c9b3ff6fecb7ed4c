/**
 * Reference helpers shared by the math tests: a cheap failure collector for property loops and the
 * seeded generator of vector pairs (random, parallel, antiparallel, nearly so, zero, widely scaled).
 * The vector operations they are checked against are in vectors.ts.
 */
import { expect } from "vitest";
import { Vec3 } from "../../src/math/vec3.js";
import { Random } from "./random.js";
import { type V, cross, dot, len } from "./vectors.js";

/** A vector for failure messages. */
export function fmt(v: V): string {
  return `(${v.x}, ${v.y}, ${v.z})`;
}

export class Failures {
  count = 0;
  readonly first: string[] = [];
  add(msg: string): void {
    this.count++;
    if (this.first.length < 8) this.first.push(msg);
  }
  check(): void {
    expect(this.count, `${this.count} failures, first:\n${this.first.join("\n")}`).toBe(0);
  }
}

export function expectVec(v: V, x: number, y: number, z: number, digits = 12): void {
  expect(v.x).toBeCloseTo(x, digits);
  expect(v.y).toBeCloseTo(y, digits);
  expect(v.z).toBeCloseTo(z, digits);
}

export const magnitude = (r: Random): number => 10 ** r.range(-6, 6);

export function randomVec(r: Random): Vec3 {
  if (r.next() < 0.2) {
    const c = (): number => (r.next() < 0.15 ? 0 : (r.next() < 0.5 ? -1 : 1) * magnitude(r));
    const v = new Vec3(c(), c(), c());
    if (v.x === 0 && v.y === 0 && v.z === 0) v.x = magnitude(r);
    return v;
  }
  const u = r.unitVector();
  const m = magnitude(r);
  return new Vec3(u.x * m, u.y * m, u.z * m);
}

export const PAIR_KINDS = [
  "random",
  "parallel",
  "antiparallel",
  "nearParallel",
  "nearAntiparallel",
  "zeroA",
  "zeroB",
  "zeroBoth",
] as const;
export type PairKind = (typeof PAIR_KINDS)[number];

/** Two vectors of a kind; near pairs carry the exact angle of their construction (independent of src/math). */
export interface Pair {
  kind: PairKind;
  a: Vec3;
  b: Vec3;
  expectedAngle?: number;
}
export const EXACT_FACTORS = [1, 2, 0.5, 1024, 1 / 1024, 2 ** 19, 2 ** -19];

export function genPair(r: Random, kind: PairKind): Pair {
  switch (kind) {
    case "random":
      return { kind, a: randomVec(r), b: randomVec(r) };
    case "parallel":
    case "antiparallel": {
      const a = randomVec(r);
      const k = (kind === "parallel" ? 1 : -1) * (r.next() < 0.6 ? r.pick(EXACT_FACTORS) : magnitude(r));
      return { kind, a, b: new Vec3(a.x * k, a.y * k, a.z * k) };
    }
    case "nearParallel":
    case "nearAntiparallel": {
      const u = r.unitVector();
      const p = r.unitVector();
      const e = r.next() < 0.7 ? 1e-9 : 10 ** r.range(-12, -9);
      const m1 = magnitude(r);
      const m2 = (kind === "nearParallel" ? 1 : -1) * magnitude(r);
      // angle between u and u + e p, computed without cancellation
      const near = Math.atan2(e * len(cross(p, u)), 1 + e * dot(p, u));
      return {
        kind,
        a: new Vec3(u.x * m1, u.y * m1, u.z * m1),
        b: new Vec3((u.x + p.x * e) * m2, (u.y + p.y * e) * m2, (u.z + p.z * e) * m2),
        expectedAngle: kind === "nearParallel" ? near : Math.PI - near,
      };
    }
    case "zeroA":
      return { kind, a: new Vec3(), b: randomVec(r) };
    case "zeroB":
      return { kind, a: randomVec(r), b: new Vec3() };
    case "zeroBoth":
      return { kind, a: new Vec3(), b: new Vec3() };
  }
}

export function genPairs(seed: number, n: number): Pair[] {
  const r = new Random(seed);
  const out: Pair[] = [];
  for (let i = 0; i < n; i++) out.push(genPair(r, r.next() < 0.4 ? "random" : r.pick(PAIR_KINDS)));
  return out;
}
