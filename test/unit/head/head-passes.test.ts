/**
 * The head effector's engine-neutral pieces: partial rotations and FinalIK's rotation clamp (property tests
 * over seeded random rotations), and the bend, CCD and stretch passes on a spine built in code
 * (HierarchyPose): the bend spreads the target's turn over the bones, the CCD brings the head closer to a
 * target, the stretch carries the head by the stretch vector.
 */
import { describe, expect, it } from "vitest";
import { HeadPassInput, bendSpine, ccdPass, stretchBones } from "../../../src/effectors/head/head-passes.js";
import { RotationIO, clampRotation, partialRotation } from "../../../src/effectors/head/head-rotation.js";
import { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import { Quat, angleBetween, fromAxisAngle, multiply, multiplyConjugate } from "../../../src/math/quat.js";
import { Vec3, distance } from "../../../src/math/vec3.js";
import { Random } from "../../helpers/random.js";

const I = new Quat();

function randomRotation(rng: Random, maxAngle = Math.PI): Quat {
  const a = rng.unitVector();
  return fromAxisAngle(new Quat(), new Vec3(a.x, a.y, a.z), rng.range(0, maxAngle));
}

/** Pelvis, four spine bones, neck, head: a vertical chain 0.1 apart. */
function spine(): HierarchyPose {
  const bones = ["pelvis", "spine1", "spine2", "spine3", "chest", "neck", "head"].map((name, i) => ({
    name,
    parent: i - 1,
    position: new Vec3(0, i === 0 ? 1 : 0.1, 0),
    rotation: new Quat(),
  }));
  return new HierarchyPose(bones);
}

describe("partialRotation", () => {
  it("t of a rotation has t of its angle about the same axis; 0 and 1 give identity and the rotation", () => {
    const rng = new Random(7);
    const io = new RotationIO();
    const out = new Quat();
    for (let i = 0; i < 10_000; i++) {
      const q = randomRotation(rng);
      const t = rng.range(0, 1);
      io.t = t;
      partialRotation(out, q, io);
      const full = angleBetween(I, q);
      expect(io.angle).toBeCloseTo(full, 9);
      expect(angleBetween(I, out)).toBeCloseTo(full * t, 9);
      // same axis: out and q commute
      const a = multiply(new Quat(), out, q);
      const b = multiply(new Quat(), q, out);
      expect(angleBetween(a, b)).toBeLessThan(1e-9);
      io.t = 1;
      expect(angleBetween(partialRotation(out, q, io), q)).toBeLessThan(1e-9);
    }
  });
});

describe("clampRotation", () => {
  it("0 leaves any rotation, 1 clamps to identity, 0.5 passes up to 90° and never grows an angle", () => {
    const rng = new Random(11);
    const io = new RotationIO();
    const out = new Quat();
    for (let i = 0; i < 10_000; i++) {
      const q = randomRotation(rng);
      const angle = angleBetween(I, q);
      io.t = 0;
      expect(angleBetween(clampRotation(out, q, io, 2), q)).toBeLessThan(1e-12);
      io.t = 1;
      expect(clampRotation(out, q, io, 2)).toEqual(new Quat());
      io.t = 0.5;
      clampRotation(out, q, io, 2);
      if (angle < Math.PI / 2 - 1e-9) expect(angleBetween(out, q)).toBeLessThan(1e-12);
      expect(angleBetween(I, out)).toBeLessThanOrEqual(angle + 1e-12);
      expect(io.t).toBe(0.5);
    }
  });
});

describe("bend, CCD and stretch passes", () => {
  it("the bend spreads the target's turn over the bones by weight: at weight 1 the chest turns by all of it", () => {
    const pose = spine();
    const ids = Int32Array.from([1, 2, 3, 4]);
    const weights = Float64Array.from([1, 1, 1, 1]);
    const turn = fromAxisAngle(new Quat(), new Vec3(0, 1, 0), 0.6);
    const input = new HeadPassInput();
    input.weight = 1;
    bendSpine(pose, ids, weights, new Quat(), new Quat(), turn, input);
    expect(angleBetween(pose.getRotation(4, new Quat()), turn)).toBeLessThan(1e-12);
    expect(angleBetween(pose.getRotation(1, new Quat()), I)).toBeCloseTo(0.15, 12);
    // clamped: 1 leaves the spine as it was
    const still = spine();
    input.clampWeight = 1;
    bendSpine(still, ids, weights, new Quat(), new Quat(), turn, input);
    expect(angleBetween(still.getRotation(4, new Quat()), I)).toBe(0);
  });

  it("the bend is relative to the head's rest rotation on the root", () => {
    const pose = spine();
    const ids = Int32Array.from([1, 2, 3, 4]);
    const weights = Float64Array.from([1, 1, 1, 1]);
    const rest = fromAxisAngle(new Quat(), new Vec3(1, 0, 0), 0.3);
    const root = fromAxisAngle(new Quat(), new Vec3(0, 1, 0), 1.0);
    const target = multiply(new Quat(), root, rest);
    const input = new HeadPassInput();
    input.weight = 1;
    bendSpine(pose, ids, weights, rest, root, target, input);
    // the target is the rest head carried by the root: nothing to bend
    for (const id of ids) expect(angleBetween(pose.getRotation(id, new Quat()), I)).toBeLessThan(1e-12);
  });

  it("the CCD pass brings the head toward its target; with roll 1 too", () => {
    const rng = new Random(3);
    const ids = Int32Array.from([1, 2, 3, 4, 5]);
    const input = new HeadPassInput();
    input.weight = 1;
    for (let i = 0; i < 200; i++) {
      const pose = spine();
      const head = pose.getPosition(6, new Vec3());
      const d = rng.unitVector();
      const target = new Vec3(head.x + d.x * 0.2, head.y - 0.1 + d.y * 0.05, head.z + d.z * 0.2);
      const before = distance(head, target);
      input.roll = 0;
      input.damper = 500;
      ccdPass(pose, ids, 6, target, input);
      expect(distance(pose.getPosition(6, new Vec3()), target)).toBeLessThan(before);
      const full = spine();
      input.roll = 1;
      input.damper = 0;
      ccdPass(full, ids, 6, target, input);
      expect(distance(full.getPosition(6, new Vec3()), target)).toBeLessThan(before);
    }
  });

  it("the stretch carries the end of a chain by the stretch vector, split over the bones", () => {
    const pose = spine();
    const head = pose.getPosition(6, new Vec3());
    stretchBones(pose, Int32Array.from([4, 5]), new Vec3(0.01, 0.02, -0.03));
    const moved = pose.getPosition(6, new Vec3());
    expect(moved.x - head.x).toBeCloseTo(0.01, 12);
    expect(moved.y - head.y).toBeCloseTo(0.02, 12);
    expect(moved.z - head.z).toBeCloseTo(-0.03, 12);
    const chest = pose.getPosition(4, new Vec3());
    expect(chest.x).toBeCloseTo(0.005, 12);
  });

  it("a zero weight leaves the pose untouched", () => {
    const pose = spine();
    const input = new HeadPassInput();
    const target = new Vec3(0.3, 1.2, 0.3);
    ccdPass(pose, Int32Array.from([1, 2, 3]), 6, target, input);
    bendSpine(
      pose,
      Int32Array.from([1, 2]),
      Float64Array.from([1, 1]),
      I,
      I,
      multiplyConjugate(new Quat(), target.x > 0 ? fromAxisAngle(new Quat(), new Vec3(0, 1, 0), 1) : I, I),
      input,
    );
    for (let i = 0; i < 7; i++) expect(pose.getRotation(i, new Quat())).toEqual(new Quat());
  });
});
