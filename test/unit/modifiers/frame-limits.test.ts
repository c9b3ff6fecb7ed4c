/**
 * The modifiers' spaces and limits without a character: the character frame in both handedness modes
 * (offsets and rotations mirror with the scene), world rotations brought into a (mirrored) component
 * space, and OffsetLimits' hard and soft clamps.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { CharacterFrame, worldDeltaToComponent } from "../../../src/effectors/modifiers/frame.js";
import { OffsetLimits } from "../../../src/effectors/modifiers/offset-modifier.js";
import type { BabylonRig } from "../../../src/babylon/babylon-rig.js";
import { Quat, copyQuat, fromAxisAngle, rotateVector } from "../../../src/math/quat.js";
import { Vec3, copy } from "../../../src/math/vec3.js";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones.js";
import { Random } from "../../helpers/random.js";

const rng = new Random(7);
const V = (v: { x: number; y: number; z: number }): Vector3 => new Vector3(v.x, v.y, v.z);
const randomQuat = (): Quaternion => {
  const q = rng.unitQuaternion();
  return new Quaternion(q.x, q.y, q.z, q.w);
};
const randomVec = (s = 1): Vector3 => new Vector3(rng.range(-s, s), rng.range(-s, s), rng.range(-s, s));
const rotate = (q: { x: number; y: number; z: number; w: number }, v: Vector3): Vector3 => {
  const out = rotateVector(new Vec3(), q, v);
  return new Vector3(out.x, out.y, out.z);
};
/** A frame with a random orientation (forward and up from a random rotation). */
const randomFrame = (rightHanded: boolean): CharacterFrame => {
  const q = randomQuat();
  return new CharacterFrame().setAxes(rotate(q, new Vector3(0, 0, 1)), rotate(q, new Vector3(0, 1, 0)), rightHanded);
};

describe("CharacterFrame", () => {
  it("x is the character's right: +X facing +Z in a left-handed scene, −X in a right-handed one", () => {
    const lh = new CharacterFrame().setAxes(new Vector3(0, 0, 1), new Vector3(0, 1, 0), false);
    const rh = new CharacterFrame().setAxes(new Vector3(0, 0, 1), new Vector3(0, 1, 0), true);
    expect([lh.right.x, lh.right.y, lh.right.z]).toEqual([1, 0, 0]);
    expect([rh.right.x, rh.right.y, rh.right.z].map((v) => v + 0)).toEqual([-1, 0, 0]);
    expect(lh.determinant).toBe(1);
    expect(rh.determinant).toBe(-1);
  });

  it("orthonormalises a forward that is not perpendicular to up, and survives degenerate input", () => {
    const f = new CharacterFrame().setAxes(new Vector3(0, 1, 1), new Vector3(0, 2, 0), false);
    expect(V(f.up).asArray()).toEqual([0, 1, 0]);
    expect(
      V(f.forward)
        .subtract(new Vector3(0, 0, 1))
        .length(),
    ).toBeLessThan(1e-15);
    const d = new CharacterFrame().setAxes(new Vector3(0, 1, 0), new Vector3(0, 1, 0), false);
    expect(Math.abs(Vector3.Dot(V(d.forward), V(d.up)))).toBeLessThan(1e-12);
    expect(V(d.forward).length()).toBeCloseTo(1, 12);
    const z = new CharacterFrame().setAxes(new Vector3(0, 0, 0), new Vector3(0, 0, 0), true);
    expect(V(z.up).asArray()).toEqual([0, 1, 0]);
    expect(Math.abs(Vector3.Dot(V(z.forward), V(z.up)))).toBeLessThan(1e-12);
  });

  it("directions round-trip through world and local, with a local rotation (10,000 cases)", () => {
    for (let i = 0; i < 10_000; i++) {
      const f = randomFrame(i % 2 === 1);
      copyQuat(f.localRotation, randomQuat());
      const v = randomVec(2);
      const back = f.directionToLocal(f.directionToWorld(v, new Vector3()), new Vector3());
      expect(back.subtract(v).length()).toBeLessThan(1e-12);
      // lengths and the frame's origin
      copy(f.position, randomVec(5));
      const p = f.pointToLocal(f.pointToWorld(v, new Vector3()), new Vector3());
      expect(p.subtract(v).length()).toBeLessThan(1e-11);
    }
  });

  it("rotationToWorld conjugates by the frame: turning a local vector then mapping it = mapping it then turning it (proper and mirrored frames)", () => {
    for (let i = 0; i < 10_000; i++) {
      const f = randomFrame(i % 2 === 1);
      if (i % 3 === 0) copyQuat(f.localRotation, randomQuat());
      const q = randomQuat();
      const v = randomVec();
      const a = f.directionToWorld(rotate(q, v), new Vector3());
      const qw = f.rotationToWorld(q, new Quaternion());
      const b = rotate(qw, f.directionToWorld(v, new Vector3()));
      expect(a.subtract(b).length()).toBeLessThan(1e-12);
    }
  });
});

describe("worldDeltaToComponent", () => {
  it("turning a bone by the component delta turns it by the world delta, in a mirrored component space too", () => {
    for (let i = 0; i < 5000; i++) {
      const mirrored = i % 2 === 1;
      const c = rng.unitQuaternion();
      const rig = { componentRotation: new Quat(c.x, c.y, c.z, c.w), mirrored } as unknown as BabylonRig;
      // component → world: M = C · S, C in Babylon's convention (Matrix.decompose's rotation), so S
      // mirrors y when mirrored
      const toWorld = (u: Vector3): Vector3 => rotate(c, new Vector3(u.x, mirrored ? -u.y : u.y, u.z));
      const axis = rng.unitVector();
      const dw = fromAxisAngle(new Quat(), axis, rng.range(-3, 3));
      const dc = worldDeltaToComponent(rig, dw, new Quat());
      const u = randomVec();
      const expected = rotate(dw, toWorld(u));
      const got = toWorld(rotate(dc, u));
      expect(got.subtract(expected).length()).toBeLessThan(1e-12);
    }
  });
});

describe("OffsetLimits", () => {
  const frame = new CharacterFrame().setAxes(new Vector3(1, 0, 1), new Vector3(0, 1, 0), false);

  it("clamps the flagged axes of the offset in root space and leaves the others", () => {
    const limits = new OffsetLimits({
      effector: FullBodyBipedEffector.Body,
      x: true,
      z: true,
      min: { x: -0.1, y: -1, z: -0.05 },
      max: { x: 0.1, y: 1, z: 0.02 },
    });
    const local = new Vector3(0.3, 0.7, -0.2);
    const offset = frame.directionToWorld(local, new Vector3());
    limits.applyTo(offset, frame);
    const after = frame.directionToLocal(offset, new Vector3());
    expect(after.x).toBeCloseTo(0.1, 14);
    expect(after.y).toBeCloseTo(0.7, 14);
    expect(after.z).toBeCloseTo(-0.05, 14);
  });

  it("with spring the overshoot beyond a limit is kept × spring (soft limit); inside the limits nothing changes", () => {
    const limits = new OffsetLimits({
      effector: FullBodyBipedEffector.Body,
      spring: 0.25,
      x: true,
      y: true,
      z: true,
      min: { x: -0.1, y: -0.1, z: -0.1 },
      max: { x: 0.1, y: 0.1, z: 0.1 },
    });
    const offset = frame.directionToWorld(new Vector3(0.5, -0.3, 0.05), new Vector3());
    limits.applyTo(offset, frame);
    const after = frame.directionToLocal(offset, new Vector3());
    expect(after.x).toBeCloseTo(0.1 + 0.4 * 0.25, 14);
    expect(after.y).toBeCloseTo(-0.1 - 0.2 * 0.25, 14);
    expect(after.z).toBeCloseTo(0.05, 14);
  });

  it("no flagged axis leaves the offset bit for bit", () => {
    const limits = new OffsetLimits({
      effector: FullBodyBipedEffector.Body,
      min: { x: 0, y: 0, z: 0 },
      max: { x: 0, y: 0, z: 0 },
    });
    const offset = new Vector3(0.123, -0.456, 0.789);
    limits.applyTo(offset, frame);
    expect(offset.asArray()).toEqual([0.123, -0.456, 0.789]);
  });
});
