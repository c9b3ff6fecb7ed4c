/**
 * ColliderSet with keepLengths: a chain pushed out of a capsule keeps its first joint and every segment's
 * length, and ends with no joint or segment inside (seeded random chains through a capsule).
 */
import { describe, expect, it } from "vitest";
import { CapsuleCollider } from "../../../src/joints/colliders/capsule-collider.js";
import { ColliderSet } from "../../../src/joints/colliders/collider-set.js";
import { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import { Quat } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { Random } from "../../helpers/random.js";
import { type V, add, dist, dot, mul, sub, v } from "../../helpers/vectors.js";

function pointSegment(p: V, a: V, b: V): number {
  const d = sub(b, a);
  const dd = dot(d, d);
  const t = dd > 0 ? Math.min(1, Math.max(0, dot(sub(p, a), d) / dd)) : 0;
  return dist(p, add(a, mul(d, t)));
}

/** Segment–segment distance by ternary search on the first segment (independent of the library's solve). */
function segmentSegment(p: V, q: V, a: V, b: V): number {
  const at = (s: number): number => pointSegment(add(p, mul(sub(q, p), s)), a, b);
  let lo = 0;
  let hi = 1;
  for (let k = 0; k < 100; k++) {
    const m1 = lo + (hi - lo) / 3;
    const m2 = hi - (hi - lo) / 3;
    if (at(m1) < at(m2)) hi = m2;
    else lo = m1;
  }
  return Math.min(at((lo + hi) / 2), at(0), at(1));
}

const at = (a: Float64Array, i: number): V => v(a[i * 3]!, a[i * 3 + 1]!, a[i * 3 + 2]!);

describe("ColliderSet keepLengths", () => {
  it("keeps the first joint and every length, and clears joints and segments (500 seeded chains)", () => {
    const pose = new HierarchyPose([{ name: "body", parent: -1, position: v(0, 0, 0), rotation: new Quat() }]);
    const radius = 0.3;
    const set = new ColliderSet([new CapsuleCollider(0, v(0, -0.5, 0), v(0, 0.5, 0), radius)]);
    set.keepLengths = true;
    set.update(pose);
    const a = new Vec3();
    const b = new Vec3();
    set.getPlaced(0, 1, a, b);
    const rng = new Random(18);
    const n = 20;
    const chain = new Float64Array(n * 3);
    let worst = Infinity;
    let worstLength = 0;
    let moved = 0;
    for (let trial = 0; trial < 500; trial++) {
      // a chain starting outside the capsule and wandering through it
      const angle = rng.range(0, 2 * Math.PI);
      const r = rng.range(0.32, 0.6);
      chain.set([r * Math.cos(angle), rng.range(-0.4, 0.4), r * Math.sin(angle)], 0);
      const dir = mul(sub(v(0, rng.range(-0.3, 0.3), 0), at(chain, 0)), 1);
      for (let j = 1; j < n; j++) {
        const d = add(dir, mul(rng.unitVector(), 0.8));
        const p = add(at(chain, j - 1), mul(d, 0.06 / Math.hypot(d.x, d.y, d.z)));
        chain.set([p.x, p.y, p.z], j * 3);
      }
      const lengths = Array.from({ length: n - 1 }, (_, j) => dist(at(chain, j), at(chain, j + 1)));
      const first = at(chain, 0);
      const clearance = trial % 2 === 0 ? 0 : 0.02;
      if (set.resolveChain(chain, n, clearance, 1)) moved++;
      expect(at(chain, 0)).toEqual(first);
      for (let j = 0; j + 1 < n; j++) {
        worstLength = Math.max(worstLength, Math.abs(dist(at(chain, j), at(chain, j + 1)) - lengths[j]!));
        worst = Math.min(worst, segmentSegment(at(chain, j), at(chain, j + 1), a, b) - radius - clearance);
      }
    }
    expect(moved).toBeGreaterThan(250);
    expect(worstLength).toBeLessThan(1e-12);
    expect(worst).toBeGreaterThan(-1e-9);
  });

  it("leaves a chain already clear bit-exact", () => {
    const pose = new HierarchyPose([{ name: "body", parent: -1, position: v(0, 0, 0), rotation: new Quat() }]);
    const set = new ColliderSet([new CapsuleCollider(0, v(0, -0.5, 0), v(0, 0.5, 0), 0.3)]);
    set.keepLengths = true;
    set.update(pose);
    const chain = new Float64Array([1, 0, 0, 1.1, 0.1, 0, 1.2, 0.3, 0.05]);
    const copy = chain.slice();
    expect(set.resolveChain(chain, 3, 0, 1)).toBe(false);
    expect(chain).toEqual(copy);
  });
});

describe("ColliderSet keepLengths and single points", () => {
  it("resolvePoint still pushes a point out", () => {
    const pose = new HierarchyPose([{ name: "body", parent: -1, position: v(0, 0, 0), rotation: new Quat() }]);
    const set = new ColliderSet([new CapsuleCollider(0, v(0, -0.5, 0), v(0, 0.5, 0), 0.3)]);
    set.keepLengths = true;
    set.update(pose);
    const out = new Vec3();
    expect(set.resolvePoint(out, v(0.1, 0, 0), 0, 1)).toBe(true);
    expect(out.x).toBeCloseTo(0.3, 12);
  });
});
