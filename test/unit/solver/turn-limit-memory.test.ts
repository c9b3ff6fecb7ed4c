/**
 * TurnLimitMemory (turn-limit-memory.ts), through swivelToFittedElbow: across consecutive updates the elbow's angle
 * from the fitted side turns no faster than the carried bend's, or 10° an update; a bend held still reaches the side
 * as without memory; the first update, a skipped one or a hand that jumped starts afresh. Alone: the faster of two
 * references sets the limit, the slack adds to it, and a turn within the limit passes bit for bit.
 */
import { describe, expect, it } from "vitest";
import { NumberRef } from "../../../src/math/number-ref.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { elbowPole } from "../../../src/solver/elbow-pole.js";
import { swivelToFittedElbow } from "../../../src/solver/elbow-swivel.js";
import { TurnLimitMemory } from "../../../src/solver/turn-limit-memory.js";
import { type V, add, cross, dot, mul, unit, v } from "../../helpers/vectors.js";

const P = (a: V): Vec3 => new Vec3(a.x, a.y, a.z);
const F = P(v(0, 0, 1));
const U = P(v(0, 1, 0));
const O = P(v(1, 0, 0));
const rad = (d: number) => (d * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;

/** A hanging arm (its fitted pole about 0.9 long: amount 1 turns fully), and a bend `off`° from its pole. */
function arm(z: V) {
  const pv = new Vec3();
  elbowPole(pv, P(z), F, U, O);
  const p = unit(v(pv.x, pv.y, pv.z));
  const q = unit(cross(z, p));
  return {
    bend: (off: number): V => add(mul(p, Math.cos(rad(off))), mul(q, Math.sin(rad(off)))),
    /** The signed angle (°) of a bend from the pole about z. */
    angle: (b: V): number => deg(Math.atan2(dot(b, q), dot(b, p))),
  };
}

/** The bend swiveled at amount 1, with `memory` at update `update` (none: null). */
function swivel(z: V, b: V, memory: TurnLimitMemory | null, update = 0): V {
  const out = P(b);
  if (memory !== null) memory.update = update;
  swivelToFittedElbow(out, P(z), F, U, O, new NumberRef(1), memory);
  return { x: out.x, y: out.y, z: out.z };
}

const HANGING = v(0, -1, 0);

describe("TurnLimitMemory", () => {
  it("across updates, turns the angle from the side no faster than the carried bend's (or 10°)", () => {
    // the bend swept 20° an update from 160° off the side to 20°, through the 60° edge of the turn by angle
    const a = arm(HANGING);
    const memory = new TurnLimitMemory();
    let previous: number | null = null;
    let previousFree: number | null = null;
    let fastestFree = 0;
    for (let i = 0, off = 160; off >= 20; i++, off -= 20) {
      const turned = a.angle(swivel(HANGING, a.bend(off), memory, i + 1));
      const free = a.angle(swivel(HANGING, a.bend(off), null));
      if (previous !== null) expect(Math.abs(turned - previous), `${off}°`).toBeLessThanOrEqual(20 + 1e-9);
      if (previousFree !== null) fastestFree = Math.max(fastestFree, Math.abs(free - previousFree));
      previous = turned;
      previousFree = free;
    }
    // without memory the angle turns 1.5 × the bend's 20° between 60° and 180° off
    expect(fastestFree).toBeCloseTo(30, 9);
  });

  it("a bend held still after a jump of the carried bend reaches the side without memory, 10° an update", () => {
    const a = arm(HANGING);
    const memory = new TurnLimitMemory();
    swivel(HANGING, a.bend(150), memory, 1);
    // 150° → 90° off: 135° → 45° without memory; allowed the bend's 60°
    expect(a.angle(swivel(HANGING, a.bend(90), memory, 2))).toBeCloseTo(75, 9);
    const target = a.angle(swivel(HANGING, a.bend(90), null));
    expect(target).toBeCloseTo(45, 9);
    const seen: number[] = [];
    for (let i = 3; i <= 7; i++) seen.push(a.angle(swivel(HANGING, a.bend(90), memory, i)));
    expect(seen[0]).toBeCloseTo(65, 9);
    expect(seen[1]).toBeCloseTo(55, 9);
    for (const s of seen.slice(2)) expect(s).toBeCloseTo(target, 9);
  });

  it("starts afresh on the first update, after a skipped one, and when the hand jumps more than 30°", () => {
    const a = arm(HANGING);
    const free = (off: number, z = HANGING) => a.angle(swivel(z, a.bend(off), null));
    const memory = new TurnLimitMemory();
    expect(a.angle(swivel(HANGING, a.bend(150), memory, 5))).toBeCloseTo(free(150), 12);
    // update 7 after 5: the swivel did not act at 6 (weight or amount 0, the solver off)
    expect(a.angle(swivel(HANGING, a.bend(70), memory, 7))).toBeCloseTo(free(70), 12);
    // consecutive, the same hand: 135° → 15° without memory, limited to the bend's 80°
    const fresh = new TurnLimitMemory();
    swivel(HANGING, a.bend(150), fresh, 1);
    expect(a.angle(swivel(HANGING, a.bend(70), fresh, 2))).toBeCloseTo(55, 9);
    swivel(HANGING, a.bend(150), memory, 10);
    // the hand turned 40° about the shoulder in one update: a jump
    const jumped = unit(v(Math.sin(rad(40)), -Math.cos(rad(40)), 0));
    const b = arm(jumped);
    expect(b.angle(swivel(jumped, b.bend(70), memory, 11))).toBeCloseTo(b.angle(swivel(jumped, b.bend(70), null)), 12);
  });

  it("limits the turned angle by the faster of two references' turns or 10°, plus the slack", () => {
    const memory = new TurnLimitMemory();
    const limit = (update: number, reference: number, other: number, turned: number, slack = 0): number => {
      memory.update = update;
      memory.reference = rad(reference);
      memory.otherReference = rad(other);
      memory.turned = rad(turned);
      memory.slack = rad(slack);
      memory.x = 0;
      memory.y = -1;
      memory.z = 0;
      memory.limit();
      return deg(memory.turned);
    };
    expect(limit(1, 0, 170, 100)).toBeCloseTo(100, 12);
    // a blend of two bends that cancel swings 125° while neither turns: 10°
    expect(limit(2, 0, 170, -25)).toBeCloseTo(90, 9);
    // the second reference turns 30°: as much
    expect(limit(3, 0, -160, 0)).toBeCloseTo(60, 9);
    // the first turns 20° the other way round through ±180° (wrapped): 20°, plus a slack of 5°
    expect(limit(4, -20, -160, -100, 5)).toBeCloseTo(35, 9);
    // within the limit: bit for bit
    expect(limit(5, -20, -160, 40)).toBe(deg(rad(40)));
  });
});
