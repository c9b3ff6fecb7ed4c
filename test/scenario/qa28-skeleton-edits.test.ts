/**
 * Bones added to and taken out of a skeleton while its FullBodyBipedIK runs (QA round 28). A prop socket
 * (`new Bone("socket", skeleton, hand)`, plain or linked to a TransformNode under the hand's), `skeleton.sortBones()`,
 * the socket and a finger bone disposed: the IK goes on as on its twin left alone, no warning. A Bone of the rig
 * disposed (its TransformNode kept) is out of the skeleton for good, as a disposed node: warned once
 * (`detached:node`; the family's components `detached`), the IK disposes itself and its output comes off. Before, a
 * glTF character's IK went on writing the disposed bone's node, unwarned, and a .babylon skeleton's warned
 * `reparented:<bone>` ("moved under another bone … create the IK again"), which could not be done.
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { ikTwin } from "../helpers/ik-twin.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";
import { streamedPair } from "../helpers/streamed-pair.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

describe("bones added and removed while the IK runs (UAL walking, beside a twin left alone)", () => {
  it("sockets on the hand, sortBones, the sockets and a finger disposed: solved as the twin, no warning", async () => {
    const p = await streamedPair(open);
    const m = p.a.m;
    // the bones of both, paired before the skeleton of `a` changes
    const pairs = m.skeleton.bones.map((b, i): [Bone, Bone] => [b, p.b.m.skeleton.bones[i]!]);
    const gap = (): number => {
      let worst = 0;
      for (const [a, b] of pairs) {
        if (a.isDisposed()) continue;
        worst = Math.max(worst, Vector3.Distance(worldPos(a), worldPos(b)) / p.h);
      }
      return worst;
    };
    const frames = (n: number): number => {
      let worst = 0;
      for (let f = 0; f < n; f++) {
        p.scene.render();
        worst = Math.max(worst, gap());
      }
      return worst;
    };
    const hand = p.a.ik.references.rightHand;
    const plain = new Bone("socket", m.skeleton, hand, Matrix.Translation(0, 0.1, 0));
    const node = new TransformNode("socketNode", p.scene);
    node.parent = hand.getTransformNode();
    node.position.set(0, 0.1, 0);
    const linked = new Bone("socketLinked", m.skeleton, hand);
    linked.linkTransformNode(node);
    const steps: [string, () => void][] = [
      ["sockets added", () => {}],
      ["sortBones", () => m.skeleton.sortBones()],
      ["sockets disposed", () => [plain, linked, node].forEach((x) => x.dispose())],
      ["a finger disposed", () => m.skeleton.bones.find((b) => b.name === "DEF-f_index.03.L")!.dispose()],
    ];
    for (const [what, step] of steps) {
      step();
      const worst = frames(10);
      report(`${what}: bones from the twin's (h)`, worst);
      expect(worst, what).toBe(0);
    }
    expect(m.skeleton.bones.length).toBe(pairs.length - 1);
    expect(p.a.warnings).toEqual([]);
    expect(p.a.ik.isDisposed).toBe(false);
  });
});

describe("a Bone of the rig disposed, its TransformNode kept", () => {
  it("glTF (UAL walking): warned once, the IKs dispose themselves, the nodes show the clip as the twin's", async () => {
    const t = await ikTwin("UAL", "Walk_Loop", open);
    const warnings: string[] = [];
    t.ik.onWarningObservable.add((w) => warnings.push(w.cause));
    // a component of the family on the same arm (it solves after the FullBodyBipedIK)
    const r = t.ik.references;
    const limb = LimbIK.create(t.m.scene, r.leftUpperArm, r.leftForearm, r.leftHand);
    limb.onWarningObservable.add((w) => warnings.push(`limb:${w.cause}`));
    limb.targetPosition.copyFrom(worldPos(r.leftHand).add(new Vector3(0, 0.1 * t.h, 0.1 * t.h)));
    const effector = t.ik.solver.leftHandEffector;
    effector.position.copyFrom(worldPos(t.ik.references.leftHand).add(new Vector3(0, 0.2 * t.h, 0.1 * t.h)));
    effector.positionWeight = 1;
    for (let f = 0; f < 5; f++) t.m.scene.render();
    // paired before the hand leaves the skeleton
    const pairs = t.m.skeleton.bones.map((b) => [b.getTransformNode()!, t.twinBone(b).getTransformNode()!] as const);
    /** The largest difference of a node's local position or rotation (components) from the twin's. */
    const localGap = (): number => {
      let worst = 0;
      for (const [a, c] of pairs) {
        const q = a.rotationQuaternion!.subtract(c.rotationQuaternion!).length();
        worst = Math.max(worst, Vector3.Distance(a.position, c.position), q);
      }
      return worst;
    };
    const held = localGap();
    expect(held).toBeGreaterThan(0.1);
    t.ik.references.leftHand.dispose();
    for (let f = 0; f < 5; f++) t.m.scene.render();
    expect(warnings).toEqual(["detached:node", "limb:detached"]);
    expect([t.ik.isDisposed, limb.isDisposed]).toEqual([true, true]);
    // the IKs' output came off: every node (the disposed bone's too) holds the clip's local pose
    const worst = localGap();
    report("rig bone disposed: local pose from the twin's, held before / after", held, worst);
    expect(worst).toBe(0);
  });

  it("plain Bones (RiggedFigure .babylon): warned once as disposed, not as reparented; the IK disposes itself", async () => {
    const m = await loadModel("RiggedFigureBabylon");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const warnings: string[] = [];
    ik.onWarningObservable.add((w) => warnings.push(w.cause));
    ik.solver.leftHandEffector.positionWeight = 1;
    for (let f = 0; f < 3; f++) m.scene.render();
    ik.references.leftForearm.dispose();
    for (let f = 0; f < 3; f++) expect(() => m.scene.render()).not.toThrow();
    expect(warnings).toEqual(["detached:node"]);
    expect(ik.isDisposed).toBe(true);
    m.skeleton.computeAbsoluteMatrices(true);
    for (const b of m.skeleton.bones) expect(b.getAbsoluteMatrix().m.every(Number.isFinite)).toBe(true);
  });
});
