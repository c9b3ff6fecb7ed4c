/**
 * The IK under what Babylon users turn on to make a game fast (docs/API.md, "With Babylon's performance options"):
 * the pose Babylon skins with (`skeleton.getTransformMatrices(mesh)`, as uploaded) must be the solved one in the
 * frame it is solved, with the hand on a target that moves every frame. Under `scene.freezeActiveMeshes()` Babylon
 * prepares no skeleton, so the docs' recipe (prepare after the solve) is checked, and the tempting place before it.
 */
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Observable } from "@babylonjs/core/Misc/observable.js";
import { type Scene, ScenePerformancePriority } from "@babylonjs/core/scene.js";
import { describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel, modelAvailable, proceduralIdle } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";

/** The characters checked: each walks (its clip) or idles (Mannequin: no clip). */
const MODELS_CHECKED = ["UAL", "Xbot", "Mannequin", "RiggedFigure", "RiggedFigureBabylon"] as const;
type Checked = (typeof MODELS_CHECKED)[number];

/** Starts `name`'s walk (UAL, Xbot), its one clip (RiggedFigure) or an idle (the Mannequin has no clip). */
async function animated(name: Checked): Promise<LoadedModel> {
  const clip = { UAL: "Walk_Loop", Xbot: "walk" }[name as string];
  const m = await loadModel(name, { clips: (n, i) => (clip === undefined ? i === 0 : n === clip) });
  if (name === "Mannequin")
    proceduralIdle(
      m.scene,
      m.skeleton.bones.map((b) => b.getTransformNode()!),
    ).start(true);
  // the .babylon file keys its bones themselves (frames 0-100), not an animation group
  else if (name === "RiggedFigureBabylon") m.scene.beginAnimation(m.skeleton, 0, 100, true);
  else m.container.animationGroups[0]!.start(true);
  return m;
}

/** `name` (UAL by default) with its left hand on a target circling in front of the chest, and what to measure. */
async function walker(
  name: Checked = "UAL",
): Promise<{ m: LoadedModel; ik: FullBodyBipedIK; mesh: AbstractMesh; h: number; step(): void }> {
  const m = await animated(name);
  const mesh = m.scene.meshes.find((x) => x.skeleton === m.skeleton && x.getTotalVertices() > 0)!;
  // the .babylon bones have no linked nodes: their joints through the (scaled) mesh
  const ys = m.skeleton.bones.map((b) => (b.getTransformNode() ? worldPos(b) : b.getAbsolutePosition(mesh)).y);
  const h = Math.max(...ys) - Math.min(...ys);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const target = new TransformNode("target", m.scene);
  ik.solver.leftHandEffector.target = target;
  ik.solver.leftHandEffector.positionWeight = 1;
  let f = 0;
  return {
    m,
    ik,
    mesh,
    h,
    step() {
      // a moving target, reached the same frame or not at all; placed by the root's position (it has no parent),
      // not its world matrix: computing that here would do Babylon's work for it
      const a = f++ * 0.05;
      const root = m.root.position;
      target.position.set(
        root.x + 0.08 * h * Math.cos(a),
        root.y + 0.75 * h,
        root.z + 0.2 * h + 0.05 * h * Math.sin(a),
      );
      m.scene.render();
    },
  };
}

const inverseBind = new Matrix();
const skin = new Matrix();

/** Where Babylon skins the joint of `bone` (its bind position through the uploaded matrix and the mesh), world. */
function shownJoint(m: LoadedModel, mesh: AbstractMesh, boneIndex: number): Vector3 {
  const bone = m.skeleton.bones[boneIndex]!;
  bone.getAbsoluteInverseBindMatrix().invertToRef(inverseBind);
  Matrix.FromArrayToRef(m.skeleton.getTransformMatrices(mesh), boneIndex * 16, skin);
  const bind = inverseBind.getTranslation();
  return Vector3.TransformCoordinates(Vector3.TransformCoordinates(bind, skin), mesh.getWorldMatrix());
}

/** Over `frames` frames: the largest distance, in heights, from the shown hand to its target. */
function shownHandError(w: Awaited<ReturnType<typeof walker>>, frames: number): number {
  const hand = w.ik.references.leftHand;
  const index = w.m.skeleton.bones.indexOf(hand);
  const target = w.ik.solver.leftHandEffector.target as TransformNode;
  let worst = 0;
  for (let i = 0; i < frames; i++) {
    w.step();
    const d = Vector3.Distance(shownJoint(w.m, w.mesh, index), target.position) / w.h;
    worst = Math.max(worst, Number.isFinite(d) ? d : Infinity);
  }
  return worst;
}

function freezeActiveMeshes(m: LoadedModel): Promise<void> {
  return new Promise((resolve, reject) => m.scene.freezeActiveMeshes(false, resolve, reject));
}

/** With the active meshes frozen and the skeleton prepared in `where`'s observer: {@link shownHandError} over 30 frames. */
async function shownUnderFrozenMeshes(name: Checked, where: (m: LoadedModel) => Observable<Scene>): Promise<number> {
  const w = await walker(name);
  where(w.m).add(() => w.m.skeleton.prepare());
  w.step();
  await freezeActiveMeshes(w.m);
  const shown = shownHandError(w, 30);
  w.m.dispose();
  return shown;
}

/** The models on this machine (Xbot is read from ../shared). */
const present = MODELS_CHECKED.filter((name) => modelAvailable(name));

describe("performance options", () => {
  it("each option keeps the solved pose in the skin matrices the same frame", async () => {
    const options: [string, (m: LoadedModel, mesh: AbstractMesh) => void][] = [
      ["Intermediate", (m) => void (m.scene.performancePriority = ScenePerformancePriority.Intermediate)],
      ["Aggressive", (m) => void (m.scene.performancePriority = ScenePerformancePriority.Aggressive)],
      ["blockfreeActiveMeshesAndRenderingGroups", (m) => void (m.scene.blockfreeActiveMeshesAndRenderingGroups = true)],
      ["CPU skinning", (_m, mesh) => void (mesh.computeBonesUsingShaders = false)],
      ["skinned mesh frozen", (_m, mesh) => void mesh.freezeWorldMatrix()],
      ["root frozen", (m) => void m.root.freezeWorldMatrix()],
    ];
    let worst = 0;
    for (const name of present) {
      const found: Record<string, number> = {};
      for (const [option, apply] of options) {
        const w = await walker(name);
        apply(w.m, w.mesh);
        found[option] = shownHandError(w, 30);
        w.m.dispose();
      }
      report(`${name}: shown hand to target (h), ${Object.keys(found).join(", ")}`, ...Object.values(found));
      for (const [option, d] of Object.entries(found)) expect(d, `${name}, ${option}`).toBeLessThan(1e-5);
      worst = Math.max(worst, ...Object.values(found));
    }
    report("every model and option: worst shown hand to target (h)", worst);
  });

  it("a root frozen, moved with unfreezeWorldMatrix and frozen again solves where it stands", async () => {
    const w = await walker();
    w.m.root.freezeWorldMatrix();
    expect(shownHandError(w, 10)).toBeLessThan(1e-5);
    w.m.root.unfreezeWorldMatrix();
    w.m.root.position.x += 0.5 * w.h;
    const moved = shownHandError(w, 1);
    w.m.root.freezeWorldMatrix();
    const refrozen = shownHandError(w, 10);
    report("UAL root moved, refrozen: shown hand to target (h)", moved, refrozen);
    expect(moved).toBeLessThan(1e-5);
    expect(refrozen).toBeLessThan(1e-5);
    w.m.dispose();
  });

  it("under freezeActiveMeshes, skeleton.prepare() after the solve shows it; before it, the clip alone", async () => {
    for (const name of present.filter((n) => n === "UAL" || n === "Xbot")) {
      const shownAfter = await shownUnderFrozenMeshes(name, (m) => m.scene.onAfterRenderTargetsRenderObservable);
      const shownBefore = await shownUnderFrozenMeshes(name, (m) => m.scene.onBeforeRenderObservable);
      report(
        `${name} under freezeActiveMeshes, prepared after / before the solve: shown hand to target (h)`,
        shownAfter,
        shownBefore,
      );
      expect(shownAfter).toBeLessThan(1e-5);
      // the docs say where not to: prepared before the solve, the frame shows the clip without the IK
      expect(shownBefore).toBeGreaterThan(0.1);
    }
  });

  it("freezeWorldMatrix(matrix) keeps the drawn hand on its bone with or without decompose", async () => {
    const onBone: number[] = [];
    const onTarget: number[] = [];
    for (const decompose of [false, true]) {
      const w = await walker("RiggedFigure");
      w.step();
      // the root half a height to the side, its handedness kept
      const moved = w.m.root.computeWorldMatrix(true).multiply(Matrix.Translation(0.5 * w.h, 0, 0));
      w.m.root.freezeWorldMatrix(moved, decompose);
      const hand = w.ik.references.leftHand;
      const index = w.m.skeleton.bones.indexOf(hand);
      let bone = 0;
      for (let i = 0; i < 10; i++) {
        w.step();
        // where Babylon left the hand's node (not recomputed here)
        const node = hand.getTransformNode()!.getAbsolutePosition();
        bone = Math.max(bone, Vector3.Distance(shownJoint(w.m, w.mesh, index), node) / w.h);
      }
      onBone.push(bone);
      onTarget.push(shownHandError(w, 10));
      w.m.dispose();
    }
    report("RiggedFigure, root frozen on a matrix without / with decompose: drawn hand to its bone (h)", ...onBone);
    report("the same: drawn hand to its target (h)", ...onTarget);
    for (const d of onBone) expect(d).toBeLessThan(1e-5);
  });
});
