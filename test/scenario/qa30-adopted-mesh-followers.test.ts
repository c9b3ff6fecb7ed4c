/**
 * What kept a bone-only skeleton's mesh or root at create, after the rig moved to the clothes (QA round 30). A .babylon
 * skeleton lives in the mesh it skins; disposed while clothes skinned by the same skeleton stay, the rig moves to the
 * clothes (qa28-outfit-meshes). Before, only FullBodyBipedIK's `references.root` followed: GrounderFBBIK, GrounderIK
 * and the level of detail kept the disposed mesh as their root, read where Babylon leaves a disposed node (unparented,
 * or the world origin for the grounders), so a character standing elsewhere was grounded as if at the origin and
 * levelled by its distance from there. Each is checked against a twin whose body was never disposed, standing where
 * the clothes are.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { BipedIK } from "../../src/babylon/biped-ik.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { GrounderIK } from "../../src/effectors/grounding/grounder-ik.js";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { riggedFigure } from "../helpers/outfit-figure.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** Where the character stands once the body is gone: away from the origin, up on a deck, turned a quarter. */
const PLACE = { x: 2, y: 0.3, z: 1 };

interface Figure {
  m: LoadedModel;
  /** The mesh that shows the character at the end: the clothes (disposed body), or the twin's body. */
  shown: Mesh;
  /** Hand-to-foot span of the bones, the figure's size. */
  h: number;
  /** The deck and, under the left foot, a step 0.08 h high. */
  step: Mesh;
}

/**
 * RiggedFigure.babylon (plain Bones) at {@link PLACE} on a deck with a step under its left foot. `adopted`: the body
 * stays at the origin and clothes cloned from it stand at the place under a node of their own, the IK is created on
 * the body, and the body is disposed after `build` and 3 frames. Otherwise (the twin) the body itself stands there.
 */
async function figure(adopted: boolean, build: (m: LoadedModel) => void): Promise<Figure> {
  const { m, body, h } = await riggedFigure(open);
  let shown = body;
  if (adopted) {
    const holder = new TransformNode("holder", m.scene);
    holder.position.set(PLACE.x * h, PLACE.y * h, PLACE.z * h);
    holder.rotation.y = Math.PI / 2;
    shown = body.clone("clothes", holder)!;
  } else {
    body.position.set(PLACE.x * h, PLACE.y * h, PLACE.z * h);
    body.rotation.y = Math.PI / 2;
  }
  shown.computeWorldMatrix(true);
  const deck = CreateBox("deck", { width: 4 * h, depth: 4 * h, height: 0.1 * h }, m.scene);
  deck.position.set(PLACE.x * h, (PLACE.y - 0.05) * h, PLACE.z * h);
  m.skeleton.computeAbsoluteMatrices(true);
  const foot = m.skeleton.bones.find((b) => /foot/i.test(b.name) && /l/i.test(b.name.replace(/foot/i, "")));
  const at = (foot ?? m.skeleton.bones[0]!).getAbsolutePosition(shown);
  const step = CreateBox("step", { width: 0.2 * h, depth: 0.3 * h, height: 0.08 * h }, m.scene);
  step.position.set(at.x, (PLACE.y + 0.04) * h, at.z);
  build(m);
  for (let f = 0; f < 3; f++) m.scene.render();
  if (adopted) body.dispose();
  return { m, shown, h, step };
}

/** Renders `frames` frames; the world positions of every bone after them, as Babylon skins them in `shown`. */
function pose(f: Figure, frames: number): Vector3[] {
  for (let i = 0; i < frames; i++) f.m.scene.render();
  f.m.skeleton.computeAbsoluteMatrices(true);
  return f.m.skeleton.bones.map((b) => b.getAbsolutePosition(f.shown));
}

/**
 * One frame more of each, then `reset` (the grounder forgets the move it saw: the body at the origin, then the clothes
 * elsewhere, a teleport), then 60 frames: the largest distance between the same bones of `a` and its twin, ÷ h.
 */
function twinGap(a: Figure, twin: Figure, reset: () => void): number {
  a.m.scene.render();
  twin.m.scene.render();
  reset();
  const pa = pose(a, 60);
  const pt = pose(twin, 60);
  return Math.max(...pa.map((p, i) => Vector3.Distance(p, pt[i]!))) / a.h;
}

describe("after a bone-only skeleton's mesh is disposed and the rig moves to the clothes", () => {
  it("GrounderFBBIK and the level of detail follow the clothes: grounded and levelled as the twin", async () => {
    const made: { ik: FullBodyBipedIK; grounder: GrounderFBBIK; lod: IKLevelOfDetail }[] = [];
    const build = (m: LoadedModel): void => {
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const grounder = GrounderFBBIK.create(ik);
      const lod = IKLevelOfDetail.for(m.scene);
      lod.budgetMs = Infinity;
      made.push({ ik, grounder, lod });
    };
    const a = await figure(true, build);
    const twin = await figure(false, build);
    const [ia, it2] = made as [(typeof made)[0], (typeof made)[0]];
    const warnings: string[] = [];
    ia.ik.onWarningObservable.add((w) => warnings.push(w.cause));
    const bones = twinGap(a, twin, () => ia.grounder.resetPosition());
    const r = ia.grounder.solver.rootPosition;
    const root = Vector3.Distance(new Vector3(r.x, r.y, r.z), a.shown.absolutePosition);
    const va = ia.lod.viewOf(ia.ik)!;
    const vt = it2.lod.viewOf(it2.ik)!;
    const centre = Vector3.Distance(va.centre, vt.centre) / a.h;
    report("grounded on a step: bones from the twin's (h)", bones);
    report("the grounder's root from the clothes (h)", root / a.h);
    report("the level of detail's centre from the twin's (h)", centre);
    expect(ia.ik.references.root).toBe(a.shown);
    expect(ia.grounder.root).toBe(a.shown);
    expect(root / a.h).toBeLessThan(1e-6);
    expect(bones).toBeLessThan(1e-4);
    expect(centre).toBeLessThan(1e-6);
    expect(Math.abs(va.distance - vt.distance) / a.h).toBeLessThan(1e-6);
    expect(ia.ik.characterForward.asArray()).toEqual(it2.ik.characterForward.asArray());
    expect(warnings).toEqual([]);
  });

  it("GrounderIK on BipedIK's feet follows the clothes: grounded as the twin", async () => {
    const made: { biped: BipedIK; grounder: GrounderIK }[] = [];
    const build = (m: LoadedModel): void => {
      const biped = BipedIK.create(m.scene, m.skeleton);
      const grounder = GrounderIK.create([biped.solvers.leftFoot, biped.solvers.rightFoot], biped.references.pelvis, {
        rootRotationWeight: 1,
      });
      made.push({ biped, grounder });
    };
    const a = await figure(true, build);
    const twin = await figure(false, build);
    const [ga, gt] = made as [(typeof made)[0], (typeof made)[0]];
    const bones = twinGap(a, twin, () => ga.grounder.resetPosition());
    report("GrounderIK on a step: bones from the twin's (h)", bones);
    expect(ga.grounder.root).toBe(a.shown);
    expect(ga.grounder.characterForward.asArray()).toEqual(gt.grounder.characterForward.asArray());
    expect(bones).toBeLessThan(1e-4);
    expect(ga.biped.solvers.leftFoot.isDisposed).toBe(false);
  });
});
