/**
 * FullBodyBipedIK's settings in Babylon's Inspector after a bone-only skeleton's body mesh is disposed and the rig moves
 * to clothes skinned by the same skeleton (qa28-outfit-meshes). They are shown at create on the character's root and
 * meshes; the clothes put on later got none (a clone's copies are taken off), and the settings stayed on the disposed
 * body: nothing left in the scene showed the IK's settings but the skeleton. They now follow the rig to the clothes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { nextTick, outfitFigure, showsIK } from "../helpers/outfit-figure.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

describe("the IK's Inspector settings when the rig moves from a disposed body mesh to the clothes", () => {
  it("the clothes show them, writing to the IK; the disposed body does not", async () => {
    const f = await outfitFigure(open);
    const { ik, body, clothes } = f;
    await nextTick();
    expect(showsIK(body)).toBe(true);
    expect(showsIK(clothes)).toBe(false);
    f.handOff(clothes, 2);
    body.dispose();
    f.handOff(clothes, 1);
    expect(ik.references.root).toBe(clothes);
    // measured before: the body kept them (disposed), the clothes had none
    expect(showsIK(clothes)).toBe(true);
    expect(showsIK(body)).toBe(false);
    expect(ik.inspector.attachedTo).toContain(clothes);
    expect(ik.inspector.attachedTo).not.toContain(body);
    expect(ik.inspector.attachedTo).toContain(ik.skeleton);
    (clothes as unknown as Record<string, number>).fbbik_ikPositionWeight = 0.25;
    expect(ik.solver.ikPositionWeight).toBe(0.25);
    // disposed with the IK: taken off the clothes too
    ik.dispose();
    expect(showsIK(clothes)).toBe(false);
  });

  it("clothes there at create: one set of entries on them after the move, none left on the body", async () => {
    const f = await outfitFigure(open);
    const { m, ik, body } = f;
    // an IK created with the clothes on: shown there from the start
    ik.dispose();
    const second = FullBodyBipedIK.create(m.scene, m.skeleton);
    const clothes = f.clothes;
    expect(showsIK(clothes)).toBe(true);
    const count = (): number =>
      (clothes.inspectableCustomProperties ?? []).filter((e) => e.propertyName === "fbbik_ikPositionWeight").length;
    body.dispose();
    f.handOff(clothes, 1);
    expect(second.rig.componentRoot).toBe(clothes);
    expect(count()).toBe(1);
    expect(showsIK(body)).toBe(false);
    expect(second.inspector.attachedTo.filter((h) => h === clothes).length).toBe(1);
  });
});
