import { describe, expect, it } from "vitest";
import { Random } from "../../helpers/random.js";
import { aimAt, mappedBiped, randomPose, worstEffectorError, worstLengthChange } from "./posed-targets.js";

describe("preserveBoneLengths", () => {
  it("keeps every parent–child distance within 1e-6 of the height over 300 posed target sets, where FinalIK's mapping stretches", () => {
    const results: Record<string, { stretch: number; errors: number[] }> = {};
    for (const preserve of [true, false]) {
      const m = mappedBiped();
      m.solver.preserveBoneLengths = preserve;
      const target = m.rest.clone();
      const r = new Random(11);
      let stretch = 0;
      const errors: number[] = [];
      for (let s = 0; s < 300; s++) {
        randomPose(m, target, r);
        aimAt(m, target);
        m.solver.update();
        stretch = Math.max(stretch, worstLengthChange(m));
        errors.push(worstEffectorError(m) / m.b.height);
      }
      results[String(preserve)] = { stretch, errors };
    }
    const kept = results.true!;
    const finalIK = results.false!;
    expect(kept.stretch).toBeLessThan(1e-6 * 1.75);
    // the check can fail: FinalIK's FixToNode stretches the links above the upper arms by centimetres here
    expect(finalIK.stretch).toBeGreaterThan(1e-3 * 1.75);
    // and reaching is not worse: these sets are reachable, the clavicles turn to keep the hands on them
    const within = (e: number[]) => e.filter((x) => x < 1e-3 / 1.75).length / e.length;
    const mean = (e: number[]) => e.reduce((x, y) => x + y, 0) / e.length;
    expect(within(kept.errors)).toBeGreaterThanOrEqual(within(finalIK.errors));
    expect(mean(kept.errors)).toBeLessThanOrEqual(mean(finalIK.errors));
  });

  it("is exact on a mirrored and a ×100 rig too", () => {
    for (const options of [
      { pose: "A" as const, mirrored: true },
      { pose: "T" as const, scale: 100 },
    ]) {
      const m = mappedBiped(options);
      const target = m.rest.clone();
      const r = new Random(5);
      for (let s = 0; s < 40; s++) {
        randomPose(m, target, r);
        aimAt(m, target);
        m.solver.update();
        expect(worstLengthChange(m) / m.b.height).toBeLessThan(1e-6);
      }
    }
  });
});
