/**
 * The grab scenario framed from the table and the cup as well as the body: the table across a good part of the
 * view and the cup, at rest and lifted in the hand, inside the view's free part and not behind the head. Framed
 * from the body's height box alone, the Mannequin's (a chibi: its head near half its height) table took 10.6 % of
 * a 1280 px view's width, the UAL character's 16.4 % (now 17.3 % and 27.1 %).
 */
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { headBall, hiddenByHead } from "../../demo/src/framing.js";
import { type LoadedModel, type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { freeView, openScenario, project } from "../helpers/demo-scenario.js";

const report = (s: string) => process.env.FBBIK_REPORT && console.log(s);

describe.each<ModelName>(["UAL", "Mannequin", "Xbot", "Soldier"])("the grab framed on %s", (model) => {
  let m: LoadedModel;
  beforeAll(async () => {
    if (modelAvailable(model)) m = await loadModel(model);
  });
  afterAll(() => m?.dispose());

  it.skipIf(!modelAvailable(model))(
    "the table wide in view, the cup in the free part and clear of the head",
    async () => {
      // the panel's controls listen on the page as their module loads
      vi.stubGlobal("addEventListener", () => undefined);
      const { scenarioNamed } = await import("../../demo/src/scenarios/index.js");
      const [w, h] = [1280, 800];
      const { camera, c, ctx } = await openScenario(m, scenarioNamed("grab")!, w, h);
      const { left, bottom } = freeView(w, h);
      const board = ctx.scene.getMeshByName("table")!;
      const cup = ctx.scene.getMeshByName("cup")!;
      const xs = board.getBoundingInfo().boundingBox.vectorsWorld.map((v: Vector3) => project(camera, v, w, bottom).x);
      const width = (Math.max(...xs) - Math.min(...xs)) / w;
      const at = cup.getAbsolutePosition().clone();
      const s = project(camera, at, w, bottom);
      const ball = headBall(c);
      report(
        `${model} grab: the table ${(width * 100).toFixed(1)} % of the view's width, the cup at (${s.x.toFixed(0)}, ` +
          `${s.y.toFixed(0)}) px; head ball ${((ball.radius / c.h) * 100).toFixed(1)} % of h`,
      );
      expect(width, "the table's share of the view's width").toBeGreaterThan(0.15);
      expect(s.x, "the cup clear of the panel").toBeGreaterThan(left);
      expect(s.x).toBeLessThan(w);
      expect(s.y).toBeGreaterThan(0);
      expect(s.y).toBeLessThan(bottom);
      expect(hiddenByHead(camera, ball, at), "the cup behind the head").toBe(false);
    },
  );
});
