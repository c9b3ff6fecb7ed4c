import { describe, expect, it } from "vitest";
import { Quat } from "../../../src/math/quat.js";
import { Vec3, copy } from "../../../src/math/vec3.js";
import { planeRotation } from "../../../src/solver/plane.js";
import { planeRotationPair } from "../../../src/solver/plane-pair.js";
import { Random } from "../../helpers/random.js";

/** The bits of a quaternion, so -0 and 0 (and NaN payloads) count as different. */
function bits(q: Quat): string {
  return Array.from(new Uint32Array(new Float64Array([q.x, q.y, q.z, q.w]).buffer)).join(",");
}

function point(r: Random, scale: number): Vec3 {
  return new Vec3((r.next() - 0.5) * scale, (r.next() - 0.5) * scale, (r.next() - 0.5) * scale);
}

describe("planeRotationPair", () => {
  it("gives planeRotation's bits for 20,000 random triangle pairs, degenerate ones mixed in", () => {
    const r = new Random(7);
    const a = new Quat();
    const b = new Quat();
    const ra = new Quat();
    const rb = new Quat();
    let degenerate = 0;
    for (let i = 0; i < 20_000; i++) {
      const scale = 10 ** (r.next() * 8 - 4);
      const t = [0, 1].map(() => [point(r, scale), point(r, scale), point(r, scale)] as const);
      const kind = i % 10;
      // the fallbacks: p1 = p3, p1 = p2 (zero forward), up (nearly) parallel to forward, a non-finite point
      if (kind === 1) copy(t[0]![2], t[0]![0]);
      if (kind === 2) copy(t[1]![1], t[1]![0]);
      if (kind === 3) {
        const [p1, p2, p3] = t[0]!;
        p3.x = p1.x + 2 * (p2.x - p1.x);
        p3.y = p1.y + 2 * (p2.y - p1.y);
        p3.z = p1.z + 2 * (p2.z - p1.z);
      }
      if (kind === 4) t[1]![2].y = Number.POSITIVE_INFINITY;
      if (kind >= 1 && kind <= 4) degenerate++;
      const [[a1, a2, a3], [b1, b2, b3]] = t as [readonly [Vec3, Vec3, Vec3], readonly [Vec3, Vec3, Vec3]];
      planeRotationPair(a, a1, a2, a3, b, b1, b2, b3);
      planeRotation(ra, a1, a2, a3);
      planeRotation(rb, b1, b2, b3);
      expect(bits(a)).toBe(bits(ra));
      expect(bits(b)).toBe(bits(rb));
    }
    expect(degenerate).toBe(8_000);
  });
});
