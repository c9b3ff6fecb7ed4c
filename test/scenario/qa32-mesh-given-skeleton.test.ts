/**
 * A bone-only skeleton's body mesh swapped for another (QA round 32), RiggedFigure.babylon with its left hand held,
 * its clothes gone, its body taken out of the scene (`scene.removeMesh`): the rig waits in the removed body for a
 * mesh the skeleton skins (removed-body-mesh.test.ts). Two ways it waited for good: a mesh given the skeleton after
 * it was added (`mesh.skeleton = skeleton`, as `Mesh.MergeMeshes` leaves it to you) raises no event, and the body's
 * own addition, which Babylon notifies on a later tick, arriving after the body was removed again (removed in the
 * tick it was loaded in) made the rig believe it was back. And `Mesh.MergeMeshes` of the body while the IK is on:
 * the merged mesh given the skeleton before the next frame is adopted; a frame without one, the IK goes with the
 * body (`detached:mesh`), as when a body is disposed alone.
 */
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { afterEach, describe, expect, it } from "vitest";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { nextTick, outfitFigure } from "../helpers/outfit-figure.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

describe("a removed body's rig waiting for another mesh the skeleton skins", () => {
  it("moves to a mesh given the skeleton after it was added", async () => {
    const f = await outfitFigure(open);
    const { m, ik, body, clothes } = f;
    const holder = clothes.parent;
    // the load's own notifications delivered: only the case under test
    await nextTick();
    clothes.dispose();
    f.handOff(body, 3);
    m.scene.removeMesh(body);
    f.handOff(body, 3);
    // a mesh skinned by nothing yet (as Mesh.MergeMeshes returns one), where the clothes were
    const outfit = body.clone("outfit", holder);
    outfit.skeleton = null;
    await nextTick();
    f.handOff(body, 2);
    expect(ik.rig.componentRoot).toBe(body);
    outfit.skeleton = m.skeleton;
    const worn = f.handOff(outfit, 30);
    report("a mesh given the skeleton later: the held hand from its target, shown by it (h)", worn);
    expect(ik.rig.componentRoot).toBe(outfit);
    // measured before: 1.05 h (the rig stayed in the removed body, at the origin)
    expect(worn).toBeLessThan(1e-4);
    expect(ik.rig.meshesAdopted).toBe(1);
    expect(f.warnings).toEqual([]);
  });

  it("the body removed in the tick it was added in: its late addition notice does not bring it back", async () => {
    const f = await outfitFigure(open);
    const { m, ik, body, clothes } = f;
    const holder = clothes.parent;
    clothes.dispose();
    // Babylon notifies the load's addMesh(body) on a later tick, after this removal
    m.scene.removeMesh(body);
    f.handOff(body, 3);
    await nextTick();
    f.handOff(body, 2);
    const outfit = body.clone("outfit", holder);
    outfit.computeWorldMatrix(true);
    await nextTick();
    const worn = f.handOff(outfit, 30);
    report("body removed as loaded, an outfit added: the held hand from its target, shown by the outfit (h)", worn);
    expect(ik.rig.componentRoot).toBe(outfit);
    // measured before: 1.05 h (taken for back in the scene, the rig never moved)
    expect(worn).toBeLessThan(1e-4);
    expect(f.warnings).toEqual([]);
  });
});

describe("Mesh.MergeMeshes of the body while the IK is on", () => {
  for (const late of [false, true]) {
    it(`the merged mesh given the skeleton ${late ? "a frame late: the IK goes" : "at once: adopted"}`, async () => {
      const f = await outfitFigure(open);
      const { m, ik, body, clothes } = f;
      clothes.dispose();
      f.handOff(body, 3);
      // Babylon's merge disposes the sources and leaves the merged mesh without a skeleton
      const merged = Mesh.MergeMeshes([body], true, true)!;
      expect(merged.skeleton).toBeNull();
      if (late) f.handOff(merged, 1);
      merged.skeleton = m.skeleton;
      f.handOff(merged, 3);
      if (late) {
        expect(ik.isDisposed).toBe(true);
        expect(f.warnings).toEqual(["detached:mesh"]);
      } else {
        expect(ik.rig.componentRoot).toBe(merged);
        expect(ik.references.root).toBe(merged);
        expect(ik.rig.meshesAdopted).toBe(1);
        expect(f.warnings).toEqual([]);
      }
    });
  }
});
