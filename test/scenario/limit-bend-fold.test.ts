/**
 * LimitBend and the natural-side fold together: on UAL's Death01 the clip swings the left forearm out of
 * LimitBend's cone about frame 77 (a 90° bend), LimitBend turns it back, and the hand it moved is no move of the
 * solve's. The fold fades in by the solve's move of the hand from the clip's place, so with the effector on the
 * clip's hand it must not flip the elbow: it popped 20 % of the height in one frame when the move was measured
 * from LimitBend's pose.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

it("Death01: a hand effector on the clip's hand moves the elbow no more than the clip a frame", async () => {
  const load = () => loadModel("UAL", { clips: (c) => c === "Death01" });
  const clip = await load();
  const solved = await load();
  try {
    const h = height(clip);
    const ik = FullBodyBipedIK.create(solved.scene, solved.skeleton);
    const hand = ik.solver.leftHandEffector;
    hand.positionWeight = 1;
    const bone = (m: typeof clip, name: string) => m.skeleton.bones.find((b) => b.name === name)!;
    for (const m of [clip, solved]) m.container.animationGroups[0]!.start(true);
    let worst = 0;
    let at = -1;
    let last: [Vector3, Vector3] | null = null;
    for (let f = 0; f < 100; f++) {
      clip.scene.render();
      hand.position.copyFrom(worldPos(bone(clip, "DEF-hand.L")));
      solved.scene.render();
      const elbows: [Vector3, Vector3] = [
        worldPos(bone(clip, "DEF-forearm.L")),
        worldPos(bone(solved, "DEF-forearm.L")),
      ];
      if (last !== null) {
        const beyond = (Vector3.Distance(elbows[1], last[1]) - Vector3.Distance(elbows[0], last[0])) / h;
        if (beyond > worst) {
          worst = beyond;
          at = f;
        }
      }
      last = elbows;
    }
    report(
      `Death01, hand on the clip's: the elbow's worst move a frame beyond the clip's ${worst.toFixed(3)} h (frame ${at})`,
    );
    expect(worst).toBeLessThan(0.05);
  } finally {
    clip.dispose();
    solved.dispose();
  }
});
