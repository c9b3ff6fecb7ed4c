/**
 * A many-legged creature built in code for the creature scenario: a Skeleton of bones linked to TransformNodes (a
 * body over the creature's root, and legs of three bones: hip → knee → ankle → toe tip), with plain meshes hung on
 * the nodes (no skinning: each segment is a tapered cylinder under its joint). Half the legs on each side, spread
 * from 50° to 130° off the nose, the tips on the root's plane. It faces +Z in its root's space.
 */
import { Bone } from "@babylonjs/core/Bones/bone";
import { Skeleton } from "@babylonjs/core/Bones/skeleton";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { Scene } from "@babylonjs/core/scene";
import { mat } from "../kit";

/** What {@link buildCreature} made. */
export interface Creature {
  /** The node the grounder turns (its own rotation stays identity: the walker above it carries the heading). */
  root: TransformNode;
  skeleton: Skeleton;
  /** The body: every leg hangs from it (the grounder's pelvis). */
  body: Bone;
  /** Per leg, its four bones, hip first (the toe tip, the "foot", last). */
  legs: Bone[][];
  /** Per leg, the linked nodes of its bones (hip first). */
  nodes: TransformNode[][];
  /** Per leg, its outward direction in the root's space (horizontal, unit). */
  outs: Vector3[];
  /** Per leg, true on the creature's left (−X). */
  left: boolean[];
  /** The tip's horizontal distance from the hip at rest. */
  reach: number;
  /** The body's height over the root at rest. */
  bodyHeight: number;
  meshes: Mesh[];
}

/** Joint offsets of a leg, × size: outward and up from the previous joint (hip from the body's centre). */
const LEG: [number, number][] = [
  [0.3, 0],
  [0.25, 0.15],
  [0.15, -0.35],
  [0.05, -0.3],
];

/** Builds a creature of `legCount` legs (even) whose body stands `0.5 × size` high, under a root at the origin. */
export function buildCreature(scene: Scene, legCount: number, size: number): Creature {
  const root = new TransformNode("creature", scene);
  root.rotationQuaternion = Quaternion.Identity();
  const skeleton = new Skeleton("creature", "creature", scene);
  const joint = (name: string, parent: Bone | null, parentNode: TransformNode, offset: Vector3) => {
    const node = new TransformNode(name, scene);
    node.parent = parentNode;
    node.position.copyFrom(offset);
    node.rotationQuaternion = Quaternion.Identity();
    const bone = new Bone(name, skeleton, parent, Matrix.Translation(offset.x, offset.y, offset.z));
    bone.linkTransformNode(node);
    return { bone, node };
  };
  const bodyHeight = 0.5 * size;
  const body = joint("body", null, root, new Vector3(0, bodyHeight, 0));
  const shell = mat(scene, "creature shell", new Color3(0.86, 0.52, 0.16));
  shell.specularColor = new Color3(0.3, 0.25, 0.2);
  const limb = mat(scene, "creature leg", new Color3(0.28, 0.2, 0.14));
  const dark = mat(scene, "creature eye", new Color3(0.05, 0.05, 0.06));
  const meshes: Mesh[] = [];
  const add = (m: Mesh, parent: TransformNode, material = shell): Mesh => {
    m.parent = parent;
    m.material = material;
    meshes.push(m);
    return m;
  };
  // an oval body longer than wide, a head at its front with two eyes
  const trunk = add(CreateSphere("creature body", { diameter: 0.6 * size, segments: 20 }, scene), body.node);
  trunk.scaling.set(0.85, 0.55, 1.25);
  const head = add(CreateSphere("creature head", { diameter: 0.28 * size, segments: 16 }, scene), body.node);
  head.position.set(0, 0.02 * size, 0.42 * size);
  for (const side of [-1, 1]) {
    const eye = add(CreateSphere("creature eye", { diameter: 0.07 * size, segments: 8 }, scene), body.node, dark);
    eye.position.set(side * 0.06 * size, 0.09 * size, 0.53 * size);
  }
  const legs: Bone[][] = [];
  const nodes: TransformNode[][] = [];
  const outs: Vector3[] = [];
  const left: boolean[] = [];
  const perSide = legCount / 2;
  for (let i = 0; i < legCount; i++) {
    // the right side front to back, then the left side front to back
    const onLeft = i >= perSide;
    const k = i % perSide;
    const a = ((50 + (80 * k) / Math.max(1, perSide - 1)) * Math.PI) / 180;
    const out = new Vector3((onLeft ? -1 : 1) * Math.sin(a), 0, Math.cos(a));
    const bones: Bone[] = [];
    const legNodes: TransformNode[] = [];
    let parent = body;
    LEG.forEach(([o, u], j) => {
      const offset = out.scale(o * size).addInPlace(new Vector3(0, u * size, 0));
      const next = joint(`leg${i} ${["hip", "knee", "ankle", "tip"][j]}`, parent.bone, parent.node, offset);
      if (j > 0) {
        // the segment from the previous joint to this one, under the previous joint's node
        const length = offset.length();
        const diameter = (j === 1 ? 0.07 : j === 2 ? 0.055 : 0.035) * size;
        const seg = CreateCylinder(
          `leg${i} segment${j}`,
          { height: length, diameterTop: 0.8 * diameter, diameterBottom: diameter, tessellation: 10 },
          scene,
        );
        seg.position.copyFrom(offset.scale(0.5));
        seg.rotationQuaternion = Quaternion.FromUnitVectorsToRef(
          Vector3.Up(),
          offset.scale(1 / length),
          new Quaternion(),
        );
        add(seg, parent.node, limb);
        const knuckle = CreateSphere(`leg${i} joint${j}`, { diameter: 1.15 * diameter, segments: 8 }, scene);
        add(knuckle, parent.node, limb);
      }
      bones.push(next.bone);
      legNodes.push(next.node);
      parent = next;
    });
    legs.push(bones);
    nodes.push(legNodes);
    outs.push(out);
    left.push(onLeft);
  }
  const reach = (LEG[1]![0] + LEG[2]![0] + LEG[3]![0]) * size;
  return { root, skeleton, body: body.bone, legs, nodes, outs, left, reach, bodyHeight, meshes };
}
