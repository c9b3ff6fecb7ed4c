import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { buildTopology } from "../mapping/rig-topology.js";
import type { BabylonRigOptions } from "./babylon-rig.js";

/** What a BabylonRig is built over. */
export interface RigShape {
  /** The node whose world matrix is component space, or null for identity. */
  componentRoot: TransformNode | null;
  /** The mesh the skeleton deforms, or null. */
  mesh: AbstractMesh | null;
  /** TransformNodes by id (null for id 0 and for bone-only skeletons). */
  nodes: (TransformNode | null)[];
  /** Bones by id (null for id 0 and for non-joint nodes). */
  bones: (Bone | null)[];
  /** Parent ids (-1: directly in component space). */
  parents: number[];
}

/** The rig's ids: id 0 (the character root) and the bones the IK needs with their ancestors, depth first. */
export function rigShape(skeleton: Skeleton, include: readonly Bone[], options: BabylonRigOptions): RigShape {
  const linked = include.length > 0 && include.every((b) => b.getTransformNode() !== null);
  const mesh = options.mesh ?? skeleton.getScene().meshes.find((m) => m.skeleton === skeleton) ?? null;
  const skeletonRoot = skeleton.bones.find((b) => b.getParent() === null) ?? null;
  const shift = (parents: number[]): number[] => [-1, ...parents.map((p) => (p < 0 ? -1 : p + 1))];
  if (linked) {
    // follow the TransformNode hierarchy: a non-joint node between two joints still transforms
    const rootNode = skeletonRoot?.getTransformNode() ?? include[0]!.getTransformNode()!;
    const componentRoot = (rootNode.parent as TransformNode | null) ?? null;
    const topology = buildTopology<TransformNode>(
      include.map((b) => b.getTransformNode()!),
      (t) => t.parent as TransformNode | null,
      (t) => t.getChildren(undefined, true) as TransformNode[],
      componentRoot,
    );
    const boneOfNode = new Map<TransformNode, Bone>();
    for (const b of skeleton.bones) {
      const t = b.getTransformNode();
      if (t !== null) boneOfNode.set(t, b);
    }
    return {
      componentRoot,
      mesh,
      nodes: [null, ...topology.order],
      bones: [null, ...topology.order.map((t) => boneOfNode.get(t) ?? null)],
      parents: shift(topology.parents),
    };
  }
  const roots = skeleton.bones.filter((b) => b.getParent() === null);
  const topology = buildTopology<Bone>(
    include,
    (b) => b.getParent(),
    (b) => b.children,
    null,
    roots,
  );
  return {
    componentRoot: mesh as TransformNode | null,
    mesh,
    nodes: [null, ...topology.order.map(() => null)] as (TransformNode | null)[],
    bones: [null, ...topology.order] as (Bone | null)[],
    parents: shift(topology.parents),
  };
}
