/**
 * The natural-side fold on clips whose elbows the character root's frame calls unnatural: UAL's Roll tumbles the
 * body (the root stays upright) and Sword_Attack swings an arm, so their elbows pass opposite the natural pole. With
 * both hand effectors 2 % of the height above the clip's hands, a partial fold (which folds one way or the other
 * opposite the pole) flipped Roll's elbow 0.286 h beyond the clip's in one frame and turned Sword_Attack's elbows
 * 14.2° off the clip's on average.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { expect, it } from "vitest";
import { clipModelWithIK, degrees, elbowSide } from "../helpers/elbow-sides.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";

it("Roll and Sword_Attack, hands 2 % h above the clip's: no elbow flip, elbows near the clip's", async () => {
  const { m, ik, h } = await clipModelWithIK("UAL", (n) => n === "Roll" || n === "Sword_Attack");
  try {
    const r = ik.references;
    const arms = [
      [r.leftUpperArm, r.leftForearm, r.leftHand, ik.solver.leftHandEffector],
      [r.rightUpperArm, r.rightForearm, r.rightHand, ik.solver.rightHandEffector],
    ] as const;
    const figures: string[] = [];
    const worst: Record<string, { jump: number; mean: number }> = {};
    for (const g of m.scene.animationGroups) {
      g.start(false);
      g.pause();
      let jump = 0;
      const angles: number[] = [];
      let last: [Vector3, Vector3][] | null = null;
      for (let f = Math.ceil(g.from); f <= g.to; f++) {
        g.goToFrame(f);
        m.scene.render();
        const clip = arms.map((a) => [worldPos(a[0]), worldPos(a[1]), worldPos(a[2])] as const);
        arms.forEach((a, i) => {
          a[3].position.copyFrom(clip[i]![2]);
          a[3].position.y += 0.02 * h;
          a[3].positionWeight = 1;
        });
        ik.update();
        const elbows = arms.map((a, i): [Vector3, Vector3] => {
          const [S, E, H] = clip[i]!;
          const [s, e, hand] = [worldPos(a[0]), worldPos(a[1]), worldPos(a[2])];
          // an elbow bent less than 20° has no side worth measuring
          if (degrees(E.subtract(S).normalize(), H.subtract(E).normalize()) >= 20) {
            const axis = H.subtract(S).normalize();
            angles.push(degrees(elbowSide(S, axis, E), elbowSide(s, hand.subtract(s).normalize(), e)));
          }
          return [E, e];
        });
        if (last !== null) {
          elbows.forEach(([E, e], i) => {
            const beyond = (Vector3.Distance(e, last![i]![1]) - Vector3.Distance(E, last![i]![0])) / h;
            jump = Math.max(jump, beyond);
          });
        }
        last = elbows;
      }
      g.stop();
      const mean = angles.reduce((a, b) => a + b, 0) / angles.length;
      worst[g.name] = { jump, mean };
      figures.push(
        `${g.name}: worst elbow jump beyond the clip's ${jump.toFixed(3)} h, side off the clip's ${mean.toFixed(1)}°`,
      );
    }
    report(figures.join("; "));
    for (const name of ["Roll", "Sword_Attack"]) {
      expect(worst[name]!.jump, name).toBeLessThan(0.07);
      expect(worst[name]!.mean, name).toBeLessThan(12);
    }
  } finally {
    ik.dispose();
    m.dispose();
  }
});
