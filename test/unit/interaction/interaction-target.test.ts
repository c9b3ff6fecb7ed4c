import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InteractionTarget } from "../../../src/effectors/interaction/interaction-target.js";
import { NumberRef } from "../../../src/math/number-ref.js";
import {
  lerpVector3ByRef,
  multiplyQuaternionsToRef,
  nlerpToRef,
  positionOfMatrix,
  rotationOfMatrix,
  setWorldMatrix,
  transformCoordinatesToRef,
} from "../../../src/effectors/interaction/node-pose.js";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones.js";

let engine: NullEngine;
let scene: Scene;
beforeEach(() => {
  engine = new NullEngine();
  scene = new Scene(engine);
});
afterEach(() => {
  scene.dispose();
  engine.dispose();
});

function pos(n: TransformNode): Vector3 {
  return n.computeWorldMatrix(true).getTranslation();
}

/** A knob at (2, 1, 0) with its pivot, and a hand target 0.1 out along the pivot's +X. */
function knob(parent: TransformNode | null = null) {
  const pivot = new TransformNode("pivot", scene);
  pivot.parent = parent;
  pivot.position.set(2, 1, 0);
  pivot.rotationQuaternion = Quaternion.Identity();
  const node = new TransformNode("target", scene);
  node.parent = pivot;
  node.position.set(0.1, 0, 0);
  return { pivot, node };
}

describe("InteractionTarget.rotateTo", () => {
  it("twists the pivot about its axis so the target faces the bone, by twistWeight, and resets", () => {
    const { pivot, node } = knob();
    const t = new InteractionTarget(FullBodyBipedEffector.RightHand, node, { pivot });
    // the bone is on the pivot's −Z side, a little higher (height does not matter for a twist about up)
    t.rotateTo(new Vector3(2, 1.5, -3));
    const d = pos(node).subtract(pos(pivot));
    expect(d.x).toBeCloseTo(0, 6);
    expect(d.y).toBeCloseTo(0, 6);
    expect(d.z).toBeCloseTo(-0.1, 6);
    // half the twist
    t.twistWeight = 0.5;
    t.rotateTo(new Vector3(2, 1.5, -3));
    const h = pos(node).subtract(pos(pivot)).normalize();
    expect(Vector3.Dot(h, new Vector3(1, 0, -1).normalize())).toBeCloseTo(1, 6);
    // the pivot does not move; reset puts it back
    expect(Vector3.Distance(pos(pivot), new Vector3(2, 1, 0))).toBeLessThan(1e-6);
    t.resetRotation();
    expect(Vector3.Distance(pos(node), new Vector3(2.1, 1, 0))).toBeLessThan(1e-6);
  });

  it("swings freely toward the bone with swingWeight 1; no pivot: no-op", () => {
    const { pivot, node } = knob();
    const t = new InteractionTarget(FullBodyBipedEffector.LeftHand, node, { pivot, twistWeight: 0, swingWeight: 1 });
    const bone = new Vector3(2, 4, 0);
    t.rotateTo(bone);
    const d = pos(node).subtract(pos(pivot)).normalize();
    expect(Vector3.Dot(d, bone.subtract(pos(pivot)).normalize())).toBeCloseTo(1, 6);
    const free = new InteractionTarget(FullBodyBipedEffector.LeftHand, node);
    free.rotateTo(bone);
    expect(free.pivot).toBeNull();
  });

  it("works under a mirrored, scaled, rotated parent (a glTF prop in a left-handed scene)", () => {
    const parent = new TransformNode("mirror", scene);
    parent.scaling.set(-2, 2, 2);
    parent.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.7);
    parent.position.set(0.3, 0, 0.5);
    const { pivot, node } = knob(parent);
    const t = new InteractionTarget(FullBodyBipedEffector.RightHand, node, { pivot });
    const bone = pos(pivot).add(new Vector3(-3, 0.4, 1));
    t.rotateTo(bone);
    const d = pos(node).subtract(pos(pivot));
    const toBone = bone.subtract(pos(pivot));
    d.y = 0;
    toBone.y = 0;
    expect(Vector3.Dot(d.normalize(), toBone.normalize())).toBeCloseTo(1, 6);
    // the mirror is still in the pivot's world matrix
    expect(pivot.computeWorldMatrix(true).determinant()).toBeLessThan(0);
  });
});

describe("node-pose helpers", () => {
  it("rotationOfMatrix: the rotation itself for proper matrices; Babylon's decomposition (X and Z axes, Y flipped) of mirrored ones", () => {
    const q = Quaternion.RotationYawPitchRoll(0.3, -0.8, 1.7);
    const m = Matrix.Compose(new Vector3(2, 2, 2), q, new Vector3(1, 2, 3));
    const out = rotationOfMatrix(m, new Quaternion());
    expect(Math.abs(Quaternion.Dot(out, q))).toBeCloseTo(1, 6);
    const mirrored = Matrix.Scaling(-1, 1, 1).multiply(m);
    const r = rotationOfMatrix(mirrored, new Quaternion());
    const rm = new Matrix();
    Matrix.FromQuaternionToRef(r, rm);
    const row = (mm: Matrix, i: number) => new Vector3(mm.m[i * 4]!, mm.m[i * 4 + 1]!, mm.m[i * 4 + 2]!).normalize();
    expect(Vector3.Dot(row(rm, 0), row(mirrored, 0))).toBeCloseTo(1, 6);
    expect(Vector3.Dot(row(rm, 2), row(mirrored, 2))).toBeCloseTo(1, 6);
    expect(Vector3.Dot(row(rm, 1), row(mirrored, 1))).toBeCloseTo(-1, 6);
    const decomposed = new Quaternion();
    mirrored.decompose(undefined, decomposed);
    expect(Math.abs(Quaternion.Dot(r, decomposed))).toBeCloseTo(1, 6);
  });

  it("setWorldMatrix gives a node a world matrix through any parent; nlerp blends along the short arc", () => {
    const parent = new TransformNode("p", scene);
    // a mirror with uniform magnitude (a non-uniform scale would need shear to hold a rotated child)
    parent.scaling.set(-3, 3, 3);
    parent.rotationQuaternion = Quaternion.RotationYawPitchRoll(1, 0.2, 0);
    const child = new TransformNode("c", scene);
    child.parent = parent;
    const world = Matrix.Compose(
      new Vector3(1, 1, 1),
      Quaternion.RotationYawPitchRoll(-0.4, 0.9, 0.1),
      new Vector3(4, 5, 6),
    );
    setWorldMatrix(child, world);
    const got = child.computeWorldMatrix(true);
    for (let i = 0; i < 16; i++) expect(got.m[i]!).toBeCloseTo(world.m[i]!, 5);
    const a = Quaternion.RotationAxis(Vector3.Up(), 0.2);
    const b = Quaternion.RotationAxis(Vector3.Up(), 1.2);
    b.scaleInPlace(-1);
    const mid = nlerpToRef(a, b, 0.5, new Quaternion());
    expect(Math.abs(Quaternion.Dot(mid, Quaternion.RotationAxis(Vector3.Up(), 0.7)))).toBeCloseTo(1, 6);
    expect(nlerpToRef(a, b, 2, new Quaternion()).equalsWithEpsilon(b.scale(-1), 1e-6)).toBe(true);
  });

  it("the per-frame helpers (Babylon's fields written directly) give what Babylon's own methods give", () => {
    const m = Matrix.Compose(
      new Vector3(1, 2, 1.5),
      Quaternion.RotationYawPitchRoll(0.3, -0.7, 1.1),
      new Vector3(4, 5, 6),
    );
    const v = new Vector3(0.3, -1.2, 2.5);
    const p = transformCoordinatesToRef(v, m, new Vector3());
    expect(p.equalsWithEpsilon(Vector3.TransformCoordinates(v, m), 1e-12)).toBe(true);
    expect(positionOfMatrix(m, new Vector3()).equals(m.getTranslation())).toBe(true);
    const a = Quaternion.RotationYawPitchRoll(0.3, -0.7, 1.1);
    const b = Quaternion.RotationYawPitchRoll(-1.3, 0.2, 0.4);
    expect(multiplyQuaternionsToRef(a, b, new Quaternion()).equalsWithEpsilon(a.multiply(b), 1e-12)).toBe(true);
    // in place, as the paused effector uses it
    const c = a.clone();
    expect(multiplyQuaternionsToRef(c, b, c).equalsWithEpsilon(a.multiply(b), 1e-12)).toBe(true);
    const to = new Vector3(-2, 0.5, 3);
    expect(lerpVector3ByRef(v, to, new NumberRef(0.25), new Vector3()).equals(Vector3.Lerp(v, to, 0.25))).toBe(true);
  });
});
