/**
 * IKLevelOfDetail.viewOf: the controller's read-only view of a character (level, size, distance, frustum,
 * bounds centre) follows the camera (every viewport's), and is null for an IK the controller does not manage.
 */
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Viewport } from "@babylonjs/core/Maths/math.viewport.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { height } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

describe("IKLevelOfDetail.viewOf", () => {
  it("reports what the controller sees of a character, live, and null for an IK it does not know", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, cheapDistance: 10, offDistance: 20, budgetMs: Infinity });
    const camera = m.scene.activeCamera!;
    const settle = (z: number) => {
      camera.position.set(0, 1, z);
      for (let i = 0; i < 40; i++) m.scene.render();
    };
    settle(-5);
    const view = lod.viewOf(ik)!;
    expect(view).not.toBeNull();
    const near = { size: view.size, distance: view.distance };
    expect(view.level).toBe(IKLevel.Full);
    expect(view.level).toBe(lod.levelOf(ik));
    expect(view.visible).toBe(true);
    expect(view.managed).toBe(true);
    expect(view.distance).toBeGreaterThan(4);
    expect(view.distance).toBeLessThan(6);
    expect(view.height / height(m)).toBeGreaterThan(0.8);
    expect(view.centre.y).toBeGreaterThan(0);
    // farther: the same object, now smaller on screen and at the cheap level
    settle(-12);
    expect(lod.viewOf(ik)).toBe(view);
    expect(view.distance).toBeGreaterThan(near.distance + 6);
    expect(view.size).toBeLessThan(near.size);
    expect(view.level).toBe(IKLevel.Cheap);
    expect(view.natural).toBe(IKLevel.Cheap);
    // two viewports, the second looking away: Babylon leaves activeCamera on it, the main view still counts
    const mini = new FreeCamera("mini", new Vector3(0, 1, 4), m.scene);
    mini.viewport = new Viewport(0.75, 0.75, 0.25, 0.25);
    m.scene.activeCameras = [camera, mini];
    settle(-5);
    expect(m.scene.activeCamera).toBe(mini);
    expect([view.level, view.visible]).toEqual([IKLevel.Full, true]);
    expect(view.distance).toBeLessThan(6);
    m.scene.activeCameras = [];
    // an IK of another scene is not under this controller
    const other = await loadModel("Mannequin");
    open.push(other);
    expect(lod.viewOf(FullBodyBipedIK.create(other.scene, other.skeleton))).toBeNull();
  });
});
