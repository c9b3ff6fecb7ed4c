/**
 * IKSolverLimb's `arm` bend modifier on the arm and leg built in code (forward +Z, up +Y): the elbow goes to its
 * natural side for the reach (behind the shoulder–hand line hanging, below it from reaching forward to overhead, back
 * and down raised sideways), the knee forward, the
 * frame turns with the parent bone, and where the rule has no side the bend normal stays, bit for bit.
 */
import { describe, expect, it } from "vitest";
import { IKSolverLimb } from "../../../src/limb/ik-solver-limb.js";
import { Quat } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { elbowPole } from "../../../src/solver/elbow-pole.js";
import { FBBIKError } from "../../../src/solver/errors.js";
import { type V, add, angleDeg, dot, mul, perp, sub, unit } from "../../helpers/vectors.js";
import { ARM, LEG, buildPose, id, pos, qaxis, qmul, qrot, rot, snapshot } from "./rigs.js";

const F: V = { x: 0, y: 0, z: 1 };
const U: V = { x: 0, y: 1, z: 0 };

function limb(spec: typeof ARM, names: [string, string, string, string], side: -1 | 1) {
  const pose = buildPose(spec);
  const b = names.slice(0, 3).map((n) => id(pose, n)) as [number, number, number];
  const ik = new IKSolverLimb(pose, b[0], b[1], b[2], { parent: id(pose, names[3]) });
  ik.setNaturalFrame(side, new Vec3(F.x, F.y, F.z), new Vec3(U.x, U.y, U.z));
  ik.bendModifier = "arm";
  const reach = (d: V): { side: V; axis: V } => {
    const root = pos(pose, b[0]);
    const target = add(root, d);
    ik.ikPosition.x = target.x;
    ik.ikPosition.y = target.y;
    ik.ikPosition.z = target.z;
    ik.solve();
    const axis = unit(sub(target, root));
    return { side: unit(perp(sub(pos(pose, b[1]), root), axis)), axis };
  };
  return { pose, ik, b, reach };
}

/**
 * The elbow's natural side for a reach along unit `z` (natural-pole.ts: (z·U − (1 − (z·U)²))·F − (1 + z·F)·U, made
 * perpendicular to z).
 */
function elbowSide(z: V, f: V = F, u: V = U): V {
  const zu = dot(z, u);
  const c = sub(mul(f, zu - (1 - zu * zu)), mul(u, 1 + dot(z, f)));
  return unit(perp(c, z));
}

describe("IKSolverLimb bendModifier 'arm'", () => {
  it("puts the elbow behind the line hanging, below it reaching forward and overhead, back and down sideways", () => {
    const arm = limb(ARM, ["upperArm", "forearm", "hand", "clavicle"], -1);
    for (const d of [
      { x: 0.1, y: -0.1, z: 0.45 },
      { x: 0.35, y: -0.2, z: 0.1 },
      { x: 0.3, y: 0.25, z: 0.2 },
      { x: 0.2, y: -0.4, z: -0.1 },
      { x: 0.1, y: 0.35, z: 0.25 },
    ]) {
      const { side, axis } = arm.reach(d);
      expect(angleDeg(side, elbowSide(axis))).toBeLessThan(1e-6);
    }
    // hanging: behind; reaching forward: down
    expect(dot(arm.reach({ x: 0.05, y: -0.45, z: 0 }).side, F)).toBeLessThan(-0.9);
    expect(dot(arm.reach({ x: 0.05, y: 0, z: 0.45 }).side, U)).toBeLessThan(-0.9);
    // overhead: forward, still below the arm as it rose (the old rule put it behind, −F)
    expect(dot(arm.reach({ x: 0.05, y: 0.45, z: 0 }).side, F)).toBeGreaterThan(0.9);
    // raised sideways: 45° below back, −F − U (the old rule put it straight back; cot 1.5 would give U −0.55)
    const sideways = arm.reach({ x: 0.45, y: 0, z: 0 }).side;
    expect(dot(sideways, F)).toBeLessThan(-0.65);
    expect(dot(sideways, U)).toBeLessThan(-0.65);
  });

  it("turns the frame with the parent bone", () => {
    const arm = limb(ARM, ["upperArm", "forearm", "hand", "clavicle"], -1);
    const clav = id(arm.pose, "clavicle");
    const turn = qaxis(0, 1, 0, 60);
    const q = qmul(turn, rot(arm.pose, clav));
    arm.pose.setRotation(clav, new Quat(q.x, q.y, q.z, q.w));
    const { side, axis } = arm.reach({ x: 0.1, y: -0.1, z: 0.45 });
    expect(angleDeg(side, elbowSide(axis, qrot(turn, F), qrot(turn, U)))).toBeLessThan(1e-6);
  });

  it("bends a knee forward, and up for a leg raised forward", () => {
    const leg = limb(LEG, ["thigh", "calf", "foot", "pelvis"], 1);
    const down = leg.reach({ x: 0, y: -0.7, z: 0.05 });
    expect(dot(down.side, F)).toBeGreaterThan(0.99);
    const raised = leg.reach({ x: 0, y: -0.1, z: 0.6 });
    expect(dot(raised.side, U)).toBeGreaterThan(0.9);
  });

  it("keeps the bend normal where the rule has no side, and with no natural frame, bit for bit", () => {
    const plain = limb(ARM, ["upperArm", "forearm", "hand", "clavicle"], -1);
    const off = limb(ARM, ["upperArm", "forearm", "hand", "clavicle"], -1);
    plain.ik.bendModifierWeight = 0;
    for (const [d, frame] of [
      [{ x: 0, y: 0, z: -0.5 }, -1],
      [{ x: 0.3, y: 0.1, z: 0.2 }, 0],
    ] as const) {
      off.ik.setNaturalFrame(frame as -1 | 0, new Vec3(0, 0, 1), new Vec3(0, 1, 0));
      plain.reach(d);
      off.reach(d);
      expect(snapshot(off.pose)).toEqual(snapshot(plain.pose));
    }
  });

  it("with the arm's outward side, follows the fitted table (elbowPole), turning with the parent bone", () => {
    const arm = limb(ARM, ["upperArm", "forearm", "hand", "clavicle"], -1);
    // the ARM rig's shoulder is at +X of the body
    const O: V = { x: 1, y: 0, z: 0 };
    arm.ik.setNaturalFrame(-1, new Vec3(F.x, F.y, F.z), new Vec3(U.x, U.y, U.z), new Vec3(O.x, O.y, O.z));
    const clav = id(arm.pose, "clavicle");
    const turn = qaxis(0, 1, 0, 40);
    const table = (axis: V, t = qaxis(0, 1, 0, 0)): V => {
      const out = new Vec3();
      const [f, u, o] = [F, U, O].map((a) => qrot(t, a)).map((a) => new Vec3(a.x, a.y, a.z)) as [Vec3, Vec3, Vec3];
      elbowPole(out, new Vec3(axis.x, axis.y, axis.z), f, u, o);
      return unit(out);
    };
    let off = 0;
    for (const d of [
      { x: 0.1, y: -0.1, z: 0.45 },
      { x: 0.35, y: -0.2, z: 0.1 },
      { x: 0.3, y: 0.25, z: 0.2 },
      { x: -0.2, y: 0.1, z: 0.3 },
    ]) {
      const { side, axis } = arm.reach(d);
      expect(angleDeg(side, table(axis))).toBeLessThan(1e-6);
      off = Math.max(off, angleDeg(side, elbowSide(axis)));
    }
    // not the rule's side
    expect(off).toBeGreaterThan(10);
    const q = qmul(turn, rot(arm.pose, clav));
    arm.pose.setRotation(clav, new Quat(q.x, q.y, q.z, q.w));
    const { side, axis } = arm.reach({ x: 0.1, y: -0.1, z: 0.45 });
    expect(angleDeg(side, table(axis, turn))).toBeLessThan(1e-6);
  });

  it("refuses an outward side along forward and up", () => {
    const { ik } = limb(ARM, ["upperArm", "forearm", "hand", "clavicle"], -1);
    expect(() => ik.setNaturalFrame(-1, new Vec3(0, 0, 1), new Vec3(0, 1, 0), new Vec3(0, 1, 1))).toThrow(FBBIKError);
  });

  it("refuses a frame whose forward and up are parallel", () => {
    const { ik } = limb(ARM, ["upperArm", "forearm", "hand", "clavicle"], -1);
    expect(() => ik.setNaturalFrame(-1, new Vec3(0, 1, 0), new Vec3(0, 2, 0))).toThrow(FBBIKError);
  });
});
