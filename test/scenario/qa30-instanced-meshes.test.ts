/**
 * Instances of a skinned character (`mesh.createInstance()`: they share the source's skeleton) drawn elsewhere
 * while the source character is hidden by its glTF root (`__root__.setEnabled(false)`: the original kept as a
 * template). Babylon still draws the instances and prepares the skeleton, so the IK on the source must go on
 * solving: before, it judged the character hidden by its root and the instances showed the clip alone.
 */
import "@babylonjs/core/Meshes/instancedMesh.js";
import type { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { InstancedMesh } from "@babylonjs/core/Meshes/instancedMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { type LoadedModel, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** UAL idling; `instance()` makes instances of its skinned meshes under a node `aside` m along +x. */
async function idling(aside = 2) {
  const m = await loadModel("UAL", { clips: (c) => c === "Idle_Loop" });
  open.push(m);
  m.container.animationGroups[0]!.start(true);
  const skinned = m.scene.meshes.filter((x) => x.skeleton === m.skeleton && x.getTotalVertices() > 0) as Mesh[];
  const holder = new TransformNode("holder", m.scene);
  holder.position.x = aside;
  const instance = (): InstancedMesh[] =>
    skinned.map((s) => {
      const i = s.createInstance(`instance of ${s.name}`);
      i.parent = holder;
      return i;
    });
  const drawn = (): string[] =>
    m.scene
      .getActiveMeshes()
      .data.slice(0, m.scene.getActiveMeshes().length)
      .map((x) => x.name);
  return { m, h: height(m), instance, drawn };
}

/** Holds the left hand 0.3 h above where it is; returns how far it is from there (× h). */
function holdLeftHand(ik: FullBodyBipedIK, h: number): () => number {
  const hand = ik.solver.leftHandEffector;
  const target = worldPos(ik.references.leftHand).add(new Vector3(0.1 * h, 0.3 * h, 0.1 * h));
  hand.position.copyFrom(target);
  hand.positionWeight = 1;
  return () => Vector3.Distance(worldPos(ik.references.leftHand), target) / h;
}

describe.skipIf(!modelAvailable("UAL"))("instances of a skinned character whose root is disabled (UAL)", () => {
  it("FullBodyBipedIK solves on for the instances; with them disabled too it stops", async () => {
    const { m, h, instance, drawn } = await idling();
    const instances = instance();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    m.scene.render();
    const off = holdLeftHand(ik, h);
    m.root.setEnabled(false);
    for (let f = 0; f < 5; f++) m.scene.render();
    const rootOff = off();
    // Babylon draws the instances alone, with the shared skeleton
    expect(drawn()).toEqual(instances.map((i) => i.name));
    for (const i of instances) i.setEnabled(false);
    for (let f = 0; f < 5; f++) m.scene.render();
    const allOff = off();
    report("hand off its target (× h): root disabled, instances shown; instances disabled too", rootOff, allOff);
    // measured: 0.33 h before (skipped as hidden); 6e-8 now
    expect(rootOff).toBeLessThan(1e-5);
    // nothing drawn: skipped, the output taken off
    expect(allOff).toBeGreaterThan(0.2);
  });

  it("instances made after the root was disabled bring the family's components back", async () => {
    const { m, h, instance } = await idling();
    const r = resolveBipedReferences(m.skeleton).references;
    m.scene.render();
    const arm = LimbIK.create(m.scene, r.leftUpperArm, r.leftForearm, r.leftHand);
    const target = worldPos(r.leftHand).add(new Vector3(0, 0.1 * h, 0.05 * h));
    arm.targetPosition.copyFrom(target);
    arm.solver.ikPositionWeight = 1;
    const off = (): number => Vector3.Distance(worldPos(r.leftHand), target) / h;
    for (let f = 0; f < 3; f++) m.scene.render();
    const reached = off();
    m.root.setEnabled(false);
    for (let f = 0; f < 3; f++) m.scene.render();
    const hidden = off();
    instance();
    for (let f = 0; f < 3; f++) m.scene.render();
    const shown = off();
    report("LimbIK's hand off its target (× h): shown; root disabled; instances made", reached, hidden, shown);
    expect(reached).toBeLessThan(1e-5);
    expect(hidden).toBeGreaterThan(0.1);
    // measured: 0.11 h before (still skipped); 1.6e-7 now
    expect(shown).toBeLessThan(1e-5);
  });

  it("IKLevelOfDetail levels the character where its instances are drawn", async () => {
    const { m, h, instance } = await idling(20);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const lod = IKLevelOfDetail.for(m.scene);
    lod.budgetMs = Number.POSITIVE_INFINITY;
    m.scene.render();
    const off = holdLeftHand(ik, h);
    // the camera 3 m in front of where the instances will be, looking at them: the source is out of its view
    const camera = m.scene.activeCamera as FreeCamera;
    camera.position.set(20, 1, -3);
    camera.setTarget(new Vector3(20, 1, 0));
    for (let f = 0; f < 100; f++) m.scene.render();
    const alone = lod.levelOf(ik);
    const instances = instance();
    // the template's root disabled: only the instances are drawn
    m.root.setEnabled(false);
    for (let f = 0; f < 100; f++) m.scene.render();
    const drawn = lod.levelOf(ik);
    const drawnOff = off();
    const view = lod.viewOf(ik)!;
    report("instances in view, the source not: level, size, the hand off its target (× h)", drawn, view.size, drawnOff);
    for (const i of instances) i.position.z = 200;
    m.root.setEnabled(true);
    for (let f = 0; f < 100; f++) m.scene.render();
    const gone = lod.levelOf(ik);
    expect(alone).toBe(IKLevel.Off);
    // measured: Off before (levelled by the source's place alone), the hand 0.34 h off; now Full, 6e-8
    expect(drawn).toBe(IKLevel.Full);
    expect(drawnOff).toBeLessThan(1e-5);
    // the instances moved out of view as well: Off again
    expect(gone).toBe(IKLevel.Off);
  });
});
