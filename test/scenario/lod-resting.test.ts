/**
 * Resting characters under IKLevelOfDetail: one Off and faded out is looked at (rig, visibility, place) one frame in
 * four, and judged from that look in between, because reading a crowd's Babylon nodes was most of the controller's
 * pass (1,000 Mannequins, all Off: 6–7 µs a character a frame). What that must not change: a camera turning to a
 * resting character wakes it the same frame; one walking into view wakes within four frames, from where it is then;
 * an instance made of its mesh, or a null LOD level given to it, counts from the next frame, as before.
 */
import "@babylonjs/core/Meshes/instancedMesh.js";
import type { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** Frames a resting character waits at most between two looks (the controller's REST_LOOK_EVERY). */
const LOOK_EVERY = 4;
/** Far to the camera's side: outside its frustum. */
const ASIDE = 40;

/** A Mannequin under a controller that keeps it Full whenever it is in the camera's frustum. */
async function resting() {
  const m = await loadModel("Mannequin");
  open.push(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const lod = IKLevelOfDetail.for(m.scene);
  Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, cheapDistance: 100, offDistance: 200, budgetMs: Infinity });
  const camera = m.scene.activeCamera as FreeCamera;
  camera.position.set(0, 1, -6);
  camera.setTarget(new Vector3(0, 1, 0));
  const root = ik.rig.characterRoot as TransformNode;
  /** Renders until the character is Off and faded out (each frame its own step of the scene's clock). */
  const rest = (): void => {
    for (let f = 0; f < 400 && !(lod.levelOf(ik) === IKLevel.Off && lod.weightOf(ik) === 0); f++) m.scene.render();
    m.scene.render();
    expect([lod.levelOf(ik), lod.weightOf(ik)]).toEqual([IKLevel.Off, 0]);
  };
  /** Renders until the character asks for more than Off: the frames it took (Infinity past `limit`). */
  const framesToWake = (limit = 20): number => {
    for (let f = 1; f <= limit; f++) {
      m.scene.render();
      if (lod.viewOf(ik)!.target !== IKLevel.Off) return f;
    }
    return Number.POSITIVE_INFINITY;
  };
  return { m, ik, lod, camera, root, rest, framesToWake };
}

describe("IK LOD: resting characters", () => {
  it("wakes one the camera turns to on that frame, and one walking into view within four frames", async () => {
    const { ik, lod, camera, root, rest, framesToWake } = await resting();
    const turns: number[] = [];
    const walks: number[] = [];
    // each phase of the look's four frames: a few frames more of rest before each move
    for (let phase = 0; phase < LOOK_EVERY; phase++) {
      // the camera looks away, then back
      camera.setTarget(new Vector3(0, 1, -12));
      rest();
      for (let f = 0; f < phase; f++) camera.getScene().render();
      camera.setTarget(new Vector3(0, 1, 0));
      turns.push(framesToWake());
      // the character steps aside, then back into view
      root.position.x = ASIDE;
      rest();
      for (let f = 0; f < phase; f++) camera.getScene().render();
      root.position.x = 0;
      walks.push(framesToWake());
      // woken from where it stands now: its place, not the one it rested at
      expect(lod.viewOf(ik)!.centre.x).toBeLessThan(1);
      expect(lod.viewOf(ik)!.visible).toBe(true);
    }
    report("frames to wake a resting character, by phase: camera turned", ...turns);
    report("frames to wake a resting character, by phase: character walked in", ...walks);
    expect(turns).toEqual([1, 1, 1, 1]);
    for (const w of walks) expect(w).toBeLessThanOrEqual(LOOK_EVERY);
    // the look is staggered, not skipped: over the four phases the walks took different numbers of frames
    expect(new Set(walks).size).toBeGreaterThan(1);
  });

  it("looks at a resting character's rig one frame in four, and every frame once it is back", async () => {
    const { m, ik, camera, rest } = await resting();
    camera.setTarget(new Vector3(0, 1, -12));
    rest();
    const shown = vi.spyOn(ik, "_shown");
    for (let f = 0; f < 40; f++) m.scene.render();
    const looksResting = shown.mock.calls.length;
    shown.mockClear();
    camera.setTarget(new Vector3(0, 1, 0));
    for (let f = 0; f < 40; f++) m.scene.render();
    const awake = shown.mock.calls.length;
    shown.mockRestore();
    report("visibility looks in 40 frames: resting / awake", looksResting, awake);
    expect(looksResting).toBe(40 / LOOK_EVERY);
    expect(awake).toBeGreaterThanOrEqual(40);
  });

  it("an instance made in view of a resting character's mesh wakes it the next frame; disposed, it rests again", async () => {
    const { m, ik, lod, root, rest, framesToWake } = await resting();
    root.position.x = ASIDE;
    rest();
    const source = m.scene.meshes.find((x) => x.skeleton === m.skeleton && x.getTotalVertices() > 0) as Mesh;
    const instance = source.createInstance("in view");
    // Babylon puts an instance under its source's parent: taken out, to stand at the origin in view
    instance.parent = null;
    instance.position.set(0, 0, 0);
    expect(framesToWake()).toBe(1);
    expect(lod.viewOf(ik)!.visible).toBe(true);
    instance.dispose();
    rest();
    expect(lod.viewOf(ik)!.visible).toBe(false);
  });

  it("a null LOD level given to a character's meshes after it was levelled counts from the next frame", async () => {
    const { m, ik, lod, camera } = await resting();
    camera.position.set(0, 1, -30);
    for (let f = 0; f < 5; f++) m.scene.render();
    expect(lod.viewOf(ik)!.target).toBe(IKLevel.Full);
    for (const x of m.scene.meshes)
      if (x.skeleton === m.skeleton && x.getTotalVertices() > 0) (x as Mesh).addLODLevel(20, null);
    m.scene.render();
    expect(lod.viewOf(ik)!.target).toBe(IKLevel.Off);
    // and taken away again
    for (const x of m.scene.meshes) if (x.skeleton === m.skeleton) (x as Mesh).removeLODLevel?.(null as never);
    m.scene.render();
    expect(lod.viewOf(ik)!.target).toBe(IKLevel.Full);
  });
});
