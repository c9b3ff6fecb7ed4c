/**
 * `jointDirection`: a direction of the scene in a joint's own frame, for a limit's axis. A hinge given the
 * character's forward through it turns the joint about that world axis and no other: on UAL's arm in left- and
 * right-handed scenes (the glTF root mirrored in the first), and on a chain built in code under a turned,
 * scaled, mirrored or plain root, its bones with linked nodes or plain ones skinned by a mesh.
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { describe, expect, it } from "vitest";
import { CCDIK } from "../../src/babylon/chain-ik.js";
import { jointDirection } from "../../src/babylon/joint-direction.js";
import { boneWorldMatrixToRef, skinnedMeshOf } from "../../src/babylon/world-matrix.js";
import { RotationLimitHinge } from "../../src/joints/limits/rotation-limit-hinge.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { Random } from "../helpers/random.js";

/** A bone's world position, linked node or not. */
function bonePos(bone: Bone): Vector3 {
  return boneWorldMatrixToRef(bone, skinnedMeshOf(bone), new Matrix()).getTranslation();
}

/**
 * CCD on `chain` toward 60 random targets around its tip, the first joint limited to a hinge about the world
 * direction `axis` (through `jointDirection`): the largest move of the second joint along `axis` (share of the
 * first bone's length; 0 when the first joint turns about `axis` only) and the largest turn of the first bone.
 */
function hingeAbout(scene: Scene, chain: readonly Bone[], axis: Vector3, seed: number) {
  scene.render();
  const ik = CCDIK.create(scene, chain, { maxIterations: 20 });
  ik.solver.setLimit(0, new RotationLimitHinge(jointDirection(chain[0]!, axis), -170, 170));
  const base = bonePos(chain[0]!);
  const bone0 = bonePos(chain[1]!).subtract(base);
  const length = bone0.length();
  const along = Vector3.Dot(bone0, axis);
  const tip = bonePos(chain[chain.length - 1]!);
  const random = new Random(seed);
  let [drift, turned] = [0, 0];
  for (let k = 0; k < 60; k++) {
    const r = 0.8 * Vector3.Distance(tip, base);
    ik.targetPosition.copyFrom(tip.add(new Vector3(random.range(-r, r), random.range(-r, r), random.range(-r, r))));
    for (let f = 0; f < 2; f++) scene.render();
    const now = bonePos(chain[1]!).subtract(base);
    drift = Math.max(drift, Math.abs(Vector3.Dot(now, axis) - along) / length);
    turned = Math.max(turned, Math.acos(Math.min(1, Vector3.Dot(now, bone0) / (now.length() * length))));
  }
  ik.dispose();
  return { drift, turned: (turned * 180) / Math.PI };
}

describe("jointDirection: a hinge about a world axis on real and code-built rigs", () => {
  for (const rightHanded of [false, true]) {
    it(`UAL's upper arm turns about the character's forward only (${rightHanded ? "right" : "left"}-handed)`, async () => {
      const m = await loadModel("UAL", { rightHanded });
      const bone = (n: string) => m.skeleton.bones.find((b) => b.name === `DEF-${n}`)!;
      const chain = [bone("upper_arm.L"), bone("forearm.L"), bone("hand.L")];
      m.scene.render();
      // the model stands in its T-pose: the arm swings up and down about the character's forward
      const right = bonePos(bone("upper_arm.R")).subtract(bonePos(bone("upper_arm.L")));
      const forward = Vector3.Cross(right, Vector3.Up()).normalize();
      const { drift, turned } = hingeAbout(m.scene, chain, forward, 3);
      expect(drift, "the elbow's move along the hinge axis, share of the upper arm").toBeLessThan(1e-6);
      expect(turned, "the upper arm's largest turn, degrees").toBeGreaterThan(30);
      m.dispose();
    });
  }

  for (const rightHanded of [false, true])
    for (const mirrored of [false, true])
      for (const linked of [true, false]) {
        const name = `${rightHanded ? "RH" : "LH"}, ${mirrored ? "mirrored" : "plain"} root, ${linked ? "linked nodes" : "plain Bones"}`;
        it(`a chain built in code turns about each world axis it is given (${name})`, async () => {
          const m = await loadModel("UAL", { rightHanded });
          const chain = codeChain(m.scene, mirrored, linked);
          const random = new Random(11);
          for (let k = 0; k < 3; k++) {
            const axis = new Vector3(random.range(-1, 1), random.range(-1, 1), random.range(-1, 1)).normalize();
            const { drift, turned } = hingeAbout(m.scene, chain, axis, 20 + k);
            expect(drift, `axis ${k}: the second joint's move along the axis, share of the bone`).toBeLessThan(1e-6);
            expect(turned, `axis ${k}: the first bone's largest turn, degrees`).toBeGreaterThan(10);
          }
          m.dispose();
        });
      }

  it("a zero or non-finite direction, or a bone scaled to 0, throws an FBBIKError naming the bone", async () => {
    const m = await loadModel("UAL");
    const chain = codeChain(m.scene, false, true);
    expect(() => jointDirection(chain[0]!, Vector3.Zero())).toThrow(FBBIKError);
    expect(() => jointDirection(chain[0]!, new Vector3(Number.NaN, 0, 1))).toThrow(/a: the direction/);
    chain[0]!.getTransformNode()!.scaling.setAll(0);
    m.scene.render();
    expect(() => jointDirection(chain[0]!, Vector3.Up())).toThrow(/a: the bone has no rotation/);
    m.dispose();
  });
});

/**
 * Three bones and a tip under a root turned, moved and scaled (mirrored across Z as the glTF loader's in a
 * left-handed scene, or not), each bone turned its own way; with linked nodes, or plain Bones a mesh skins.
 */
function codeChain(scene: Scene, mirrored: boolean, linked: boolean): Bone[] {
  const root = new TransformNode("root", scene);
  root.scaling.set(1.3, 1.3, mirrored ? -1.3 : 1.3);
  root.rotationQuaternion = Quaternion.RotationAxis(new Vector3(0.3, 1, -0.2).normalize(), 2.1);
  root.position.set(1.5, 0.2, -0.7);
  const skeleton = new Skeleton("chain", "chain", scene);
  if (!linked) {
    const skin = new Mesh("skin", scene);
    skin.parent = root;
    skin.skeleton = skeleton;
  }
  const turns = [new Vector3(0.4, -1.1, 0.7), new Vector3(-0.9, 0.2, 0.5), new Vector3(0.3, 0.8, -1.2)];
  const bones: Bone[] = [];
  for (let i = 0; i < 4; i++) {
    const parent = bones[i - 1] ?? null;
    const rotation = Quaternion.FromEulerVector(turns[i] ?? Vector3.Zero());
    const position = i === 0 ? new Vector3(0, 1, 0) : new Vector3(0, 0.3, 0.05);
    const bone = new Bone("abcd"[i]!, skeleton, parent, Matrix.Compose(Vector3.One(), rotation, position));
    if (linked) {
      const node = new TransformNode(bone.name, scene);
      node.parent = parent?.getTransformNode() ?? root;
      node.position.copyFrom(position);
      node.rotationQuaternion = rotation;
      bone.linkTransformNode(node);
    }
    bones.push(bone);
  }
  scene.render();
  return bones;
}
