/**
 * The natural-side fold's change of side at a partial weight: UAL jogs, each hand effector's target a node under the
 * spine 0.2 h in front of the hand (about 170° off the clip's hand), position and rotation weights ramped 0 → 1 or
 * 1 → 0 over 24 frames. The hands are far from the clip's (the fold's rate limit off), and a partial fold folds one way
 * or the other where the bend passes opposite the natural pole, so the elbows flipped: the fold's turn changed by
 * 130°–176° in a frame, the elbow turned 171° about the shoulder–hand line (0.294 h beyond the clip's) where the clip's
 * turns at most 8° (0.049 h) a frame. The fold's memory (fold-memory.ts) then limited a partial fold's change of side
 * however far the hand: 37° and 44°, 0.096 h and 0.106 h, the bend's own turn adding to the fold's 20° a frame. It now
 * limits the folded direction too while the side changes (25° a frame from the last one): 25°, 0.067 h and 0.062 h.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { type LoadedModel, modelAvailable } from "../helpers/babylon-scene.js";
import { degrees, elbowSide } from "../helpers/elbow-sides.js";
import { ikTwin, largestChange } from "../helpers/ik-twin.js";
import { report } from "../helpers/modifier-scene.js";
import { subtree, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** An arm's pose now: the elbow, the hand and fingers, and the elbow's side of the shoulder–hand line and bend (°). */
interface ArmPose {
  elbow: Vector3;
  hand: Vector3[];
  side: Vector3;
  bend: number;
}

function armPose(upper: Bone, forearm: Bone, hand: readonly Bone[]): ArmPose {
  const [s, e, h] = [worldPos(upper), worldPos(forearm), worldPos(hand[0]!)];
  return {
    elbow: e,
    hand: hand.map(worldPos),
    side: elbowSide(s, h.subtract(s).normalize(), e),
    bend: degrees(e.subtract(s).normalize(), h.subtract(e).normalize()),
  };
}

/** The worst per-frame changes of the IK's arms (offsets from the clip's) and of the clip's own, over both arms. */
interface Worst {
  swivel: number;
  elbow: number;
  hand: number;
  clipSwivel: number;
  clipElbow: number;
  clipHand: number;
}

const RAMPS = {
  // measured before the fold's memory limited a change of side far from the clip's hand: the elbows' worst swivel
  // 171° (right, frame 53) and move 0.294 h (left, frame 51), the fingers 0.175 h; after, 37°, 0.096 h and 0.088 h;
  // with the folded direction limited too, 25°, 0.067 h and 0.077 h
  "0 → 1": (f: number) => (f < 40 ? 0 : Math.min(1, (f - 40) / 24)),
  // before: 171° (right, frame 52), 0.278 h (left, frame 55), 0.152 h; after, 44°, 0.106 h and 0.109 h; with the
  // direction limited, 25°, 0.062 h and 0.075 h
  "1 → 0": (f: number) => (f < 40 ? 1 : Math.max(0, 1 - (f - 40) / 24)),
};

describe("a jog's elbows as the hand weights ramp toward a half-turned target", () => {
  it.skipIf(!modelAvailable("UAL")).each(Object.keys(RAMPS) as (keyof typeof RAMPS)[])(
    "UAL, both hands, weights %s: no elbow turns 30° about the shoulder–hand line in a frame",
    async (ramp) => {
      const { m, ik, h, twinBone } = await ikTwin("UAL", "Jog_Fwd_Loop", open);
      m.scene.render();
      const r = ik.references;
      const forward = Vector3.TransformNormal(ik.characterForward, m.root.getWorldMatrix()).normalize();
      const arms = (
        [
          [r.leftUpperArm, r.leftForearm, r.leftHand, ik.solver.leftHandEffector],
          [r.rightUpperArm, r.rightForearm, r.rightHand, ik.solver.rightHandEffector],
        ] as const
      ).map(([upper, forearm, hand, effector]) => {
        const box = new TransformNode("box", m.scene);
        box.parent = r.spine[0]!.getTransformNode();
        box.setAbsolutePosition(worldPos(hand).add(forward.scale(0.2 * h)));
        effector.target = box;
        const bones = subtree(hand);
        return {
          effector,
          ik: () => armPose(upper, forearm, bones),
          clip: () => armPose(twinBone(upper), twinBone(forearm), bones.map(twinBone)),
        };
      });
      // frames in which the fold's memory held back an arm's turn (fold-memory.ts), counted per arm
      const held = [0, 0];
      const heldNow = [false, false];
      [ik.solver.leftArmChain, ik.solver.rightArmChain].forEach((chain, i) => {
        const memory = (chain.inner.bendConstraint as unknown as { foldMemory: { turn: number; limit(): void } })
          .foldMemory;
        const limit = memory.limit.bind(memory);
        memory.limit = () => {
          const asked = memory.turn;
          limit();
          heldNow[i] ||= memory.turn !== asked;
        };
      });
      const weight = RAMPS[ramp];
      const worst: Worst = { swivel: 0, elbow: 0, hand: 0, clipSwivel: 0, clipElbow: 0, clipHand: 0 };
      let before: [ArmPose, ArmPose][] = [];
      for (let f = 1; f <= 96; f++) {
        for (const a of arms) {
          a.effector.positionWeight = weight(f);
          a.effector.rotationWeight = weight(f);
        }
        heldNow.fill(false);
        m.scene.render();
        heldNow.forEach((was, i) => (held[i]! += +was));
        const after = arms.map((a): [ArmPose, ArmPose] => [a.ik(), a.clip()]);
        // from the second frame: the first turns the IK on at once in the 1 → 0 ramp
        if (f >= 2) {
          after.forEach(([ikNow, clipNow], i) => {
            const [ikThen, clipThen] = before[i]!;
            // an elbow bent less than 20° has no side worth measuring
            if (Math.min(ikThen.bend, ikNow.bend) >= 20)
              worst.swivel = Math.max(worst.swivel, degrees(ikThen.side, ikNow.side));
            if (Math.min(clipThen.bend, clipNow.bend) >= 20)
              worst.clipSwivel = Math.max(worst.clipSwivel, degrees(clipThen.side, clipNow.side));
            const offset = (p: ArmPose, q: ArmPose) => p.hand.map((x, j) => x.subtract(q.hand[j]!));
            worst.elbow = Math.max(
              worst.elbow,
              Vector3.Distance(ikNow.elbow.subtract(clipNow.elbow), ikThen.elbow.subtract(clipThen.elbow)) / h,
            );
            worst.hand = Math.max(worst.hand, largestChange(offset(ikThen, clipThen), offset(ikNow, clipNow), h));
            worst.clipElbow = Math.max(worst.clipElbow, Vector3.Distance(clipThen.elbow, clipNow.elbow) / h);
            worst.clipHand = Math.max(worst.clipHand, largestChange(clipThen.hand, clipNow.hand, h));
          });
        }
        before = after;
      }
      report(
        `UAL jog, weights ${ramp}: the elbows' worst swivel a frame ${worst.swivel.toFixed(1)}° (the clip's ` +
          `${worst.clipSwivel.toFixed(1)}°), move beyond the clip's ${worst.elbow.toFixed(3)} h (the clip's ` +
          `${worst.clipElbow.toFixed(3)} h), the hands and fingers ${worst.hand.toFixed(3)} h (the clip's ` +
          `${worst.clipHand.toFixed(3)} h); the fold's turn held back in ${held[0]} (left) and ${held[1]} (right) frames`,
      );
      // a change of side comes round over a few frames, not half a turn at once: the folded direction 25° a frame
      // from the last one, beyond which the limb axis's own turn (only the fold's turn limited: 37° and 44°, 0.096 h
      // and 0.106 h)
      expect(worst.swivel).toBeLessThan(30);
      expect(worst.elbow).toBeLessThan(0.08);
      expect(worst.elbow).toBeLessThan(2.5 * worst.clipElbow);
      expect(worst.hand).toBeLessThan(2.5 * worst.clipHand);
    },
  );
});
