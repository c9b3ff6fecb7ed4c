/**
 * The demo's biped scenario in Node, as the page builds it: BipedIK instead of the FullBodyBipedIK the character
 * was spawned with (never both), each palm on its ball and facing its centre, the head toward the look ball, the
 * feet where the first frame put them; with the IK switched off the palms hang far from the balls. On the UAL
 * character and Xbot (fingers, the thumb found by name) and the .babylon RiggedFigure (bones without nodes, no
 * fingers: the palm guessed from the hanging arm).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type LoadedModel, type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { openScenario } from "../helpers/demo-scenario.js";

const report = (s: string) => process.env.FBBIK_REPORT && console.log(s);

interface Figures {
  palms: { gap: number; angle: number }[];
  head: number;
  feet: number[];
  fromFingers: boolean[];
  height: number;
}

const mm = (v: number) => `${(v * 1000).toFixed(1)} mm`;
const line = (f: Figures) =>
  `palms ${f.palms.map((p) => `${mm(p.gap)} off the surface, ${p.angle.toFixed(1)}° from the centre`).join("; ")}; ` +
  `head ${f.head.toFixed(1)}° from the look ball; feet ${f.feet.map(mm).join(", ")} from their spots`;

describe.each<[ModelName, boolean]>([
  ["UAL", true],
  ["Xbot", true],
  ["RiggedFigureBabylon", false],
])("the biped scenario on %s", (model, fingers) => {
  let m: LoadedModel;
  beforeAll(async () => {
    if (modelAvailable(model)) m = await loadModel(model, { clips: (n) => n === "Idle_Loop" || n === "idle" });
  });
  afterAll(() => m?.dispose());

  it.skipIf(!modelAvailable(model))(
    "palms on the balls facing their centres, the head on the look ball, the feet planted; IK off: palms far",
    async () => {
      // the panel's controls listen on the page as their module loads
      vi.stubGlobal("addEventListener", () => undefined);
      const { biped } = await import("../../demo/src/scenarios/biped.js");
      const { run, ctx, c } = await openScenario(m, biped);
      // BipedIK alone: the FullBodyBipedIK spawn attached was disposed and left the panel's lists
      expect(c.ik.isDisposed).toBe(true);
      expect(ctx.iks).toEqual([]);
      expect(c.ikName).toBe("BipedIK");
      for (let f = 0; f < 60 && !run.done; f++) m.scene.render();
      expect(run.done, "the scenario recorded its key moment").toBe(true);
      const on = run.checks.held as unknown as Figures;
      // and live, three frames on (the balls sway)
      for (let f = 0; f < 3; f++) m.scene.render();
      const live = run.world!() as unknown as Figures;
      // the panel's IK switch: every component off, faded over 0.3 s
      for (const comp of ctx.components) {
        comp.enableFadeSeconds = 0.3;
        comp.enabled = false;
      }
      for (let f = 0; f < 40; f++) m.scene.render();
      expect(ctx.components.some((x) => x.isFading)).toBe(false);
      const off = run.world!() as unknown as Figures;
      report(
        `${model} (height ${on.height.toFixed(2)}), IK on: ${line(on)}\n  live: ${line(live)}\n  IK off: ${line(off)}`,
      );
      expect(on.fromFingers).toEqual([fingers, fingers]);
      if (fingers) {
        // the palms read from the fingers and thumb face down in the rest pose (both models' T-pose): the thumb's
        // side and the normal's sign are right (wrong, the palms would face up and lie on the balls by their backs)
        const { measurePalm } = await import("../../demo/src/props/palm.js");
        const r = c.ik.references;
        const nodes = new Set(c.skeleton.bones.flatMap((b) => b.getTransformNode() ?? []));
        for (const [hand, forearm, isRight] of [
          [r.leftHand, r.leftForearm, false],
          [r.rightHand, r.rightForearm, true],
        ] as const) {
          c.idle?.stop();
          for (const g of c.clips) g.stop();
          c.skeleton.returnToRest();
          const palm = measurePalm(hand, forearm, nodes, isRight, c.forward, c.right, c.h);
          const deg = (Math.acos(-palm.normal.y) * 180) / Math.PI;
          report(`${model} ${isRight ? "right" : "left"} palm in the T-pose: ${deg.toFixed(1)}° from facing down`);
          expect(deg, "the palm facing down in the T-pose").toBeLessThan(30);
        }
      }
      for (const f of [on, live]) {
        for (const p of f.palms) {
          expect(Math.abs(p.gap), "a palm on its ball's surface").toBeLessThan(0.002 * f.height);
          expect(p.angle, "a palm facing its ball's centre").toBeLessThan(2);
        }
        expect(f.head, "the head toward the look ball").toBeLessThan(3);
        for (const d of f.feet) expect(d, "a foot where it was planted").toBeLessThan(0.002 * f.height);
      }
      for (const p of off.palms)
        expect(p.gap, "IK off: the palm away from its ball").toBeGreaterThan(0.05 * off.height);
    },
  );
});
