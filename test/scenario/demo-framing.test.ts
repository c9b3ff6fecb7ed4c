/**
 * The demo's scenarios as a user first sees them, built in Node with the page's camera and view shift: the
 * climb's whole ladder and the character at the top of the climb inside the view's free part at wide, tall and
 * portrait windows (a camera following the climber lost the ladder's top); every scenario on a narrow window,
 * the panel under the view (over it, it covered the character); and in the free scenario no bend goal's box in
 * front of a handle the user drags, in the starting view (a knee goal hid a third of RiggedFigure's raised left
 * foot) or orbiting (the knee goals covered the feet seen from above).
 */
import { Ray } from "@babylonjs/core/Culling/ray.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { IPointerEvent } from "@babylonjs/core/Events/deviceInputEvents.js";
import { PointerEventTypes, PointerInfoPre } from "@babylonjs/core/Events/pointerEvents.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { outline } from "../../demo/src/framing.js";
import { eyeOf } from "../../demo/src/props/clear-sight.js";
import { climb } from "../../demo/src/scenarios/climb.js";
import { type LoadedModel, type ModelName, loadModel } from "../helpers/babylon-scene.js";
import { canvasHeight, freeView, openScenario, project } from "../helpers/demo-scenario.js";

const report = (s: string) => process.env.FBBIK_REPORT && console.log(s);

describe("the climb framed on the UAL character (the demo's default)", () => {
  let m: LoadedModel;
  beforeAll(async () => {
    m = await loadModel("UAL");
  });
  afterAll(() => m.dispose());

  it.each([
    [1280, 800],
    [960, 1200],
    [600, 1000],
  ])("climb at %i×%i: the whole ladder and the character in view (at the top too)", async (w, h) => {
    const { run, camera, c, ctx } = await openScenario(m, climb, w, h);
    const ladder = ctx.scene.meshes.filter((x) => x.name === "rail" || x.name === "rung");
    const points = () => [
      ...ladder.flatMap((x) => x.getBoundingInfo().boundingBox.vectorsWorld.map((v) => v.clone())),
      ...outline(c),
    ];
    // the view's free part: right of the panel over it, the whole canvas under the panel of a narrow window
    const { left, bottom } = freeView(w, h);
    const worst = { left: Infinity, right: -Infinity, top: Infinity, bottom: -Infinity };
    const look = () => {
      for (const p of points()) {
        const s = project(camera, p, w, bottom);
        worst.left = Math.min(worst.left, s.x);
        worst.right = Math.max(worst.right, s.x);
        worst.top = Math.min(worst.top, s.y);
        worst.bottom = Math.max(worst.bottom, s.y);
      }
    };
    look();
    // the camera holds still: up to the top once (the tall window), every 30 frames
    for (let f = 0; f < 900 && !run.done && h === 1200; f++) {
      m.scene.render();
      if (f % 30 === 0) look();
    }
    look();
    report(
      `climb at ${w}×${h}: ladder and character from x ${worst.left.toFixed(0)} to ${worst.right.toFixed(0)}, ` +
        `y ${worst.top.toFixed(0)} to ${worst.bottom.toFixed(0)} px (free part x ${left}–${w}, y 0–${bottom})`,
    );
    if (h === 1200) expect(run.done, "the climb reached the top").toBe(true);
    expect(worst.top, "the ladder's top in view").toBeGreaterThanOrEqual(0);
    expect(worst.bottom, "the feet in view").toBeLessThanOrEqual(bottom);
    expect(worst.left, "clear of the panel").toBeGreaterThanOrEqual(left);
    expect(worst.right, "inside the window's right edge").toBeLessThanOrEqual(w);
  });
});

describe("every scenario on a narrow window, the panel under the view (UAL)", () => {
  let m: LoadedModel;
  beforeAll(async () => {
    m = await loadModel("UAL");
  });
  afterAll(() => m.dispose());
  const names = ["free", "grab", "climb", "ground", "deck", "hit", "aim", "look", "tail", "vr", "crowd"];
  const sizes = [
    [390, 844],
    [600, 1000],
  ];

  it.each(names.flatMap((n) => sizes.map(([w, h]) => [n, w, h] as const)))(
    "%s at %i×%i: the character in the view, framed alone in its middle",
    async (name, w, h) => {
      // the panel's controls listen on the page as their module loads
      vi.stubGlobal("addEventListener", () => undefined);
      const { scenarioNamed } = await import("../../demo/src/scenarios/index.js");
      const { camera, c } = await openScenario(m, scenarioNamed(name)!, w, h);
      const bottom = canvasHeight(w, h);
      const xs: number[] = [];
      const ys: number[] = [];
      for (const p of outline(c)) {
        const s = project(camera, p, w, bottom);
        xs.push(s.x);
        ys.push(s.y);
      }
      const [left, right] = [Math.min(...xs), Math.max(...xs)];
      report(
        `${name} at ${w}×${h}: the character from x ${left.toFixed(0)} to ${right.toFixed(0)}, ` +
          `y ${Math.min(...ys).toFixed(0)} to ${Math.max(...ys).toFixed(0)} px (view ${w}×${bottom})`,
      );
      // the outline's box reaches wider than the body (it spans the arms' reach at the feet and the head too)
      const [mx, my] = [(left + right) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
      expect(mx, "the character's middle in the view, across").toBeGreaterThan(0);
      expect(mx, "the character's middle in the view, across").toBeLessThan(w);
      expect(my, "the character's middle in the view, down").toBeGreaterThan(0);
      expect(my, "the character's middle in the view, down").toBeLessThan(bottom);
      // nothing covers the view: a character framed alone is in its middle, not pushed aside for a panel (the
      // shift for a panel over the view put it at 70 % of the width, under a panel 74 % of a phone's width)
      if (!["aim", "look", "tail", "crowd"].includes(name))
        expect(Math.abs(mx / w - 0.5), "off the view's middle (share of its width)").toBeLessThan(0.1);
    },
  );
});

describe.each<ModelName>(["UAL", "RiggedFigure", "RiggedFigureBabylon"])(
  "the free scenario's handles on %s",
  (model) => {
    it("no bend goal in front of a handle the user drags, at the start and orbiting", async () => {
      const m = await loadModel(model);
      onTestFinished(() => m.dispose());
      const [w, h] = [1280, 800];
      // the free scenario's panel controls listen on the page when their module loads
      vi.stubGlobal("addEventListener", () => undefined);
      const { free } = await import("../../demo/src/scenarios/free.js");
      const { camera } = await openScenario(m, free, w, h);
      // the table under the character and the ground are pickable too, as on the page
      const handles = m.scene.meshes.filter((x) => x.name.startsWith("handle "));
      const eye = eyeOf(camera);
      const worst: string[] = [];
      let hiddenMost = 0;
      for (const handle of handles.filter((x) => / (hand|foot)$/.test(x.name))) {
        const { hidden, by } = hiddenShare(handle, handles, eye);
        hiddenMost = Math.max(hiddenMost, hidden);
        if (hidden > 0) worst.push(`${handle.name}: ${(hidden * 100).toFixed(0)} % behind ${[...by].join(", ")}`);
      }
      report(`${model} free: ${worst.length === 0 ? "every hand and foot handle in full view" : worst.join("; ")}`);
      expect(worst, "hand and foot handles hidden by another handle").toEqual([]);

      // orbiting, as the user can (every side, from low to high): a press on an effector's handle takes no bend
      // goal, and no bend goal's box is drawn over it (another effector's handle may be)
      const goals = handles.filter((x) => x.name.endsWith(" goal"));
      const effectors = handles.filter((x) => !goals.includes(x));
      const [pressed, covered] = [new Set<string>(), new Set<string>()];
      let views = 0;
      const alpha = camera.alpha;
      for (let a = 0; a < 16; a++)
        for (const beta of [0.3, 0.8, 1.2, Math.PI / 2 - 0.08]) {
          camera.alpha = alpha + (a * Math.PI) / 8;
          camera.beta = beta;
          camera.getViewMatrix(true);
          views++;
          const eyeNow = eyeOf(camera);
          for (const handle of effectors) {
            // the centre and eight points around it, 0.6 of the way to the handle's outline
            // (a sphere's bounding sphere is its box's: √3 times as wide)
            const box = handle.getBoundingInfo().boundingBox;
            const [centre, radius] = [box.centerWorld, box.extendSizeWorld.x];
            const toEye = eyeNow.subtract(centre).normalize();
            const u = Vector3.Cross(toEye, Vector3.Up()).normalize();
            const v = Vector3.Cross(toEye, u);
            for (let k = 0; k < 9; k++) {
              const [x, y] = k === 0 ? [0, 0] : [Math.cos((k * Math.PI) / 4), Math.sin((k * Math.PI) / 4)];
              const p = centre.add(u.scale(0.6 * radius * x)).add(v.scale(0.6 * radius * y));
              const at = project(camera, p, w, h);
              const took = press(m.scene, at.x, at.y);
              if (took !== null && goals.includes(took)) pressed.add(`${handle.name} (α ${a}, β ${beta.toFixed(1)})`);
            }
            const { by } = hiddenShare(handle, goals, eyeNow);
            const drawnOver = goals.filter((g) => by.has(g.name) && g.renderingGroupId >= handle.renderingGroupId);
            if (drawnOver.length > 0) covered.add(`${handle.name} (α ${a}, β ${beta.toFixed(1)})`);
          }
        }
      report(
        `${model} free, ${views} views orbiting: a press on a handle took a bend goal ${pressed.size} times, ` +
          `a bend goal drawn over a handle ${covered.size} times ${[...covered, ...pressed].slice(0, 3).join(", ")}`,
      );
      expect([...pressed], "presses on an effector's handle that took a bend goal").toEqual([]);
      expect([...covered], "effector handles a bend goal's box is drawn over").toEqual([]);
    });
  },
);

/** What a press at `x`, `y` picks, as the page's input does: the pre-pointer observers, then the down pick. */
function press(scene: Scene, x: number, y: number): AbstractMesh | null {
  const evt = { pointerType: "mouse", pointerId: 1, button: 0 } as unknown as IPointerEvent;
  scene.onPrePointerObservable.notifyObservers(
    new PointerInfoPre(PointerEventTypes.POINTERDOWN, evt, x, y),
    PointerEventTypes.POINTERDOWN,
  );
  const predicate = scene.pointerDownPredicate ?? ((m: AbstractMesh) => m.isPickable && m.isVisible && m.isEnabled());
  return scene.pick(x, y, predicate).pickedMesh;
}

/** The share of `handle`'s visible half hidden from `eye` by other handles (rays to 69 points over its disc). */
function hiddenShare(handle: AbstractMesh, all: AbstractMesh[], eye: Vector3): { hidden: number; by: Set<string> } {
  const s = handle.getBoundingInfo().boundingSphere;
  const toEye = eye.subtract(s.centerWorld).normalize();
  const a = Vector3.Cross(toEye, Vector3.Up()).normalize();
  const b = Vector3.Cross(toEye, a).normalize();
  const by = new Set<string>();
  let [hidden, n] = [0, 0];
  for (let i = -4; i <= 4; i++)
    for (let j = -4; j <= 4; j++) {
      const [x, y] = [i / 4.5, j / 4.5];
      if (x * x + y * y > 0.9) continue;
      const p = s.centerWorld
        .add(a.scale(x * s.radiusWorld))
        .add(b.scale(y * s.radiusWorld))
        .add(toEye.scale(Math.sqrt(1 - x * x - y * y) * s.radiusWorld * 0.99));
      const ray = new Ray(eye, p.subtract(eye).normalize(), Vector3.Distance(p, eye) * 1.01);
      const hit = handle.getScene().pickWithRay(ray, (q) => all.includes(q));
      n++;
      if (hit?.hit === true && hit.pickedMesh !== handle) {
        hidden++;
        by.add(hit.pickedMesh!.name);
      }
    }
  return { hidden: hidden / n, by };
}
