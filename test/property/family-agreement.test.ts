/**
 * Where the answer is unique, the family's solvers agree with each other and with the law of cosines: a
 * planar two-bone arm whose shoulder and elbow are hinges about Z, the elbow limited to one side of straight,
 * reaching 500 seeded targets in its plane (between the blind zone and full reach). CCD (with hinge limits),
 * the Jacobian reference (hinge joints with the same limits) and LimbIK (its bend normal +Z, the plane's) put
 * the elbow where the analytic solution does, to 1e-6 of the arm's length.
 */
import { describe, expect, it } from "vitest";
import { IKSolverCCD } from "../../src/ccd/ik-solver-ccd.js";
import { IKSolverJacobian } from "../../src/jacobian/ik-solver-jacobian.js";
import { RotationLimitHinge } from "../../src/joints/limits/rotation-limit-hinge.js";
import { IKSolverLimb } from "../../src/limb/ik-solver-limb.js";
import { HierarchyPose } from "../../src/mapping/hierarchy-pose.js";
import { Quat, fromAxisAngle } from "../../src/math/quat.js";
import { Vec3 } from "../../src/math/vec3.js";
import { Random } from "../helpers/random.js";

const L1 = 1;
const L2 = 0.8;
const REST_ELBOW = 0.3;
const Z = new Vec3(0, 0, 1);

function arm(): HierarchyPose {
  return new HierarchyPose([
    { name: "shoulder", parent: -1, position: new Vec3(), rotation: new Quat() },
    { name: "elbow", parent: 0, position: new Vec3(0, L1, 0), rotation: fromAxisAngle(new Quat(), Z, REST_ELBOW) },
    { name: "hand", parent: 1, position: new Vec3(0, L2, 0), rotation: new Quat() },
  ]);
}

/** The elbow of the planar arm reaching `t` with the elbow bent toward +Z rotation (the limited side). */
function analyticElbow(tx: number, ty: number): [number, number] {
  const d = Math.hypot(tx, ty);
  // angle at the shoulder between the target and the upper arm (law of cosines)
  const a = Math.acos((L1 * L1 + d * d - L2 * L2) / (2 * L1 * d));
  // the upper arm turned from the target direction away from the bend (the elbow's positive rotation)
  const base = Math.atan2(ty, tx) - a;
  return [L1 * Math.cos(base), L1 * Math.sin(base)];
}

describe("CCD, Jacobian and the law of cosines agree where the answer is unique", () => {
  it("500 planar targets: CCD, Jacobian and LimbIK put the elbow within 1e-6 of the arm's length of the analytic one", () => {
    const random = new Random(21);
    // elbow angle relative to rest: total bend in [0.02, 3.1] rad, one side of straight
    const lo = 0.02 - REST_ELBOW;
    const hi = 3.1 - REST_ELBOW;
    let worstCCD = 0;
    let worstJacobian = 0;
    let worstLimb = 0;
    for (let k = 0; k < 500; k++) {
      const d = random.range(Math.abs(L1 - L2) + 0.05, L1 + L2 - 0.05);
      const ang = random.range(-Math.PI, Math.PI);
      const tx = d * Math.cos(ang);
      const ty = d * Math.sin(ang);
      const [ex, ey] = analyticElbow(tx, ty);

      const p1 = arm();
      const ccd = new IKSolverCCD(p1, [0, 1, 2]);
      ccd.setLimit(0, new RotationLimitHinge(Z, -180, 180));
      ccd.setLimit(1, new RotationLimitHinge(Z, (lo * 180) / Math.PI, (hi * 180) / Math.PI));
      ccd.maxIterations = 2000;
      ccd.tolerance = 1e-9;
      ccd.ikPosition.x = tx;
      ccd.ikPosition.y = ty;
      ccd.update();
      const e1 = p1.getPosition(1, new Vec3());
      worstCCD = Math.max(worstCCD, Math.hypot(e1.x - ex, e1.y - ey, e1.z) / (L1 + L2));

      const p2 = arm();
      const jac = new IKSolverJacobian(p2, [
        { bone: 0, hingeAxis: Z },
        { bone: 1, hingeAxis: Z, min: [lo], max: [hi] },
        { bone: 2, locked: true },
      ]);
      const eff = jac.addEffector(2);
      eff.position.x = tx;
      eff.position.y = ty;
      jac.update();
      const e2 = p2.getPosition(1, new Vec3());
      worstJacobian = Math.max(worstJacobian, Math.hypot(e2.x - ex, e2.y - ey, e2.z) / (L1 + L2));

      const p3 = arm();
      const limb = new IKSolverLimb(p3, 0, 1, 2, { bendNormal: Z });
      limb.ikRotationWeight = 0;
      limb.ikPosition.x = tx;
      limb.ikPosition.y = ty;
      limb.ikPosition.z = 0;
      limb.solve();
      const e3 = p3.getPosition(1, new Vec3());
      worstLimb = Math.max(worstLimb, Math.hypot(e3.x - ex, e3.y - ey, e3.z) / (L1 + L2));
    }
    expect(worstCCD).toBeLessThan(1e-6);
    expect(worstJacobian).toBeLessThan(1e-6);
    expect(worstLimb).toBeLessThan(1e-6);
  });
});
