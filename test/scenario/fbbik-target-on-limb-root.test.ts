/**
 * A hand or foot effector's target on its own limb's first bone (a node parented to the upper arm or thigh at
 * its origin: a user's slip, or a pose that puts the hand on the shoulder). The limb cannot reach there: the
 * solve leaves the end node a float-noise distance off the first node, and the trigonometric pass folded the limb
 * along that noise, the elbow or knee thrown 0.30–0.49 of the height a frame on UAL's idle. Within ON_POINT (1e-4
 * of the limb) the limb now folds along its animated upper bone, as steady as the clip, and warns once.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import type { BipedReferences } from "../../src/babylon/biped-references.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

type End = "leftHand" | "leftFoot";
const CASES: [string, End, keyof BipedReferences, number][] = [
  ["the left hand on its upper arm", "leftHand", "leftUpperArm", 4],
  ["the left hand on its upper arm, limbs only (iterations 0)", "leftHand", "leftUpperArm", 0],
  ["the left foot on its thigh", "leftFoot", "leftThigh", 4],
];
const FRAMES = 60;

/** The largest move of any bone in a frame over FRAMES frames of UAL's idle (÷ height), with the warnings. */
async function largestMove(target?: [End, keyof BipedReferences, number]): Promise<[number, string[]]> {
  const m = await loadModel("UAL", { clips: (c) => c === "Idle_Loop" });
  m.container.animationGroups[0]!.start(true);
  const h = height(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const warnings: string[] = [];
  ik.onWarningObservable.add((w) => warnings.push(w.cause));
  if (target !== undefined) {
    const [end, on, iterations] = target;
    const node = new TransformNode("on limb root", m.scene);
    node.parent = (ik.references[on] as NonNullable<BipedReferences["leftThigh"]>).getTransformNode()!;
    const effector = end === "leftHand" ? ik.solver.leftHandEffector : ik.solver.leftFootEffector;
    effector.target = node;
    effector.positionWeight = 1;
    ik.solver.iterations = iterations;
  }
  const bones = m.skeleton.bones;
  let last: Vector3[] = [];
  let move = 0;
  for (let f = 0; f < FRAMES; f++) {
    m.scene.render();
    const now = bones.map((b) => worldPos(b));
    if (f > 1) for (let i = 0; i < now.length; i++) move = Math.max(move, Vector3.Distance(now[i]!, last[i]!) / h);
    last = now;
  }
  m.dispose();
  return [move, warnings];
}

describe("FullBodyBipedIK: an end effector's target on its limb's first bone (UAL, idle)", () => {
  for (const [what, end, on, iterations] of CASES) {
    it(`${what}: no bone moves more a frame than in the clip; warned once`, async () => {
      const [clip] = await largestMove();
      const [move, warnings] = await largestMove([end, on, iterations]);
      console.log(`${what}: largest bone move a frame ${move.toFixed(4)} h (the idle alone: ${clip.toFixed(4)} h)`);
      // to rounding: the largest move is often the same finger's, IK or not
      expect(move).toBeLessThanOrEqual(clip * 1.01);
      expect(warnings).toEqual([end === "leftHand" ? "LeftHand:target-on-root" : "LeftFoot:target-on-root"]);
    });
  }
});
