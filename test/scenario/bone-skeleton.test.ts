/**
 * FullBodyBipedIK on a skeleton without linked TransformNodes (as .babylon files and skeletons built in
 * code have): the rig reads and writes the Bones, in the space of the mesh they deform.
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { Random } from "../helpers/random.js";
import { syntheticBiped } from "../helpers/synthetic-biped.js";

const engines: NullEngine[] = [];
afterEach(() => {
  while (engines.length > 0) engines.pop()!.dispose();
});

/** The synthetic biped (1.75 m, facing +Z) as a Babylon skeleton of plain bones, optionally skinning a mesh. */
function buildSkeleton(withMesh: boolean, rightHanded: boolean, bends: { elbowBend?: number; kneeBend?: number } = {}) {
  const engine = new NullEngine();
  engines.push(engine);
  const scene = new Scene(engine);
  scene.useRightHandedSystem = rightHanded;
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  const b = syntheticBiped(bends);
  const skeleton = new Skeleton("synthetic", "synthetic", scene);
  const bones: Bone[] = [];
  for (let i = 0; i < b.pose.count; i++) {
    const p = b.pose.localPositions[i]!;
    const q = b.pose.localRotations[i]!;
    const local = Matrix.Compose(Vector3.One(), new Quaternion(q.x, q.y, q.z, q.w), new Vector3(p.x, p.y, p.z));
    const parent = b.pose.parents[i]! >= 0 ? bones[b.pose.parents[i]!]! : null;
    bones.push(new Bone(b.pose.names[i]!, skeleton, parent, local));
  }
  let mesh: Mesh | null = null;
  if (withMesh) {
    mesh = new Mesh("body", scene);
    mesh.skeleton = skeleton;
    mesh.position.set(2, 0.5, -1);
    mesh.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.8);
    mesh.scaling.setAll(2);
  }
  return { scene, skeleton, mesh, height: withMesh ? 3.5 : 1.75 };
}

function worldPos(bone: Bone, mesh: Mesh | null): Vector3 {
  bone.getSkeleton().computeAbsoluteMatrices(true);
  return mesh !== null ? bone.getAbsolutePosition(mesh) : bone.getAbsolutePosition();
}

describe.each([
  ["without a mesh", false, false],
  ["skinning a moved, rotated, ×2 mesh", true, false],
  ["skinning a mesh in a right-handed scene", true, true],
] as const)("a skeleton of plain bones %s", (_title, withMesh, rightHanded) => {
  it("is detected by names and reaches hand and foot targets within 0.1 % of the height", () => {
    const { scene, skeleton, mesh, height } = buildSkeleton(withMesh, rightHanded);
    const ik = FullBodyBipedIK.create(scene, skeleton);
    expect(ik.rig.nodes.every((n) => n === null)).toBe(true);
    expect(ik.references.leftHand.name).toBe("Hand.L");
    expect(ik.references.spine.map((s) => s.name)).toEqual(["Spine", "Chest"]);
    expect(ik.references.leftClavicle?.name).toBe("Clavicle.L");
    const rng = new Random(5);
    const limbs = [
      [ik.solver.leftHandEffector, ik.references.leftUpperArm, ik.references.leftHand],
      [ik.solver.rightHandEffector, ik.references.rightUpperArm, ik.references.rightHand],
      [ik.solver.leftFootEffector, ik.references.leftThigh, ik.references.leftFoot],
      [ik.solver.rightFootEffector, ik.references.rightThigh, ik.references.rightFoot],
    ] as const;
    for (let trial = 0; trial < 12; trial++) {
      const [effector, first, last] = limbs[trial % 4]!;
      for (const [e] of limbs) e.positionWeight = 0;
      scene.render();
      const start = worldPos(first, mesh);
      const reach =
        Vector3.Distance(start, worldPos(last.getParent()!, mesh)) +
        Vector3.Distance(worldPos(last.getParent()!, mesh), worldPos(last, mesh));
      const d = rng.unitVector();
      const target = start.add(new Vector3(d.x, d.y, d.z).scale(0.7 * reach));
      effector.position.copyFrom(target);
      effector.positionWeight = 1;
      scene.render();
      expect(Vector3.Distance(worldPos(last, mesh), target) / height).toBeLessThan(1e-3);
    }
  });

  it("with weights 0 leaves every bone's local matrix exactly as it was", () => {
    const { scene, skeleton } = buildSkeleton(withMesh, rightHanded);
    const before = skeleton.bones.map((b) => Array.from(b.getLocalMatrix().m));
    FullBodyBipedIK.create(scene, skeleton);
    for (let f = 0; f < 3; f++) scene.render();
    expect(skeleton.bones.map((b) => Array.from(b.getLocalMatrix().m))).toEqual(before);
  });
});

describe("FullBodyBipedIK.validate", () => {
  it("finds nothing wrong with a well-formed rig and attaches nothing", () => {
    // right-handed: the synthetic biped's data follows glTF's convention (in a left-handed scene it is its mirror image)
    const { scene, skeleton } = buildSkeleton(true, true);
    expect(FullBodyBipedIK.validate(skeleton)).toEqual({ problems: [], warnings: [] });
    expect(scene.onBeforeRenderTargetsRenderObservable.observers.length).toBe(0);
  });

  it("warns about straight limbs, saying which way they will bend", () => {
    const { skeleton } = buildSkeleton(false, false, { elbowBend: 0, kneeBend: 0 });
    const { problems, warnings } = FullBodyBipedIK.validate(skeleton);
    expect(problems).toEqual([]);
    for (const limb of ["left arm", "right arm", "left leg", "right leg"]) {
      expect(warnings.some((w) => w.includes(`The ${limb} is completely straight`))).toBe(true);
    }
    expect(warnings.filter((w) => w.includes("back (elbow)")).length).toBe(2);
    // the usual cause in Babylon: a clip started just before, not applied yet
    expect(warnings.filter((w) => w.includes("group.goToFrame(group.from)")).length).toBe(4);
  });

  it("reports a zero-length bone with both bone names, and bad explicit references with the bones considered", () => {
    const { skeleton } = buildSkeleton(false, false);
    const forearm = skeleton.bones.find((b) => b.name === "Forearm.L")!;
    forearm.position = Vector3.Zero();
    const zero = FullBodyBipedIK.validate(skeleton);
    expect(zero.problems.join("\n")).toMatch(/UpperArm\.L.*Forearm\.L|Forearm\.L.*UpperArm\.L/);
    const named = FullBodyBipedIK.validate(skeleton, { references: { leftHand: "Palm.L" } });
    expect(named.problems[0]).toMatch(/no bone named "Palm.L".*Hand\.L/);
  });
});
