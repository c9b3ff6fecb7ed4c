/**
 * The natural-side fold on clips whose elbows the character root's frame calls unnatural: UAL's Roll tumbles the
 * body (the root stays upright) and Sword_Attack swings an arm, so their elbows pass opposite the natural pole. With
 * both hand effectors 2 % of the height above the clip's hands, a partial fold (which folds one way or the other
 * opposite the pole) flipped Roll's elbow 0.286 h beyond the clip's in one frame and turned Sword_Attack's elbows
 * 14.2° off the clip's on average. At 5 % (a full fold) the fold swung the elbows with the natural pole, 1.8 times
 * its turn: Roll's 0.133 h and 55° a frame beyond the clip's, Sword_Attack's 78°, until the fold's memory
 * (fold-memory.ts) bounded its turn.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { expect, it } from "vitest";
import { clipModelWithIK, degrees, elbowSide } from "../helpers/elbow-sides.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";

/** What one clip did to the elbows: per frame beyond the clip's, the worst move (h) and swivel (°); the mean side off. */
interface ClipElbows {
  jump: number;
  swivel: number;
  mean: number;
}

/** Roll and Sword_Attack played frame by frame, both hand effectors `raise` of the height above the clip's hands. */
async function handsAboveClips(raise: number): Promise<Record<string, ClipElbows>> {
  const { m, ik, h } = await clipModelWithIK("UAL", (n) => n === "Roll" || n === "Sword_Attack");
  try {
    const r = ik.references;
    const arms = [
      [r.leftUpperArm, r.leftForearm, r.leftHand, ik.solver.leftHandEffector],
      [r.rightUpperArm, r.rightForearm, r.rightHand, ik.solver.rightHandEffector],
    ] as const;
    const clips: Record<string, ClipElbows> = {};
    for (const g of m.scene.animationGroups) {
      g.start(false);
      g.pause();
      let jump = 0;
      let swivel = 0;
      const angles: number[] = [];
      // per arm: the clip's and the solved elbow, and their sides about the shoulder–hand line (null: too straight)
      let last: [Vector3, Vector3, Vector3 | null, Vector3 | null][] | null = null;
      for (let f = Math.ceil(g.from); f <= g.to; f++) {
        g.goToFrame(f);
        m.scene.render();
        const clip = arms.map((a) => [worldPos(a[0]), worldPos(a[1]), worldPos(a[2])] as const);
        arms.forEach((a, i) => {
          a[3].position.copyFrom(clip[i]![2]);
          a[3].position.y += raise * h;
          a[3].positionWeight = 1;
        });
        ik.update();
        const elbows = arms.map((a, i): [Vector3, Vector3, Vector3 | null, Vector3 | null] => {
          const [S, E, H] = clip[i]!;
          const [s, e, hand] = [worldPos(a[0]), worldPos(a[1]), worldPos(a[2])];
          // an elbow bent less than 20° has no side worth measuring
          const bent = (p: Vector3, q: Vector3, t: Vector3) =>
            degrees(q.subtract(p).normalize(), t.subtract(q).normalize()) >= 20;
          const side = bent(S, E, H) ? elbowSide(S, H.subtract(S).normalize(), E) : null;
          const solved = elbowSide(s, hand.subtract(s).normalize(), e);
          if (side !== null) angles.push(degrees(side, solved));
          // the solved elbow's turn is judged only where it is bent too
          return [E, e, side, bent(s, e, hand) ? solved : null];
        });
        if (last !== null) {
          elbows.forEach(([E, e, side, solved], i) => {
            const [lE, le, lSide, lSolved] = last![i]!;
            jump = Math.max(jump, (Vector3.Distance(e, le) - Vector3.Distance(E, lE)) / h);
            if (side !== null && solved !== null && lSide !== null && lSolved !== null) {
              swivel = Math.max(swivel, degrees(solved, lSolved) - degrees(side, lSide));
            }
          });
        }
        last = elbows;
      }
      g.stop();
      clips[g.name] = { jump, swivel, mean: angles.reduce((a, b) => a + b, 0) / angles.length };
    }
    report(
      Object.entries(clips)
        .map(
          ([name, c]) =>
            `${name}, hands ${raise * 100} % h above: worst elbow jump beyond the clip's ${c.jump.toFixed(3)} h, ` +
            `swivel ${c.swivel.toFixed(1)}° a frame, side off the clip's ${c.mean.toFixed(1)}°`,
        )
        .join("; "),
    );
    return clips;
  } finally {
    ik.dispose();
    m.dispose();
  }
}

it("Roll and Sword_Attack, hands 2 % h above the clip's: no elbow flip, elbows near the clip's", async () => {
  const clips = await handsAboveClips(0.02);
  for (const name of ["Roll", "Sword_Attack"]) {
    expect(clips[name]!.jump, name).toBeLessThan(0.07);
    expect(clips[name]!.mean, name).toBeLessThan(12);
  }
});

it("Roll and Sword_Attack, hands 5 % h above the clip's: the full fold turns the elbow at a bounded rate", async () => {
  const clips = await handsAboveClips(0.05);
  for (const name of ["Roll", "Sword_Attack"]) {
    expect(clips[name]!.jump, name).toBeLessThan(0.07);
    expect(clips[name]!.swivel, name).toBeLessThan(25);
  }
});
