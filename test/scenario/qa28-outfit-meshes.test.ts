/**
 * Clothes put on a character while its IK runs (QA round 28): a second skinned mesh sharing the skeleton (an outfit,
 * armour) added or disposed at run time, and the body mesh disposed while the clothes stay. The character is still
 * shown, so it must be solved as its twin that was left alone. Before, the IK knew the meshes found at create and
 * looked for others only when the scene's count of meshes changed: with as many clothes added as body meshes
 * disposed, it took the character for one with every mesh gone and skipped it (UAL walking: the held hand 0.18 h off
 * its target, a bone 0.27 h from the twin's, no warning; the FullBodyBipedIK and the LookAtIK alike). A skeleton
 * without linked nodes is solved in the space of the mesh `create()` is given: the clothes given, the body may go.
 * QA round 29: created without `{ mesh }`, it was solved in the body's space and disposed itself with the body
 * (`detached:mesh`) though the clothes still showed the character (RiggedFigure: the held hand left 0.12 of the
 * figure's size off its target); it now moves to a mesh the skeleton still skins, and detaches once none is left.
 */
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";
import { type StreamedPair, streamedPair } from "../helpers/streamed-pair.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** The meshes of `a` that the skeleton skins and that draw (UAL: its two body primitives). */
function bodyMeshes(p: StreamedPair): Mesh[] {
  const m = p.a.m;
  return m.scene.meshes.filter((x) => x.skeleton === m.skeleton && x.getTotalVertices() > 0) as Mesh[];
}

/** Renders `frames` frames; the bones' largest distance from the twin's and the held hand's from its target, ÷ h. */
function run(p: StreamedPair, frames: number): { gap: number; hand: number } {
  let gap = 0;
  for (let f = 0; f < frames; f++) {
    p.scene.render();
    gap = Math.max(gap, p.gap());
  }
  const ik = p.a.ik;
  const hand = Vector3.Distance(worldPos(ik.references.leftHand), ik.solver.leftHandEffector.position) / p.h;
  return { gap, hand };
}

describe("clothes sharing the skeleton, put on and taken off while the IK runs (UAL walking)", () => {
  it("the body disposed while as many clothes stay is solved as its twin, every frame", async () => {
    const p = await streamedPair(open);
    const body = bodyMeshes(p);
    expect(body.length).toBe(2);
    const clothes = body.map((b, i) => b.clone(`clothes${i}`, b.parent)!);
    expect(clothes.every((c) => c.skeleton === p.a.m.skeleton)).toBe(true);
    const on = run(p, 10);
    for (const b of body) b.dispose();
    // as many meshes in the scene as when the IK was created, none of them the ones it knew
    const off = run(p, 30);
    report("clothes put on: bones from the twin's (h)", on.gap);
    report("body disposed, clothes kept: bones from the twin's, the held hand from its target (h)", off.gap, off.hand);
    expect(on.gap).toBe(0);
    expect(off.gap).toBe(0);
    expect(off.hand).toBeLessThan(1e-6);
    // one outfit off, the other on: still shown
    clothes[0]!.dispose();
    expect(run(p, 10).gap).toBe(0);
    expect(p.a.warnings).toEqual([]);
    expect(p.a.ik.isDisposed).toBe(false);
  });

  it("an outfit given the skeleton after it was added, then the body swapped out in one frame", async () => {
    const p = await streamedPair(open);
    const [first, second] = bodyMeshes(p) as [Mesh, Mesh];
    // an outfit loaded on its own and bound to the character's skeleton later
    const outfit = first.clone("outfit", first.parent)!;
    outfit.skeleton = null;
    run(p, 5);
    outfit.skeleton = p.a.m.skeleton;
    run(p, 5);
    // the body's two meshes off, one new mesh on, between two frames: the scene's count as at create
    second.clone("boots", second.parent);
    first.dispose();
    second.dispose();
    const off = run(p, 20);
    report(
      "body swapped for an outfit bound later: bones from the twin's, the hand from its target (h)",
      off.gap,
      off.hand,
    );
    expect(off.gap).toBe(0);
    expect(off.hand).toBeLessThan(1e-6);
    expect(p.a.warnings).toEqual([]);
  });

  it("plain Bones (RiggedFigure .babylon) are solved in the mesh create() is given: clothes given, the body may go", async () => {
    const m = await loadModel("RiggedFigureBabylon");
    open.push(m);
    const body = m.scene.meshes.find((x) => x.skeleton === m.skeleton) as Mesh;
    const clothes = body.clone("clothes", body.parent)!;
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton, { mesh: clothes });
    const warnings: string[] = [];
    ik.onWarningObservable.add((w) => warnings.push(w.cause));
    const hand = ik.solver.leftHandEffector;
    const at = ik.references.leftHand.getAbsolutePosition(clothes);
    // the span from the hand to the foot, the figure's size here
    const h = Vector3.Distance(at, ik.references.leftFoot.getAbsolutePosition(clothes));
    hand.position.copyFrom(at.add(new Vector3(0.05 * h, 0.1 * h, 0.05 * h)));
    hand.positionWeight = 1;
    m.scene.render();
    body.dispose();
    for (let f = 0; f < 3; f++) m.scene.render();
    m.skeleton.computeAbsoluteMatrices(true);
    const miss = Vector3.Distance(ik.references.leftHand.getAbsolutePosition(clothes), hand.position);
    report(
      "plain Bones, body disposed, solved in the clothes' space: the hand from its target (÷ hand-foot span)",
      miss / h,
    );
    expect(miss / h).toBeLessThan(1e-6);
    expect(warnings).toEqual([]);
    expect(ik.isDisposed).toBe(false);
  });

  it("plain Bones created without { mesh }: the body disposed, the IK moves to the clothes, detaching with the last", async () => {
    const m = await loadModel("RiggedFigureBabylon");
    open.push(m);
    const body = m.scene.meshes.find((x) => x.skeleton === m.skeleton) as Mesh;
    // the clothes under a node of their own, moved: Babylon skins them in their space, the IK must solve there
    const holder = new TransformNode("holder", m.scene);
    const clothes = body.clone("clothes", holder)!;
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    expect(ik.references.root).toBe(body);
    const limb = LimbIK.create(
      m.scene,
      ik.references.rightUpperArm,
      ik.references.rightForearm,
      ik.references.rightHand,
    );
    const warnings: string[] = [];
    ik.onWarningObservable.add((w) => warnings.push(w.cause));
    limb.onWarningObservable.add((w) => warnings.push(w.cause));
    const hand = ik.solver.leftHandEffector;
    const at = ik.references.leftHand.getAbsolutePosition(body);
    const h = Vector3.Distance(at, ik.references.leftFoot.getAbsolutePosition(body));
    m.scene.render();
    body.dispose();
    holder.position.set(0.3 * h, 0, 0.2 * h);
    clothes.computeWorldMatrix(true);
    const shown = ik.references.leftHand.getAbsolutePosition(clothes);
    hand.position.copyFrom(shown.add(new Vector3(0.05 * h, 0.1 * h, 0.05 * h)));
    hand.positionWeight = 1;
    const right = ik.references.rightHand.getAbsolutePosition(clothes).add(new Vector3(0, 0.1 * h, 0.05 * h));
    limb.targetPosition.copyFrom(right);
    for (let f = 0; f < 3; f++) m.scene.render();
    m.skeleton.computeAbsoluteMatrices(true);
    const miss = Vector3.Distance(ik.references.leftHand.getAbsolutePosition(clothes), hand.position) / h;
    const limbMiss = Vector3.Distance(ik.references.rightHand.getAbsolutePosition(clothes), right) / h;
    report("plain Bones, default mesh disposed, clothes moved: the hand from its target (÷ hand-foot span)", miss);
    report("the LimbIK's hand from its target, on the same skeleton (÷ hand-foot span)", limbMiss);
    expect(ik.isDisposed).toBe(false);
    expect(limb.isDisposed).toBe(false);
    expect(warnings).toEqual([]);
    expect(miss).toBeLessThan(1e-6);
    expect(limbMiss).toBeLessThan(1e-4);
    // the body was the character's root: the clothes are now
    expect(ik.references.root).toBe(clothes);
    // no mesh left to live in: detached for good, as before
    clothes.dispose();
    m.scene.render();
    m.scene.render();
    expect(warnings).toContain("detached:mesh");
    expect(ik.isDisposed).toBe(true);
    expect(limb.isDisposed).toBe(true);
  });
});
