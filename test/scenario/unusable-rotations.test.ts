/**
 * Unusable rotations are ignored for the frame with one warning instead of snapping a bone: a
 * `Recoil.handRotationOffset` with a NaN, and an effector target scaled to 0 (or with a NaN scale) while
 * its rotation is weighted.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { Curve } from "../../src/math/curve.js";
import { InteractionCurveType } from "../../src/effectors/interaction/interaction-curves.js";
import { InteractionObject } from "../../src/effectors/interaction/interaction-object.js";
import { InteractionSystem } from "../../src/effectors/interaction/interaction-system.js";
import { Recoil } from "../../src/effectors/modifiers/recoil.js";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones.js";
import { type LoadedModel, loadModel, proceduralIdle } from "../helpers/babylon-scene.js";
import { Random } from "../helpers/random.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

async function load(rightHanded: boolean): Promise<LoadedModel> {
  const m = await loadModel("Mannequin", { rightHanded });
  open.push(m);
  return m;
}

/** Angle between two rotations in degrees (either sign of the quaternion). */
function angleDeg(a: Quaternion, b: Quaternion): number {
  const d = Math.min(1, Math.abs(Quaternion.Dot(a, b)) / (a.length() * b.length()));
  return (2 * Math.acos(d) * 180) / Math.PI;
}

/** Largest difference between the world matrices of the two loads' bones, element by element. */
function matrixDifference(a: LoadedModel, b: LoadedModel): number {
  let worst = 0;
  for (let i = 0; i < a.skeleton.bones.length; i++) {
    const ma = a.skeleton.bones[i]!.getTransformNode()!.computeWorldMatrix(true).m;
    const mb = b.skeleton.bones[i]!.getTransformNode()!.computeWorldMatrix(true).m;
    for (let j = 0; j < 16; j++) worst = Math.max(worst, Math.abs(ma[j]! - mb[j]!));
  }
  return worst;
}

for (const rightHanded of [false, true]) {
  describe(`unusable rotations (${rightHanded ? "right" : "left"}-handed)`, () => {
    it("Recoil.handRotationOffset with a NaN: the hand rotation is left out for those frames (as with a zero offset), warned once", async () => {
      // the same scene twice: `m` gets NaN in handRotationOffset on two frames, `ref` a zero offset there
      const pair: { m: LoadedModel; ik: FullBodyBipedIK; recoil: Recoil }[] = [];
      for (let k = 0; k < 2; k++) {
        const m = await load(rightHanded);
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
        const r = ik.references;
        proceduralIdle(
          m.scene,
          [r.spine[0]!, r.leftUpperArm, r.rightForearm].map((b) => b.getTransformNode()!),
        ).start(true);
        const rnd = new Random(9);
        const h = height(m);
        const recoil = new Recoil(ik, {
          handRotationOffset: { x: -12, y: 4, z: 3 },
          random: () => rnd.next(),
          offsets: [
            {
              offset: new Vector3(0, 0.02, -0.05).scale(h),
              effectorLinks: [{ effector: FullBodyBipedEffector.RightHand }],
            },
          ],
        });
        m.scene.render();
        recoil.fire(1);
        pair.push({ m, ik, recoil });
      }
      const [bad, ref] = pair as [(typeof pair)[0], (typeof pair)[0]];
      const causes: string[] = [];
      bad.ik.onWarningObservable.add((w) => causes.push(w.cause));
      let worst = 0;
      let worstHand = 0;
      for (let f = 0; f < 12; f++) {
        const during = f === 4 || f === 5;
        bad.recoil.handRotationOffset.set(during ? Number.NaN : -12, 4, 3);
        ref.recoil.handRotationOffset.set(during ? 0 : -12, during ? 0 : 4, during ? 0 : 3);
        bad.m.scene.render();
        ref.m.scene.render();
        worst = Math.max(worst, matrixDifference(bad.m, ref.m));
        const hb = bad.ik.references.rightHand.getTransformNode()!;
        const hr = ref.ik.references.rightHand.getTransformNode()!;
        hb.computeWorldMatrix(true);
        hr.computeWorldMatrix(true);
        worstHand = Math.max(worstHand, angleDeg(hb.absoluteRotationQuaternion, hr.absoluteRotationQuaternion));
      }
      expect(bad.recoil.inProgress || bad.recoil.timer > 0).toBe(true);
      // (the zero offset's Euler → world rotation leaves rounding: not bit for bit)
      console.log(
        `${rightHanded ? "RH" : "LH"} recoil NaN handRotationOffset: hand ${worstHand.toExponential(2)}° from the zero-offset scene, bone matrices ${worst.toExponential(2)}`,
      );
      expect(worstHand).toBeLessThan(1e-4);
      expect(worst).toBeLessThan(1e-6);
      expect(causes).toEqual(["recoil:handRotationOffset"]);
    });

    for (const how of ["scaled to 0", "its parent scaled to 0", "a NaN scale"] as const) {
      it(`an effector target ${how} with rotationWeight 1: the hand keeps its last rotation, warned once; back to normal after`, async () => {
        const m = await load(rightHanded);
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
        m.scene.render();
        const h = height(m);
        const causes: string[] = [];
        ik.onWarningObservable.add((w) => causes.push(w.cause));
        const parent = new TransformNode("parent", m.scene);
        const target = new TransformNode("hand target", m.scene);
        target.parent = parent;
        const hand = ik.references.leftHand;
        const start = worldPos(hand);
        parent.position.copyFrom(start.add(new Vector3(0, 0.03 * h, 0)));
        target.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.6, -0.5, 1.2);
        const e = ik.solver.leftHandEffector;
        e.target = target;
        e.positionWeight = 1;
        e.rotationWeight = 1;
        for (let i = 0; i < 3; i++) m.scene.render();
        const node = hand.getTransformNode()!;
        node.computeWorldMatrix(true);
        const held = node.absoluteRotationQuaternion.clone();
        const heldPosition = worldPos(hand);
        const scaled = how === "its parent scaled to 0" ? parent : target;
        scaled.scaling.setAll(how === "a NaN scale" ? Number.NaN : 0);
        let worst = 0;
        for (let i = 0; i < 3; i++) {
          m.scene.render();
          node.computeWorldMatrix(true);
          worst = Math.max(worst, angleDeg(node.absoluteRotationQuaternion, held));
          for (const b of m.skeleton.bones) expect(Number.isFinite(worldPos(b).x)).toBe(true);
        }
        console.log(
          `${rightHanded ? "RH" : "LH"} target ${how}: hand turned ${worst.toExponential(2)}° from its last rotation`,
        );
        expect(worst).toBeLessThan(1e-4);
        if (how !== "a NaN scale") expect(Vector3.Distance(worldPos(hand), heldPosition) / h).toBeLessThan(1e-3);
        expect(causes).toEqual(["LeftHand:target-rotation"]);
        // usable again: the hand takes the target's rotation
        scaled.scaling.setAll(1);
        m.scene.render();
        target.computeWorldMatrix(true);
        node.computeWorldMatrix(true);
        expect(angleDeg(node.absoluteRotationQuaternion, target.absoluteRotationQuaternion)).toBeLessThan(1e-3);
        expect(causes).toEqual(["LeftHand:target-rotation"]);
      });
    }

    it("an interaction target scaled to 0 mid-interaction: the hand keeps the target's last rotation, warned once", async () => {
      const m = await load(rightHanded);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      m.scene.render();
      const h = height(m);
      const causes: string[] = [];
      ik.onWarningObservable.add((w) => causes.push(w.cause));
      const system = new InteractionSystem(ik);
      const node = new TransformNode("object", m.scene);
      node.position.copyFrom(worldPos(ik.references.leftHand).add(new Vector3(0, 0.04 * h, 0)));
      node.rotationQuaternion = Quaternion.RotationYawPitchRoll(-0.4, 0.7, 0.3);
      const hold = new Curve([
        { time: 0, value: 1 },
        { time: 5, value: 1 },
      ]);
      const object = new InteractionObject(node, {
        weightCurves: [
          { type: InteractionCurveType.PositionWeight, curve: hold },
          { type: InteractionCurveType.RotationWeight, curve: hold },
        ],
      });
      expect(system.startInteraction(FullBodyBipedEffector.LeftHand, object, false)).toBe(true);
      for (let i = 0; i < 20; i++) m.scene.render();
      const hand = ik.references.leftHand.getTransformNode()!;
      hand.computeWorldMatrix(true);
      node.computeWorldMatrix(true);
      // at full weight the hand has the target's rotation
      expect(angleDeg(hand.absoluteRotationQuaternion, node.absoluteRotationQuaternion)).toBeLessThan(1e-3);
      const held = hand.absoluteRotationQuaternion.clone();
      node.scaling.setAll(0);
      let worst = 0;
      for (let i = 0; i < 3; i++) {
        m.scene.render();
        hand.computeWorldMatrix(true);
        worst = Math.max(worst, angleDeg(hand.absoluteRotationQuaternion, held));
      }
      console.log(
        `${rightHanded ? "RH" : "LH"} interaction target scaled to 0: hand turned ${worst.toExponential(2)}° from its last rotation`,
      );
      expect(worst).toBeLessThan(1e-3);
      expect(causes).toEqual(["interaction:LeftHand:target-rotation"]);
    });

    it("a target scaled to 0 warns nothing while its rotation is not weighted", async () => {
      const m = await load(rightHanded);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const causes: string[] = [];
      ik.onWarningObservable.add((w) => causes.push(w.cause));
      const target = new TransformNode("hand target", m.scene);
      target.position.copyFrom(worldPos(ik.references.leftHand));
      target.scaling.setAll(0);
      ik.solver.leftHandEffector.target = target;
      ik.solver.leftHandEffector.positionWeight = 1;
      for (let i = 0; i < 3; i++) m.scene.render();
      expect(causes).toEqual([]);
    });
  });
}
