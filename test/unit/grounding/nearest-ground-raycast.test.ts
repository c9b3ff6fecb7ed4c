/**
 * nearestGroundRaycast: the nearest contact of several raycasts, whichever order they are given in; a
 * miss of all is a miss; later raycasts are asked only for contacts nearer than the best so far.
 */
import { describe, expect, it } from "vitest";
import { GroundingHit, type GroundingRaycast } from "../../../src/effectors/grounding/grounding-common.js";
import { nearestGroundRaycast } from "../../../src/effectors/grounding/nearest-ground-raycast.js";
import { Random } from "../../helpers/random.js";

/** A horizontal plane at `y`, solid only where `x` is in [x0, x1]; records the distances it was asked for. */
function plane(y: number, x0: number, x1: number, asked: number[] = []): GroundingRaycast {
  return (o, d, max, out) => {
    asked.push(max);
    if (d.y === 0) return false;
    const t = (y - o.y) / d.y;
    const x = o.x + d.x * t;
    if (!(t >= 0 && t <= max) || x < x0 || x > x1) return false;
    out.distance = t;
    out.point.x = x;
    out.point.y = y;
    out.point.z = o.z + d.z * t;
    out.normal.x = 0;
    out.normal.y = d.y < 0 ? 1 : -1;
    out.normal.z = 0;
    return true;
  };
}

describe("nearestGroundRaycast", () => {
  it("keeps the nearest of several contacts in any order, and misses when all miss", () => {
    const rng = new Random(0x4ea7);
    const out = new GroundingHit();
    for (let k = 0; k < 2000; k++) {
      const planes = [0, 1, 2].map(() => ({ y: rng.range(-2, 2), x0: rng.range(-3, 0), x1: rng.range(0, 3) }));
      const o = { x: rng.range(-4, 4), y: 3, z: 0 };
      const l = Math.hypot(0.3, 1);
      const d = { x: rng.range(-0.3, 0.3) / l, y: -1 / l, z: 0 };
      const max = rng.range(1, 8);
      // the expected answer: every plane's contact, the nearest within max
      const hits = planes
        .map((p) => ({ t: (p.y - o.y) / d.y, p }))
        .filter(({ t, p }) => t >= 0 && t <= max && o.x + d.x * t >= p.x0 && o.x + d.x * t <= p.x1)
        .sort((a, b) => a.t - b.t);
      const order = k % 2 === 0 ? planes : [...planes].reverse();
      const hit = nearestGroundRaycast(...order.map((p) => plane(p.y, p.x0, p.x1)))(o, d, max, out);
      expect(hit).toBe(hits.length > 0);
      if (hit) {
        expect(out.distance).toBeCloseTo(hits[0]!.t, 12);
        expect(out.point.y).toBeCloseTo(hits[0]!.p.y, 12);
        expect(out.normal.y).toBe(1);
      }
    }
  });

  // a nearer maximum would be a computed double handed to each raycast, boxed per ray (all-components-frame-heap)
  it("asks each raycast for the whole length and keeps a later contact only when nearer", () => {
    const asked: number[] = [];
    const cast = nearestGroundRaycast(plane(0, -1, 1), plane(-1, -1, 1, asked), plane(0.5, -1, 1));
    const out = new GroundingHit();
    expect(cast({ x: 0, y: 2, z: 0 }, { x: 0, y: -1, z: 0 }, 10, out)).toBe(true);
    expect(asked).toEqual([10]);
    expect(out.distance).toBe(1.5);
    expect(out.point.y).toBe(0.5);
  });
});
