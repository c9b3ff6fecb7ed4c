/**
 * The demo overlay's "IK ms/frame" counts every IK component a scenario runs: the tentacle's chain solver and the
 * creature's six legs, grounder and look-at as well as the character's FullBodyBipedIK (the overlay timed the
 * FullBodyBipedIK's solve only, and BipedIK's parts: the tail and creature showed a fraction of their IK's time).
 * Each component's solve advances a stubbed clock by 1 ms: the overlay's sum is then the count of components.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SceneUpdater } from "../../src/babylon/scene-updater.js";
import { timeEverySolve } from "../../demo/src/ik-time.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { openScenario } from "../helpers/demo-scenario.js";

describe("the demo's IK time (UAL)", () => {
  let m: LoadedModel;
  beforeAll(async () => {
    m = await loadModel("UAL");
  });
  afterAll(() => m.dispose());

  it.each([
    ["tail", "CCDIK"],
    ["creature", "GrounderIK"],
  ] as const)("%s: every component's solve counted", async (name, kind) => {
    // the panel's controls listen on the page as their module loads
    vi.stubGlobal("addEventListener", () => undefined);
    const { scenarioNamed } = await import("../../demo/src/scenarios/index.js");
    await openScenario(m, scenarioNamed(name)!);
    const times = { acc: 0 };
    const untime = timeEverySolve(m.scene, times);
    const items = SceneUpdater.for(m.scene).items;
    const timed = items.slice(1, -1);
    const kinds = timed.map((x) => x.constructor.name);
    expect(kinds, "the scenario runs the family's components").toContain(kind);
    expect(kinds).toContain("FullBodyBipedIK");
    // a clock that moves only while a component solves: 1 ms each
    let now = 0;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const restore = timed.map((x) => {
      const solve = x._beforeRender.bind(x);
      x._beforeRender = () => {
        solve();
        now += 1;
      };
      return () => delete (x as { _beforeRender?: unknown })._beforeRender;
    });
    try {
      m.scene.render();
    } finally {
      for (const r of restore) r();
      vi.restoreAllMocks();
      untime();
    }
    expect(times.acc, `${timed.length} components: ${kinds.join(", ")}`).toBe(timed.length);
    expect(timed.length).toBeGreaterThan(2);
  });
});
