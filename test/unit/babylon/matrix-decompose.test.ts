/**
 * The Babylon math the modifiers write out instead of calling (no double crosses a call): equal bit for bit to
 * Babylon's own, over random matrices and angles.
 */
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { decomposeRotationToRef } from "../../../src/babylon/matrix-decompose.js";
import { rotationFromHalfAngles } from "../../../src/effectors/modifiers/frame.js";
import { Quat } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { Random } from "../../helpers/random.js";

const rng = new Random(11);
const fields = (q: { x: number; y: number; z: number; w: number }) => [q.x, q.y, q.z, q.w];

describe("written-out Babylon math", () => {
  it("decomposeRotationToRef gives Matrix.decompose's rotation bit for bit (scaled, mirrored, identity, zero scale)", () => {
    const cases: Matrix[] = [Matrix.Identity(), Matrix.Scaling(0, 1, 1), Matrix.Scaling(1, 1, -1)];
    for (let i = 0; i < 400; i++) {
      const u = rng.unitQuaternion();
      const s = new Vector3(rng.range(0.01, 3), rng.range(0.01, 3), rng.range(0.01, 3));
      // every sign pattern of the scale: mirrored matrices take decompose's negative-determinant branch
      if (i % 2) s.x = -s.x;
      if (i % 3 === 0) s.y = -s.y;
      if (i % 5 === 0) s.z = -s.z;
      const t = new Vector3(rng.range(-5, 5), rng.range(-5, 5), rng.range(-5, 5));
      cases.push(Matrix.Compose(s, new Quaternion(u.x, u.y, u.z, u.w), t));
    }
    const ours = new Quaternion();
    const theirs = new Quaternion();
    for (const m of cases) {
      m.decompose(undefined, theirs);
      decomposeRotationToRef(m, ours);
      expect(fields(ours)).toEqual(fields(theirs));
    }
  });

  it("rotationFromHalfAngles gives Quaternion.RotationYawPitchRollToRef's rotation bit for bit", () => {
    const half = new Vec3();
    const ours = new Quat();
    const theirs = new Quaternion();
    for (let i = 0; i < 400; i++) {
      const pitch = rng.range(-4, 4);
      const yaw = rng.range(-4, 4);
      const roll = rng.range(-4, 4);
      half.x = pitch * 0.5;
      half.y = yaw * 0.5;
      half.z = roll * 0.5;
      rotationFromHalfAngles(ours, half);
      Quaternion.RotationYawPitchRollToRef(yaw, pitch, roll, theirs);
      expect(fields(ours)).toEqual(fields(theirs));
    }
  });
});
