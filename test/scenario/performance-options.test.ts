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
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { height } from "../helpers/scene-probes.js";

/** A walking UAL with its left hand on a target circling in front of the chest, and what to measure. */
async function walker(): Promise<{ m: LoadedModel; ik: FullBodyBipedIK; mesh: AbstractMesh; h: number; step(): void }> {
  const m = await loadModel("UAL", { clips: (name) => name === "Walk_Loop" });
  m.container.animationGroups[0]!.start(true);
  const h = height(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const target = new TransformNode("target", m.scene);
  ik.solver.leftHandEffector.target = target;
  ik.solver.leftHandEffector.positionWeight = 1;
  const mesh = m.scene.meshes.find((x) => x.skeleton === m.skeleton && x.getTotalVertices() > 0)!;
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
async function shownUnderFrozenMeshes(where: (m: LoadedModel) => Observable<Scene>): Promise<number> {
  const w = await walker();
  where(w.m).add(() => w.m.skeleton.prepare());
  w.step();
  await freezeActiveMeshes(w.m);
  const shown = shownHandError(w, 30);
  w.m.dispose();
  return shown;
}

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
    const found: Record<string, number> = {};
    for (const [name, apply] of options) {
      const w = await walker();
      apply(w.m, w.mesh);
      found[name] = shownHandError(w, 30);
      w.m.dispose();
    }
    console.log(found);
    for (const [name, d] of Object.entries(found)) expect(d, name).toBeLessThan(1e-5);
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
    console.log({ moved, refrozen });
    expect(moved).toBeLessThan(1e-5);
    expect(refrozen).toBeLessThan(1e-5);
    w.m.dispose();
  });

  it("under freezeActiveMeshes, skeleton.prepare() after the solve shows it; before it, the clip alone", async () => {
    const shownAfter = await shownUnderFrozenMeshes((m) => m.scene.onAfterRenderTargetsRenderObservable);
    const shownBefore = await shownUnderFrozenMeshes((m) => m.scene.onBeforeRenderObservable);
    console.log({ shownAfter, shownBefore });
    expect(shownAfter).toBeLessThan(1e-5);
    // the docs say where not to: prepared before the solve, the frame shows the clip without the IK
    expect(shownBefore).toBeGreaterThan(0.1);
  });
});
