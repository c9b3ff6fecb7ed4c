/**
 * ColliderSet: spheres and capsules on bones, placed at alpha between the step's start and end, pushing a
 * chain's joints and segments out with clearance. Distances are checked with an independent segment
 * distance (a ternary search over the first segment of the exact point–segment distance).
 */
import { describe, expect, it } from "vitest";
import { CapsuleCollider } from "../../../src/joints/colliders/capsule-collider.js";
import type { Collider } from "../../../src/joints/colliders/collider.js";
import { ColliderSet } from "../../../src/joints/colliders/collider-set.js";
import { SphereCollider } from "../../../src/joints/colliders/sphere-collider.js";
import { ColliderStep } from "../../../src/joints/joint-colliders.js";
import { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import { Quat, normalizeQuat, rotateVector } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { FBBIKError } from "../../../src/solver/errors.js";
import { Random } from "../../helpers/random.js";
import { type V, add, dist, dot, mul, sub, v } from "../../helpers/vectors.js";

/** Distance from (px, py, pz) to the segment from a along d (dd: d·d); in scalars, the search calls it 160 times. */
function pointOnSegment(px: number, py: number, pz: number, a: V, d: V, dd: number): number {
  const t = dd > 0 ? Math.min(1, Math.max(0, ((px - a.x) * d.x + (py - a.y) * d.y + (pz - a.z) * d.z) / dd)) : 0;
  return Math.hypot(px - (a.x + d.x * t), py - (a.y + d.y * t), pz - (a.z + d.z * t));
}

/** Distance from p to the segment a–b. */
function pointSegment(p: V, a: V, b: V): number {
  const d = sub(b, a);
  return pointOnSegment(p.x, p.y, p.z, a, d, dot(d, d));
}

/** Distance between segments p–q and a–b (convex in the first segment's parameter: ternary search). */
function segmentSegment(p: V, q: V, a: V, b: V): number {
  const d = sub(b, a);
  const dd = dot(d, d);
  const [ex, ey, ez] = [q.x - p.x, q.y - p.y, q.z - p.z];
  const at = (s: number): number => pointOnSegment(p.x + ex * s, p.y + ey * s, p.z + ez * s, a, d, dd);
  let lo = 0;
  let hi = 1;
  for (let k = 0; k < 80; k++) {
    const m1 = lo + (hi - lo) / 3;
    const m2 = hi - (hi - lo) / 3;
    if (at(m1) < at(m2)) hi = m2;
    else lo = m1;
  }
  return Math.min(at((lo + hi) / 2), at(0), at(1));
}

/** A root bone (id 0) carrying the colliders, at `position` turned by `rotation`. */
function body(position: V, rotation: Quat = new Quat()): HierarchyPose {
  return new HierarchyPose([{ name: "body", parent: -1, position, rotation }]);
}

const axisQ = (a: V, angle: number): Quat =>
  new Quat(a.x * Math.sin(angle / 2), a.y * Math.sin(angle / 2), a.z * Math.sin(angle / 2), Math.cos(angle / 2));

const at = (a: Float64Array, i: number): V => v(a[i * 3]!, a[i * 3 + 1]!, a[i * 3 + 2]!);

/** Smallest signed clearance of the chain (joints and segments) from the placed shapes of `set`. */
function minClearance(set: ColliderSet, chain: Float64Array, count: number, radius: number, alpha: number): number {
  let worst = Infinity;
  const a = new Vec3();
  const b = new Vec3();
  for (let c = 0; c < set.colliders.length; c++) {
    const r = set.getPlaced(c, alpha, a, b) + radius;
    for (let j = 0; j < count; j++) worst = Math.min(worst, pointSegment(at(chain, j), a, b) - r);
    for (let j = 0; j + 1 < count; j++) {
      worst = Math.min(worst, segmentSegment(at(chain, j), at(chain, j + 1), a, b) - r);
    }
  }
  return worst;
}

function randomCollider(rng: Random, bone: number): Collider {
  const r = rng.range(0.05, 0.5);
  const o = v(rng.range(-0.3, 0.3), rng.range(-0.3, 0.3), rng.range(-0.3, 0.3));
  if (rng.next() < 0.4) return new SphereCollider(bone, r, o);
  const e = add(o, mul(rng.unitVector(), rng.range(0, 1)));
  return new CapsuleCollider(bone, o, e, r);
}

describe("ColliderSet setup", () => {
  it("throws FBBIKError naming the bone for a bad bone id or radius", () => {
    expect(() => new ColliderSet([new SphereCollider(-1, 1)])).toThrow(FBBIKError);
    expect(() => new ColliderSet([new SphereCollider(3, Number.NaN)])).toThrow(/bone 3/);
    expect(() => new ColliderSet([new CapsuleCollider(2, v(0, 0, 0), v(0, 1, 0), -1)])).toThrow(/bone 2/);
  });

  it("moves nothing before the first update", () => {
    const set = new ColliderSet([new SphereCollider(0, 1)]);
    const chain = new Float64Array([0, 0, 0, 0.1, 0, 0]);
    expect(set.resolveChain(chain, 2, 0, 1)).toBe(false);
    expect(Array.from(chain)).toEqual([0, 0, 0, 0.1, 0, 0]);
  });
});

describe("ColliderSet hand-computed", () => {
  it("pushes a joint inside a sphere to its surface plus clearance along the shortest way", () => {
    const pose = body(v(1, 2, 3));
    const set = new ColliderSet([new SphereCollider(0, 1, v(0, 1, 0))]);
    set.update(pose);
    const out = new Vec3();
    expect(set.resolvePoint(out, v(1.5, 3, 3), 0.25, 1)).toBe(true);
    expect(out.x).toBeCloseTo(1 + 1.25, 12);
    expect(out.y).toBeCloseTo(3, 12);
    expect(out.z).toBeCloseTo(3, 12);
  });

  it("resolvePointStep, its clearance and alpha in a ColliderStep, pushes as resolvePoint does", () => {
    const set = new ColliderSet([new SphereCollider(0, 1, v(0, 1, 0))]);
    set.update(body(v(1, 2, 3)));
    const step = new ColliderStep();
    step.radius = 0.25;
    const a = new Vec3();
    const b = new Vec3();
    expect(set.resolvePointStep(a, v(1.5, 3, 3), step)).toBe(true);
    set.resolvePoint(b, v(1.5, 3, 3), 0.25, 1);
    expect([a.x, a.y, a.z]).toEqual([b.x, b.y, b.z]);
    expect(a.x).toBeCloseTo(1 + 1.25, 12);
  });

  it("pushes a segment crossing a sphere sideways, both ends equally when the sphere is at its middle", () => {
    const set = new ColliderSet([new SphereCollider(0, 1)]);
    set.update(body(v(0, 0, 0)));
    const chain = new Float64Array([-2, 0.5, 0, 2, 0.5, 0]);
    expect(set.resolveChain(chain, 2, 0, 1)).toBe(true);
    expect(Array.from(chain).map((x) => +x.toFixed(12))).toEqual([-2, 1, 0, 2, 1, 0]);
  });

  it("moves the segment's ends in proportion to the closest point's place along it", () => {
    const set = new ColliderSet([new SphereCollider(0, 1)]);
    set.update(body(v(0, 0, 0)));
    // closest point at s = 0.25: the near end moves 3× as far as the far end
    const chain = new Float64Array([-1, 0.5, 0, 3, 0.5, 0]);
    set.maxPasses = 1;
    set.resolveChain(chain, 2, 0, 1);
    const m0 = chain[1]! - 0.5;
    const m1 = chain[4]! - 0.5;
    expect(m0 / m1).toBeCloseTo(3, 12);
    // the former closest point travelled exactly the missing 0.5
    expect(0.75 * chain[1]! + 0.25 * chain[4]!).toBeCloseTo(1, 12);
  });

  it("pushes a segment out of a capsule by the closest points between the two segments", () => {
    const set = new ColliderSet([new CapsuleCollider(0, v(0, -1, 0), v(0, 1, 0), 0.5)]);
    set.update(body(v(0, 0, 0)));
    // a segment along z passing 0.2 from the axis at x = 0.2, y = 0.3
    const chain = new Float64Array([0.2, 0.3, -1, 0.2, 0.3, 1]);
    set.resolveChain(chain, 2, 0.1, 1);
    expect(minClearance(set, chain, 2, 0.1, 1)).toBeGreaterThan(-1e-12);
    expect(chain[0]).toBeCloseTo(0.6, 12);
    expect(chain[3]).toBeCloseTo(0.6, 12);
    expect(chain[1]).toBeCloseTo(0.3, 12);
  });

  it("finds a direction for a joint exactly on the axis (no NaN)", () => {
    const set = new ColliderSet([new SphereCollider(0, 1), new CapsuleCollider(0, v(5, 0, 0), v(5, 2, 0), 1)]);
    set.update(body(v(0, 0, 0)));
    const out = new Vec3();
    set.resolvePoint(out, v(0, 0, 0), 0, 1);
    expect(Math.hypot(out.x, out.y, out.z)).toBeCloseTo(1, 12);
    set.resolvePoint(out, v(5, 1, 0), 0, 1);
    expect(Math.hypot(out.x - 5, out.z)).toBeCloseTo(1, 12);
    expect(out.y).toBe(1);
  });

  it("ignores a NaN chain and a bad clearance, never writing NaN", () => {
    const set = new ColliderSet([new SphereCollider(0, 1)]);
    set.update(body(v(0, 0, 0)));
    const chain = new Float64Array([Number.NaN, 0, 0, 0.1, 0, 0]);
    set.resolveChain(chain, 2, 0, 1);
    expect(Number.isNaN(chain[0])).toBe(true);
    expect(chain.slice(1).every((x) => Number.isFinite(x))).toBe(true);
    const ok = new Float64Array([0.1, 0, 0]);
    expect(set.resolveChain(ok, 1, Number.NaN, 1)).toBe(false);
    expect(set.resolveChain(ok, 1, Infinity, 1)).toBe(false);
    expect(ok[0]).toBe(0.1);
  });

  it("sits out a collider whose bone reads non-finite", () => {
    const pose = body(v(0, 0, 0));
    const set = new ColliderSet([new SphereCollider(0, 1)]);
    pose.setPosition(0, v(Number.NaN, 0, 0));
    set.update(pose);
    const chain = new Float64Array([0.1, 0, 0]);
    expect(set.resolveChain(chain, 1, 0, 0.5)).toBe(false);
  });
});

describe("ColliderSet interpolation over the step", () => {
  it("places colliders at the start for alpha 0, the end for alpha 1 (bit-exact), between otherwise", () => {
    const rng = new Random(18);
    const a = new Vec3();
    const b = new Vec3();
    /** Where local point `l` sits on the bone as the set reads it (rotation normalised on read). */
    const placedOn = (pose: HierarchyPose, l: V): V => {
      const q = normalizeQuat(new Quat(), pose.rotations[0]!);
      const r = rotateVector(new Vec3(), q, l);
      const p = pose.positions[0]!;
      return v(p.x + r.x, p.y + r.y, p.z + r.z);
    };
    for (let k = 0; k < 1000; k++) {
      const pose = body(v(0, 0, 0));
      const c = randomCollider(rng, 0);
      const set = new ColliderSet([c]);
      const la = c.kind === "sphere" ? c.offset : c.start;
      const lb = c.kind === "sphere" ? c.offset : c.end;
      pose.setPosition(0, mul(rng.unitVector(), 2));
      pose.setRotation(0, rng.unitQuaternion());
      set.update(pose);
      const startA = placedOn(pose, la);
      const startB = placedOn(pose, lb);
      pose.setPosition(0, mul(rng.unitVector(), 2));
      pose.setRotation(0, rng.unitQuaternion());
      set.update(pose);
      set.getPlaced(0, 0, a, b);
      expect({ ...a }).toEqual(startA);
      expect({ ...b }).toEqual(startB);
      set.getPlaced(0, 1, a, b);
      expect({ ...a }).toEqual(placedOn(pose, la));
      expect({ ...b }).toEqual(placedOn(pose, lb));
      // a pure translation over the step: the middle of the step is the middle of the path
      set.update(pose);
      const before = placedOn(pose, la);
      pose.setPosition(0, add(pose.positions[0]!, v(1, -2, 0.5)));
      set.update(pose);
      set.getPlaced(0, 0.5, a, b);
      expect(dist(a, add(before, v(0.5, -1, 0.25)))).toBeLessThan(1e-12);
    }
  });

  it("turns a capsule half way at alpha 0.5 (rotation interpolated, not the end points)", () => {
    const pose = body(v(0, 0, 0));
    const set = new ColliderSet([new CapsuleCollider(0, v(0, 0, 0), v(1, 0, 0), 0.1)]);
    set.update(pose);
    pose.setRotation(0, { x: 0, y: 0, z: Math.SQRT1_2, w: Math.SQRT1_2 });
    set.update(pose);
    const a = new Vec3();
    const b = new Vec3();
    set.getPlaced(0, 0.5, a, b);
    expect(b.x).toBeCloseTo(Math.SQRT1_2, 12);
    expect(b.y).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it("a first update sets both start and end; reset forgets the start", () => {
    const pose = body(v(0, 0, 0));
    const set = new ColliderSet([new SphereCollider(0, 1)]);
    set.update(pose);
    const a = new Vec3();
    const b = new Vec3();
    set.getPlaced(0, 0, a, b);
    expect({ ...a }).toEqual({ x: 0, y: 0, z: 0 });
    pose.setPosition(0, v(4, 0, 0));
    set.reset();
    set.update(pose);
    set.getPlaced(0, 0, a, b);
    expect(a.x).toBe(4);
  });
});

describe("ColliderSet property (10,000 seeded chains)", () => {
  it("after resolve no joint or segment is inside any collider (1e-9); clear chains stay bit-exact", () => {
    const rng = new Random(4);
    let pushed = 0;
    let untouched = 0;
    let worstAfter = Infinity;
    for (let k = 0; k < 10_000; k++) {
      const pose = body(mul(rng.unitVector(), 0.5), new Quat(0, 0, 0, 1));
      pose.setRotation(0, rng.unitQuaternion());
      // up to three colliders spread far enough apart that their clearance shells never overlap
      const n = 1 + rng.int(3);
      const colliders: Collider[] = [];
      for (let c = 0; c < n; c++) {
        const col = randomCollider(rng, 0);
        const shift = v(c * 4, 0, 0);
        if (col.kind === "sphere") col.offset.x += shift.x;
        else {
          col.start.x += shift.x;
          col.end.x += shift.x;
        }
        colliders.push(col);
      }
      const set = new ColliderSet(colliders);
      set.update(pose);
      const count = 1 + rng.int(6);
      const chain = new Float64Array(count * 3);
      let p = add(pose.positions[0]!, mul(rng.unitVector(), rng.range(0, 1.5)));
      for (let j = 0; j < count; j++) {
        chain[j * 3] = p.x;
        chain[j * 3 + 1] = p.y;
        chain[j * 3 + 2] = p.z;
        p = add(p, mul(rng.unitVector(), rng.range(0.01, 0.6)));
      }
      const radius = rng.next() < 0.3 ? 0 : rng.range(0, 0.1);
      const before = Float64Array.from(chain);
      const clearBefore = minClearance(set, chain, count, radius, 1);
      const moved = set.resolveChain(chain, count, radius, 1);
      const after = minClearance(set, chain, count, radius, 1);
      worstAfter = Math.min(worstAfter, after);
      expect(after).toBeGreaterThan(-1e-9);
      expect(chain.every((x) => Number.isFinite(x))).toBe(true);
      if (clearBefore > 1e-12) {
        untouched++;
        expect(moved).toBe(false);
        expect(chain).toEqual(before);
        for (let j = 0; j < chain.length; j++) expect(Object.is(chain[j], before[j])).toBe(true);
      } else if (clearBefore < -1e-12) {
        pushed++;
        expect(moved).toBe(true);
      }
    }
    expect(pushed).toBeGreaterThan(2000);
    expect(untouched).toBeGreaterThan(1000);
    expect(worstAfter).toBeGreaterThan(-1e-9);
  });

  it("resolvePoint: 10,000 points end outside every collider; points outside come back bit-exact", () => {
    const rng = new Random(40);
    const out = new Vec3();
    const a = new Vec3();
    const b = new Vec3();
    for (let k = 0; k < 10_000; k++) {
      const pose = body(v(0, 0, 0));
      pose.setRotation(0, rng.unitQuaternion());
      const set = new ColliderSet([randomCollider(rng, 0)]);
      set.update(pose);
      const p = mul(rng.unitVector(), rng.range(0, 1.5));
      const radius = rng.range(0, 0.1);
      const moved = set.resolvePoint(out, p, radius, 1);
      const r = set.getPlaced(0, 1, a, b) + radius;
      const before = pointSegment(p, a, b);
      const after = pointSegment(out, a, b);
      if (before >= r) {
        expect(moved).toBe(false);
        expect(Object.is(out.x, p.x) && Object.is(out.y, p.y) && Object.is(out.z, p.z)).toBe(true);
      } else {
        expect(moved).toBe(true);
        // on the surface (plus clearance): the shortest way out
        expect(Math.abs(after - r)).toBeLessThan(1e-9);
      }
    }
  });
});

describe("ColliderSet sub-steps", () => {
  it("a 30-joint tail swept through a moving body capsule stays outside it at every sub-step", () => {
    const rng = new Random(30);
    const pose = body(v(0, 0, 0));
    const set = new ColliderSet([
      new CapsuleCollider(0, v(0, -0.4, 0), v(0, 0.4, 0), 0.25),
      new SphereCollider(0, 0.15, v(0, 0.6, 0)),
    ]);
    const tail = new Float64Array(30 * 3);
    const clearance = 0.02;
    let worst = Infinity;
    let moved = 0;
    for (let frame = 0; frame < 150; frame++) {
      // the body drifts and turns; the tail sweeps a circle through it
      pose.setPosition(0, v(0.2 * Math.sin(frame * 0.05), 0, 0.1 * Math.cos(frame * 0.03)));
      pose.setRotation(0, axisQ(v(0, 0, 1), 0.3 * Math.sin(frame * 0.07)));
      set.update(pose);
      const a = frame * 0.11;
      for (let j = 0; j < 30; j++) {
        const r = 0.05 + j * 0.025;
        tail[j * 3] = Math.cos(a) * r - 0.4 + rng.range(-0.01, 0.01);
        tail[j * 3 + 1] = 0.2 * Math.sin(j * 0.3 + a);
        tail[j * 3 + 2] = Math.sin(a) * r;
      }
      for (let sub = 1; sub <= 4; sub++) {
        const alpha = sub / 4;
        if (set.resolveChain(tail, 30, clearance, alpha)) moved++;
        worst = Math.min(worst, minClearance(set, tail, 30, clearance, alpha));
      }
    }
    expect(moved).toBeGreaterThan(50);
    expect(worst).toBeGreaterThan(-1e-9);
  });
});

describe("ColliderSet allocation", () => {
  it("resolves 1,000 times without growing the heap noticeably", () => {
    const set = new ColliderSet([new SphereCollider(0, 0.5), new CapsuleCollider(0, v(1, 0, 0), v(1, 1, 0), 0.3)]);
    const pose = body(v(0, 0, 0));
    set.update(pose);
    const chain = new Float64Array(30 * 3);
    const wave = new Float64Array(37).map((_, i) => Math.sin(i) * 0.2);
    const alphas = new Float64Array([0, 0.25, 0.5, 1]);
    const run = (): void => {
      for (let k = 0; k < 1000; k++) {
        for (let j = 0; j < 30; j++) {
          chain[j * 3] = j * 0.1 - 1;
          chain[j * 3 + 1] = wave[(j + k) % 37]!;
          chain[j * 3 + 2] = 0;
        }
        set.update(pose);
        set.resolveChain(chain, 30, 0.05, alphas[k & 3]!);
      }
    };
    for (let w = 0; w < 5; w++) run();
    const h0 = process.memoryUsage().heapUsed;
    run();
    const h1 = process.memoryUsage().heapUsed;
    expect(h1 - h0).toBeLessThan(512 * 1024);
  });
});
