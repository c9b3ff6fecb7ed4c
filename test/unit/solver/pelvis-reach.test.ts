import { describe, expect, it } from "vitest";
import { Quat, fromAxisAngle, multiply, multiplyConjugate, rotateVector } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { planeRotation, symmetricPlaneRotation } from "../../../src/solver/plane.js";
import { Random } from "../../helpers/random.js";
import { mappedBiped, worstLengthChange } from "./posed-targets.js";

const angle = (q: Quat) => 2 * Math.acos(Math.min(1, Math.abs(q.w)));

describe("symmetricPlaneRotation", () => {
  it("gives the rigid turn of a turned triangle exactly, as planeRotation does", () => {
    const r = new Random(2);
    for (let k = 0; k < 200; k++) {
      const p = [0, 1, 2].map(() => new Vec3(r.next() - 0.5, r.next() - 0.5, r.next() - 0.5));
      const axis = new Vec3(r.next() - 0.5, r.next() - 0.5, r.next() - 0.5);
      const l = Math.hypot(axis.x, axis.y, axis.z);
      const turn = fromAxisAngle(new Quat(), new Vec3(axis.x / l, axis.y / l, axis.z / l), 2 * r.next());
      const q = p.map((v) => rotateVector(new Vec3(), turn, v));
      const a = symmetricPlaneRotation(new Quat(), p[0]!, p[1]!, p[2]!);
      const b = symmetricPlaneRotation(new Quat(), q[0]!, q[1]!, q[2]!);
      const got = multiplyConjugate(new Quat(), b, a);
      expect(angle(multiplyConjugate(new Quat(), got, turn))).toBeLessThan(1e-7);
    }
  });

  it("does not turn when both outer points move apart alike, where planeRotation does", () => {
    const root = new Vec3(0, 0, 0);
    const [l0, r0] = [new Vec3(0.1, -0.05, 0), new Vec3(-0.1, -0.05, 0)];
    const [l1, r1] = [new Vec3(0.13, -0.05, 0), new Vec3(-0.13, -0.05, 0)];
    const sym = multiplyConjugate(
      new Quat(),
      symmetricPlaneRotation(new Quat(), root, l1, r1),
      symmetricPlaneRotation(new Quat(), root, l0, r0),
    );
    const plain = multiplyConjugate(
      new Quat(),
      planeRotation(new Quat(), root, l1, r1),
      planeRotation(new Quat(), root, l0, r0),
    );
    expect(angle(sym)).toBeLessThan(1e-12);
    expect(angle(plain)).toBeGreaterThan(0.05);
  });
});

describe("the pelvis turns toward feet beyond their legs' reach (preserveBoneLengths)", () => {
  /**
   * Feet targets from a copy whose pelvis rolled 0.3 rad about the root node (the left thigh lower, the right
   * higher), the body pinned where it stands: reachable only by turning the hips.
   */
  function rolledHips(preserve: boolean) {
    const m = mappedBiped();
    m.solver.preserveBoneLengths = preserve;
    const target = m.rest.clone();
    const pelvis = m.b.bones.pelvis;
    const [body, , , left, right] = m.effectors;
    const pivot = m.rest.getPosition(body!.bone, new Vec3());
    const roll = fromAxisAngle(new Quat(), new Vec3(0, 0, 1), -0.3);
    const p = target.getPosition(pelvis, new Vec3());
    const offset = rotateVector(new Vec3(), roll, new Vec3(p.x - pivot.x, p.y - pivot.y, p.z - pivot.z));
    target.setPosition(pelvis, new Vec3(pivot.x + offset.x, pivot.y + offset.y, pivot.z + offset.z));
    target.setRotation(pelvis, multiply(new Quat(), roll, target.getRotation(pelvis, new Quat())));
    for (const { effector, bone } of [left!, right!]) {
      target.getPosition(bone, effector.position);
      effector.positionWeight = 1;
    }
    m.rest.getPosition(body!.bone, body!.effector.position);
    body!.effector.positionWeight = 1;
    m.solver.update();
    let error = 0;
    for (const { effector, bone } of [left!, right!]) {
      const f = m.b.pose.getPosition(bone, new Vec3());
      const t = effector.position;
      error = Math.max(error, Math.hypot(f.x - t.x, f.y - t.y, f.z - t.z) / m.b.height);
    }
    const turned = multiplyConjugate(
      new Quat(),
      m.b.pose.getRotation(pelvis, new Quat()),
      m.rest.getRotation(pelvis, new Quat()),
    );
    return { error, turn: angle(turned), stretch: worstLengthChange(m) / m.b.height };
  }

  it("feet that need the hips rolled are met by rolling them, every bone length kept; FinalIK misses or stretches", () => {
    const kept = rolledHips(true);
    const finalIK = rolledHips(false);
    expect(kept.error).toBeLessThan(1e-6);
    expect(kept.turn).toBeGreaterThan(0.1);
    expect(kept.stretch).toBeLessThan(1e-6);
    expect(Math.max(finalIK.error, finalIK.stretch)).toBeGreaterThan(1e-3);
  });

  it("feet within reach leave the pelvis unturned", () => {
    const m = mappedBiped();
    const [body, , , left, right] = m.effectors;
    for (const { effector, bone } of [body!, left!, right!]) {
      m.rest.getPosition(bone, effector.position);
      effector.positionWeight = 1;
    }
    left!.effector.position.z += 0.03 * m.b.height;
    m.solver.update();
    const pelvis = m.b.bones.pelvis;
    const turned = multiplyConjugate(
      new Quat(),
      m.b.pose.getRotation(pelvis, new Quat()),
      m.rest.getRotation(pelvis, new Quat()),
    );
    expect(angle(turned)).toBeLessThan(1e-6);
  });
});
