/**
 * Baked vertex animation (VAT) on every mesh of a character: Babylon's shader then skins from the baked texture and
 * never reads the bones, so nothing an IK component writes shows (QA round 30). Before, only FullBodyBipedIK warned,
 * and only at create: a LimbIK (any of the family) on such a character solved unseen and unwarned, and a manager
 * assigned after create (`mesh.bakedVertexAnimationManager = …`, the usual order: bake, then play) was never told.
 * Every component now warns (`baked-vertex-animation`) at create and when VAT takes over every mesh later.
 */
import { BakedVertexAnimationManager } from "@babylonjs/core/BakedVertexAnimation/bakedVertexAnimationManager.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** The meshes of `m` that its skeleton skins and that draw. */
function skinned(m: LoadedModel): AbstractMesh[] {
  return m.scene.meshes.filter((x) => x.skeleton === m.skeleton && x.getTotalVertices() > 0);
}

/** A warning's causes, as raised so far. */
const causes = (c: { warningsRaised: readonly { cause: string }[] }): string[] => c.warningsRaised.map((w) => w.cause);

describe("baked vertex animation on every mesh: the IK cannot show", () => {
  it("a LimbIK is warned at create, as FullBodyBipedIK", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    for (const x of skinned(m)) x.bakedVertexAnimationManager = new BakedVertexAnimationManager(m.scene);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const r = ik.references;
    ik.dispose();
    const limb = LimbIK.create(m.scene, r.leftUpperArm, r.leftForearm, r.leftHand);
    expect(causes(limb)).toContain("baked-vertex-animation");
    expect(limb.warningsRaised.find((w) => w.cause === "baked-vertex-animation")!.message).toMatch(/^LimbIK: /);
  });

  it("VAT switched on after create is warned at the next frame, by every component on the skeleton", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const look = LookAtIK.create(m.scene, { head: ik.references.head! });
    m.scene.render();
    expect(causes(ik)).not.toContain("baked-vertex-animation");
    expect(causes(look)).not.toContain("baked-vertex-animation");
    const meshes = skinned(m);
    expect(meshes.length).toBeGreaterThan(0);
    // every mesh but one: that one still shows the bones
    const managers = meshes.map((x) => {
      x.bakedVertexAnimationManager = new BakedVertexAnimationManager(m.scene);
      return x.bakedVertexAnimationManager;
    });
    managers[0]!.isEnabled = false;
    m.scene.render();
    expect(causes(ik)).not.toContain("baked-vertex-animation");
    managers[0]!.isEnabled = true;
    m.scene.render();
    expect(causes(ik)).toContain("baked-vertex-animation");
    expect(causes(look)).toContain("baked-vertex-animation");
    // once per cause: not again every frame
    m.scene.render();
    expect(causes(ik).filter((c) => c === "baked-vertex-animation").length).toBe(1);
  });

  it("hiding the one mesh skinned by the bones leaves only VAT meshes showing: warned", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const meshes = skinned(m);
    const probe = FullBodyBipedIK.create(m.scene, m.skeleton);
    const r = probe.references;
    probe.dispose();
    // an outfit playing VAT over a body skinned by the bones: the IK shows on the body
    const outfit = meshes[0]!.clone("outfit", meshes[0]!.parent)!;
    outfit.bakedVertexAnimationManager = new BakedVertexAnimationManager(m.scene);
    const limb = LimbIK.create(m.scene, r.leftUpperArm, r.leftForearm, r.leftHand);
    m.scene.render();
    expect(causes(limb)).not.toContain("baked-vertex-animation");
    for (const x of meshes) x.setEnabled(false);
    m.scene.render();
    expect(causes(limb)).toContain("baked-vertex-animation");
  });
});
