/**
 * A many-legged creature built in code (GrounderIK's tests): a body bone at `bodyHeight` over a root node, and
 * `legs` legs of three bones (hip → knee → ankle → toe tip: four joints) spread round it, the tips on the root's
 * plane, on linked TransformNodes, with a box on the body (not skinned).
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Scene } from "@babylonjs/core/scene.js";

/** The creature's nodes and bones. */
export interface SpiderRig {
  root: TransformNode;
  skeleton: Skeleton;
  body: Bone;
  /** Per leg, its four bones, hip first (the toe tip last). */
  legs: Bone[][];
  mesh: Mesh;
}

/** Builds the creature in `scene` under a root at `position`, scaled by `scale` (default 1). */
export function buildSpider(scene: Scene, legCount: number, position = Vector3.Zero(), scale = 1): SpiderRig {
  const root = new TransformNode("spider", scene);
  root.position.copyFrom(position);
  root.scaling.setAll(scale);
  const skeleton = new Skeleton("spider-skeleton", "spider-skeleton", scene);
  const bodyHeight = 0.5;
  const joint = jointMaker(scene, skeleton);
  const [body, bodyNode] = joint("body", null, root, new Vector3(0, bodyHeight, 0));
  const legs: Bone[][] = [];
  for (let i = 0; i < legCount; i++) {
    // spread round the body, none straight ahead (so left and right pair up)
    const a = ((i + 0.5) / legCount) * Math.PI * 2;
    const out = new Vector3(Math.sin(a), 0, Math.cos(a));
    const [hip, hipNode] = joint(`hip${i}`, body, bodyNode, out.scale(0.3));
    const [knee, kneeNode] = joint(`knee${i}`, hip, hipNode, out.scale(0.25).add(new Vector3(0, 0.1, 0)));
    const [ankle, ankleNode] = joint(`ankle${i}`, knee, kneeNode, out.scale(0.15).add(new Vector3(0, -0.35, 0)));
    const [tip] = joint(`tip${i}`, ankle, ankleNode, out.scale(0.05).add(new Vector3(0, -0.25, 0)));
    legs.push([hip, knee, ankle, tip]);
  }
  const mesh = CreateBox("spider-body", { size: 0.3 }, scene);
  mesh.parent = root;
  return { root, skeleton, body, legs, mesh };
}

/** A joint of `skeleton`: a bone `offset` from its parent, linked to a TransformNode under `parentNode`. */
export type JointMaker = (
  name: string,
  parent: Bone | null,
  parentNode: TransformNode,
  offset: Vector3,
) => [Bone, TransformNode];

/** Makes the joints of a rig built in code on `skeleton` (the spider's, the quadruped's). */
export function jointMaker(scene: Scene, skeleton: Skeleton): JointMaker {
  return (name, parent, parentNode, offset) => {
    const node = new TransformNode(name, scene);
    node.parent = parentNode;
    node.position.copyFrom(offset);
    node.rotationQuaternion = Quaternion.Identity();
    const bone = new Bone(name, skeleton, parent, Matrix.Translation(offset.x, offset.y, offset.z));
    bone.linkTransformNode(node);
    return [bone, node];
  };
}

/** A scene on the NullEngine for rigs built in code, 16 ms a frame, whose `dispose` takes the engine too. */
export function codeScene(rightHanded: boolean): Scene & { disposeAll(): void } {
  const engine = new NullEngine();
  const scene = new Scene(engine) as Scene & { disposeAll(): void };
  scene.useRightHandedSystem = rightHanded;
  // 16 ms a frame, whatever the machine's speed
  scene.useConstantAnimationDeltaTime = true;
  new FreeCamera("camera", new Vector3(0, 2, -5), scene);
  scene.disposeAll = () => {
    scene.dispose();
    engine.dispose();
  };
  return scene;
}
