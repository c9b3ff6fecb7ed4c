/**
 * A bone-only skeleton's body mesh taken out of the scene without being disposed (`scene.removeMesh(body)`, or an asset
 * container holding the body: `removeAllFromScene()`), while clothes skinned by the same skeleton stay. The body no
 * longer shows the character, the clothes do: the rig moves to them, as when the body is disposed
 * (qa28-outfit-meshes). Before, it noticed only disposal and went on solving in the removed body's space: the clothes,
 * elsewhere, showed the held hand where the body's frame put it. The body added back, the rig stays on the clothes (they
 * still show the character; it moves only when the mesh it lives in leaves), and goes back to the body once the
 * clothes leave. With no other mesh, the rig stays in the removed body (it is expected back) and moves to the first
 * mesh skinned by the skeleton added meanwhile.
 */
import { AssetContainer } from "@babylonjs/core/assetContainer.js";
import { afterEach, describe, expect, it } from "vitest";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { nextTick, outfitFigure, showsIK } from "../helpers/outfit-figure.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

describe("the body mesh of a .babylon skeleton removed from the scene while clothes stay", () => {
  it("scene.removeMesh(body): the clothes carry the IK; added back, it stays there until the clothes leave", async () => {
    const f = await outfitFigure(open);
    const { m, ik, body, clothes } = f;
    f.handOff(clothes, 3);
    m.scene.removeMesh(body);
    const removed = f.handOff(clothes, 30);
    report("body removed: the held hand from its target, shown by the clothes (h)", removed);
    expect(ik.rig.componentRoot).toBe(clothes);
    expect(ik.references.root).toBe(clothes);
    expect(showsIK(clothes)).toBe(true);
    expect(showsIK(body)).toBe(false);
    // measured before: 1.05 h (solved in the removed body's frame, at the origin)
    expect(removed).toBeLessThan(1e-4);
    m.scene.addMesh(body);
    await nextTick();
    const back = f.handOff(clothes, 10);
    expect(ik.rig.componentRoot).toBe(clothes);
    expect(back).toBeLessThan(1e-4);
    // the clothes taken off: back in the body, which shows the hand on its target in turn
    m.scene.removeMesh(clothes);
    f.retarget(clothes, body);
    const inBody = f.handOff(body, 30);
    report("added back, then the clothes removed: the hand from its target, shown by the body (h)", inBody);
    expect(ik.rig.componentRoot).toBe(body);
    expect(ik.references.root).toBe(body);
    expect(showsIK(body)).toBe(true);
    expect(inBody).toBeLessThan(1e-4);
    expect(ik.rig.meshesAdopted).toBe(2);
    expect(f.warnings).toEqual([]);
    expect(ik.isDisposed).toBe(false);
  });

  it("removeAllFromScene of a container holding the body: the clothes carry the IK", async () => {
    const f = await outfitFigure(open);
    const { m, ik, body, clothes } = f;
    const part = new AssetContainer(m.scene);
    part.meshes.push(body);
    f.handOff(clothes, 3);
    part.removeAllFromScene();
    const removed = f.handOff(clothes, 30);
    report("body's container removed: the held hand from its target, shown by the clothes (h)", removed);
    expect(ik.rig.componentRoot).toBe(clothes);
    expect(removed).toBeLessThan(1e-4);
    part.addAllToScene();
    await nextTick();
    expect(f.handOff(clothes, 10)).toBeLessThan(1e-4);
    expect(ik.rig.componentRoot).toBe(clothes);
    expect(f.warnings).toEqual([]);
  });

  it("an instance of the removed body is passed over: the rig moves to the clothes", async () => {
    const f = await outfitFigure(open);
    const { m, ik, body, clothes } = f;
    const instance = body.createInstance("instance");
    expect(instance.skeleton).toBe(m.skeleton);
    // the clothes after the instance in the scene's list
    m.scene.removeMesh(clothes);
    m.scene.addMesh(clothes);
    f.handOff(clothes, 2);
    m.scene.removeMesh(body);
    expect(f.handOff(clothes, 30)).toBeLessThan(1e-4);
    expect(ik.rig.componentRoot).toBe(clothes);
  });

  it("with no other mesh, the rig stays in the removed body, and moves to clothes added later", async () => {
    const f = await outfitFigure(open);
    const { m, ik, body, clothes } = f;
    const holder = clothes.parent;
    clothes.dispose();
    f.handOff(body, 3);
    m.scene.removeMesh(body);
    f.handOff(body, 5);
    expect(ik.rig.componentRoot).toBe(body);
    expect(ik.isDisposed).toBe(false);
    // removed and added back between two frames: nothing moves
    m.scene.addMesh(body);
    m.scene.removeMesh(body);
    m.scene.addMesh(body);
    f.handOff(body, 2);
    await nextTick();
    expect(ik.rig.componentRoot).toBe(body);
    expect(ik.rig.meshesAdopted).toBe(0);
    // out again, and an outfit put on meanwhile
    m.scene.removeMesh(body);
    f.handOff(body, 2);
    const outfit = body.clone("outfit", holder);
    outfit.computeWorldMatrix(true);
    await nextTick();
    const worn = f.handOff(outfit, 30);
    report("body removed alone, an outfit added: the held hand from its target, shown by the outfit (h)", worn);
    expect(ik.rig.componentRoot).toBe(outfit);
    expect(worn).toBeLessThan(1e-4);
    expect(f.warnings).toEqual([]);
  });
});
