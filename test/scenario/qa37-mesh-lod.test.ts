/**
 * Babylon's mesh level of detail on a character (QA round 37): each skinned mesh given a lower level that shares the
 * skeleton (`mesh.addLODLevel(8, lower)`) and a null level that stops drawing it (`addLODLevel(20, null)`), UAL's hand
 * on a target. The lower mesh is skinned with the frame's solved pose (its hand within float noise of where the full
 * mesh puts it). Before, IKLevelOfDetail took a character Babylon's LOD draws nothing of for one on screen: at 30 m
 * (6 % of the viewport's height) it stayed Cheap, solving, `viewOf` visible; now it is Off, not visible, and comes
 * back without a pop. A lower level loaded on its own (unparented) kept a character whose root is disabled "shown" to
 * the IK, which solved it on; now a LOD level counts only through the mesh it is a level of.
 */
import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** UAL with LOD levels on each skinned mesh (a CPU-skinned copy at 8 m, nothing at 20 m), its left hand reaching. */
async function lodCharacter(parented: boolean) {
  const m = await loadModel("UAL");
  open.push(m);
  const h = height(m);
  const skinned = m.scene.meshes.filter((x) => x.skeleton === m.skeleton && x.getTotalVertices() > 0) as Mesh[];
  const lowers = skinned.map((mesh) => {
    // skinned on the CPU, each with its own vertices: the test reads what Babylon drew
    mesh.makeGeometryUnique();
    mesh.computeBonesUsingShaders = false;
    const lower = mesh.clone(`${mesh.name}_lod`, null, true)!;
    lower.makeGeometryUnique();
    lower.computeBonesUsingShaders = false;
    // a lower level loaded on its own stands outside the character's hierarchy
    if (!parented) lower.parent = null;
    mesh.addLODLevel(8, lower);
    mesh.addLODLevel(20, null);
    return lower;
  });
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const hand = ik.solver.leftHandEffector;
  hand.position.copyFrom(worldPos(ik.references.leftHand).add(new Vector3(0.05 * h, 0.1 * h, -0.08 * h)));
  hand.positionWeight = 1;
  ik.solver.leftArmChain.pull = 1;
  const camera = m.scene.activeCamera!;
  const miss = () => Vector3.Distance(worldPos(ik.references.leftHand), hand.position) / h;
  return { m, h, skinned, lowers, ik, camera, miss };
}

/** The centroid in world space of the vertices `mesh` skins to `bone` alone, as Babylon's CPU skinning left them. */
function boneVertices(mesh: Mesh, bone: number): () => Vector3 {
  const idx = mesh.getVerticesData(VertexBuffer.MatricesIndicesKind)!;
  const wts = mesh.getVerticesData(VertexBuffer.MatricesWeightsKind)!;
  const vs: number[] = [];
  for (let v = 0; v < wts.length / 4; v++)
    for (let k = 0; k < 4; k++) if (idx[v * 4 + k] === bone && wts[v * 4 + k]! > 0.99) vs.push(v);
  expect(vs.length).toBeGreaterThan(0);
  return () => {
    const p = mesh.getVerticesData(VertexBuffer.PositionKind)!;
    const c = new Vector3();
    for (const v of vs) c.addInPlaceFromFloats(p[v * 3]!, p[v * 3 + 1]!, p[v * 3 + 2]!);
    return Vector3.TransformCoordinates(c.scaleInPlace(1 / vs.length), mesh.getWorldMatrix());
  };
}

describe("UAL with Babylon's mesh LOD (a lower skinned level, then none)", () => {
  it("the lower level is drawn with the frame's solved pose: its hand where the full mesh's was", async () => {
    const { m, h, skinned, lowers, ik, camera, miss } = await lodCharacter(true);
    const handNode = ik.references.leftHand.getTransformNode()!;
    const bone = m.skeleton.getBoneIndexByName(ik.references.leftHand.name);
    const k = skinned.findIndex((s) => (s.getVerticesData(VertexBuffer.MatricesIndicesKind) ?? []).includes(bone));
    const full = boneVertices(skinned[k]!, bone);
    const lower = boneVertices(lowers[k]!, bone);
    camera.position.set(0, 1, -3);
    for (let f = 0; f < 10; f++) m.scene.render();
    expect(skinned[k]!.getLOD(camera)).toBe(skinned[k]);
    // the hand's vertices in the hand's frame, as the full mesh drew them
    const local = Vector3.TransformCoordinates(full(), Matrix.Invert(handNode.computeWorldMatrix(true)));
    camera.position.set(0, 1, -12);
    let worst = 0;
    for (let f = 0; f < 30; f++) {
      // a target moving every frame: a pose a frame late would show as its step
      ik.solver.leftHandEffector.position.y += 0.002 * h;
      m.scene.render();
      expect(skinned[k]!.getLOD(camera)).toBe(lowers[k]);
      const expected = Vector3.TransformCoordinates(local, handNode.computeWorldMatrix(true));
      worst = Math.max(worst, Vector3.Distance(lower(), expected) / h);
    }
    report(
      "UAL's lower LOD level: hand vertices from the solved hand's (h), the hand from its target (h)",
      worst,
      miss(),
    );
    expect(worst).toBeLessThan(1e-5);
    expect(miss()).toBeLessThan(1e-4);
  });

  it("IKLevelOfDetail: Off while Babylon's LOD draws nothing of it, not visible; back without a pop", async () => {
    const { m, h, skinned, ik, camera } = await lodCharacter(true);
    const lod = IKLevelOfDetail.for(m.scene);
    lod.budgetMs = Number.POSITIVE_INFINITY;
    camera.position.set(0, 1, -30);
    for (let f = 0; f < 120; f++) m.scene.render();
    for (const mesh of skinned) expect(mesh.getLOD(camera)).toBe(null);
    const view = lod.viewOf(ik)!;
    report("UAL at 30 m, drawn by no LOD level: IK level, visible (1: yes)", lod.levelOf(ik), view.visible ? 1 : 0);
    // before: Cheap (1) and visible, solving a character nothing of which is drawn
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    expect(view.natural).toBe(IKLevel.Off);
    expect(view.visible).toBe(false);
    // back to 3 m: fades in, no bone jumps more than the ik-lod tests allow
    camera.position.set(0, 1, -3);
    let last = m.skeleton.bones.map((b) => worldPos(b));
    let worst = 0;
    for (let f = 0; f < 120; f++) {
      m.scene.render();
      const now = m.skeleton.bones.map((b) => worldPos(b));
      for (let i = 0; i < now.length; i++) worst = Math.max(worst, Vector3.Distance(now[i]!, last[i]!) / h);
      last = now;
    }
    report("UAL back from no LOD level: largest bone jump a frame (h)", worst);
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    expect(lod.viewOf(ik)!.visible).toBe(true);
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThanOrEqual(0.005);
    // at 12 m the lower level draws it: levelled by its size as before
    camera.position.set(0, 1, -12);
    for (let f = 0; f < 120; f++) m.scene.render();
    expect(lod.viewOf(ik)!.visible).toBe(true);
    expect(lod.levelOf(ik)).not.toBe(IKLevel.Off);
  });

  it("the scene's customLODSelector returning null for its meshes: Off, as Babylon draws nothing of it", async () => {
    const m = await loadModel("UAL");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const lod = IKLevelOfDetail.for(m.scene);
    lod.budgetMs = Number.POSITIVE_INFINITY;
    const camera = m.scene.activeCamera!;
    // Babylon asks it about every active mesh: the character's are dropped beyond 25 m
    m.scene.customLODSelector = (mesh, cam) =>
      mesh.skeleton === m.skeleton && Vector3.Distance(mesh.getAbsolutePosition(), cam.globalPosition) > 25
        ? null
        : mesh;
    camera.position.set(0, 1, -30);
    for (let f = 0; f < 120; f++) m.scene.render();
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    expect(lod.viewOf(ik)!.visible).toBe(false);
    camera.position.set(0, 1, -20);
    for (let f = 0; f < 120; f++) m.scene.render();
    expect(lod.levelOf(ik)).not.toBe(IKLevel.Off);
  });

  it("a lower level outside the character (unparented): the root disabled, the IK sees it hidden", async () => {
    const { m, lowers, camera, miss } = await lodCharacter(false);
    expect(lowers[0]!.parent).toBe(null);
    camera.position.set(0, 1, -3);
    for (let f = 0; f < 10; f++) m.scene.render();
    expect(miss()).toBeLessThan(1e-4);
    m.root.setEnabled(false);
    for (let f = 0; f < 10; f++) m.scene.render();
    // before: the enabled lower level (drawn only through its disabled master) kept the IK solving, the hand on target
    report("UAL root disabled, unparented LOD levels: the hand from its target (h)", miss());
    expect(miss()).toBeGreaterThan(0.05);
    m.root.setEnabled(true);
    m.scene.render();
    expect(miss()).toBeLessThan(1e-4);
  });
});
