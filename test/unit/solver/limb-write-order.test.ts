import { describe, expect, it } from "vitest";
import { BipedMapping } from "../../../src/mapping/biped-mapping.js";
import { Random } from "../../helpers/random.js";
import { type MappedBiped, aimAt, mappedBiped, randomPose } from "./posed-targets.js";

/** The mapping's private switch between step-by-step and limb-after-limb writing. */
function independent(m: MappedBiped): { limbsIndependent: boolean } {
  return m.solver.mapping as unknown as { limbsIndependent: boolean };
}

/** Every local rotation and position of the pose, as bits. */
function poseBits(m: MappedBiped): string {
  const values: number[] = [];
  for (const q of m.b.pose.localRotations) values.push(q.x, q.y, q.z, q.w);
  for (const p of m.b.pose.localPositions) values.push(p.x, p.y, p.z);
  return Array.from(new Uint32Array(new Float64Array(values).buffer)).join(",");
}

describe("the limbs written step by step across limbs", () => {
  it("give the bits of limb after limb over 200 posed target sets, preserveBoneLengths on and off", () => {
    for (const preserve of [true, false]) {
      const steps = mappedBiped();
      const oneByOne = mappedBiped();
      expect(independent(steps).limbsIndependent).toBe(true);
      independent(oneByOne).limbsIndependent = false;
      const target = steps.rest.clone();
      const r = new Random(23);
      for (const m of [steps, oneByOne]) m.solver.preserveBoneLengths = preserve;
      for (let s = 0; s < 200; s++) {
        randomPose(steps, target, r);
        for (const m of [steps, oneByOne]) {
          aimAt(m, target);
          // a fractional weight now and then: the weighted paths too
          m.effectors[1]!.effector.positionWeight = s % 3 === 0 ? 0.6 : 1;
          m.solver.update();
        }
        expect(poseBits(steps)).toBe(poseBits(oneByOne));
      }
    }
  });

  it("are written limb after limb when a clavicle given by hand is an ancestor of the other arm", () => {
    const m = mappedBiped();
    const parents = m.b.pose.parents;
    // the bone both arms hang from (above the clavicles)
    const chest = parents[parents[m.b.bones.leftUpperArm]!]!;
    expect(parents[parents[m.b.bones.rightUpperArm]!]).toBe(chest);
    const mapping = new BipedMapping(m.solver, { leftClavicle: chest, rightClavicle: -1 });
    expect((mapping as unknown as { limbsIndependent: boolean }).limbsIndependent).toBe(false);
  });
});
