/**
 * Building the biped solver: validation, errors that name every problem, setup warnings, root node
 * detection, the hook order of one update, and the hands pulling the body.
 */
import { describe, expect, it } from "vitest";
import { Vec3 } from "../../../src/math/vec3.js";
import { FBBIKError } from "../../../src/solver/errors.js";
import { IKSolverFullBodyBiped } from "../../../src/solver/full-body-biped.js";
import { detectRootNodeBone } from "../../../src/solver/root-node.js";
import { harness, limbEnd } from "../../helpers/solver-harness.js";
import { dist } from "../../helpers/vectors.js";
import { bipedVariants, syntheticBiped } from "../../helpers/synthetic-biped.js";

function captureError(fn: () => void): FBBIKError {
  try {
    fn();
  } catch (e) {
    if (e instanceof FBBIKError) return e;
    throw e;
  }
  throw new Error("expected an FBBIKError");
}

describe("biped setup", () => {
  it("throws one FBBIKError naming every missing and duplicated reference, and builds nothing", () => {
    const b = syntheticBiped();
    const solver = new IKSolverFullBodyBiped(b.pose);
    const err = captureError(() =>
      solver.setToReferences({ ...b.bones, leftFoot: -1, rightHand: b.bones.leftHand, spine: [b.bones.spine[0]!, -1] }),
    );
    expect(err.problems).toContain("leftFoot is missing");
    expect(err.problems).toContain("spine[1] is missing");
    expect(err.problems.some((p) => p.includes("rightHand") && p.includes("leftHand") && p.includes("Hand.L"))).toBe(
      true,
    );
    expect(err.message).toContain("FullBodyBipedIK cannot be set up");
    expect(solver.chains).toEqual([]);
    expect(solver.effectors).toEqual([]);
    expect(solver.initiated).toBe(false);
  });

  it("rejects a root node that is neither the pelvis nor a spine bone, and a rig without spine bones", () => {
    const b = syntheticBiped();
    const solver = new IKSolverFullBodyBiped(b.pose);
    const err = captureError(() => solver.setToReferences(b.bones, b.bones.head));
    expect(err.problems).toEqual([`the root node Head has to be the pelvis or one of the spine bones`]);
    const noSpine = captureError(() => solver.setToReferences({ ...b.bones, spine: [] }));
    expect(noSpine.problems.some((p) => p.includes("no spine bones"))).toBe(true);
  });

  it("accepts the pelvis or any spine bone as explicit root node", () => {
    for (const root of ["Hips", "Chest"]) {
      const b = syntheticBiped();
      const solver = new IKSolverFullBodyBiped(b.pose);
      solver.setToReferences(b.bones, b.pose.indexOf(root));
      expect(b.pose.getName(solver.rootNode)).toBe(root);
      solver.leftHandEffector.position.x -= 0.1;
      solver.leftHandEffector.position.y -= 0.2;
      solver.leftHandEffector.positionWeight = 1;
      solver.update();
      expect(dist(limbEnd(solver.leftArmChain), solver.leftHandEffector.position)).toBeLessThan(1e-4);
    }
  });

  it("names both bones of a zero-length bone and leaves the solver as it was", () => {
    const b = syntheticBiped();
    const forearm = b.bones.leftForearm;
    b.pose.setPosition(forearm, b.pose.positions[b.bones.leftUpperArm]!);
    const solver = new IKSolverFullBodyBiped(b.pose);
    const err = captureError(() => solver.setToReferences(b.bones));
    expect(err.problems).toContain("UpperArm.L and Forearm.L are at the same position (zero-length bone)");
    expect(solver.chains).toEqual([]);
    expect(solver.initiated).toBe(false);
  });

  it("warns about straight limbs at setup and still solves them", () => {
    const h = harness({ elbowBend: 0, kneeBend: 0 });
    const causes = h.warnings.map((w) => w.cause).sort();
    expect(causes).toEqual(["straight-limb:1", "straight-limb:2", "straight-limb:3", "straight-limb:4"]);
    expect(h.warnings[0]!.message).toContain("completely straight");
    // default bend sides: elbows toward the back (−Z, the biped faces +Z), knees toward the front
    expect(h.solver.leftArmChain.bendConstraint.direction.z).toBeLessThan(-0.99);
    expect(h.solver.rightArmChain.bendConstraint.direction.z).toBeLessThan(-0.99);
    expect(h.solver.leftLegChain.bendConstraint.direction.z).toBeGreaterThan(0.99);
    expect(h.solver.rightLegChain.bendConstraint.direction.z).toBeGreaterThan(0.99);
    const e = h.solver.leftHandEffector;
    e.position.x -= 0.2;
    e.position.z += 0.15;
    e.positionWeight = 1;
    h.solver.update();
    expect(dist(limbEnd(h.solver.leftArmChain), e.position)).toBeLessThan(1e-4);
  });

  it("bends straight limbs of a mirrored rig the right way when given the character's forward", () => {
    const b = syntheticBiped({ elbowBend: 0, kneeBend: 0, mirrored: true });
    const solver = new IKSolverFullBodyBiped(b.pose);
    solver.forward = new Vec3(0, 0, 1);
    solver.setToReferences(b.bones);
    expect(solver.leftArmChain.bendConstraint.direction.z).toBeLessThan(-0.99);
    expect(solver.leftLegChain.bendConstraint.direction.z).toBeGreaterThan(0.99);
    // and a bent limb ignores the hint: its bend comes from the pose
    const bent = syntheticBiped({ mirrored: true });
    const s2 = new IKSolverFullBodyBiped(bent.pose);
    s2.forward = new Vec3(0, 0, -1);
    s2.setToReferences(bent.bones);
    expect(s2.leftLegChain.bendConstraint.direction.z).toBeGreaterThan(0.99);
  });

  it("detects the root node as the highest spine bone in the lower half from hips to neck", () => {
    for (const v of bipedVariants()) {
      expect(v.pose.getName(detectRootNodeBone(v.pose, v.bones))).toBe("Spine");
    }
    const b = syntheticBiped();
    expect(b.pose.getName(detectRootNodeBone(b.pose, { ...b.bones, spine: [b.bones.spine[2]!] }))).toBe("Neck");
    expect(detectRootNodeBone(b.pose, { ...b.bones, spine: [] })).toBe(-1);
  });

  it("warns when the root node lies on the shoulder line or on the thigh line (FinalIK's 0.95 test)", () => {
    const b = syntheticBiped();
    // put the neck between the upper arms, then use it as the root node
    const l = b.pose.positions[b.bones.leftUpperArm]!;
    const r = b.pose.positions[b.bones.rightUpperArm]!;
    const neck = b.bones.spine[2]!;
    b.pose.setPosition(neck, new Vec3((l.x + r.x) / 2, (l.y + r.y) / 2, (l.z + r.z) / 2));
    const solver = new IKSolverFullBodyBiped(b.pose);
    const causes: string[] = [];
    solver.onWarning.add((w) => causes.push(w.cause));
    solver.setToReferences(b.bones, neck);
    expect(causes).toEqual(["root-node-shoulders"]);

    const b2 = syntheticBiped();
    // raise both thighs to the pelvis's height, either side of it: the pelvis is on the thigh line
    const p = b2.pose.positions[b2.bones.pelvis]!;
    b2.pose.setPosition(b2.bones.leftThigh, new Vec3(p.x + 0.1, p.y, p.z));
    b2.pose.setPosition(b2.bones.rightThigh, new Vec3(p.x - 0.1, p.y, p.z));
    const solver2 = new IKSolverFullBodyBiped(b2.pose);
    const causes2: string[] = [];
    solver2.onWarning.add((w) => causes2.push(w.cause));
    solver2.setToReferences(b2.bones, b2.bones.pelvis);
    expect(causes2).toEqual(["root-node-thighs"]);
  });
});

describe("one update", () => {
  it("fires the hooks in FinalIK's order with one pre/post iteration pair per iteration", () => {
    const h = harness();
    const s = h.solver;
    s.iterations = 3;
    // FinalIK's fixed count (adaptive iterations would stop this easy frame after the first)
    s.iterationTolerance = 0;
    const log: string[] = [];
    s.onPreUpdate.add(() => log.push("preUpdate"));
    s.onPreRead.add(() => log.push("preRead"));
    s.onPreSolve.add(() => log.push("preSolve"));
    s.onPreIteration.add((i) => log.push(`preIteration${i}`));
    s.onPostIteration.add((i) => log.push(`postIteration${i}`));
    s.onPreBend.add(() => log.push("preBend"));
    s.onPostSolve.add(() => log.push("postSolve"));
    s.onPostUpdate.add(() => log.push("postUpdate"));
    s.leftHandEffector.positionWeight = 1;
    s.update();
    expect(log).toEqual([
      "preUpdate",
      "preRead",
      "preSolve",
      "preIteration0",
      "postIteration0",
      "preIteration1",
      "postIteration1",
      "preIteration2",
      "postIteration2",
      "preBend",
      "postSolve",
      "postUpdate",
    ]);
    log.length = 0;
    s.ikPositionWeight = 0;
    s.update();
    // at weight 0 only the update hooks fire
    expect(log).toEqual(["preUpdate", "postUpdate"]);
  });

  it("offsets added while the master weight is 0 do not pile up", () => {
    const h = harness();
    const s = h.solver;
    s.ikPositionWeight = 0;
    s.bodyEffector.positionOffset.y = -0.1;
    s.update();
    expect(s.bodyEffector.positionOffset.y).toBe(0);
  });

  it("a hand beyond reach pulls the body by the excess, projected on the character's up (pullBodyVertical) and plane (pullBodyHorizontal)", () => {
    for (const [vertical, horizontal] of [
      [1, 0],
      [0, 1],
      [0.5, -0.5],
    ] as const) {
      const h = harness();
      const s = h.solver;
      s.pullBodyVertical = vertical;
      s.pullBodyHorizontal = horizontal;
      const arm = s.leftArmChain;
      const shoulder = arm.nodes[0]!.bonePosition;
      const armLength = arm.nodes[0]!.length + arm.nodes[1]!.length;
      const e = s.leftHandEffector;
      e.position.x = shoulder.x + 0.3;
      e.position.y = shoulder.y + 0.6;
      e.position.z = shoulder.z + 0.2;
      e.positionWeight = 0.8;
      let seen: Vec3 | null = null;
      s.onPreSolve.add(() => {
        seen = new Vec3(s.pullBodyOffset.x, s.pullBodyOffset.y, s.pullBodyOffset.z);
      });
      s.update();
      const d = new Vec3(e.position.x - shoulder.x, e.position.y - shoulder.y, e.position.z - shoulder.z);
      const dl = Math.hypot(d.x, d.y, d.z);
      const k = ((dl - armLength) / dl) * 0.8;
      // the synthetic root is unrotated: up is +Y
      const expected = new Vec3(d.x * k * horizontal, d.y * k * vertical, d.z * k * horizontal);
      expect(dist(seen!, expected)).toBeLessThan(1e-12);
    }
  });
});
