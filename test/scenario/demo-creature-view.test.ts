/**
 * The creature scenario as a user watches it, built in Node with the page's camera and view shift: the watcher's
 * whole figure and the creature inside the view's free part over a whole lap of the course, and the watcher's head
 * no steeper than the gaze's 30° cap. Followed at its opening radius with the creature in the middle, the watcher's
 * meshes went up to 157 px above the view's top (the Mannequin's; the UAL character's 153 px) and off its sides;
 * with the creature behind its shoulder (159° round at the start), the head turned toward it along the great
 * circle from its forward, far below both: the UAL character's bowed 51° for the first four seconds and up to 88°
 * on the far lane (the Mannequin's 66°, Xbot's 69°, the Soldier's 73°; now at most 30.4°).
 */
import { Quaternion, type Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { boneRotation } from "../../demo/src/bone-world.js";
import { outline } from "../../demo/src/framing.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { type LoadedModel, type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { freeView, openScenario, project } from "../helpers/demo-scenario.js";

const report = (s: string) => process.env.FBBIK_REPORT && console.log(s);

describe.each<ModelName>(["UAL", "Mannequin", "Xbot", "Soldier"])("the creature watched by %s", (model) => {
  let m: LoadedModel;
  beforeAll(async () => {
    if (modelAvailable(model)) m = await loadModel(model, { clips: (n) => n === "Idle_Loop" });
  });
  afterAll(() => m?.dispose());

  it.skipIf(!modelAvailable(model))(
    "a lap: the watcher whole and the creature in view, the head no steeper than 30° down",
    async () => {
      // the panel's controls listen on the page as their module loads
      vi.stubGlobal("addEventListener", () => undefined);
      const { scenarioNamed } = await import("../../demo/src/scenarios/index.js");
      // the head's forward as LookAtIK reads it: the character's forward, carried by the head's rotation at create
      let forward: Vector3 | null = null;
      const create = LookAtIK.create;
      const spy = vi.spyOn(LookAtIK, "create").mockImplementation((scene, bones, options) => {
        const q = Quaternion.Inverse(boneRotation(bones.head!));
        forward = options!.forward!.applyRotationQuaternion(q);
        return create.call(LookAtIK, scene, bones, options);
      });
      const [w, h] = [1280, 800];
      const { camera, c, ctx, run } = await openScenario(m, scenarioNamed("creature")!, w, h);
      spy.mockRestore();
      const { left, bottom } = freeView(w, h);
      const walker = ctx.scene.getTransformNodeByName("creature walker")!;
      const head = c.ik.references.head!;
      const watcher = outline(c);
      const start = (run.world!() as { walked: number }).walked;
      const worst = { left: Infinity, right: -Infinity, top: Infinity, bottom: -Infinity, bow: 0, at: 0 };
      // a lap of the loop (10 h of lanes and two turns of 0.4 h), every 10th frame
      for (let f = 1; (run.world!() as { walked: number }).walked < start + 12.6 * c.h; f++) {
        m.scene.render();
        if (f % 10 !== 0) continue;
        for (const p of [...watcher, walker.getAbsolutePosition()]) {
          const s = project(camera, p, w, bottom);
          worst.left = Math.min(worst.left, s.x);
          worst.right = Math.max(worst.right, s.x);
          worst.top = Math.min(worst.top, s.y);
          worst.bottom = Math.max(worst.bottom, s.y);
        }
        const look = forward!.applyRotationQuaternion(boneRotation(head));
        const bow = (Math.asin(-look.y / look.length()) * 180) / Math.PI;
        if (bow > worst.bow) [worst.bow, worst.at] = [bow, f];
      }
      report(
        `${model} creature, a lap: the watcher and the creature from x ${worst.left.toFixed(0)} to ` +
          `${worst.right.toFixed(0)}, y ${worst.top.toFixed(0)} to ${worst.bottom.toFixed(0)} px (free part x ` +
          `${left}–${w}, y 0–${bottom}); the head at most ${worst.bow.toFixed(1)}° down (frame ${worst.at})`,
      );
      expect(worst.top, "the watcher's head in view").toBeGreaterThanOrEqual(0);
      expect(worst.bottom, "the feet and the creature in view").toBeLessThanOrEqual(bottom);
      expect(worst.left, "clear of the panel").toBeGreaterThanOrEqual(left);
      expect(worst.right, "inside the window's right edge").toBeLessThanOrEqual(w);
      // the gaze is capped at 30° below the head; the idle's own nod and the spine's share come on top
      expect(worst.bow, "the head's bow (degrees below the horizontal)").toBeLessThan(35);
    },
    120_000,
  );
});

describe("the creature's camera and the user's wheel (UAL)", () => {
  it("a zoom the user made holds while the camera refits the view each frame, until reset view", async () => {
    const m = await loadModel("UAL", { clips: (n) => n === "Idle_Loop" });
    onTestFinished(() => m.dispose());
    vi.stubGlobal("addEventListener", () => undefined);
    const { scenarioNamed } = await import("../../demo/src/scenarios/index.js");
    const { camera, run } = await openScenario(m, scenarioNamed("creature")!, 1280, 800);
    for (let f = 0; f < 30; f++) m.scene.render();
    const fitted = camera.radius;
    // the wheel: half as far again
    camera.radius = 1.5 * fitted;
    m.scene.render();
    const zoomed = camera.radius / fitted;
    for (let f = 0; f < 30; f++) m.scene.render();
    report(`UAL creature: zoomed out ×1.5, the next frame's radius ×${zoomed.toFixed(3)} the fitted one`);
    // the fit moves little in a frame (the creature walks 1 % h)
    expect(zoomed).toBeCloseTo(1.5, 1);
    expect(camera.radius / fitted, "30 frames on").toBeGreaterThan(1.3);
    // "reset view": the camera put back at the opening's radius, the user's zoom forgotten (the fit alone)
    const fit = camera.radius / 1.5;
    camera.radius = 0.5 * camera.radius;
    run.resetView?.();
    m.scene.render();
    report(`after "reset view": the radius ×${(camera.radius / fit).toFixed(3)} the fit of the frame before`);
    expect(camera.radius / fit).toBeCloseTo(1, 1);
  }, 60_000);
});
