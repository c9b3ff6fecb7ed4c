import { describe, expect, it } from "vitest";
import { Quat, fromAxisAngle, multiply, rotateVector } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { mappedBiped } from "./posed-targets.js";

/** The unit vector along (x, y, z). */
function unitAxis(x: number, y: number, z: number): Vec3 {
  const l = Math.hypot(x, y, z);
  return new Vec3(x / l, y / l, z / l);
}

/** Angle between two rotations, radians. */
function angleBetween(a: Quat, b: Quat): number {
  const d = Math.abs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
  return 2 * Math.acos(Math.min(1, d));
}

describe("the body effector's rotation (not in FinalIK)", () => {
  it("rotationWeight 1 alone, spineStiffness 1: the whole body turns rigidly about the root node's bone", () => {
    const m = mappedBiped();
    m.solver.spineStiffness = 1;
    const body = m.effectors[0]!;
    const pivot = m.rest.getPosition(body.bone, new Vec3());
    const turn = fromAxisAngle(new Quat(), unitAxis(0.2, 1, 0.1), 0.6);
    multiply(body.effector.rotation, turn, m.rest.getRotation(body.bone, new Quat()));
    body.effector.rotationWeight = 1;
    m.solver.update();
    const got = new Quat();
    m.b.pose.getRotation(body.bone, got);
    expect(angleBetween(got, body.effector.rotation)).toBeLessThan(1e-6);
    // every bone where the rigid turn puts it
    const p = new Vec3();
    const expected = new Vec3();
    for (let i = 0; i < m.b.pose.count; i++) {
      // the character's root is above the pelvis: it does not turn
      if (i === m.b.bones.root) continue;
      m.rest.getPosition(i, expected);
      rotateVector(expected, turn, new Vec3(expected.x - pivot.x, expected.y - pivot.y, expected.z - pivot.z));
      m.b.pose.getPosition(i, p);
      const d = Math.hypot(p.x - pivot.x - expected.x, p.y - pivot.y - expected.y, p.z - pivot.z - expected.z);
      expect(d / m.b.height, m.b.pose.names[i]).toBeLessThan(1e-9);
    }
  });

  it("spineStiffness 0: the hips turn, the spine above the root node keeps facing where it faced", () => {
    const m = mappedBiped();
    m.solver.spineStiffness = 0;
    const body = m.effectors[0]!;
    const chest = m.b.bones.spine[1]!;
    multiply(
      body.effector.rotation,
      fromAxisAngle(new Quat(), new Vec3(0, 1, 0), 0.6),
      m.rest.getRotation(body.bone, new Quat()),
    );
    body.effector.rotationWeight = 1;
    m.solver.update();
    expect(angleBetween(m.b.pose.getRotation(body.bone, new Quat()), body.effector.rotation)).toBeLessThan(1e-6);
    expect(angleBetween(m.b.pose.getRotation(chest, new Quat()), m.rest.getRotation(chest, new Quat()))).toBeLessThan(
      1e-6,
    );
    const pelvis = m.b.bones.pelvis;
    expect(angleBetween(m.b.pose.getRotation(pelvis, new Quat()), m.rest.getRotation(pelvis, new Quat()))).toBeCloseTo(
      0.6,
      6,
    );
  });

  it("rotationWeight 0.5 turns half way; 0 leaves the pose bit-exact", () => {
    const m = mappedBiped();
    const body = m.effectors[0]!;
    const rest = m.rest.getRotation(body.bone, new Quat());
    multiply(body.effector.rotation, fromAxisAngle(new Quat(), new Vec3(0, 1, 0), 0.8), rest);
    body.effector.rotationWeight = 0.5;
    m.solver.update();
    expect(angleBetween(m.b.pose.getRotation(body.bone, new Quat()), rest)).toBeCloseTo(0.4, 6);
    m.b.pose.copyLocalsFrom(m.rest);
    body.effector.rotationWeight = 0;
    m.solver.update();
    expect(m.b.pose.localRotations).toEqual(m.rest.localRotations);
    expect(m.b.pose.localPositions).toEqual(m.rest.localPositions);
  });

  it("with the feet pinned the body turns while the feet stay on their targets", () => {
    const m = mappedBiped();
    const body = m.effectors[0]!;
    const rest = m.rest.getRotation(body.bone, new Quat());
    multiply(body.effector.rotation, fromAxisAngle(new Quat(), new Vec3(0, 1, 0), 0.5), rest);
    body.effector.rotationWeight = 1;
    for (const k of [3, 4]) {
      const { effector, bone } = m.effectors[k]!;
      m.rest.getPosition(bone, effector.position);
      effector.positionWeight = 1;
    }
    m.solver.update();
    for (const k of [3, 4]) {
      const { effector, bone } = m.effectors[k]!;
      const p = m.b.pose.getPosition(bone, new Vec3());
      const e = effector.position;
      expect(Math.hypot(p.x - e.x, p.y - e.y, p.z - e.z) / m.b.height).toBeLessThan(1e-6);
    }
    // the pelvis turned by most of the half radian (the legs pull it back a little through the thighs)
    const pelvis = m.b.bones.pelvis;
    const turned = angleBetween(m.b.pose.getRotation(pelvis, new Quat()), m.rest.getRotation(pelvis, new Quat()));
    expect(turned).toBeGreaterThan(0.4);
    expect(turned).toBeLessThan(0.55);
  });

  it("a rotation that is not a rotation is ignored for the frame and reported once", () => {
    const m = mappedBiped();
    const body = m.effectors[0]!.effector;
    body.rotation.x = Number.NaN;
    body.rotationWeight = 1;
    m.solver.update();
    m.solver.update();
    const bone = m.effectors[0]!.bone;
    const turned = angleBetween(m.b.pose.getRotation(bone, new Quat()), m.rest.getRotation(bone, new Quat()));
    expect(turned).toBeLessThan(1e-9);
    expect(m.warnings.filter((w) => w.cause === "Body:rotation")).toHaveLength(1);
  });
});
