/**
 * StaticGroundRaycast: exact hits on hand-computed triangles, and over thousands of seeded random rays
 * through random triangle soups the same answer as testing every triangle (the grid walk may skip work,
 * never a hit). The brute-force reference below is written independently of the class.
 */
import { describe, expect, it } from "vitest";
import { GroundingHit } from "../../../src/effectors/grounding/grounding-common.js";
import { StaticGroundRaycast } from "../../../src/effectors/grounding/static-ground-raycast.js";
import { Random } from "../../helpers/random.js";

type V = { x: number; y: number; z: number };
const v = (x: number, y: number, z: number): V => ({ x, y, z });
const unit = (a: V): V => {
  const l = Math.hypot(a.x, a.y, a.z);
  return v(a.x / l, a.y / l, a.z / l);
};
const DOWN = v(0, -1, 0);

/** Every hit over all triangles (ray–plane distance, then a barycentric inside test), closest first. */
function bruteForce(tris: number[], o: V, d: V, max: number): { distance: number; triangle: number }[] {
  const hits: { distance: number; triangle: number }[] = [];
  for (let t = 0; t < tris.length / 9; t++) {
    const p = (c: number) => v(tris[t * 9 + c * 3]!, tris[t * 9 + c * 3 + 1]!, tris[t * 9 + c * 3 + 2]!);
    const [a, b, c] = [p(0), p(1), p(2)];
    const ab = v(b.x - a.x, b.y - a.y, b.z - a.z);
    const ac = v(c.x - a.x, c.y - a.y, c.z - a.z);
    const n = v(ab.y * ac.z - ab.z * ac.y, ab.z * ac.x - ab.x * ac.z, ab.x * ac.y - ab.y * ac.x);
    const denom = n.x * d.x + n.y * d.y + n.z * d.z;
    if (denom === 0) continue;
    const dist = (n.x * (a.x - o.x) + n.y * (a.y - o.y) + n.z * (a.z - o.z)) / denom;
    if (!(dist >= 0 && dist <= max)) continue;
    const q = v(o.x + d.x * dist, o.y + d.y * dist, o.z + d.z * dist);
    // barycentric coordinates of q
    const aq = v(q.x - a.x, q.y - a.y, q.z - a.z);
    const d00 = ab.x * ab.x + ab.y * ab.y + ab.z * ab.z;
    const d01 = ab.x * ac.x + ab.y * ac.y + ab.z * ac.z;
    const d11 = ac.x * ac.x + ac.y * ac.y + ac.z * ac.z;
    const d20 = aq.x * ab.x + aq.y * ab.y + aq.z * ab.z;
    const d21 = aq.x * ac.x + aq.y * ac.y + aq.z * ac.z;
    const den = d00 * d11 - d01 * d01;
    const s = (d11 * d20 - d01 * d21) / den;
    const w = (d00 * d21 - d01 * d20) / den;
    if (s < 0 || w < 0 || s + w > 1) continue;
    hits.push({ distance: dist, triangle: t });
  }
  return hits.sort((x, y) => x.distance - y.distance);
}

/** The unit normal of triangle `t`, turned against `d`. */
function normalOf(tris: number[], t: number, d: V): V {
  const a = v(tris[t * 9]!, tris[t * 9 + 1]!, tris[t * 9 + 2]!);
  const ab = v(tris[t * 9 + 3]! - a.x, tris[t * 9 + 4]! - a.y, tris[t * 9 + 5]! - a.z);
  const ac = v(tris[t * 9 + 6]! - a.x, tris[t * 9 + 7]! - a.y, tris[t * 9 + 8]! - a.z);
  const n = unit(v(ab.y * ac.z - ab.z * ac.y, ab.z * ac.x - ab.x * ac.z, ab.x * ac.y - ab.y * ac.x));
  return n.x * d.x + n.y * d.y + n.z * d.z > 0 ? v(-n.x, -n.y, -n.z) : n;
}

describe("StaticGroundRaycast", () => {
  // a triangle tilted about X: y = 0.5 z over x ∈ [0, 2], z ∈ [0, 2]
  const tilted = [0, 0, 0, 2, 0, 0, 0, 1, 2];

  it("hits a tilted triangle where the plane says, with its normal toward the ray's origin", () => {
    const r = StaticGroundRaycast.fromTriangles(tilted);
    const hit = new GroundingHit();
    expect(r.cast(v(0.5, 5, 1), DOWN, 10, hit)).toBe(true);
    expect(hit.distance).toBeCloseTo(4.5, 14);
    expect([hit.point.x, hit.point.y, hit.point.z]).toEqual([0.5, 0.5, 1]);
    const n = unit(v(0, 2, -1));
    expect(hit.normal.x).toBeCloseTo(n.x, 14);
    expect(hit.normal.y).toBeCloseTo(n.y, 14);
    expect(hit.normal.z).toBeCloseTo(n.z, 14);
    // from below, the other side: the normal turns toward that origin
    expect(r.cast(v(0.5, -5, 1), v(0, 1, 0), 10, hit)).toBe(true);
    expect(hit.distance).toBeCloseTo(5.5, 14);
    expect(hit.normal.y).toBeCloseTo(-n.y, 14);
  });

  it("misses beside the triangle, beyond maxDistance, pointing away, and with nothing baked", () => {
    const r = StaticGroundRaycast.fromTriangles(tilted);
    const hit = new GroundingHit();
    expect(r.cast(v(1.5, 5, 1.5), DOWN, 10, hit)).toBe(false); // outside the hypotenuse
    expect(r.cast(v(0.5, 5, 1), DOWN, 4.4, hit)).toBe(false);
    expect(r.cast(v(0.5, 5, 1), v(0, 1, 0), 10, hit)).toBe(false);
    expect(r.cast(v(-3, 5, 1), DOWN, 10, hit)).toBe(false); // off the grid
    expect(StaticGroundRaycast.fromTriangles([]).cast(v(0, 1, 0), DOWN, 10, hit)).toBe(false);
    expect(() => StaticGroundRaycast.fromTriangles([0, 0, 0, 1])).toThrow(RangeError);
  });

  it("returns the closest of stacked triangles", () => {
    const floor = (y: number) => [-1, y, -1, 1, y, -1, 0, y, 1];
    const r = StaticGroundRaycast.fromTriangles([...floor(0), ...floor(0.7), ...floor(0.3)]);
    const hit = new GroundingHit();
    expect(r.cast(v(0, 2, 0), DOWN, 10, hit)).toBe(true);
    expect(hit.point.y).toBeCloseTo(0.7, 14);
    expect(r.cast(v(0, 0.5, 0), DOWN, 10, hit)).toBe(true);
    expect(hit.point.y).toBeCloseTo(0.3, 14);
  });

  it("agrees with testing every triangle over 20,000 seeded random rays through random soups and fine grids", () => {
    const rng = new Random(0x67d5);
    let hits = 0;
    let rays = 0;
    for (let soup = 0; soup < 20; soup++) {
      const tris: number[] = [];
      const n = 40 + rng.int(80);
      for (let t = 0; t < n; t++) {
        const cx = rng.range(-5, 5);
        const cy = rng.range(-1, 1);
        const cz = rng.range(-5, 5);
        const size = rng.range(0.2, 3);
        for (let c = 0; c < 3; c++)
          tris.push(cx + rng.range(-size, size), cy + rng.range(-size, size) * 0.3, cz + rng.range(-size, size));
      }
      // a fine grid (many cells per triangle) and the default
      for (const options of [{ cellSize: rng.range(0.05, 0.5) }, {}]) {
        const r = StaticGroundRaycast.fromTriangles(tris, options);
        const hit = new GroundingHit();
        for (let k = 0; k < 500; k++) {
          const o = v(rng.range(-6, 6), rng.range(-2, 3), rng.range(-6, 6));
          // mostly downward probes (the grounder's), some in any direction, some along the axes
          const kind = rng.int(4);
          const d =
            kind === 0
              ? DOWN
              : kind === 1
                ? unit(v(rng.range(-1, 1), rng.range(-1, 0), rng.range(-1, 1)))
                : kind === 2
                  ? unit(v(rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1)))
                  : v(rng.next() < 0.5 ? 1 : -1, 0, 0);
          const max = rng.next() < 0.1 ? rng.range(0, 1) : rng.range(1, 12);
          const all = bruteForce(tris, o, d, max);
          const got = r.cast(o, d, max, hit);
          rays++;
          expect({ soup, k, hit: got }).toEqual({ soup, k, hit: all.length > 0 });
          if (!got) continue;
          hits++;
          const expected = all[0]!;
          expect(Math.abs(hit.distance - expected.distance)).toBeLessThan(1e-9 * (1 + expected.distance));
          expect(hit.point.y).toBeCloseTo(o.y + d.y * hit.distance, 12);
          // the closest triangle's normal, turned toward the origin (unless two triangles tie for closest)
          if (all.length === 1 || all[1]!.distance - expected.distance > 1e-6) {
            const n = normalOf(tris, expected.triangle, d);
            expect(hit.normal.x * n.x + hit.normal.y * n.y + hit.normal.z * n.z).toBeGreaterThan(1 - 1e-9);
          }
        }
      }
    }
    expect(rays).toBe(20_000);
    // the check is not vacuous: a good share of the rays hit something
    console.log(`StaticGroundRaycast vs every triangle: ${rays} rays, ${hits} hits, all equal`);
    expect(hits).toBeGreaterThan(3_000);
  });

  it("chooses a grid of at most 512 cells a side and reports its size", () => {
    const r = StaticGroundRaycast.fromTriangles([0, 0, 0, 1000, 0, 0, 0, 0, 1000], { cellSize: 0.001 });
    const g = r.gridSize;
    expect(g.cellsX).toBeLessThanOrEqual(512);
    expect(g.cellsZ).toBeLessThanOrEqual(512);
    expect(r.triangleCount).toBe(1);
    const hit = new GroundingHit();
    expect(r.cast(v(10, 1, 10), DOWN, 2, hit)).toBe(true);
  });
});
