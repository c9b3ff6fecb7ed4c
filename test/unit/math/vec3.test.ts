import { describe, expect, it } from "vitest";
import {
  Vec3,
  add,
  angle,
  anyPerpendicular,
  copy,
  cross,
  distance,
  distanceSq,
  dot,
  equals,
  fromArray,
  isFiniteVec,
  isZero,
  length,
  lengthSq,
  lerp,
  lerpUnclamped,
  negate,
  normalize,
  project,
  projectOnPlane,
  scale,
  scaleAndAdd,
  set,
  sub,
  toArray,
  zero,
} from "../../../src/math/vec3.js";
import { Random } from "../../helpers/random.js";
import { Failures, PAIR_KINDS, type Pair, expectVec, fmt, genPairs, randomVec } from "../../helpers/math-reference.js";
// aliased: the plain names are src/math's, under test here
import { dot as dotOf, len as hyp, unit as unitOf } from "../../helpers/vectors.js";

// ---------------------------------------------------------------------------------------------
// Local helpers. Everything "expected" below is computed independently of the module under test
// (Math.hypot, explicit component formulas), never with the function being checked.
// ---------------------------------------------------------------------------------------------

const N = 10_000;

function kindCounts(pairs: Pair[]): Record<string, number> {
  const c: Record<string, number> = {};
  for (const p of pairs) c[p.kind] = (c[p.kind] ?? 0) + 1;
  return c;
}

// ---------------------------------------------------------------------------------------------
// Hand-computed cases
// ---------------------------------------------------------------------------------------------

describe("vec3: construction and simple setters", () => {
  it("Vec3 defaults to zero and stores its arguments", () => {
    const a = new Vec3();
    expect([a.x, a.y, a.z]).toEqual([0, 0, 0]);
    const b = new Vec3(1, -2, 3.5);
    expect([b.x, b.y, b.z]).toEqual([1, -2, 3.5]);
  });

  it("set / copy / zero write the components and return out", () => {
    const out = new Vec3(9, 9, 9);
    expect(set(out, 1, 2, 3)).toBe(out);
    expect([out.x, out.y, out.z]).toEqual([1, 2, 3]);
    const c = new Vec3();
    expect(copy(c, { x: -4, y: 5, z: -6 })).toBe(c);
    expect([c.x, c.y, c.z]).toEqual([-4, 5, -6]);
    expect(zero(c)).toBe(c);
    expect([c.x, c.y, c.z]).toEqual([0, 0, 0]);
  });

  it("fromArray / toArray read and write three numbers at an offset, leaving the rest", () => {
    const a = Float64Array.from([9, 1.5, -2, 3, 9]);
    const v = new Vec3();
    expect(fromArray(v, a, 1)).toBe(v);
    expect([v.x, v.y, v.z]).toEqual([1.5, -2, 3]);
    toArray(a, 2, new Vec3(-7, 8, 0.25));
    expect(Array.from(a)).toEqual([9, 1.5, -7, 8, 0.25]);
  });
});

describe("vec3: arithmetic (hand-computed)", () => {
  const a = new Vec3(1, 2, 3);
  const b = new Vec3(4, -5, 6);

  it("add, sub, scale, scaleAndAdd, negate", () => {
    const out = new Vec3();
    expect(add(out, a, b)).toBe(out);
    expect([out.x, out.y, out.z]).toEqual([5, -3, 9]);
    expect(sub(out, a, b)).toBe(out);
    expect([out.x, out.y, out.z]).toEqual([-3, 7, -3]);
    expect(scale(out, a, -2)).toBe(out);
    expect([out.x, out.y, out.z]).toEqual([-2, -4, -6]);
    // (1,2,3) + (4,-5,6)*0.5 = (3, -0.5, 6)
    expect(scaleAndAdd(out, a, b, 0.5)).toBe(out);
    expect([out.x, out.y, out.z]).toEqual([3, -0.5, 6]);
    expect(negate(out, b)).toBe(out);
    expect([out.x, out.y, out.z]).toEqual([-4, 5, -6]);
  });

  it("dot", () => {
    // 4 - 10 + 18
    expect(dot(a, b)).toBe(12);
    expect(dot(new Vec3(1, 0, 0), new Vec3(0, 1, 0))).toBe(0);
  });

  it("cross of the basis follows x × y = z (coordinate cross product)", () => {
    const out = new Vec3();
    expect(cross(out, new Vec3(1, 0, 0), new Vec3(0, 1, 0))).toBe(out);
    expectVec(out, 0, 0, 1);
    expectVec(cross(out, new Vec3(0, 1, 0), new Vec3(0, 0, 1)), 1, 0, 0);
    expectVec(cross(out, new Vec3(0, 0, 1), new Vec3(1, 0, 0)), 0, 1, 0);
    expectVec(cross(out, new Vec3(0, 1, 0), new Vec3(1, 0, 0)), 0, 0, -1);
    // (1,2,3) × (4,5,6) = (2*6-3*5, 3*4-1*6, 1*5-2*4) = (-3, 6, -3)
    cross(out, new Vec3(1, 2, 3), new Vec3(4, 5, 6));
    expect([out.x, out.y, out.z]).toEqual([-3, 6, -3]);
    // parallel vectors give exactly zero
    cross(out, new Vec3(1, 2, 3), new Vec3(2, 4, 6));
    expect(isZero(out)).toBe(true);
  });

  it("length, lengthSq, distance, distanceSq", () => {
    expect(length(new Vec3(3, 4, 12))).toBe(13);
    expect(lengthSq(new Vec3(3, 4, 12))).toBe(169);
    expect(length(new Vec3())).toBe(0);
    // (4,6,15) - (1,2,3) = (3,4,12)
    expect(distance(new Vec3(1, 2, 3), new Vec3(4, 6, 15))).toBe(13);
    expect(distanceSq(new Vec3(1, 2, 3), new Vec3(4, 6, 15))).toBe(169);
    expect(distance(new Vec3(4, 6, 15), new Vec3(1, 2, 3))).toBe(13);
  });

  it("normalize: unit result; zero and non-finite lengths give the zero vector", () => {
    const out = new Vec3();
    expect(normalize(out, new Vec3(3, 4, 0))).toBe(out);
    expectVec(out, 0.6, 0.8, 0, 15);
    expectVec(normalize(out, new Vec3(0, 0, -1e-6)), 0, 0, -1, 15);
    expectVec(normalize(out, new Vec3(2, -2, 1)), 2 / 3, -2 / 3, 1 / 3, 15);
    set(out, 7, 7, 7);
    normalize(out, new Vec3());
    expect(isZero(out)).toBe(true);
    set(out, 7, 7, 7);
    normalize(out, new Vec3(Infinity, 0, 0));
    expect(isZero(out)).toBe(true);
    set(out, 7, 7, 7);
    normalize(out, new Vec3(NaN, 1, 0));
    expect(isZero(out)).toBe(true);
  });

  it("lerp clamps t and returns a / b exactly at the ends", () => {
    const out = new Vec3();
    const p = new Vec3(0, 0, 0);
    const q = new Vec3(10, 20, -30);
    expect(lerp(out, p, q, 0.25)).toBe(out);
    expectVec(out, 2.5, 5, -7.5);
    lerp(out, p, q, -1);
    expect([out.x, out.y, out.z]).toEqual([0, 0, 0]);
    lerp(out, p, q, 2);
    expect([out.x, out.y, out.z]).toEqual([10, 20, -30]);
    // t = 0 is exact even where a + (b - a)*0 would not be (infinite / NaN b)
    const a2 = new Vec3(0.1, -0.2, 0.3);
    lerp(out, a2, new Vec3(Infinity, -Infinity, NaN), 0);
    expect([out.x, out.y, out.z]).toEqual([0.1, -0.2, 0.3]);
    lerp(out, a2, new Vec3(Infinity, -Infinity, NaN), NaN);
    expect([out.x, out.y, out.z]).toEqual([0.1, -0.2, 0.3]);
    // t = 1 returns b exactly (0.1 + (0.7 - 0.1) * 1 would be 0.7000000000000001)
    lerp(out, new Vec3(0.1, 0, 0), new Vec3(0.7, 0, 0), 1);
    expect(out.x).toBe(0.7);
  });

  it("lerpUnclamped extrapolates", () => {
    const out = new Vec3();
    const p = new Vec3(1, 1, 1);
    const q = new Vec3(3, -1, 5);
    expect(lerpUnclamped(out, p, q, 2)).toBe(out);
    expectVec(out, 5, -3, 9);
    expectVec(lerpUnclamped(out, p, q, -0.5), 0, 2, -1);
    expectVec(lerpUnclamped(out, p, q, 0.5), 2, 0, 3);
  });

  it("equals / isFiniteVec / isZero", () => {
    expect(equals(new Vec3(1, 2, 3), new Vec3(1, 2, 3))).toBe(true);
    expect(equals(new Vec3(1, 2, 3), new Vec3(1, 2, 3 + 1e-15))).toBe(false);
    expect(equals(new Vec3(0, 0, 0), new Vec3(-0, 0, -0))).toBe(true);
    expect(equals(new Vec3(NaN, 0, 0), new Vec3(NaN, 0, 0))).toBe(false);
    expect(isFiniteVec(new Vec3(1e300, -1e300, 0))).toBe(true);
    expect(isFiniteVec(new Vec3(0, Infinity, 0))).toBe(false);
    expect(isFiniteVec(new Vec3(0, 0, NaN))).toBe(false);
    expect(isZero(new Vec3())).toBe(true);
    expect(isZero(new Vec3(-0, 0, -0))).toBe(true);
    expect(isZero(new Vec3(0, 1e-300, 0))).toBe(false);
  });

  it("project / projectOnPlane", () => {
    const out = new Vec3();
    expect(project(out, new Vec3(3, 4, 5), new Vec3(0, 0, 2))).toBe(out);
    expectVec(out, 0, 0, 5);
    expect(projectOnPlane(out, new Vec3(3, 4, 5), new Vec3(0, 0, 2))).toBe(out);
    expectVec(out, 3, 4, 0);
    // (1,2,3)·(1,1,1)/3 = 2 → (2,2,2); remainder (-1,0,1)
    expectVec(project(out, new Vec3(1, 2, 3), new Vec3(1, 1, 1)), 2, 2, 2);
    expectVec(projectOnPlane(out, new Vec3(1, 2, 3), new Vec3(1, 1, 1)), -1, 0, 1);
    // n sign does not matter
    expectVec(project(out, new Vec3(1, 2, 3), new Vec3(-5, -5, -5)), 2, 2, 2);
    // zero n: project → zero, projectOnPlane → v
    set(out, 9, 9, 9);
    project(out, new Vec3(1, 2, 3), new Vec3());
    expect(isZero(out)).toBe(true);
    projectOnPlane(out, new Vec3(1, 2, 3), new Vec3());
    expect([out.x, out.y, out.z]).toEqual([1, 2, 3]);
  });

  it("angle in radians", () => {
    expect(angle(new Vec3(1, 0, 0), new Vec3(0, 1, 0))).toBeCloseTo(Math.PI / 2, 15);
    expect(angle(new Vec3(1, 0, 0), new Vec3(1, 1, 0))).toBeCloseTo(Math.PI / 4, 15);
    expect(angle(new Vec3(1, 0, 0), new Vec3(-1, Math.sqrt(3), 0))).toBeCloseTo((2 * Math.PI) / 3, 15);
    expect(angle(new Vec3(1, 0, 0), new Vec3(-1, 0, 0))).toBe(Math.PI);
    expect(angle(new Vec3(2, 0, 0), new Vec3(5, 0, 0))).toBe(0);
    expect(angle(new Vec3(0, 0, 3), new Vec3(0, 0.5, -0.5))).toBeCloseTo((3 * Math.PI) / 4, 15);
    expect(angle(new Vec3(), new Vec3(1, 2, 3))).toBe(0);
    expect(angle(new Vec3(1, 2, 3), new Vec3())).toBe(0);
    expect(angle(new Vec3(), new Vec3())).toBe(0);
    // accurate near 0 where acos(dot) would return ~1.5e-8: (1,0,0) vs (1,1e-10,0)
    expect(Math.abs(angle(new Vec3(1, 0, 0), new Vec3(1, 1e-10, 0)) - 1e-10)).toBeLessThan(1e-20);
    expect(Math.abs(angle(new Vec3(1, 0, 0), new Vec3(-1, 1e-10, 0)) - (Math.PI - 1e-10))).toBeLessThan(1e-15);
  });

  it("anyPerpendicular uses the smallest component's axis", () => {
    const out = new Vec3();
    const s13 = Math.sqrt(13);
    // smallest x: (0, z, -y)
    expect(anyPerpendicular(out, new Vec3(1, 2, 3))).toBe(out);
    expectVec(out, 0, 3 / s13, -2 / s13, 15);
    // smallest y: (-z, 0, x)
    expectVec(anyPerpendicular(out, new Vec3(3, 1, 2)), -2 / s13, 0, 3 / s13, 15);
    // smallest z: (y, -x, 0)
    expectVec(anyPerpendicular(out, new Vec3(3, 2, 1)), 2 / s13, -3 / s13, 0, 15);
    expectVec(anyPerpendicular(out, new Vec3(0, 0, 5)), 0, 1, 0, 15);
    expectVec(anyPerpendicular(out, new Vec3(-7, 0, 0)), 0, 0, -1, 15);
    // zero → +X
    anyPerpendicular(out, new Vec3());
    expect([out.x, out.y, out.z]).toEqual([1, 0, 0]);
  });
});

describe("vec3: out may alias an input", () => {
  it("binary functions with out === a and out === b", () => {
    const A = (): Vec3 => new Vec3(1, 2, 3);
    const B = (): Vec3 => new Vec3(4, -5, 6);
    let a = A();
    let b = B();
    add(a, a, b);
    expect([a.x, a.y, a.z]).toEqual([5, -3, 9]);
    a = A();
    sub(b, a, b);
    expect([b.x, b.y, b.z]).toEqual([-3, 7, -3]);
    a = A();
    b = B();
    scaleAndAdd(b, a, b, 0.5);
    expect([b.x, b.y, b.z]).toEqual([3, -0.5, 6]);
    a = A();
    b = B();
    // (1,2,3) × (4,-5,6) = (2*6 - 3*(-5), 3*4 - 1*6, 1*(-5) - 2*4) = (27, 6, -13)
    cross(a, a, b);
    expect([a.x, a.y, a.z]).toEqual([27, 6, -13]);
    a = A();
    cross(b, a, b);
    expect([b.x, b.y, b.z]).toEqual([27, 6, -13]);
    a = A();
    cross(a, a, a);
    expect(isZero(a)).toBe(true);
    a = A();
    b = B();
    lerp(b, a, b, 0.5);
    expectVec(b, 2.5, -1.5, 4.5);
    a = A();
    b = B();
    lerpUnclamped(a, a, b, 2);
    expectVec(a, 7, -12, 9);
  });

  it("unary functions with out === a", () => {
    const a = new Vec3(3, 4, 0);
    normalize(a, a);
    expectVec(a, 0.6, 0.8, 0, 15);
    negate(a, a);
    expectVec(a, -0.6, -0.8, 0, 15);
    scale(a, a, 10);
    expectVec(a, -6, -8, 0, 14);
    copy(a, a);
    expectVec(a, -6, -8, 0, 14);
    const p = new Vec3(1, 2, 3);
    anyPerpendicular(p, p);
    const s13 = Math.sqrt(13);
    expectVec(p, 0, 3 / s13, -2 / s13, 15);
  });

  it("project / projectOnPlane with out === v and out === n", () => {
    let v = new Vec3(1, 2, 3);
    let n = new Vec3(1, 1, 1);
    project(v, v, n);
    expectVec(v, 2, 2, 2);
    v = new Vec3(1, 2, 3);
    project(n, v, n);
    expectVec(n, 2, 2, 2);
    n = new Vec3(1, 1, 1);
    projectOnPlane(v, v, n);
    expectVec(v, -1, 0, 1);
    v = new Vec3(1, 2, 3);
    projectOnPlane(n, v, n);
    expectVec(n, -1, 0, 1);
  });

  it("aliased results equal non-aliased results on random inputs", () => {
    const r = new Random(101);
    const f = new Failures();
    const ops: Array<[string, (o: Vec3, a: Vec3, b: Vec3) => void]> = [
      ["add", (o, a, b) => add(o, a, b)],
      ["sub", (o, a, b) => sub(o, a, b)],
      ["cross", (o, a, b) => cross(o, a, b)],
      ["scaleAndAdd", (o, a, b) => scaleAndAdd(o, a, b, 0.37)],
      ["lerp", (o, a, b) => lerp(o, a, b, 0.37)],
      ["project", (o, a, b) => project(o, a, b)],
      ["projectOnPlane", (o, a, b) => projectOnPlane(o, a, b)],
    ];
    for (let i = 0; i < 500; i++) {
      const a0 = randomVec(r);
      const b0 = randomVec(r);
      for (const [name, op] of ops) {
        const ref = new Vec3();
        op(ref, a0, b0);
        const a1 = copy(new Vec3(), a0);
        op(a1, a1, b0);
        const b1 = copy(new Vec3(), b0);
        op(b1, a0, b1);
        if (!equals(a1, ref) || !equals(b1, ref)) f.add(`${name}(${fmt(a0)}, ${fmt(b0)})`);
      }
    }
    f.check();
  });
});

// ---------------------------------------------------------------------------------------------
// Properties over seeded random inputs
// ---------------------------------------------------------------------------------------------

describe("vec3 properties", () => {
  it("the pair generator covers every kind", () => {
    const counts = kindCounts(genPairs(1, N));
    for (const k of PAIR_KINDS) expect(counts[k] ?? 0, k).toBeGreaterThan(300);
  });

  it("normalize: unit and along the input, zero for zero, always finite", () => {
    const r = new Random(2);
    const f = new Failures();
    const out = new Vec3();
    for (let i = 0; i < N; i++) {
      const a = r.next() < 0.05 ? new Vec3() : randomVec(r);
      normalize(out, a);
      if (!isFiniteVec(out)) {
        f.add(`non-finite for ${fmt(a)}`);
        continue;
      }
      if (a.x === 0 && a.y === 0 && a.z === 0) {
        if (!isZero(out)) f.add(`zero input gave ${fmt(out)}`);
        continue;
      }
      const u = unitOf(a);
      const err = Math.max(Math.abs(out.x - u.x), Math.abs(out.y - u.y), Math.abs(out.z - u.z));
      if (err > 1e-15 || Math.abs(hyp(out) - 1) > 1e-15) f.add(`${fmt(a)} -> ${fmt(out)} (err ${err})`);
    }
    f.check();
  });

  it("angle: in [0, π], exactly symmetric, matches acos away from the ends and exact near them", () => {
    const pairs = genPairs(3, N);
    const f = new Failures();
    for (const { kind, a, b, expectedAngle } of pairs) {
      const t = angle(a, b);
      if (!(t >= 0 && t <= Math.PI)) {
        f.add(`${kind}: angle ${t} out of range`);
        continue;
      }
      if (t !== angle(b, a)) f.add(`${kind}: not symmetric ${t} vs ${angle(b, a)}`);
      if (kind === "zeroA" || kind === "zeroB" || kind === "zeroBoth") {
        if (t !== 0) f.add(`${kind}: zero vector gave ${t}`);
        continue;
      }
      if (kind === "parallel" && t > 1e-15) f.add(`parallel gave ${t}`);
      if (kind === "antiparallel" && t < Math.PI - 1e-15) f.add(`antiparallel gave ${t}`);
      if (expectedAngle !== undefined && Math.abs(t - expectedAngle) > 1e-14) {
        f.add(`${kind}: ${t} expected ${expectedAngle}`);
      }
      const c = dotOf(unitOf(a), unitOf(b));
      if (Math.abs(c) < 0.9 && Math.abs(t - Math.acos(c)) > 1e-13) f.add(`${kind}: ${t} vs acos ${Math.acos(c)}`);
    }
    f.check();
  });

  it("cross: anti-commutative, perpendicular to both inputs, |a×b| = |a||b| sin(angle)", () => {
    const pairs = genPairs(4, N);
    const f = new Failures();
    const c1 = new Vec3();
    const c2 = new Vec3();
    for (const { kind, a, b } of pairs) {
      cross(c1, a, b);
      cross(c2, b, a);
      if (c1.x !== -c2.x || c1.y !== -c2.y || c1.z !== -c2.z) f.add(`${kind}: not anti-commutative`);
      const la = hyp(a);
      const lb = hyp(b);
      if (la === 0 || lb === 0) {
        if (!isZero(c1)) f.add(`${kind}: zero input gave ${fmt(c1)}`);
        continue;
      }
      const lc = hyp(c1);
      const scaleAB = la * lb;
      // |c·a| / (|c||a|) small; measured relative to |a||b| so rounding in c is accounted for
      if (Math.abs(dotOf(c1, a)) > 1e-14 * scaleAB * la || Math.abs(dotOf(c1, b)) > 1e-14 * scaleAB * lb) {
        f.add(`${kind}: not perpendicular`);
      }
      // independent sine: from the unit vectors' difference, sin = |û - v̂| * |û + v̂| / 2
      const u = unitOf(a);
      const v = unitOf(b);
      const dm = Math.hypot(u.x - v.x, u.y - v.y, u.z - v.z);
      const dp = Math.hypot(u.x + v.x, u.y + v.y, u.z + v.z);
      const sin = (dm * dp) / 2;
      if (Math.abs(lc - scaleAB * sin) > 1e-14 * scaleAB) f.add(`${kind}: |a×b| ${lc} vs ${scaleAB * sin}`);
    }
    f.check();
  });

  it("lerp / lerpUnclamped agree with (1 - t) a + t b, lerp clamps and is exact at the ends", () => {
    const r = new Random(5);
    const f = new Failures();
    const out = new Vec3();
    const out2 = new Vec3();
    for (let i = 0; i < N; i++) {
      const a = randomVec(r);
      const b = randomVec(r);
      const t = r.next() < 0.1 ? r.pick([0, 1, -0.5, 1.5]) : r.range(-0.5, 1.5);
      lerp(out, a, b, t);
      lerpUnclamped(out2, a, b, t);
      const s = Math.max(hyp(a), hyp(b));
      const tc = Math.min(1, Math.max(0, t));
      const ex = { x: (1 - tc) * a.x + tc * b.x, y: (1 - tc) * a.y + tc * b.y, z: (1 - tc) * a.z + tc * b.z };
      const eu = { x: (1 - t) * a.x + t * b.x, y: (1 - t) * a.y + t * b.y, z: (1 - t) * a.z + t * b.z };
      if (t <= 0 && !equals(out, a)) f.add(`t=${t} not exactly a`);
      if (t >= 1 && !equals(out, b)) f.add(`t=${t} not exactly b`);
      if (Math.max(Math.abs(out.x - ex.x), Math.abs(out.y - ex.y), Math.abs(out.z - ex.z)) > 1e-15 * 4 * s) {
        f.add(`lerp t=${t}: ${fmt(out)} vs ${fmt(ex)}`);
      }
      if (Math.max(Math.abs(out2.x - eu.x), Math.abs(out2.y - eu.y), Math.abs(out2.z - eu.z)) > 1e-15 * 8 * s) {
        f.add(`lerpUnclamped t=${t}: ${fmt(out2)} vs ${fmt(eu)}`);
      }
    }
    f.check();
  });

  it("project + projectOnPlane = v, the projection is along n and the rest is perpendicular to n", () => {
    const pairs = genPairs(6, N);
    const f = new Failures();
    const p = new Vec3();
    const q = new Vec3();
    for (const { kind, a: v, b: n } of pairs) {
      project(p, v, n);
      projectOnPlane(q, v, n);
      if (!isFiniteVec(p) || !isFiniteVec(q)) {
        f.add(`${kind}: non-finite`);
        continue;
      }
      const lv = hyp(v);
      const ln = hyp(n);
      if (ln === 0) {
        if (!isZero(p) || !equals(q, v)) f.add(`${kind}: zero n gave ${fmt(p)}, ${fmt(q)}`);
        continue;
      }
      const tol = 1e-14 * lv;
      if (Math.abs(p.x + q.x - v.x) > tol || Math.abs(p.y + q.y - v.y) > tol || Math.abs(p.z + q.z - v.z) > tol) {
        f.add(`${kind}: sum is not v`);
      }
      const nh = unitOf(n);
      // p is along n: p = n̂ (v·n̂)
      const s = dotOf(v, nh);
      if (Math.abs(p.x - nh.x * s) > tol || Math.abs(p.y - nh.y * s) > tol || Math.abs(p.z - nh.z * s) > tol) {
        f.add(`${kind}: projection ${fmt(p)} vs ${s}*${fmt(nh)}`);
      }
      if (Math.abs(dotOf(q, nh)) > tol) f.add(`${kind}: plane part not perpendicular (${dotOf(q, nh)})`);
    }
    f.check();
  });

  it("anyPerpendicular: unit, perpendicular, finite", () => {
    const r = new Random(7);
    const f = new Failures();
    const out = new Vec3();
    for (let i = 0; i < N; i++) {
      const a = r.next() < 0.02 ? new Vec3() : randomVec(r);
      anyPerpendicular(out, a);
      if (!isFiniteVec(out) || Math.abs(hyp(out) - 1) > 1e-15) {
        f.add(`${fmt(a)} -> ${fmt(out)}`);
        continue;
      }
      if (isZero(a)) {
        if (!equals(out, new Vec3(1, 0, 0))) f.add(`zero -> ${fmt(out)}`);
        continue;
      }
      if (Math.abs(dotOf(out, unitOf(a))) > 1e-15) f.add(`${fmt(a)}: dot ${dotOf(out, unitOf(a))}`);
    }
    f.check();
  });

  it("distance / distanceSq agree with Math.hypot of the difference", () => {
    const pairs = genPairs(8, N);
    const f = new Failures();
    for (const { a, b } of pairs) {
      const d = distance(a, b);
      const e = Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z);
      if (Math.abs(d - e) > 1e-15 * e || d !== distance(b, a)) f.add(`distance ${d} vs ${e}`);
      const d2 = distanceSq(a, b);
      if (Math.abs(d2 - e * e) > 1e-14 * e * e) f.add(`distanceSq ${d2} vs ${e * e}`);
      if (Math.abs(length(a) - hyp(a)) > 1e-15 * hyp(a)) f.add(`length ${length(a)} vs ${hyp(a)}`);
      if (Math.abs(lengthSq(a) - hyp(a) ** 2) > 1e-14 * hyp(a) ** 2) f.add(`lengthSq`);
    }
    f.check();
  });
});
