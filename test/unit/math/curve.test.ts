import { describe, expect, it } from "vitest";
import { Curve, CurveIO } from "../../../src/math/curve.js";

describe("Curve", () => {
  it("passes through its keys and clamps outside them", () => {
    const c = new Curve([
      { time: 0, value: 0 },
      { time: 0.5, value: 1 },
      { time: 2, value: 0.25 },
    ]);
    expect(c.evaluate(0)).toBe(0);
    expect(c.evaluate(0.5)).toBe(1);
    expect(c.evaluate(2)).toBe(0.25);
    expect(c.evaluate(-1)).toBe(0);
    expect(c.evaluate(9)).toBe(0.25);
    expect(c.duration).toBe(2);
    const io = new CurveIO();
    c.durationInto(io);
    expect(io.b).toBe(2);
    new Curve([]).durationInto(io);
    expect(io.b).toBe(0);
  });

  it("linear curves are straight lines; ease-in-out is the smoothstep", () => {
    const l = Curve.linear(1, 2, 3, 6);
    for (const t of [1, 1.3, 2, 2.9, 3]) expect(l.evaluate(t)).toBeCloseTo(2 + 2 * (t - 1), 12);
    const e = Curve.easeInOut(0, 0, 1, 1);
    for (const t of [0.1, 0.25, 0.5, 0.8]) expect(e.evaluate(t)).toBeCloseTo(3 * t * t - 2 * t * t * t, 12);
  });

  it("uses given tangents (Hermite) and is C1 at an interior key with automatic tangents", () => {
    const c = new Curve([
      { time: 0, value: 0, outTangent: 2 },
      { time: 1, value: 1, inTangent: 0 },
    ]);
    // slope at the start is the out tangent
    expect((c.evaluate(1e-6) - c.evaluate(0)) / 1e-6).toBeCloseTo(2, 4);
    const s = new Curve([
      { time: 0, value: 0 },
      { time: 1, value: 2 },
      { time: 3, value: 1 },
    ]);
    const left = (s.evaluate(1) - s.evaluate(1 - 1e-6)) / 1e-6;
    const right = (s.evaluate(1 + 1e-6) - s.evaluate(1)) / 1e-6;
    expect(left).toBeCloseTo(right, 4);
    expect(left).toBeCloseTo((1 - 0) / 3, 4);
  });

  it("an empty curve is 0, a one-key curve is constant, unsorted or non-finite keys are handled", () => {
    expect(new Curve([]).evaluate(3)).toBe(0);
    expect(Curve.constant(0.7).evaluate(-5)).toBe(0.7);
    const c = new Curve([
      { time: 2, value: 1 },
      { time: Number.NaN, value: 5 },
      { time: 0, value: 0 },
    ]);
    expect(c.length).toBe(2);
    expect(c.evaluate(1)).toBeCloseTo(0.5, 12);
  });

  it("evaluateInto reads the time from io.a and writes only io.b, for any object of numeric a and b", () => {
    const line = Curve.linear(0, 0, 2, 1);
    // an object of another class with a field of its own (as the modifiers' Scalars): left alone
    class Io {
      a = 0.5;
      b = Number.NaN;
      s = 7;
    }
    const io = new Io();
    line.evaluateInto(io);
    expect(io.b).toBeCloseTo(0.25, 12);
    expect([io.a, io.s]).toEqual([0.5, 7]);
    // ends held, an empty curve 0
    io.a = -3;
    line.evaluateInto(io);
    expect(io.b).toBe(0);
    io.a = 9;
    line.evaluateInto(io);
    expect(io.b).toBe(1);
    const empty = new CurveIO();
    empty.a = 1;
    empty.b = 5;
    new Curve([]).evaluateInto(empty);
    expect(empty.b).toBe(0);
    // evaluate's own scratch does not reach a caller's io
    io.a = 1;
    io.b = 0.123;
    line.evaluate(1.5);
    expect([io.a, io.b]).toEqual([1, 0.123]);
  });
});
