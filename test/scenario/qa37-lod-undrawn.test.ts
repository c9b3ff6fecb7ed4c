/**
 * IK level of detail for characters no camera draws (QA 37's leftovers). `viewOf(ik).distance` kept the last drawn
 * frame's value once a camera drew nothing of the character (Babylon's mesh LOD past a null level, or a camera's
 * `layerMask`): at 30 m it still said 3 m; now it is the distance to the character's place, as for one out of view.
 * Instances of a skinned character (`createInstance`) were levelled by their size and distance alone: a crowd of them
 * past their source's null level (`addLODLevel(20, null)`), which Babylon draws nothing of, stayed Cheap and solving;
 * now each instance is read the way Babylon picks its level (the source's levels at the instance's place).
 */
import "@babylonjs/core/Meshes/instancedMesh.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { InstancedMesh } from "@babylonjs/core/Meshes/instancedMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { type LoadedModel, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** UAL whose skinned meshes Babylon stops drawing past 20 m (`addLODLevel(20, null)`), under an IK LOD. */
async function nullLevelled() {
  const m = await loadModel("UAL");
  open.push(m);
  const skinned = m.scene.meshes.filter((x) => x.skeleton === m.skeleton && x.getTotalVertices() > 0) as Mesh[];
  for (const mesh of skinned) mesh.addLODLevel(20, null);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const lod = IKLevelOfDetail.for(m.scene);
  lod.budgetMs = Number.POSITIVE_INFINITY;
  const camera = m.scene.activeCamera as FreeCamera;
  const drawn = (): string[] =>
    m.scene
      .getActiveMeshes()
      .data.slice(0, m.scene.getActiveMeshes().length)
      .filter((x) => x.getTotalVertices() > 0)
      .map((x) => x.name);
  const settle = (frames = 60): void => {
    for (let f = 0; f < frames; f++) m.scene.render();
  };
  return { m, skinned, ik, lod, camera, drawn, settle };
}

describe.skipIf(!modelAvailable("UAL"))("IK LOD of a character no camera draws (UAL)", () => {
  it("viewOf's distance follows the camera while Babylon's mesh LOD draws nothing of it", async () => {
    const { ik, lod, camera, drawn, settle } = await nullLevelled();
    camera.position.set(0, 1, -3);
    settle();
    const view = lod.viewOf(ik)!;
    const near = view.distance;
    camera.position.set(0, 1, -30);
    settle();
    expect(drawn()).toEqual([]);
    const far = view.distance;
    const expected = Vector3.Distance(view.centre as Vector3, camera.globalPosition);
    report("UAL at 3 m then 30 m past its null LOD level: viewOf distance", near, far);
    expect(near).toBeLessThan(5);
    expect(view.visible).toBe(false);
    expect(view.size).toBe(0);
    // before: 3.1 (the last frame Babylon drew it)
    expect(far).toBeCloseTo(expected, 6);
    expect(far).toBeGreaterThan(28);
  });

  it("viewOf's distance follows the camera when no camera's layers draw it", async () => {
    const { m, ik, lod, camera, settle } = await nullLevelled();
    camera.position.set(0, 1, -3);
    settle();
    // two cameras off the character's layers (a GUI's, an overlay's): neither draws it
    const other = new FreeCamera("other", new Vector3(0, 1, -10), m.scene);
    other.setTarget(new Vector3(0, 1, 0));
    camera.layerMask = 0x10000000;
    other.layerMask = 0x20000000;
    m.scene.activeCameras = [camera, other];
    camera.position.set(0, 1, -10);
    settle();
    const view = lod.viewOf(ik)!;
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    expect(view.size).toBe(0);
    // before: about 3 (the frame before the layers left it)
    expect(view.distance).toBeCloseTo(Vector3.Distance(view.centre as Vector3, camera.globalPosition), 6);
  });

  it("instances past their source's null level are not levelled: Off, as Babylon draws none", async () => {
    const { m, skinned, ik, lod, camera, drawn, settle } = await nullLevelled();
    const holder = new TransformNode("holder", m.scene);
    holder.position.set(20, 0, 0);
    const instances: InstancedMesh[] = skinned.map((s) => {
      const i = s.createInstance(`instance of ${s.name}`);
      i.parent = holder;
      return i;
    });
    // the template hidden by its root: only the instances can draw the character
    m.root.setEnabled(false);
    camera.position.set(20, 1, -3);
    camera.setTarget(new Vector3(20, 1, 0));
    settle();
    expect(drawn().sort()).toEqual(instances.map((i) => i.name).sort());
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    // 30 m from the instances: Babylon picks the source's null level at their place and draws none of them
    camera.position.set(20, 1, -30);
    settle(120);
    expect(drawn()).toEqual([]);
    const view = lod.viewOf(ik)!;
    report("UAL's instances at 30 m past a null LOD level: level, visible (1: yes)", view.level, view.visible ? 1 : 0);
    // before: Cheap and visible (levelled by the instances' size, 6 % of the viewport)
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    expect(view.visible).toBe(false);
    // near again: levelled by the instances as before
    camera.position.set(20, 1, -3);
    settle(120);
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
  });

  it("the character and its instances all past the null level: Off (the root enabled)", async () => {
    const { m, skinned, ik, lod, camera, drawn, settle } = await nullLevelled();
    for (const s of skinned) s.createInstance(`instance of ${s.name}`).position.x = 1.5;
    camera.position.set(0, 1, -30);
    settle(120);
    expect(drawn()).toEqual([]);
    // before: Cheap (the instances counted as drawn, the character's own place too)
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    expect(lod.viewOf(ik)!.visible).toBe(false);
    camera.position.set(0, 1, -3);
    settle(120);
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    expect(m.root.isEnabled()).toBe(true);
  });
});
