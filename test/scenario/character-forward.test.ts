/**
 * Root space faces where the character faces: `FullBodyBipedIK.characterForward` is the axis of the character
 * root the character faces (detected at create), and the offset modifiers' frame and the grounder's forward are
 * built on it. Most models face their root's +z; Soldier and RiggedFigure as `.babylon` face −z, and a character
 * turned under its root (a node inserted between `__root__` and the bones) faces ±x.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { EffectorOffset } from "../../src/effectors/modifiers/effector-offset.js";
import { CharacterFrame, readCharacterFrame } from "../../src/effectors/modifiers/frame.js";
import { type LoadedModel, type ModelName, modelAvailable } from "../helpers/babylon-scene.js";
import { heightfield } from "../helpers/heightfield.js";
import { bonePos } from "../helpers/model-limbs.js";
import { disposeOpen, load, report } from "../helpers/modifier-scene.js";

afterEach(disposeOpen);

/** The way the feet point (heel joint to toe joint, level, both feet), in the world: where the model faces. */
function toesFacing(m: LoadedModel, ik: FullBodyBipedIK): Vector3 {
  const sum = Vector3.Zero();
  for (const foot of [ik.references.leftFoot, ik.references.rightFoot]) {
    const d = bonePos(m, foot.children[0]!).subtract(bonePos(m, foot));
    d.y = 0;
    sum.addInPlace(d.normalize());
  }
  return sum.normalize();
}

/** The joints' extent along world y (plain Bones too). */
function heightOf(m: LoadedModel): number {
  const ys = m.skeleton.bones.map((b) => bonePos(m, b).y);
  return Math.max(...ys) - Math.min(...ys);
}

/**
 * `name` loaded, its bones turned by `turn` radians about the up axis under a node inserted below its root (the
 * root unchanged: the character faces another of the root's axes).
 */
async function turnedUnderRoot(name: ModelName, rightHanded: boolean, turn: number): Promise<LoadedModel> {
  const m = await load(name, rightHanded, () => false);
  if (turn !== 0) {
    const inner = new TransformNode("turned", m.scene);
    inner.parent = m.root;
    inner.rotation.y = turn;
    for (const child of m.root.getChildren()) if (child !== inner) (child as TransformNode).parent = inner;
  }
  return m;
}

const models: [ModelName, number, Vector3][] = [
  ["UAL", 0, new Vector3(0, 0, 1)],
  ["Mannequin", 0, new Vector3(0, 0, 1)],
  ["Xbot", 0, new Vector3(0, 0, 1)],
  ["Soldier", 0, new Vector3(0, 0, -1)],
  ["RiggedFigureBabylon", 0, new Vector3(0, 0, -1)],
  ["UAL", Math.PI / 2, new Vector3(1, 0, 0)],
  ["UAL", -Math.PI / 2, new Vector3(-1, 0, 0)],
  ["UAL", Math.PI, new Vector3(0, 0, -1)],
];

describe("root space faces where the character faces", () => {
  for (const [name, turn, axis] of models) {
    for (const rightHanded of [false, true]) {
      const label = `${name}${turn !== 0 ? ` turned ${Math.round((turn * 180) / Math.PI)}° under its root` : ""}`;
      it.skipIf(!modelAvailable(name))(`${label}, ${rightHanded ? "right" : "left"}-handed scene`, async () => {
        const m = await turnedUnderRoot(name, rightHanded, turn);
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
        m.scene.render();
        const h = heightOf(m);
        const facing = toesFacing(m, ik);
        // the axis, its sign along x aside (glTF's root mirrors x in a left-handed scene): the facing checks say it
        const f = ik.characterForward;
        expect([Math.abs(f.x), f.y, f.z]).toEqual([Math.abs(axis.x), 0, axis.z]);

        const frame = readCharacterFrame(ik, new CharacterFrame());
        const frameForward = new Vector3(frame.forward.x, frame.forward.y, frame.forward.z);
        // the grounder's forward, on flat ground
        const ground = heightfield(m.scene, 10 * h, 10, () => 0);
        const grounder = GrounderFBBIK.create(ik, { raycast: StaticGroundRaycast.fromMeshes([ground]).raycast });
        m.scene.render();
        const gf = grounder.solver.forward;
        const grounderForward = new Vector3(gf.x, gf.y, gf.z);
        grounder.dispose();
        // EffectorOffset's forward moves the body the way the character faces
        const before = bonePos(m, ik.references.pelvis);
        const offset = new EffectorOffset(ik);
        offset.bodyOffset.set(0, 0, 0.1 * h);
        m.scene.render();
        const moved = bonePos(m, ik.references.pelvis)
          .subtract(before)
          .scale(1 / h);
        offset.dispose();
        report(
          `${label} rh ${rightHanded}: facing · frame, grounder; body moved along facing (× h)`,
          Vector3.Dot(facing, frameForward),
          Vector3.Dot(facing, grounderForward),
          Vector3.Dot(moved, facing),
        );
        expect(Vector3.Dot(facing, frameForward)).toBeGreaterThan(0.99);
        expect(Vector3.Dot(facing, grounderForward)).toBeGreaterThan(0.99);
        expect(Vector3.Dot(moved, facing)).toBeGreaterThan(0.05);
      });
    }
  }
});
