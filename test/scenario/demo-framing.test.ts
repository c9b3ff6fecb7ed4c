/**
 * The demo's scenarios as a user first sees them, built in Node with the page's camera and view shift: the
 * climb's whole ladder and the character at the top of the climb inside the view's free part at wide, tall and
 * portrait windows (a camera following the climber lost the ladder's top); every scenario on a narrow window,
 * the panel under the view (over it, it covered the character); and in the free scenario a press on a handle the
 * user drags never takes a bend goal's box, in the starting view or orbiting (a knee goal's box hid a third of
 * RiggedFigure's raised left foot at the start; seen from above, the knee goals covered the feet).
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import type { IPointerEvent } from "@babylonjs/core/Events/deviceInputEvents.js";
import { PointerEventTypes, PointerInfoPre } from "@babylonjs/core/Events/pointerEvents.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { outline } from "../../demo/src/framing.js";
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
  const names = [
    "free",
    "grab",
    "climb",
    "ground",
    "deck",
    "hit",
    "aim",
    "look",
    "biped",
    "tail",
    "creature",
    "vr",
    "crowd",
  ];
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
      if (!["aim", "look", "tail", "creature", "crowd"].includes(name))
        expect(Math.abs(mx / w - 0.5), "off the view's middle (share of its width)").toBeLessThan(0.1);
    },
  );
});

describe.each<ModelName>(["UAL", "RiggedFigure", "RiggedFigureBabylon"])(
  "the free scenario's handles on %s",
  (model) => {
    it("a press on a handle the user drags takes no bend goal, at the start and orbiting", async () => {
      const m = await loadModel(model);
      onTestFinished(() => m.dispose());
      const [w, h] = [1280, 800];
      // the free scenario's panel controls listen on the page when their module loads
      vi.stubGlobal("addEventListener", () => undefined);
      const { free } = await import("../../demo/src/scenarios/free.js");
      const { camera, run } = await openScenario(m, free, w, h);
      const handles = run.effectorHandles!;
      const effectors = handles.handles.filter((x) => x.kind !== "bendGoal");
      // drawn over the bend goals' boxes: those draw first (alphaIndex) and leave no depth
      for (const goal of handles.handles.filter((x) => x.kind === "bendGoal")) {
        expect((goal.mesh.material as StandardMaterial).disableDepthWrite).toBe(true);
        for (const x of effectors) expect(goal.mesh.alphaIndex).toBeLessThan(x.mesh.alphaIndex);
      }
      // orbiting, as the user can (every side, from low to high; the starting view first): a press on an
      // effector's handle, as the page makes it (the handles' layer picks), selects an effector's handle
      const pressed = new Set<string>();
      let [views, presses] = [0, 0];
      const { alpha, beta: start } = camera;
      for (let a = 0; a < 16; a++)
        for (const beta of a === 0 ? [start, 0.3, 0.8, 1.2, Math.PI / 2 - 0.08] : [0.3, 0.8, 1.2, Math.PI / 2 - 0.08]) {
          camera.alpha = alpha + (a * Math.PI) / 8;
          camera.beta = beta;
          // the handles keep their size on screen: sized for this view as they draw
          m.scene.render();
          views++;
          const eye = camera.globalPosition;
          for (const handle of effectors) {
            // the centre and eight points around it, 0.6 of the way to the handle's outline
            const centre = handle.mesh.getBoundingInfo().boundingSphere.centerWorld;
            const radius = 0.5 * handle.mesh.scaling.x;
            const toEye = eye.subtract(centre).normalize();
            const u = Vector3.Cross(toEye, Vector3.Up()).normalize();
            const v = Vector3.Cross(toEye, u);
            for (let k = 0; k < 9; k++) {
              const [x, y] = k === 0 ? [0, 0] : [Math.cos((k * Math.PI) / 4), Math.sin((k * Math.PI) / 4)];
              const p = centre.add(u.scale(0.6 * radius * x)).add(v.scale(0.6 * radius * y));
              handles.select(null);
              press(m.scene, project(camera, p, w, h));
              presses++;
              const took = handles.selected;
              if (took === null || took.kind === "bendGoal")
                pressed.add(`${handle.name}: ${took?.name ?? "nothing"} (α ${a}, β ${beta.toFixed(1)})`);
            }
          }
        }
      report(
        `${model} free, ${views} views orbiting, ${presses} presses on effector handles: ${pressed.size} took a ` +
          `bend goal or nothing ${[...pressed].slice(0, 3).join(", ")}`,
      );
      expect([...pressed], "presses on an effector's handle that took a bend goal or nothing").toEqual([]);
    });
  },
);

/** A press at `at` (the page's CSS pixels) as the page's input makes it: the scene's pre-pointer observers pick. */
function press(scene: Scene, at: Vector3): void {
  const evt = { pointerType: "mouse", pointerId: 1, button: 0 } as unknown as IPointerEvent;
  scene.pointerX = at.x;
  scene.pointerY = at.y;
  scene.onPrePointerObservable.notifyObservers(
    new PointerInfoPre(PointerEventTypes.POINTERDOWN, evt, at.x, at.y),
    PointerEventTypes.POINTERDOWN,
  );
}
