/**
 * A character stretched non-uniformly (QA round 37): its root scaled (1, 1.25, 1) or (1.2, 1, 0.9), or parented under
 * a node scaled (1.2, 1, 0.9) with the root turned 40° under it, so that its frame is sheared in the world. The IK
 * solves in the root bone's parent's frame and converts targets through its full inverse world matrix, so
 * FullBodyBipedIK, LimbIK and AimIK put every bone, in the root's local space, where they put it on the unscaled
 * character given the same targets in that space (UAL, Mannequin: within 2.6e-7 of the height measured), bone lengths
 * kept, no warning; GrounderFBBIK puts a foot on a step 0.1 h high 0.1 h up in the world. This behaved before this
 * file; it keeps it so (docs/API.md, "Bone scales"). qa28-mount-and-grow covers a root grown at run time.
 */
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { MeshBuilder } from "@babylonjs/core/Meshes/meshBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { AimIK } from "../../src/babylon/aim-ik.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

type Stretch = (m: LoadedModel) => void;
const STRETCHES: [string, Stretch][] = [
  ["root (1, 1.25, 1)", (m) => m.root.scaling.multiplyInPlace(new Vector3(1, 1.25, 1))],
  ["root (1.2, 1, 0.9)", (m) => m.root.scaling.multiplyInPlace(new Vector3(1.2, 1, 0.9))],
  [
    "under a node scaled (1.2, 1, 0.9), the root turned 40°",
    (m) => {
      const parent = new TransformNode("stretch", m.scene);
      parent.scaling.set(1.2, 1, 0.9);
      m.root.parent = parent;
      m.root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.7).multiply(m.root.rotationQuaternion!);
    },
  ],
];

type Kind = "FullBodyBipedIK" | "LimbIK" | "AimIK";

/**
 * Every bone in the root's local space ÷ the character's local height after 30 frames of `kind` on `model`, stretched
 * by `stretch`, the targets given in the root's local space; and the warnings.
 */
async function solvedLocally(model: "UAL" | "Mannequin", kind: Kind, stretch: Stretch | null) {
  const m = await loadModel(model);
  open.push(m);
  stretch?.(m);
  m.scene.render();
  const bones = m.skeleton.bones;
  const local = () => {
    const inv = Matrix.Invert(m.root.computeWorldMatrix(true));
    return bones.map((b) => Vector3.TransformCoordinates(worldPos(b), inv));
  };
  const rest = local();
  const hl = Math.max(...rest.map((p) => p.y)) - Math.min(...rest.map((p) => p.y));
  const at = (b: Bone, x: number, y: number, z: number) =>
    Vector3.TransformCoordinates(rest[bones.indexOf(b)]!.add(new Vector3(x, y, z).scale(hl)), m.root.getWorldMatrix());
  const warnings: string[] = [];
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const r = ik.references;
  if (kind !== "FullBodyBipedIK") ik.dispose();
  if (kind === "FullBodyBipedIK") {
    ik.onWarningObservable.add((w) => warnings.push(w.cause));
    ik.solver.leftHandEffector.position.copyFrom(at(r.leftHand, 0.05, 0.08, 0.05));
    ik.solver.leftHandEffector.positionWeight = 1;
    ik.solver.rightFootEffector.position.copyFrom(at(r.rightFoot, 0, 0.1, -0.05));
    ik.solver.rightFootEffector.positionWeight = 1;
  } else if (kind === "LimbIK") {
    const limb = LimbIK.create(m.scene, r.leftUpperArm, r.leftForearm, r.leftHand);
    limb.onWarningObservable.add((w) => warnings.push(w.cause));
    limb.targetPosition.copyFrom(at(r.leftHand, 0.03, 0.08, 0.04));
  } else {
    const aim = AimIK.create(m.scene, [r.spine[0]!, r.leftUpperArm, r.leftForearm, r.leftHand]);
    aim.onWarningObservable.add((w) => warnings.push(w.cause));
    aim.targetPosition.copyFrom(at(r.leftHand, 0.3, 0.4, -0.8));
  }
  for (let f = 0; f < 30; f++) m.scene.render();
  return { pose: local().map((p) => p.scale(1 / hl)), warnings };
}

for (const model of ["UAL", "Mannequin"] as const) {
  describe(`${model} stretched non-uniformly`, () => {
    for (const kind of ["FullBodyBipedIK", "LimbIK", "AimIK"] as const) {
      it(`${kind}: every bone in the root's space where the unscaled twin puts it`, async () => {
        const twin = await solvedLocally(model, kind, null);
        for (const [name, stretch] of STRETCHES) {
          const got = await solvedLocally(model, kind, stretch);
          const worst = Math.max(...got.pose.map((p, i) => Vector3.Distance(p, twin.pose[i]!)));
          report(`${model} ${kind}, ${name}: bones from the unscaled twin's, root space (h)`, worst);
          // float32 world matrices: 2.6e-7 h at most measured
          expect(worst).toBeLessThan(1e-5);
          expect(got.warnings).toEqual([]);
        }
      });
    }
  });
}

describe("UAL stretched (1, 1.25, 1): GrounderFBBIK", () => {
  it("a foot over a step 0.1 h high is raised 0.1 h in the world", async () => {
    const m = await loadModel("UAL");
    open.push(m);
    m.root.scaling.multiplyInPlace(new Vector3(1, 1.25, 1));
    m.scene.render();
    const h = height(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const foot = ik.references.leftFoot;
    const ground = MeshBuilder.CreateGround("ground", { width: 10 * h, height: 10 * h }, m.scene);
    const step = MeshBuilder.CreateBox("step", { width: 0.3 * h, depth: 0.4 * h, height: 0.2 * h }, m.scene);
    const before = worldPos(foot);
    step.position.set(before.x, 0, before.z);
    GrounderFBBIK.create(ik, { raycast: StaticGroundRaycast.fromMeshes([ground, step]).raycast });
    for (let f = 0; f < 90; f++) m.scene.render();
    const raised = (worldPos(foot).y - before.y) / h;
    report("UAL stretched (1, 1.25, 1): the foot over a 0.1 h step raised by (h)", raised);
    expect(raised).toBeCloseTo(0.1, 4);
  });
});
