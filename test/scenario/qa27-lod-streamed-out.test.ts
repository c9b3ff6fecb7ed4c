/**
 * IKLevelOfDetail and a character out of the scene with its asset container (`container.removeAllFromScene()`: a
 * level streamed out, its characters kept for later), or ragdolled (bones unlinked from their nodes). Before, the
 * controller took such a character for one on screen: held Off by distance, it was woken to Full every time it
 * settled Off (to let an IK whose skeleton is disposed see it and dispose itself), and faded Off again, 16 level
 * changes in 10 s, for as long as it stayed out; near the camera it kept Full, counted as visible and running.
 * Now only a character gone for good is woken; one out of the scene is not shown: Off at once, no fade, no share
 * of the budget, and its level back at once when added again.
 */
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { type StreamedPair, streamedPair } from "../helpers/streamed-pair.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** The pair at `z` (m) from the origin along the view, under a level of detail by distance alone, settled. */
async function leveled(z: number) {
  const p = await streamedPair(open);
  for (const c of [p.a, p.b]) (c.m.root as TransformNode).position.z = z;
  const lod = IKLevelOfDetail.for(p.scene);
  Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, cheapDistance: 10, offDistance: 20, budgetMs: Infinity });
  p.scene.activeCamera!.position.set(0, 1, -5);
  for (let f = 0; f < 120; f++) p.scene.render();
  const changes: string[] = [];
  lod.onLevelChangedObservable.add((e) => {
    if (e.ik === p.a.ik) changes.push(`${e.previousLevel}→${e.level}`);
  });
  return { p, lod, changes };
}

/** Takes `a` out (its container removed, or its bones unlinked as Babylon's Ragdoll does); returns the way back. */
function takeOut(p: StreamedPair, how: "streamed out" | "ragdolled"): () => void {
  const m = p.a.m;
  if (how === "streamed out") {
    m.container.removeAllFromScene();
    return () => m.container.addAllToScene();
  }
  const nodes = m.skeleton.bones.map((b) => b.getTransformNode());
  for (const b of m.skeleton.bones) b.linkTransformNode(null);
  return () => m.skeleton.bones.forEach((b, i) => b.linkTransformNode(nodes[i]!));
}

describe("IKLevelOfDetail: a character out of the scene with its asset container, or ragdolled", () => {
  for (const how of ["streamed out", "ragdolled"] as const) {
    it(`${how} while Off by distance, it stays Off (no wake to Full and fade back, again and again)`, async () => {
      const { p, lod, changes } = await leveled(30);
      expect(lod.levelOf(p.a.ik)).toBe(IKLevel.Off);
      const back = takeOut(p, how);
      const levels = new Set<IKLevel>();
      // 10 s at 60 FPS
      for (let f = 0; f < 600; f++) {
        p.scene.render();
        levels.add(lod.levelOf(p.a.ik)!);
      }
      report(`${how}, Off by distance: level changes in 10 s out`, changes.length);
      // before: 16 (Off → Full → Off every fadeSeconds and a frame)
      expect(changes).toEqual([]);
      expect([...levels]).toEqual([IKLevel.Off]);
      expect(lod.viewOf(p.a.ik)!.visible).toBe(how === "ragdolled");
      back();
      for (let f = 0; f < 30; f++) p.scene.render();
      expect(changes).toEqual([]);
      expect(p.a.ik.isDisposed).toBe(false);
    });
  }

  it("streamed out near the camera, it is Off at once and not visible; added back, Full at once, as its twin", async () => {
    const { p, lod, changes } = await leveled(0);
    expect(lod.levelOf(p.a.ik)).toBe(IKLevel.Full);
    const back = takeOut(p, "streamed out");
    p.scene.render();
    // before: Full and visible for as long as it was out
    expect(lod.levelOf(p.a.ik)).toBe(IKLevel.Off);
    expect(lod.viewOf(p.a.ik)!.visible).toBe(false);
    for (let f = 0; f < 60; f++) p.scene.render();
    back();
    p.scene.render();
    expect(lod.levelOf(p.a.ik)).toBe(IKLevel.Full);
    // no fade: nothing of it was on screen to pop
    expect(changes).toEqual(["2→0", "0→2"]);
    const gap = p.gap();
    report("streamed out near the camera: bones from the twin's on the first frame back (h)", gap);
    expect(gap).toBeLessThan(1e-9);
    expect(p.a.warnings).toEqual(["detached:skeleton", "look:detached:skeleton"]);
  });

  it("streamed out, then its container disposed (the level unloaded for good): its IK still disposes itself", async () => {
    const { p, lod } = await leveled(0);
    p.a.m.container.removeAllFromScene();
    for (let f = 0; f < 5; f++) p.scene.render();
    expect(lod.levelOf(p.a.ik)).toBe(IKLevel.Off);
    p.a.m.container.dispose();
    for (let f = 0; f < 3; f++) p.scene.render();
    expect([p.a.ik.isDisposed, p.a.grounder.isDisposed, p.a.look.isDisposed]).toEqual([true, true, true]);
    expect(lod.viewOf(p.a.ik)).toBeNull();
    expect(p.b.ik.isDisposed).toBe(false);
  });
});
