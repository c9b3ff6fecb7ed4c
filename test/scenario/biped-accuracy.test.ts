/**
 * Issue 19's accuracy problem (test/helpers/biped-problem.ts, biped-target-sets.ts, biped-measure.ts) on its 1,000
 * target sets (under a second each): the issue's accuracy targets (ISSUE19_TARGETS) with the defaults, and FinalIK's
 * behaviour missing them. Speed is `npm run bench -- biped`'s. FBBIK_REPORT=1 prints the figures.
 */
import { afterAll, describe, expect, it } from "vitest";
import { type BipedAccuracy, SetMeasurement, SetProbe, measureAccuracy } from "../helpers/biped-measure.js";
import {
  BoneIKBipedSolver,
  type BipedSolver,
  FbbikBipedSolver,
  JacobianBipedSolver,
} from "../helpers/biped-solvers.js";
import { ISSUE19_TARGETS } from "../helpers/biped-problem.js";
import { bipedTargetSets } from "../helpers/biped-target-sets.js";

const sets = bipedTargetSets();
const SETS = sets.count;
const report = process.env.FBBIK_REPORT === "1";
const open: BipedSolver[] = [];
afterAll(() => {
  while (open.length > 0) open.pop()!.dispose();
});

function run<T extends BipedSolver>(solver: T): { solver: T; accuracy: BipedAccuracy } {
  open.push(solver);
  const accuracy = measureAccuracy(sets, new SetProbe(solver.biped), (s) => solver.solve(sets, s), SETS);
  if (report) console.log(solver.label, JSON.stringify(accuracy));
  return { solver, accuracy };
}

describe("the biped problem", () => {
  it("has reachable and far sets, far only where the limbs alone fall short", () => {
    let far = 0;
    for (let s = 0; s < SETS; s++) far += sets.far[s]!;
    expect(far).toBeGreaterThan(0.2 * SETS);
    expect(far).toBeLessThan(0.6 * SETS);
    // Babylon's controllers solve each limb exactly: reachable sets to float32 noise, far sets not within 1 mm
    const { solver } = run(new BoneIKBipedSolver());
    const probe = new SetProbe(solver.biped);
    const m = new SetMeasurement();
    for (let s = 0; s < SETS; s++) {
      solver.solve(sets, s);
      probe.measure(sets, s, m);
      if (sets.far[s] === 1) expect(m.worstMm).toBeGreaterThan(0.9);
      else expect(m.worstMm).toBeLessThan(1);
    }
  });

  it("is solvable: the whole-body Jacobian reaches every set within 0.01 mm, bone lengths kept", () => {
    const { accuracy } = run(new JacobianBipedSolver());
    expect(accuracy.reachableWorstMaxMm).toBeLessThan(0.01);
    expect(accuracy.farWorstMeanMm).toBeLessThan(0.01);
    expect(accuracy.farWithin1cmShare).toBe(1);
    expect(accuracy.boneLengthChangeMaxMm).toBeLessThan(1e-3);
  });

  it("measures in float64 what Babylon's own matrices show (to float32 noise)", () => {
    const solver = new FbbikBipedSolver();
    open.push(solver);
    const probe = new SetProbe(solver.biped);
    const m = new SetMeasurement();
    for (let s = 0; s < 5; s++) {
      solver.solve(sets, s);
      probe.measure(sets, s, m);
      const b = solver.biped;
      b.skeleton.computeAbsoluteMatrices(true);
      b.bones.forEach((bone, i) => {
        const p = bone.getAbsolutePosition(b.mesh);
        const d = Math.hypot(
          p.x - probe.positions[3 * i]!,
          p.y - probe.positions[3 * i + 1]!,
          p.z - probe.positions[3 * i + 2]!,
        );
        expect(d).toBeLessThan(1e-5);
      });
    }
  });
});

describe("FullBodyBipedIK on the biped problem: issue 19's targets", () => {
  const { accuracy: a } = run(new FbbikBipedSolver());
  const { accuracy: thorough } = run(new FbbikBipedSolver({ settings: { maxIterations: 10 } }));

  it("stays finite and puts the pelvis on its target", () => {
    expect(a.nonFiniteSets).toBe(0);
    expect(a.farEffectorMeanMm[0]).toBeLessThan(1e-3);
  });

  it("reaches every reachable set within 1 mm with maxIterations 10, all but 1 % with the defaults", () => {
    expect(a.innerSets).toBeGreaterThan(0);
    expect(a.innerWithin1mmShare).toBe(1);
    expect(a.reachableWithin1mmShare).toBeGreaterThanOrEqual(0.99);
    expect(thorough.reachableWithin1mmShare).toBe(1);
  });

  it("far sets: worst effector's mean ≤ 20 mm, ≥ 60 % within 1 cm", () => {
    expect(a.farSets).toBeGreaterThan(0.2 * SETS);
    expect(a.farWorstMeanMm).toBeLessThanOrEqual(ISSUE19_TARGETS.farWorstMeanMm);
    expect(a.farWithin1cmShare).toBeGreaterThanOrEqual(ISSUE19_TARGETS.farWithin1cmShare);
  });

  it("keeps every parent–child distance within 1e-4 % of the height", () => {
    expect(a.boneLengthChangePercentOfHeight).toBeLessThanOrEqual(ISSUE19_TARGETS.boneLengthChangePercentOfHeight);
  });
});

describe("FinalIK's behaviour on the same problem (iterationTolerance 0, preserveBoneLengths false)", () => {
  const { accuracy: a } = run(
    new FbbikBipedSolver({ settings: { iterationTolerance: 0, preserveBoneLengths: false } }),
  );

  it("misses the targets the defaults meet: the checks above can fail", () => {
    // measured 2026-11-28: reachable 95.0 % within 1 mm, far 25.9 mm and 33.1 %, a link stretched 58.6 mm
    expect(a.reachableWithin1mmShare).toBeLessThan(1);
    expect(a.farWorstMeanMm).toBeGreaterThan(ISSUE19_TARGETS.farWorstMeanMm);
    expect(a.farWithin1cmShare).toBeLessThan(ISSUE19_TARGETS.farWithin1cmShare);
    expect(a.boneLengthChangePercentOfHeight).toBeGreaterThan(1);
  });
});
