/**
 * LimbIK, AimIK and LookAtIK on the UAL character (and Xbot when ../shared is there), glTF, in left- and
 * right-handed scenes, bones found by the reference detection: the hand reaches reachable
 * targets exactly (0.01 % of the arm's length) and the two scenes mirror; an arm's aim axis points at the
 * target within 0.01°; with clamps 0 and weights 1 the head looks straight at the target within 0.01°, and
 * with a clamp the head never turns past its bound; weight 0 leaves the bones bit-exact.
 */
import { type Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, expect, it } from "vitest";
import { AimIK } from "../../src/babylon/aim-ik.js";
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
  it("the hand reaches 30 targets within 0.01 % of the arm's length; LH and RH mirror; weight 0 is bit-exact", async () => {
    const results: Vector3[][] = [];
    for (const rightHanded of [false, true]) {
      const { model, bone, node } = await character(name, rightHanded);
      const shoulder = pos(node("LeftArm"));
      const length =
        Vector3.Distance(shoulder, pos(node("LeftForeArm"))) +
        Vector3.Distance(pos(node("LeftForeArm")), pos(node("LeftHand")));
      const ik = LimbIK.create(model.scene, bone("LeftArm"), bone("LeftForeArm"), bone("LeftHand"));
      ik.solver.ikRotationWeight = 0;
      const ARM = ["LeftArm", "LeftForeArm", "LeftHand"] as const;
      const before = ARM.map((n) => node(n).rotationQuaternion!.clone());
      ik.solver.ikPositionWeight = 0;
      ik.targetPosition.copyFrom(shoulder.add(new Vector3(0.2, -0.2, 0.2)));
      model.scene.render();
      ARM.forEach((n, i) => expect(node(n).rotationQuaternion!.equals(before[i] as Quaternion)).toBe(true));
      ik.solver.ikPositionWeight = 1;
      const random = new Random(13);
      const reached: Vector3[] = [];
      for (let k = 0; k < 30; k++) {
        const d = new Vector3(random.range(-1, 1), random.range(-1, 1), random.range(-1, 1))
          .normalize()
          .scale(length * random.range(0.3, 0.95));
        // the right-handed load is the left-handed one mirrored in x (Babylon's glTF __root__)
        if (rightHanded) d.x = -d.x;
        ik.targetPosition.copyFrom(shoulder.add(d));
        model.scene.render();
        const hand = pos(node("LeftHand")).subtract(shoulder);
        expect(Vector3.Distance(hand, d) / length).toBeLessThan(1e-4);
        const elbow = pos(node("LeftForeArm")).subtract(shoulder);
        if (rightHanded) elbow.x = -elbow.x;
        reached.push(elbow);
      }
      results.push(reached);
      ik.dispose();
      model.dispose();
    }
    // the elbow (the bend the solver chose) is the mirror image in the other scene
    results[0]!.forEach((e, k) => expect(Vector3.Distance(e, results[1]![k]!)).toBeLessThan(1e-6));
  });

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

describe.each(MODELS)("AimIK on %s's arm", (name) => {
  for (const rightHanded of [false, true]) {
    it(`the forearm's axis points at 30 targets within 0.01° (${rightHanded ? "RH" : "LH"})`, async () => {
      const { model, bone, node } = await character(name, rightHanded);
      // aim along the forearm: the hand's offset in the forearm's frame
      const axis = node("LeftHand").position.normalizeToNew();
      const ik = AimIK.create(model.scene, [bone("LeftArm"), bone("LeftForeArm")], { axis });
      ik.solver.clampWeight = 0;
      ik.solver.maxIterations = 10;
      const shoulder = pos(node("LeftArm"));
      const random = new Random(17);
      let worst = 0;
      for (let k = 0; k < 30; k++) {
        const target = shoulder.add(
          new Vector3(random.range(0.3, 1), random.range(-0.5, 0.5), random.range(-0.5, 0.5)).scale(3),
        );
        ik.targetPosition.copyFrom(target);
        model.scene.render();
        const elbow = pos(node("LeftForeArm"));
        const axis = pos(node("LeftHand")).subtract(elbow);
        worst = Math.max(worst, angleDeg(axis, target.subtract(elbow)));
      }
      expect(worst).toBeLessThan(0.01);
      ik.dispose();
      model.dispose();
    });
  }
});

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
