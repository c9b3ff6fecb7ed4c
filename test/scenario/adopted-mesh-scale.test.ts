/**
 * A character scaled since its grounder was created, whose body mesh is then disposed while clothes skinned by the
 * same skeleton stay (a .babylon skeleton lives in the mesh it skins; the rig moves to the clothes, see
 * qa30-adopted-mesh-followers). The grounders keep their lengths relative to the root's scale at create
 * (`lengthScale`); the root was the body, and the grounder took the clothes for a root set anew and measured its
 * scale there: a character grown ×1.5 restarted at `lengthScale` 1, its heights and ranges shrunk by a third in one
 * frame. Each grounder is checked against a twin whose body stayed.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { BipedIK } from "../../src/babylon/biped-ik.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { GrounderIK } from "../../src/effectors/grounding/grounder-ik.js";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { riggedFigure } from "../helpers/outfit-figure.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** How much the character is grown after create. */
const GROWN = 1.5;

interface Figure {
  m: LoadedModel;
  /** The mesh that shows the character at the end: the clothes (body disposed), or the twin's body. */
  shown: Mesh;
  /** Hand-to-foot span of the bones at create, the figure's size. */
  h: number;
}

/**
 * RiggedFigure.babylon (plain Bones) under a holder away from the origin, turned a quarter, on a deck. The grounder
 * is made by `build` on the body (its root), then `adopted` puts clothes cloned from the body under the holder; the
 * holder grows ×{@link GROWN}, a step goes under the left foot, 3 frames, and `adopted` disposes the body.
 */
async function figure(adopted: boolean, build: (m: LoadedModel, h: number) => void): Promise<Figure> {
  const { m, body, h } = await riggedFigure(open);
  const holder = new TransformNode("holder", m.scene);
  holder.position.set(2 * h, 0.3 * h, h);
  holder.rotation.y = Math.PI / 2;
  body.parent = holder;
  body.computeWorldMatrix(true);
  build(m, h);
  const shown = adopted ? body.clone("clothes", holder)! : body;
  holder.scaling.setAll(GROWN);
  shown.computeWorldMatrix(true);
  const deck = CreateBox("deck", { width: 8 * h, depth: 8 * h, height: 0.1 * h }, m.scene);
  deck.position.set(2 * h, 0.25 * h, h);
  m.skeleton.computeAbsoluteMatrices(true);
  const foot = m.skeleton.bones.find((b) => /foot/i.test(b.name) && /l/i.test(b.name.replace(/foot/i, "")));
  const at = (foot ?? m.skeleton.bones[0]!).getAbsolutePosition(shown);
  const step = CreateBox("step", { width: 0.3 * h, depth: 0.45 * h, height: 0.12 * h }, m.scene);
  step.position.set(at.x, 0.36 * h, at.z);
  for (let f = 0; f < 3; f++) m.scene.render();
  if (adopted) body.dispose();
  return { m, shown, h };
}

/** Renders `frames` frames; the world positions of every bone after them, as Babylon skins them in `shown`. */
function pose(f: Figure, frames: number): Vector3[] {
  for (let i = 0; i < frames; i++) f.m.scene.render();
  f.m.skeleton.computeAbsoluteMatrices(true);
  return f.m.skeleton.bones.map((b) => b.getAbsolutePosition(f.shown));
}

/** What a grounder shows of its root and scale. */
interface Grounder {
  readonly root: unknown;
  readonly lengthScale: number;
}

/**
 * Builds a figure with the body disposed and its twin with `make`, 60 frames of each: the grounder's root is the
 * clothes, and its lengthScale and the bones are the twin's.
 */
async function checkAgainstTwin(label: string, make: (m: LoadedModel, h: number) => Grounder): Promise<void> {
  const made: Grounder[] = [];
  const build = (m: LoadedModel, h: number): void => {
    made.push(make(m, h));
  };
  const a = await figure(true, build);
  const twin = await figure(false, build);
  const [ga, gt] = made as [Grounder, Grounder];
  const pa = pose(a, 60);
  const pt = pose(twin, 60);
  const bones = Math.max(...pa.map((p, i) => Vector3.Distance(p, pt[i]!))) / a.h;
  report(`${label}: lengthScale, the twin's; bones from the twin's (h)`, ga.lengthScale, gt.lengthScale, bones);
  expect(ga.root).toBe(a.shown);
  expect(gt.lengthScale).toBeCloseTo(GROWN, 6);
  // measured before: 1 (the clothes' scale taken as the one at create), bones 0.026 h off (GrounderIK: 0.076 h)
  expect(ga.lengthScale).toBeCloseTo(GROWN, 6);
  expect(bones).toBeLessThan(1e-4);
}

// a height offset that follows lengthScale: a reference measured anew lowers the body by a third of it
describe("a character grown since create, its body disposed and the rig moved to the clothes", () => {
  it("GrounderFBBIK keeps its scale since create: lengthScale and bones as the twin's", async () => {
    await checkAgainstTwin("GrounderFBBIK", (m, h) =>
      GrounderFBBIK.create(FullBodyBipedIK.create(m.scene, m.skeleton), { heightOffset: 0.05 * h }),
    );
  });

  it("GrounderIK on BipedIK's feet keeps its scale since create: as the twin", async () => {
    await checkAgainstTwin("GrounderIK", (m, h) => {
      const biped = BipedIK.create(m.scene, m.skeleton);
      const feet = [biped.solvers.leftFoot, biped.solvers.rightFoot];
      return GrounderIK.create(feet, biped.references.pelvis, { heightOffset: 0.05 * h });
    });
  });
});
