/**
 * A character that is not shown is not solved: its root node disabled (or a node above it), or every mesh of
 * it disabled. FullBodyBipedIK and the family's components (LookAtIK here) then neither read, solve, write nor
 * run FixTransforms or hooks; their output is off the bones (the animation alone), and enabled again the
 * character is back in its solved pose from the first frame, bit for bit.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { Inertia } from "../../src/effectors/modifiers/inertia.js";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones.js";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { disposeOpen, height, load, report, worldPos } from "../helpers/modifier-scene.js";

afterEach(disposeOpen);

/** Every bone's local position and rotation. */
function pose(m: LoadedModel): number[] {
  return m.skeleton.bones.flatMap((b) => {
    const t = b.getTransformNode()!;
    return [...t.position.asArray(), ...t.rotationQuaternion!.asArray()];
  });
}

/** The model with a FullBodyBipedIK (left hand on a target) and a LookAtIK (head on a point), with counters. */
async function character() {
  const m = await load("Mannequin");
  const animated = pose(m);
  const h = height(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const r = ik.references;
  const look = LookAtIK.create(m.scene, { head: r.head! });
  look.solver.headWeight = 1;
  const hand = ik.solver.leftHandEffector;
  const handAt = worldPos(r.leftHand).add(new Vector3(0.1 * h, 0.15 * h, 0.1 * h));
  const lookAt = worldPos(r.head!).add(new Vector3(0.5 * h, 0.2 * h, h));
  hand.position.copyFrom(handAt);
  hand.positionWeight = 1;
  look.targetPosition.copyFrom(lookAt);
  const count = { fbbik: 0, look: 0 };
  ik.solver.onPreUpdateObservable.add(() => count.fbbik++);
  const solve = look.solver.solve.bind(look.solver);
  look.solver.solve = () => {
    count.look++;
    solve();
  };
  for (let f = 0; f < 3; f++) m.scene.render();
  return { m, ik, look, count, animated, solved: pose(m), handAt, lookAt, h };
}

describe("a disabled character (Mannequin)", () => {
  it("is not solved while its root is disabled, shows the animation, and comes back in its solved pose", async () => {
    const { m, ik, look, count, animated, solved, handAt, lookAt, h } = await character();
    expect(solved).not.toEqual(animated);
    m.root.setEnabled(false);
    const before = { ...count };
    for (let f = 0; f < 30; f++) {
      // the targets move meanwhile (and hooks would see it): nothing is solved
      ik.solver.leftHandEffector.position.copyFrom(handAt.add(new Vector3(0, 0.01 * h * f, 0)));
      look.targetPosition.copyFrom(lookAt.add(new Vector3(0.02 * h * f, 0, 0)));
      m.scene.render();
      ik.update();
      look.update();
    }
    expect(count).toEqual(before);
    // the IK's output came off when the character hid: the bones are the animation's
    expect(pose(m)).toEqual(animated);
    ik.solver.leftHandEffector.position.copyFrom(handAt);
    look.targetPosition.copyFrom(lookAt);
    m.root.setEnabled(true);
    m.scene.render();
    // no pop: the first frame back is the pose it had before it hid
    expect(pose(m)).toEqual(solved);
    expect(count.fbbik).toBeGreaterThan(before.fbbik);
    expect(count.look).toBeGreaterThan(before.look);
  });

  it("a disabled node above the root, or every mesh of it disabled, hides it too; a prop on a hand shows it", async () => {
    const { m, count, animated, solved, h } = await character();
    const level = new TransformNode("level", m.scene);
    m.root.parent = level;
    level.setEnabled(false);
    // Babylon's isEnabled() answers false under a disabled ancestor
    expect(m.root.isEnabled()).toBe(false);
    let before = { ...count };
    m.scene.render();
    expect(count).toEqual(before);
    expect(pose(m)).toEqual(animated);
    level.setEnabled(true);
    m.scene.render();
    expect(pose(m)).toEqual(solved);

    const meshes = m.scene.meshes.filter((mesh) => mesh.skeleton === m.skeleton);
    expect(meshes.length).toBeGreaterThan(0);
    for (const mesh of meshes) mesh.setEnabled(false);
    before = { ...count };
    m.scene.render();
    expect(count).toEqual(before);
    // a mesh on a bone (a sword in the hand, first-person arms) is the character shown: it is solved
    const prop = CreateBox("prop", { size: 0.05 * h }, m.scene);
    prop.parent = m.skeleton.bones.find((b) => /hand/i.test(b.name))!.getTransformNode();
    m.scene.render();
    expect(count.fbbik).toBeGreaterThan(before.fbbik);
    expect(count.look).toBeGreaterThan(before.look);
    expect(pose(m)).toEqual(solved);
  });

  it("every mesh of it disposed, its skeleton and nodes kept, hides it too; a mesh added since shows it", async () => {
    const { m, ik, count, animated, solved, h } = await character();
    for (const mesh of m.scene.meshes.filter((x) => x.skeleton === m.skeleton)) mesh.dispose(false, true);
    const before = { ...count };
    for (let f = 0; f < 3; f++) m.scene.render();
    // before: solved every frame (3 of 3), nothing of the character shown
    expect(count).toEqual(before);
    expect(pose(m)).toEqual(animated);
    // not disposed: the skeleton lives on, a new outfit or a prop may show it again
    expect(ik.isDisposed).toBe(false);
    const prop = CreateBox("prop", { size: 0.05 * h }, m.scene);
    prop.parent = m.skeleton.bones.find((b) => /hand/i.test(b.name))!.getTransformNode();
    m.scene.render();
    expect(count.fbbik).toBeGreaterThan(before.fbbik);
    expect(pose(m)).toEqual(solved);
  });

  it("created before its container's addAllToScene: every mesh disabled hides it once added", async () => {
    const m = await load("Mannequin");
    // the state a container is in before addAllToScene: its meshes and skeleton are in it, not in the scene
    m.container.removeAllFromScene();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    m.container.addAllToScene();
    let solves = 0;
    ik.solver.onPreUpdateObservable.add(() => solves++);
    m.scene.render();
    expect(solves).toBe(1);
    for (const mesh of m.scene.meshes.filter((x) => x.skeleton === m.skeleton)) mesh.setEnabled(false);
    m.scene.render();
    m.scene.render();
    // before: solved 2 of 2 frames (the meshes were never looked for once the container was added)
    expect(solves).toBe(1);
  });

  it("Inertia restarts from the current pose after frames the IK skipped: the body does not swing back", async () => {
    const m = await load("Mannequin");
    const h = height(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const pelvis = ik.references.pelvis;
    new Inertia(ik, {
      bodies: [{ transform: pelvis.getTransformNode()!, effectorLinks: [{ effector: FullBodyBipedEffector.Body }] }],
    });
    m.scene.render();
    // walking forward at 0.02 h a frame; hidden for 30 frames meanwhile
    let last = worldPos(pelvis).subtract(m.root.position);
    let worst = 0;
    let shown = 0;
    for (let f = 0; f < 90; f++) {
      m.root.position.z += 0.02 * h;
      if (f === 30) m.root.setEnabled(false);
      if (f === 60) m.root.setEnabled(true);
      m.scene.render();
      const p = worldPos(pelvis).subtract(m.root.position);
      const move = Vector3.Distance(p, last) / h;
      if (f > 60) worst = Math.max(worst, move);
      else if (f < 30) shown = Math.max(shown, move);
      last = p;
    }
    report("disabled Mannequin, Inertia: worst pelvis move a frame /h, shown and after re-enabling", shown, worst);
    // measured 2.0 % of h, as when Inertia starts on the walking character; 3.2 % from its state before the gap
    expect(shown).toBeLessThan(0.023);
    expect(worst).toBeLessThan(1.2 * shown);
  });
});
