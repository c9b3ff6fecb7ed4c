/**
 * LimbIK's bend goal and LookAtIK on the UAL character (and Xbot when ../shared is there), glTF, bones found
 * by the reference detection: a bend goal turns the elbow toward it; with clamps 0 and weights 1 the head
 * looks straight at the target within 0.01°, and with a clamp the head never turns past its bound. Reach,
 * mirroring and weight 0 of LimbIK and AimIK on every model: test/scenario/family-models.test.ts.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, expect, it } from "vitest";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { Random } from "../helpers/random.js";

const pos = (n: TransformNode) => {
  n.computeWorldMatrix(true);
  return n.absolutePosition.clone();
};
const angleDeg = (a: Vector3, b: Vector3) =>
  (Math.acos(Math.min(1, Math.max(-1, Vector3.Dot(a.normalizeToNew(), b.normalizeToNew())))) * 180) / Math.PI;

/** The committed UAL character, and Xbot when ../shared is beside the repository. */
const MODELS: ModelName[] = (["UAL", "Xbot"] as const).filter((m) => modelAvailable(m));

/** A model with its bones found by the library's reference detection (any naming convention). */
async function character(name: ModelName, rightHanded: boolean) {
  const model = await loadModel(name, { rightHanded });
  const refs = resolveBipedReferences(model.skeleton).references;
  const named = {
    LeftArm: refs.leftUpperArm,
    LeftForeArm: refs.leftForearm,
    LeftHand: refs.leftHand,
    Head: refs.head!,
  };
  const bone = (n: keyof typeof named) => named[n];
  const node = (n: keyof typeof named) => named[n].getTransformNode()!;
  model.scene.render();
  return { model, refs, bone, node };
}

describe.each(MODELS)("LimbIK on %s's arm", (name) => {
  // reach, LH/RH mirror and weight 0 on every model's arm and leg: test/scenario/family-models.test.ts
  it("a bend goal turns the elbow toward it", async () => {
    const { model, bone, node } = await character(name, false);
    const ik = LimbIK.create(model.scene, bone("LeftArm"), bone("LeftForeArm"), bone("LeftHand"));
    const shoulder = pos(node("LeftArm"));
    ik.targetPosition.copyFrom(shoulder.add(new Vector3(0.1, -0.3, 0.2)));
    ik.solver.bendGoalWeight = 1;
    for (const side of [1, -1]) {
      ik.bendGoalPosition.copyFrom(shoulder.add(new Vector3(0, -0.2, 0.5 * side)));
      model.scene.render();
      const elbow = pos(node("LeftForeArm"));
      expect((elbow.z - shoulder.z) * side).toBeGreaterThan(0.05);
    }
    ik.dispose();
    model.dispose();
  });
});

// AimIK on every model's forearm and shin, both handednesses: test/scenario/family-models.test.ts

describe.each(MODELS)("LookAtIK on %s", (name) => {
  it("a camera as the target: the head looks at the viewer, following the camera as it moves", async () => {
    const { model, bone, node } = await character(name, false);
    const camera = model.scene.activeCamera!;
    const headNode = node("Head");
    const forwardWorld = new Vector3(0, 0, 1);
    const ik = LookAtIK.create(model.scene, { head: bone("Head") }, { target: camera, forward: forwardWorld });
    ik.solver.clampWeightHead = 0;
    ik.solver.headWeight = 1;
    const local = Vector3.TransformNormal(forwardWorld, headNode.getWorldMatrix().clone().invert());
    for (const x of [-1, 0, 1.5]) {
      camera.position.set(x, 1.6, 3);
      model.scene.render();
      const face = Vector3.TransformNormal(local, headNode.computeWorldMatrix(true));
      expect(angleDeg(face, camera.globalPosition.subtract(pos(headNode)))).toBeLessThan(0.01);
    }
    ik.dispose();
    model.dispose();
  });

  it("clamps 0, weights 1: the head looks at the target within 0.01°; a clamp bounds the turn", async () => {
    const { model, refs, bone, node } = await character(name, false);
    const spine = refs.spine;
    const head = bone("Head");
    // the look direction given in the world at creation, carried by the head's frame (its world matrix: the
    // left-handed scene's glTF root is a mirror, which a rotation quaternion cannot carry)
    const headNode = node("Head");
    const forwardWorld = new Vector3(0, 0, 1);
    const ik = LookAtIK.create(model.scene, { spine, head }, { forward: forwardWorld });
    const local = Vector3.TransformNormal(forwardWorld, headNode.getWorldMatrix().clone().invert());
    const faceNow = () => Vector3.TransformNormal(local, headNode.computeWorldMatrix(true));
    const s = ik.solver;
    s.clampWeight = 0;
    s.clampWeightHead = 0;
    s.bodyWeight = 1;
    s.headWeight = 1;
    const random = new Random(19);
    const headPos = pos(headNode);
    let worst = 0;
    for (let k = 0; k < 20; k++) {
      const target = headPos.add(new Vector3(random.range(-2, 2), random.range(-1, 1), random.range(0.5, 3)));
      ik.targetPosition.copyFrom(target);
      model.scene.render();
      const face = faceNow();
      worst = Math.max(worst, angleDeg(face, target.subtract(pos(headNode))));
    }
    expect(worst).toBeLessThan(0.01);
    // a target behind, the spine still: with clamp 0.5 the head turns at most (1 − 0.5) × 180° from the
    // spine's forward (the head's clamp is relative to the top spine bone)
    s.bodyWeight = 0;
    s.clampWeightHead = 0.5;
    ik.targetPosition.copyFrom(headPos.add(new Vector3(0.3, 0, -2)));
    model.scene.render();
    const turned = angleDeg(faceNow(), forwardWorld);
    expect(turned).toBeLessThanOrEqual(90 + 1e-6);
    // it did turn (FinalIK's clamp fades the turn as the target goes behind rather than stopping it at the bound)
    expect(turned).toBeGreaterThan(5);
    ik.dispose();
    model.dispose();
  });
});
