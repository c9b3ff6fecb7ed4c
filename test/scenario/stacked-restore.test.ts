/**
 * Several IK components on the same bones, on the rig kinds whose restore goes through another representation than
 * the one written: a .babylon file's plain Bones (a restored local matrix decomposes into other bits than were
 * written) and linked nodes turned by Euler angles (angles from a quaternion differ from the ones read). Each frame
 * FixTransforms must give back Babylon's animated pose, bit for bit, for the bones a clip keys and those it does not,
 * and a cross-fade started between frames must blend from the animated pose, not from the IKs' output. Two copies of
 * the model play the same clips; one has the IKs, and what it holds before they solve is compared with the other.
 */
import { Animation } from "@babylonjs/core/Animations/animation.js";
import { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import { AnimationPropertiesOverride } from "@babylonjs/core/Animations/animationPropertiesOverride.js";
import { type Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, expect, it } from "vitest";
import { AimIK } from "../../src/babylon/aim-ik.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { height } from "../helpers/scene-probes.js";

const FRAMES = 120;
/** The frame the second clip starts at, positioned between frames by `goToFrame` (a key handler's cross-fade). */
const SWITCH = 60;

/**
 * Runs both copies for {@link FRAMES} frames and returns the largest distance between their points (before the IKs
 * solve, relative to `size`) up to the switch and after it. `points` gives a copy's world points now.
 */
function readDrift(
  copies: readonly [LoadedModel, LoadedModel],
  points: (m: LoadedModel) => Vector3[],
  size: number,
  switchClips: () => void,
  beforeSolve: () => void,
): { restore: number; crossFade: number } {
  const [withIk, without] = copies;
  const drift = { restore: 0, crossFade: 0 };
  let frame = 0;
  withIk.scene.onBeforeRenderObservable.add(() => {
    const a = points(withIk);
    const b = points(without);
    const key = frame < SWITCH ? "restore" : "crossFade";
    for (let i = 0; i < a.length; i++) drift[key] = Math.max(drift[key], Vector3.Distance(a[i]!, b[i]!) / size);
  });
  for (frame = 0; frame < FRAMES; frame++) {
    if (frame === SWITCH) switchClips();
    without.scene.render();
    beforeSolve();
    withIk.scene.render();
  }
  return drift;
}

/** A frame's origin and a point `length` along each of its axes: a bone's turn shows, not only its position. */
function framePoints(world: Matrix, length: number): Vector3[] {
  return [Vector3.Zero(), new Vector3(length, 0, 0), new Vector3(0, length, 0), new Vector3(0, 0, length)].map((a) =>
    Vector3.TransformCoordinates(a, world),
  );
}

describe("IK components stacked on the same bones give back the animated pose", () => {
  it("plain Bones (RiggedFigure.babylon): LookAtIK, FullBodyBipedIK and LookAtIK on the spine, a clip keying part", async () => {
    const copies = [await loadModel("RiggedFigureBabylon"), await loadModel("RiggedFigureBabylon")] as const;
    try {
      for (const m of copies) {
        // the file starts its clip by itself (autoAnimate): start it again, blending
        m.scene.stopAnimation(m.scene.meshes.find((x) => x.skeleton === m.skeleton)!);
        const blend = new AnimationPropertiesOverride();
        blend.enableBlending = true;
        blend.blendingSpeed = 0.05;
        m.skeleton.animationPropertiesOverride = blend;
        m.scene.beginAnimation(m.skeleton, 0, 20, true);
      }
      const [withIk, without] = copies;
      const mesh = withIk.scene.meshes.find((x) => x.skeleton === withIk.skeleton)!;
      const r = resolveBipedReferences(withIk.skeleton).references;
      // update order is creation order: one before the full body and one after it, each on bones it also writes
      const looks = [LookAtIK.create(withIk.scene, { spine: r.spine, head: r.head })];
      const ik = FullBodyBipedIK.create(withIk.scene, withIk.skeleton);
      looks.push(LookAtIK.create(withIk.scene, { spine: r.spine, head: r.head }));
      looks[0]!.targetPosition.set(2, 1.5, 2);
      looks[1]!.targetPosition.set(-2, 1.5, 2);
      for (const look of looks) look.solver.bodyWeight = 0.5;
      const hand = ik.solver.leftHandEffector;
      hand.positionWeight = 1;
      without.skeleton.computeAbsoluteMatrices(true);
      const ys = without.skeleton.bones.map((b) => b.getAbsoluteMatrix().getTranslation().y);
      const h = Math.max(...ys) - Math.min(...ys);
      const points = (m: LoadedModel) => {
        m.skeleton.computeAbsoluteMatrices(true);
        return m.skeleton.bones.flatMap((b) => framePoints(b.getAbsoluteMatrix(), h / 4));
      };
      const drift = readDrift(
        copies,
        points,
        h,
        () => {
          for (const m of copies) m.scene.beginAnimation(m.skeleton, 20, 40, true).goToFrame(25);
        },
        () => hand.position.copyFrom(r.leftHand.getAbsolutePosition(mesh).add(new Vector3(0.05, 0.05, 0))),
      );
      console.log(
        `plain Bones, three IKs stacked: read ${drift.restore.toExponential(2)} h off Babylon's pose before the ` +
          `switch, ${drift.crossFade.toExponential(2)} h during the cross-fade`,
      );
      expect(drift.restore, "FixTransforms on bones the others wrote after").toBeLessThan(1e-6);
      expect(drift.crossFade, "the cross-fade's start").toBeLessThan(1e-6);
    } finally {
      for (const m of copies) m.dispose();
    }
  });

  it("linked nodes turned by Euler angles (UAL's left arm): LimbIK and AimIK, a clip keying the upper arm only", async () => {
    const copies = [await loadModel("UAL"), await loadModel("UAL")] as const;
    try {
      const rigs = copies.map((m) => {
        const r = resolveBipedReferences(m.skeleton).references;
        const nodes = [r.leftUpperArm, r.leftForearm, r.leftHand].map((b) => b.getTransformNode()!);
        for (const n of nodes) {
          n.rotation.copyFrom(n.rotationQuaternion!.toEulerAngles());
          n.rotationQuaternion = null;
        }
        // the forearm and hand are not keyed: FixTransforms alone gives them back
        const swing = new Animation("swing", "rotation", 30, Animation.ANIMATIONTYPE_VECTOR3);
        const e = nodes[0]!.rotation.clone();
        swing.setKeys(
          [0, 10, 20, 30, 40].map((frame, i) => ({
            frame,
            value: e.add(i % 2 === 0 ? Vector3.Zero() : new Vector3(0.3 * (2 - i), 0.2, 0.1 * i)),
          })),
        );
        const group = new AnimationGroup("swing", m.scene);
        group.addTargetedAnimation(swing, nodes[0]!);
        group.enableBlending = true;
        group.blendingSpeed = 0.05;
        group.start(true, 1, 0, 20);
        return { r, nodes, group };
      });
      const r = rigs[0]!.r;
      const limb = LimbIK.create(copies[0].scene, r.leftUpperArm, r.leftForearm, r.leftHand);
      limb.solver.ikRotationWeight = 0;
      const aim = AimIK.create(copies[0].scene, [r.leftUpperArm, r.leftForearm, r.leftHand]);
      aim.targetPosition.set(2, 1.2, 1);
      const nodesOf = new Map(copies.map((m, i) => [m, rigs[i]!.nodes] as [LoadedModel, TransformNode[]]));
      const h = height(copies[1]);
      const points = (m: LoadedModel) => nodesOf.get(m)!.flatMap((n) => framePoints(n.computeWorldMatrix(true), h / 4));
      const drift = readDrift(
        copies,
        points,
        h,
        () => {
          for (const { group } of rigs) {
            group.stop();
            group.start(true, 1, 20, 40);
            group.goToFrame(25);
          }
        },
        () => limb.targetPosition.copyFrom(rigs[0]!.nodes[2]!.getAbsolutePosition().add(new Vector3(0.05, 0.05, 0))),
      );
      console.log(
        `Euler nodes, two IKs stacked: read ${drift.restore.toExponential(2)} h off Babylon's pose before the switch, ` +
          `${drift.crossFade.toExponential(2)} h during the cross-fade`,
      );
      expect(drift.restore, "FixTransforms on nodes the other wrote after").toBeLessThan(1e-6);
      expect(drift.crossFade, "the cross-fade's start").toBeLessThan(1e-6);
    } finally {
      for (const m of copies) m.dispose();
    }
  });
});
