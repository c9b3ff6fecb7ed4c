/**
 * QA round 24: a VR avatar as docs/API.md §7's `vrAvatar` builds it (trackers' targets from createTrackerTarget, bodyWeight 0.8,
 * headClampWeight 0, handsPullBody false, hands at position and rotation weight 1, fadeSeconds 0.3), feet pinned,
 * the idle clip playing (where the model has one): both controllers raised smoothly from in front of the chest to overhead and back (a
 * player reaching up). The hands follow within 1e-4 h; no elbow should move more than a few times the controller's
 * step in a frame (the clip's idle moves an elbow far less), with the hands' rotation weight 1 and 0. Before the
 * natural pole moved its vanishing point behind the shoulder (natural-pole.ts), the elbows flipped where the
 * shoulder–hand line passed about 50° above forward: UAL's 0.75 h in a frame, Xbot's 0.16 h (0.70 h and 0.26 h at
 * rotation weight 0).
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelName, modelAvailable } from "../helpers/babylon-scene.js";
import { standingCharacter, vrAvatar, worldTracker } from "../helpers/vr-avatar.js";
import { disposeOpen, report, worldPos } from "../helpers/modifier-scene.js";

afterEach(disposeOpen);

const MODELS: ModelName[] = (["UAL", "Xbot", "Mannequin", "Soldier", "Superhero"] as const).filter((m) =>
  modelAvailable(m),
);
const FRAMES = 200;

/** The largest elbow move in a frame (in h), the largest controller step, and the hands' worst error. */
async function raiseOverhead(
  name: ModelName,
  rotationWeight: number,
): Promise<{ elbow: number; step: number; hands: number; frame: number }> {
  const { m, ik, h, forward } = await standingCharacter(name);
  const r = ik.references;
  const s = ik.solver;
  const tracker = (label: string, at: Vector3): TransformNode => worldTracker(m.scene, label, at);
  const headset = tracker("headset", worldPos(r.head!));
  // held in front of the chest: 0.2 h ahead of each shoulder and 0.25 h below it
  const held = forward.scale(0.2 * h).addInPlaceFromFloats(0, -0.25 * h, 0);
  const homes = [worldPos(r.leftUpperArm).add(held), worldPos(r.rightUpperArm).add(held)];
  const controllers = homes.map((p, i) => tracker(i === 0 ? "left" : "right", p));
  const { handTargets: targets, handBones } = vrAvatar(ik, headset, controllers, { rotationWeight, fadeSeconds: 0.3 });
  const feetEffectors = [s.leftFootEffector, s.rightFootEffector];
  for (const [i, foot] of [r.leftFoot, r.rightFoot].entries()) {
    const pin = tracker(`pin ${i}`, worldPos(foot));
    pin.rotationQuaternion = foot.getTransformNode()!.absoluteRotationQuaternion.clone();
    feetEffectors[i]!.target = pin;
    feetEffectors[i]!.positionWeight = 1;
    feetEffectors[i]!.rotationWeight = 1;
  }
  for (let i = 0; i < 30; i++) m.scene.render();
  const elbows = [r.leftForearm, r.rightForearm];
  let last = elbows.map(worldPos);
  let lastControllers = homes.map((p) => p.clone());
  const result = { elbow: 0, step: 0, hands: 0, frame: -1 };
  for (let f = 1; f <= FRAMES; f++) {
    // up 0.55 h and back 0.15 h at the top, eased there and back
    const k = 0.5 - 0.5 * Math.cos((2 * Math.PI * f) / FRAMES);
    for (let i = 0; i < 2; i++) controllers[i]!.position.copyFrom(homes[i]!).addInPlaceFromFloats(0, 0.55 * h * k, 0);
    for (let i = 0; i < 2; i++) controllers[i]!.position.addInPlace(forward.scale(-0.15 * h * k));
    m.scene.render();
    const now = elbows.map(worldPos);
    for (let i = 0; i < 2; i++) {
      const moved = Vector3.Distance(now[i]!, last[i]!) / h;
      if (moved > result.elbow) {
        result.elbow = moved;
        result.frame = f;
      }
      const c = controllers[i]!.position;
      result.step = Math.max(result.step, Vector3.Distance(c, lastControllers[i]!) / h);
      targets[i]!.computeWorldMatrix(true);
      result.hands = Math.max(
        result.hands,
        Vector3.Distance(worldPos(handBones[i]!), targets[i]!.getAbsolutePosition()) / h,
      );
    }
    last = now;
    lastControllers = controllers.map((c) => c.position.clone());
  }
  return result;
}

describe("a VR avatar raising both controllers overhead", () => {
  for (const name of MODELS)
    for (const rotationWeight of [1, 0])
      it(`${name}, hands' rotationWeight ${rotationWeight}: the hands follow, no elbow moves 5 controller steps a frame`, async () => {
        const w = await raiseOverhead(name, rotationWeight);
        report(
          `${name} rw ${rotationWeight} overhead: elbow most a frame (h), controller step (h), hands (h), frame`,
          w.elbow,
          w.step,
          w.hands,
          w.frame,
        );
        expect(w.hands).toBeLessThan(1e-3);
        // the controllers move at most 0.009 h a frame; 5 steps leave room for the arm's own swing and the clip's
        expect(w.elbow).toBeLessThan(5 * w.step);
      });
});
