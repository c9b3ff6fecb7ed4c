/**
 * Creating a family component between frames takes the other IKs' output off the bones so it reads the animated
 * pose (qa24-create-between-frames.test.ts); then it puts that output back, bit for bit, so what the user sees and
 * reads between frames is unchanged, and the next frame's FixTransforms still takes it off (no output piles up).
 * Linked TransformNodes (UAL, glTF) and plain Bones (RiggedFigure.babylon), an FBBIK with a LimbIK on top of it on
 * the same arm (the put-back's order matters there), a CCDIK then created on that arm.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, expect, it } from "vitest";
import { CCDIK } from "../../src/babylon/chain-ik.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { type LoadedModel, type ModelName, loadModel } from "../helpers/babylon-scene.js";
import { nodePos } from "../helpers/scene-probes.js";

/** A bone's world position: its linked node's, else on its skinned mesh. */
function boneWorld(m: LoadedModel, bone: Bone): Vector3 {
  const node = bone.getTransformNode();
  if (node !== null) return nodePos(node);
  m.skeleton.computeAbsoluteMatrices(true);
  return bone.getAbsolutePosition(m.scene.meshes.find((mesh) => mesh.skeleton === m.skeleton)!);
}

/** Every bone's local state as Babylon holds it: a linked node's position and quaternion, else the local matrix. */
function localState(m: LoadedModel): number[] {
  const out: number[] = [];
  for (const b of m.skeleton.bones) {
    const n = b.getTransformNode();
    if (n !== null) {
      const q = n.rotationQuaternion!;
      out.push(n.position._x, n.position._y, n.position._z, q._x, q._y, q._z, q._w);
    } else {
      out.push(...b.getLocalMatrix().m);
    }
  }
  return out;
}

async function scene(name: ModelName) {
  const m = await loadModel(name);
  // still bones (glTF clips are not loaded; the .babylon file starts its own): frames compare bit for bit
  for (const mesh of m.scene.meshes) m.scene.stopAnimation(mesh);
  const refs = resolveBipedReferences(m.skeleton).references;
  const hand = boneWorld(m, refs.leftHand!);
  const shoulder = boneWorld(m, refs.leftUpperArm!);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  // the hand pulled in toward the chest, then the LimbIK's target a little in front of where that puts it
  ik.solver.leftHandEffector.position.copyFrom(Vector3.Lerp(hand, shoulder, 0.4));
  ik.solver.leftHandEffector.positionWeight = 1;
  const t = new TransformNode("limb target", m.scene);
  t.position.copyFrom(Vector3.Lerp(hand, shoulder, 0.3));
  LimbIK.create(m.scene, refs.leftUpperArm!, refs.leftForearm!, refs.leftHand!, { target: t });
  for (let f = 0; f < 3; f++) m.scene.render();
  return { m, refs };
}

describe("a component created between frames puts the other IKs' output back", () => {
  it.each(["UAL", "RiggedFigureBabylon"] as ModelName[])("%s: bones unchanged, bit for bit", async (name) => {
    const { m, refs } = await scene(name);
    try {
      const shown = localState(m);
      // what the take-off alone leaves (the animated pose, as FixTransforms finds it) differs: the check is not empty
      m.scene.onBeforeAnimationsObservable.notifyObservers(m.scene);
      expect(localState(m)).not.toEqual(shown);
      for (let f = 0; f < 2; f++) m.scene.render();
      const before = localState(m);
      expect(before).toEqual(shown);
      const ccd = CCDIK.create(m.scene, [refs.leftUpperArm!, refs.leftForearm!, refs.leftHand!] as Bone[], {
        target: new TransformNode("ccd target", m.scene),
      });
      ccd.solver.ikPositionWeight = 0;
      expect(localState(m)).toEqual(before);
      ccd.readRestPose();
      expect(localState(m)).toEqual(before);
      // the next frame takes it all off again and solves as before: the same pose as without the CCDIK (weight 0)
      for (let f = 0; f < 2; f++) m.scene.render();
      expect(localState(m)).toEqual(before);
    } finally {
      m.dispose();
    }
  });
});
