/**
 * The scene updater's order: components solve by updateOrder, then creation; FixTransforms runs in reverse;
 * adding or removing components during a pass never skips one or calls one twice.
 */
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { IKUpdateOrder, type SceneUpdatable, SceneUpdater } from "../../../src/babylon/scene-updater.js";

const engine = new NullEngine();
const scenes: Scene[] = [];
afterEach(() => {
  for (const s of scenes.splice(0)) s.dispose();
});

function item(name: string, log: string[], updateOrder?: number, hooks: { fix?: () => void; solve?: () => void } = {}) {
  const it: SceneUpdatable & { name: string } = {
    name,
    updateOrder,
    _beforeAnimations: () => {
      log.push(`fix ${name}`);
      hooks.fix?.();
    },
    _beforeRender: () => {
      log.push(`solve ${name}`);
      hooks.solve?.();
    },
  };
  return it;
}

function frame(): { scene: Scene; updater: SceneUpdater } {
  const scene = new Scene(engine);
  new FreeCamera("camera", Vector3.Zero(), scene);
  scenes.push(scene);
  return { scene, updater: SceneUpdater.for(scene) };
}

describe("SceneUpdater", () => {
  it("solves by updateOrder then creation, and fixes transforms in the reverse order", () => {
    const { scene, updater } = frame();
    const log: string[] = [];
    updater.add(item("chain", log, IKUpdateOrder.Chain));
    updater.add(item("body", log));
    updater.add(item("look", log, IKUpdateOrder.LookAt));
    updater.add(item("aim", log, IKUpdateOrder.Aim));
    updater.add(item("body2", log, IKUpdateOrder.FullBody));
    scene.render();
    expect(log).toEqual([
      "fix chain",
      "fix look",
      "fix aim",
      "fix body2",
      "fix body",
      "solve body",
      "solve body2",
      "solve aim",
      "solve look",
      "solve chain",
    ]);
  });

  it("a component removing itself or another during either pass skips none and calls none twice", () => {
    const { scene, updater } = frame();
    const log: string[] = [];
    const a = item("a", log, 0);
    const c = item("c", log, 2);
    let removedInFix = false;
    const b = item("b", log, 1, {
      fix: () => {
        // backwards: c was called, a is still to come
        if (!removedInFix) updater.remove(b);
        removedInFix = true;
      },
    });
    const d = item("d", log, 3, { solve: () => updater.remove(a) });
    for (const x of [a, b, c, d]) updater.add(x);
    scene.render();
    expect(log).toEqual(["fix d", "fix c", "fix b", "fix a", "solve a", "solve c", "solve d"]);
    log.length = 0;
    scene.render();
    expect(log).toEqual(["fix d", "fix c", "solve c", "solve d"]);
  });

  it("a component added during a pass runs from the next pass on, in its place", () => {
    const { scene, updater } = frame();
    const log: string[] = [];
    const late = item("late", log, 0);
    updater.add(item("x", log, 5, { solve: () => updater.add(late) }));
    scene.render();
    expect(log).toEqual(["fix x", "solve x"]);
    log.length = 0;
    scene.render();
    expect(log).toEqual(["fix x", "fix late", "solve late", "solve x"]);
  });
});
