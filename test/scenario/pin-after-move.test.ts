/**
 * `pinToBone` / `readBonePose` called after the character moved and before the next solve (a character
 * controller moving the root between frames or in `onBeforeRenderObservable`, then planting a foot): the pin
 * is where the bone is shown now, the last solve's pose carried with the character, not where it stood at
 * that solve. glTF (linked TransformNodes) and .babylon (plain Bones) copies, left- and right-handed.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Space } from "@babylonjs/core/Maths/math.axis.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, type ModelName, loadModel } from "../helpers/babylon-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** Where Babylon shows the bone now (its node, or for plain Bones the bone in its skinned mesh's world). */
function shown(bone: Bone, mesh: AbstractMesh): { position: Vector3; rotation: Quaternion } {
  const node = bone.getTransformNode();
  if (node !== null) {
    node.computeWorldMatrix(true);
    return { position: node.absolutePosition.clone(), rotation: node.absoluteRotationQuaternion.clone() };
  }
  mesh.computeWorldMatrix(true);
  bone.getSkeleton().computeAbsoluteMatrices(true);
  return { position: bone.getAbsolutePosition(mesh), rotation: bone.getRotationQuaternion(Space.WORLD, mesh) };
}

const degrees = (a: Quaternion, b: Quaternion): number =>
  (2 * Math.acos(Math.min(1, Math.abs(Quaternion.Dot(a, b)))) * 180) / Math.PI;

describe("pinToBone after the character moved", () => {
  for (const name of ["Superhero", "RiggedFigureBabylon"] as ModelName[]) {
    for (const rightHanded of [false, true]) {
      it(`${name}, ${rightHanded ? "right" : "left"}-handed: pins where the foot is shown, and it stays there`, async () => {
        const m = await loadModel(name, { rightHanded });
        open.push(m);
        const mesh = m.scene.meshes.find((x) => x.skeleton === m.skeleton)!;
        m.scene.stopAllAnimations();
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
        m.scene.render();
        const ys = m.skeleton.bones.map((b) => shown(b, mesh).position.y);
        const h = Math.max(...ys) - Math.min(...ys);
        // the controller walks and turns the character between frames
        m.root.position.addInPlaceFromFloats(0.4 * h, 0, 0.25 * h);
        m.root.rotate(Vector3.Up(), Math.PI / 3);
        const foot = ik.solver.leftFootEffector;
        foot.pinToBone(1, 1);
        const now = shown(ik.references.leftFoot, mesh);
        const off = Vector3.Distance(foot.position, now.position) / h;
        const turned = degrees(foot.rotation, now.rotation);
        m.scene.render();
        const after = Vector3.Distance(shown(ik.references.leftFoot, mesh).position, now.position) / h;
        if (off > 1e-4 || after > 1e-4) console.log({ name, rightHanded, off, turned, after });
        expect(off).toBeLessThan(1e-4);
        expect(turned).toBeLessThan(1e-3);
        expect(after).toBeLessThan(1e-4);
      });
    }
  }
});
