/**
 * Which bones move a vertex, read from real models: skin weights (the glTF joint index is Babylon's bone index,
 * not the bone's place in `skeleton.bones`), rigid parts hanging from bone nodes, and nothing for a bare skeleton.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Matrix } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { VertexData } from "@babylonjs/core/Meshes/mesh.vertexData.js";
import { deformingBones } from "../../src/babylon/deforming-bones.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

const names = (skeleton: Skeleton, set: Set<unknown> | null): string[] =>
  skeleton.bones.filter((b) => !set?.has(b)).map((b) => b.name);

describe("deformingBones", () => {
  it("Superhero (skinned): every bone but the root and the ball leaves", async () => {
    const m = await loadModel("Superhero");
    open.push(m);
    expect(names(m.skeleton, deformingBones(m.skeleton))).toEqual(["root", "ball_leaf_l", "ball_leaf_r"]);
  });

  it("RiggedFigure as .babylon (plain Bones): all 19", async () => {
    const m = await loadModel("RiggedFigureBabylon");
    open.push(m);
    expect(deformingBones(m.skeleton)?.size).toBe(19);
  });

  it("RobotExpressive: rigid parts below bone nodes count, as the skinned hand does; pole targets do not", async () => {
    const m = await loadModel("RobotExpressive");
    open.push(m);
    const left = names(m.skeleton, deformingBones(m.skeleton));
    for (const moved of ["Head", "UpperArm.R", "LowerLeg.L", "Foot.R", "Hand.R"]) expect(left).not.toContain(moved);
    expect(left).toContain("PoleTarget.L");
  });

  it("a vertex's bone index is the joint index (Bone.getIndex), not the place in skeleton.bones", async () => {
    const m = await loadModel("Superhero");
    open.push(m);
    const skeleton = new Skeleton("joints reversed", "joints reversed", m.scene);
    // glTF's loader creates a parent before its child, so a skin listing a child first gives such indices
    const a = new Bone("a", skeleton, null, Matrix.Identity(), null, null, 2);
    const b = new Bone("b", skeleton, a, Matrix.Identity(), null, null, 1);
    new Bone("c", skeleton, b, Matrix.Identity(), null, null, 0);
    const mesh = new Mesh("skin", m.scene);
    const data = new VertexData();
    data.positions = [0, 0, 0];
    data.indices = [0];
    data.matricesIndices = [0, 0, 0, 0];
    data.matricesWeights = [1, 0, 0, 0];
    data.applyToMesh(mesh);
    mesh.skeleton = skeleton;
    expect([...(deformingBones(skeleton) ?? [])].map((x) => x.name)).toEqual(["c"]);
  });

  it("a skeleton no mesh uses: null (unknown), not an empty set", async () => {
    const m = await loadModel("Superhero");
    open.push(m);
    const bare = m.skeleton.clone("bare", "bare");
    expect(deformingBones(bare)).toBeNull();
  });
});
