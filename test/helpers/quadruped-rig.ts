/**
 * A four-legged creature built in code (GrounderQuadruped's tests), facing +z: a pelvis at `0.6` over a root node,
 * three spine bones to the chest (`lastSpineBone`) 0.8 ahead, a neck and a head, and four legs of three bones
 * (hip → knee → ankle → toe tip: four joints), the hind ones under the pelvis, the fore ones under the chest, the tips
 * on the root's plane, on linked TransformNodes, with a box on the root (not skinned).
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { jointMaker } from "./spider-rig.js";

/** The creature's nodes and bones. */
export interface QuadrupedRig {
  root: TransformNode;
  skeleton: Skeleton;
  pelvis: Bone;
  /** The spine bones after the pelvis, the chest (lastSpineBone) last. */
  spine: Bone[];
  chest: Bone;
  neck: Bone;
  head: Bone;
  /** The hind legs (left, right), four bones each, hip first (the toe tip last). */
  hindLegs: Bone[][];
  /** The forelegs (left, right). */
  foreLegs: Bone[][];
  mesh: Mesh;
}

/** Builds the creature in `scene` under a root at `position`, scaled by `scale` (default 1). */
export function buildQuadruped(scene: Scene, position = Vector3.Zero(), scale = 1): QuadrupedRig {
  const root = new TransformNode("quadruped", scene);
  root.position.copyFrom(position);
  root.scaling.setAll(scale);
  root.rotationQuaternion = Quaternion.Identity();
  const skeleton = new Skeleton("quadruped-skeleton", "quadruped-skeleton", scene);
  const joint = jointMaker(scene, skeleton);
  const [pelvis, pelvisNode] = joint("pelvis", null, root, new Vector3(0, 0.6, -0.4));
  const [spine1, spine1Node] = joint("spine1", pelvis, pelvisNode, new Vector3(0, 0.02, 0.27));
  const [spine2, spine2Node] = joint("spine2", spine1, spine1Node, new Vector3(0, 0, 0.27));
  const [chest, chestNode] = joint("chest", spine2, spine2Node, new Vector3(0, -0.02, 0.26));
  const [neck, neckNode] = joint("neck", chest, chestNode, new Vector3(0, 0.15, 0.1));
  const [head] = joint("head", neck, neckNode, new Vector3(0, 0.12, 0.1));
  const leg = (prefix: string, parent: Bone, parentNode: TransformNode, side: number): Bone[] => {
    // the knee forward of the hip and the ankle behind it, as a dog's (the fore ones alike: a chain bends anyway)
    const [hip, hipNode] = joint(`${prefix}Hip`, parent, parentNode, new Vector3(0.12 * side, -0.05, 0));
    const [knee, kneeNode] = joint(`${prefix}Knee`, hip, hipNode, new Vector3(0, -0.2, 0.06));
    const [ankle, ankleNode] = joint(`${prefix}Ankle`, knee, kneeNode, new Vector3(0, -0.2, -0.09));
    const [tip] = joint(`${prefix}Toe`, ankle, ankleNode, new Vector3(0, -0.15, 0.03));
    return [hip, knee, ankle, tip];
  };
  const hindLegs = [leg("hindL", pelvis, pelvisNode, -1), leg("hindR", pelvis, pelvisNode, 1)];
  const foreLegs = [leg("foreL", chest, chestNode, -1), leg("foreR", chest, chestNode, 1)];
  const mesh = CreateBox("quadruped-body", { width: 0.3, height: 0.2, depth: 1 }, scene);
  mesh.parent = root;
  mesh.position.y = 0.6;
  return { root, skeleton, pelvis, spine: [spine1, spine2, chest], chest, neck, head, hindLegs, foreLegs, mesh };
}
