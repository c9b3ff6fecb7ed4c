/**
 * swivelToFittedElbow (elbow-swivel.ts): the full body's bend direction turned about the limb axis toward the fitted
 * elbow pole, by an amount: the part along the axis and the bend's length across it kept, the pole's side at amount
 * 1 from within 60° of it (from further off, less), nothing at 0, and no flip where the bend passes opposite the pole
 * at a partial amount, nor where the amount grows while the bend lies opposite the pole.
 */
import { describe, expect, it } from "vitest";
import { NumberRef } from "../../../src/math/number-ref.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { elbowPole } from "../../../src/solver/elbow-pole.js";
import { swivelToFittedElbow } from "../../../src/solver/elbow-swivel.js";
import { Random } from "../../helpers/random.js";
import { type V, add, angleDeg, cross, dot, len, mul, unit, v } from "../../helpers/vectors.js";

const P = (a: V): Vec3 => new Vec3(a.x, a.y, a.z);
const F = P(v(0, 0, 1));
const U = P(v(0, 1, 0));
const O = P(v(1, 0, 0));

/** The bend `b` swiveled about `axis` by `amount`. */
function swivel(b: V, axis: V, amount: number): V {
  const out = P(b);
  swivelToFittedElbow(out, P(axis), F, U, O, new NumberRef(amount));
  return { x: out.x, y: out.y, z: out.z };
}

/** The part of `b` across the unit `z`. */
const across = (b: V, z: V): V => v(b.x - z.x * dot(b, z), b.y - z.y * dot(b, z), b.z - z.z * dot(b, z));

function pole(z: V): V {
  const out = new Vec3();
  elbowPole(out, P(z), F, U, O);
  return { x: out.x, y: out.y, z: out.z };
}

describe("swivelToFittedElbow", () => {
  it("keeps the bend's part along the axis and its length across it; amount 1 gives the pole's side, 0 none", () => {
    const rnd = new Random(11);
    let turned = 0;
    let folded = 0;
    for (let i = 0; i < 1000; i++) {
      const z = unit(v(rnd.range(-1, 1), rnd.range(-1, 1), rnd.range(-1, 1)));
      const b = v(rnd.range(-1, 1), rnd.range(-1, 1), rnd.range(-1, 1));
      const axis = v(z.x * 0.7, z.y * 0.7, z.z * 0.7);
      const full = swivel(b, axis, 1);
      expect(dot(full, z)).toBeCloseTo(dot(b, z), 12);
      expect(len(across(full, z))).toBeCloseTo(len(across(b, z)), 12);
      expect(swivel(b, axis, 0)).toEqual(b);
      // where the pole is long enough to be used fully (0.7), a bend within 60° of it goes onto its side; one further
      // off stops short, as far from the pole as it lay beyond those 60°, × 180 / 120
      if (len(pole(z)) >= 0.7) {
        const off = angleDeg(across(b, z), pole(z));
        const left = off <= 60 ? 0 : ((off - 60) * 180) / 120;
        expect(angleDeg(across(full, z), pole(z))).toBeCloseTo(left, 6);
        if (off <= 60) turned++;
        else folded++;
      }
    }
    expect(turned).toBeGreaterThan(100);
    expect(folded).toBeGreaterThan(100);
  });

  it("turns a bend passing opposite the pole at half the amount without a flip", () => {
    // the right arm hanging: its pole, and bends swept through the side opposite it
    const z = v(0, -1, 0);
    const p = unit(pole(z));
    const q = unit(cross(z, p));
    let previous: V | null = null;
    for (let a = 150; a <= 210; a += 0.5) {
      const r = (a * Math.PI) / 180;
      const b = add(mul(p, Math.cos(r)), mul(q, Math.sin(r)));
      const out = swivel(b, z, 0.3);
      if (previous !== null) expect(angleDeg(across(out, z), across(previous, z))).toBeLessThan(2);
      previous = out;
    }
  });

  it("turns a bend lying opposite the pole steadily as the amount grows", () => {
    // blending the sides swung it across in about 0.01 of amount where the amount passed ½ (50° elbow flips in
    // test/scenario/smooth-paths.test.ts)
    const z = v(0, -1, 0);
    const p = unit(pole(z));
    const q = unit(cross(z, p));
    for (const off of [170, 179, 181, 190]) {
      const r = (off * Math.PI) / 180;
      const b = add(mul(p, Math.cos(r)), mul(q, Math.sin(r)));
      let previous = b;
      for (let amount = 0.01; amount <= 1; amount += 0.01) {
        const out = swivel(b, z, amount);
        expect(angleDeg(across(out, z), across(previous, z)), `${off}° at ${amount}`).toBeLessThan(2);
        previous = out;
      }
    }
  });
});
