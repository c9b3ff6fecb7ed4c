/**
 * A hand letting go of a box while the character walks: Soldier picks up a box in its right hand (position and
 * rotation weights), carries it, resumes and releases it, and the interaction's weights return to their defaults
 * over a second. Its walking arm hangs nearly straight, and the rotation's bend plane must hand the arm back to the
 * clip's as the rotation weight falls, not hold it turned about its axis until the weight reaches 0.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  Curve,
  FullBodyBipedEffector,
  InteractionCurveType,
  InteractionObject,
  InteractionSystem,
} from "../../src/index.js";
import { type LoadedModel, modelAvailable } from "../helpers/babylon-scene.js";
import { angleBetween } from "../helpers/limit-reference.js";
import { ikTwin } from "../helpers/ik-twin.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

const RH = FullBodyBipedEffector.RightHand;

/** Angle in degrees between two bones' world rotations. */
function angle(a: Bone, b: Bone): number {
  const na = a.getTransformNode()!;
  const nb = b.getTransformNode()!;
  na.computeWorldMatrix(true);
  nb.computeWorldMatrix(true);
  return (angleBetween(na.absoluteRotationQuaternion, nb.absoluteRotationQuaternion) * 180) / Math.PI;
}

describe("a hand letting go of a box while walking", () => {
  for (const [model, clip] of [
    ["Soldier", "Walk"],
    ["Xbot", "walk"],
  ] as const) {
    it.skipIf(!modelAvailable(model))(
      `${model}: the arm returns to the clip with the weights, no turn at the end`,
      async () => {
        const { m, twin, ik, h, twinBone } = await ikTwin(model, clip, open);
        const scene = m.scene;
        m.scene.render();
        const hand = ik.references.rightHand;
        const pelvis = ik.references.pelvis;
        // the box 0.2 h in front of the hand, 0.1 h out to its side
        const forward = Vector3.TransformNormal(ik.characterForward, m.root.getWorldMatrix()).normalize();
        const out = worldPos(hand).subtract(worldPos(pelvis));
        out.y = 0;
        out.normalize();
        const box = new TransformNode("box", scene);
        box.position.copyFrom(
          worldPos(hand)
            .add(forward.scale(0.2 * h))
            .add(out.scale(0.1 * h)),
        );
        const reach = new Curve([
          { time: 0, value: 0 },
          { time: 0.4, value: 1 },
        ]);
        const object = new InteractionObject(box, {
          weightCurves: [
            { type: InteractionCurveType.PositionWeight, curve: reach },
            { type: InteractionCurveType.RotationWeight, curve: reach },
          ],
          events: [
            { time: 0.4, pickUp: true },
            { time: 0.4, pause: true },
          ],
        });
        const system = new InteractionSystem(ik);
        system.startInteraction(RH, object, false);
        const step = (0.5 * h) / 60;
        let worstTurn = 0;
        let worstFrame = -1;
        let last = -1;
        let clipTurn = 0;
        const lastClip = new Quaternion();
        for (let f = 0; f < 170; f++) {
          // both walk forward at 0.5 h/s
          m.root.position.addInPlace(forward.scale(step));
          twin.root.position.addInPlace(forward.scale(step));
          if (f === 60) system.resumeInteraction(RH); // the interaction ends: the weights return over 1 s
          if (f === 100) system.release(RH);
          scene.render();
          const off = angle(hand, twinBone(hand));
          expect(Number.isFinite(off)).toBe(true);
          // the hand's turn off the clip's from one frame to the next, while the weights return
          if (f > 60 && last >= 0 && Math.abs(off - last) > worstTurn) {
            worstTurn = Math.abs(off - last);
            worstFrame = f;
          }
          last = off;
          const q = twinBone(hand).getTransformNode()!.absoluteRotationQuaternion;
          if (f > 60)
            clipTurn = Math.max(
              clipTurn,
              (2 * Math.acos(Math.min(1, Math.abs(Quaternion.Dot(q, lastClip)))) * 180) / Math.PI,
            );
          lastClip.copyFrom(q);
        }
        // back on the clip's pose once the weights are at their defaults
        expect(last).toBeLessThan(0.1); // float32 matrices: 0.015–0.025° of rounding
        expect(ik.solver.rightHandEffector.rotationWeight).toBe(0);
        // Soldier: the arm held 70° about its axis at rotation weight 0.008, then 0: 85.8° in one frame (the clip's hand
        // turns 5.4° a frame at most); 8.8° now, as the carry's rotation comes off. Xbot: 8.0° before, 10.1° now (7.1°).
        // Since the let-go pose is carried by the character as it walks (not left behind in world space), the arm's
        // bend plane hands over nearer straight, at the solver's limit of about 10° an update (turn-limit-memory):
        // Soldier 11.0°, Xbot 5.1° (were 7.8° and 4.7°)
        report(
          `${model} letting go: the hand's largest turn off the clip's in a frame (°), at frame ${worstFrame}; the clip's own`,
          worstTurn,
          clipTurn,
        );
        expect(worstTurn).toBeLessThan(10 + clipTurn);
        expect(ik.warningsRaised.map((w) => w.cause)).toEqual([]);
      },
    );
  }
});
