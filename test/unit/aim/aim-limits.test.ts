/**
 * IKSolverAim with rotation limits (FinalIK's useRotationLimits): each limited bone ends every solve inside its
 * limit, relative to the chain bone before it (the first to `rootParent`); limits that never bind and
 * `useRotationLimits` false leave the solve bit-exact.
 */
import { describe, expect, it } from "vitest";
import { IKSolverAim } from "../../../src/aim/ik-solver-aim.js";
import { RotationLimitAngle } from "../../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitHinge } from "../../../src/joints/limits/rotation-limit-hinge.js";
import { RotationLimitPolygonal } from "../../../src/joints/limits/rotation-limit-polygonal.js";
import { Quat } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import type { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import { FBBIKError } from "../../../src/solver/errors.js";
import { relative, swingTwist } from "../../helpers/limit-reference.js";
import { Random } from "../../helpers/random.js";
import { GUN, buildPose, id, snapshot } from "../limb/rigs.js";

const CHAIN = ["spine", "spine1", "chest", "shoulder", "hand"];
const DEG = Math.PI / 180;
const N = 2000;

function gun(): { pose: HierarchyPose; ik: IKSolverAim; rest: Quat[] } {
  const pose = buildPose(GUN);
  const ik = new IKSolverAim(
    pose,
    CHAIN.map((n) => id(pose, n)),
    { aimBone: id(pose, "gun"), aimOffset: new Vec3(0.02, 0.05, 0.3), rootParent: id(pose, "hips") },
  );
  // each chain bone's parent is the bone before it (hips for the spine): the locals are the pose's own
  const rest = CHAIN.map((n) => {
    const q = pose.localRotations[id(pose, n)]!;
    return new Quat(q.x, q.y, q.z, q.w);
  });
  return { pose, ik, rest };
}

/** A target 1–6 m from the gun in any direction. */
function aimAt(ik: IKSolverAim, pose: HierarchyPose, rng: Random): void {
  const d = rng.unitVector();
  const r = rng.range(1, 6);
  const g = pose.positions[id(pose, "gun")]!;
  ik.ikPosition.x = g.x + d.x * r;
  ik.ikPosition.y = g.y + d.y * r;
  ik.ikPosition.z = g.z + d.z * r;
}

describe("IKSolverAim with rotation limits", () => {
  it(`keeps each limited bone inside its limit after each of ${N} solves at targets all around`, () => {
    const limited = gun();
    const free = gun();
    const spineLimit = new RotationLimitAngle(new Vec3(0, 1, 0), 15, 10);
    limited.ik.setLimit(0, spineLimit);
    limited.ik.setLimit(2, new RotationLimitHinge(new Vec3(1, 0, 0), -20, 30));
    limited.ik.setLimit(3, new RotationLimitPolygonal(new Vec3(0, 1, 0), undefined, 30));
    const fresh = limited.pose.clone();
    const rng = new Random(77);
    const spine = id(limited.pose, "spine");
    let worstSpine = 0;
    let worstFreeSpine = 0;
    let worstOther = 0;
    for (let k = 0; k < N; k++) {
      limited.pose.copyLocalsFrom(fresh);
      free.pose.copyLocalsFrom(fresh);
      aimAt(limited.ik, limited.pose, rng);
      free.ik.ikPosition.x = limited.ik.ikPosition.x;
      free.ik.ikPosition.y = limited.ik.ikPosition.y;
      free.ik.ikPosition.z = limited.ik.ikPosition.z;
      limited.ik.poleWeight = free.ik.poleWeight = rng.next() < 0.3 ? 1 : 0;
      limited.ik.clampWeight = free.ik.clampWeight = rng.next() < 0.5 ? 0 : 0.1;
      limited.ik.solve();
      free.ik.solve();
      expect(limited.ik.skipReason).toBe("");
      // the spine's swing and twist about its +Y, measured apart from the limit's own code
      const st = swingTwist(relative(limited.rest[0]!, limited.pose.localRotations[spine]!), { x: 0, y: 1, z: 0 });
      worstSpine = Math.max(worstSpine, st.swing - 15 * DEG, Math.abs(st.twist) - 10 * DEG);
      const fst = swingTwist(relative(free.rest[0]!, free.pose.localRotations[spine]!), { x: 0, y: 1, z: 0 });
      worstFreeSpine = Math.max(worstFreeSpine, fst.swing - 15 * DEG);
      for (const i of [2, 3]) {
        const q = limited.pose.localRotations[id(limited.pose, CHAIN[i]!)]!;
        const c = new Quat(q.x, q.y, q.z, q.w);
        if (limited.ik.bones[i]!.limit!.apply(c))
          worstOther = Math.max(
            worstOther,
            2 * Math.acos(Math.min(1, Math.abs(c.x * q.x + c.y * q.y + c.z * q.z + c.w * q.w))),
          );
      }
      if (!snapshot(limited.pose).every(Number.isFinite)) throw new Error(`sample ${k}: not finite`);
    }
    // measured: the unlimited spine swings up to 14.2° past the 15°
    expect(worstFreeSpine).toBeGreaterThan(10 * DEG);
    expect(worstSpine).toBeLessThan(1e-9);
    expect(worstOther).toBeLessThan(1e-9);
  });

  it("a limit that never binds, and useRotationLimits false, leave the solve bit-exact", () => {
    const plain = gun();
    const loose = gun();
    const off = gun();
    loose.ik.setLimit(1, new RotationLimitAngle(new Vec3(0, 1, 0), 179, 180));
    off.ik.setLimit(0, new RotationLimitAngle(new Vec3(0, 1, 0), 5, 5));
    off.ik.useRotationLimits = false;
    const rng = new Random(5);
    for (let k = 0; k < 200; k++) {
      aimAt(plain.ik, plain.pose, rng);
      for (const s of [loose, off]) {
        s.ik.ikPosition.x = plain.ik.ikPosition.x;
        s.ik.ikPosition.y = plain.ik.ikPosition.y;
        s.ik.ikPosition.z = plain.ik.ikPosition.z;
      }
      for (const s of [plain, loose, off]) s.ik.solve();
      expect(snapshot(loose.pose)).toEqual(snapshot(plain.pose));
      expect(snapshot(off.pose)).toEqual(snapshot(plain.pose));
    }
  });

  it("rejects a bone index outside the chain and a rootParent inside it", () => {
    const { ik, pose } = gun();
    expect(() => ik.setLimit(5, new RotationLimitAngle())).toThrow(RangeError);
    expect(
      () =>
        new IKSolverAim(
          pose,
          CHAIN.map((n) => id(pose, n)),
          { rootParent: id(pose, "chest") },
        ),
    ).toThrow(FBBIKError);
    ik.setLimit(0, new RotationLimitAngle());
    ik.setLimit(0, null);
    expect(ik.hasLimits()).toBe(false);
  });

  it("rejects one limit object on two bones (it keeps one rest rotation), naming both", () => {
    const { ik, pose, rest } = gun();
    const shared = new RotationLimitAngle(new Vec3(0, 1, 0), 10, 10);
    ik.setLimit(1, shared);
    expect(() => ik.setLimit(2, shared)).toThrow(/joint 2 .* joint 1 already has/);
    // spine1 at rest stays put when the solve changes nothing else: the limit still holds its own rest
    ik.ikPositionWeight = 1;
    ik.solve();
    const local = pose.localRotations[id(pose, CHAIN[1]!)]!;
    const d = relative(rest[1]!, local);
    expect(swingTwist(d, { x: 0, y: 1, z: 0 }).swing).toBeLessThanOrEqual(10 * DEG + 1e-9);
  });
});
