/**
 * A tentacle built in code: a Skeleton whose bones are linked to TransformNodes (a base, a chain of `count`
 * links rising along +Y and a tip joint), skinning a tapered tube, and a ball beside it: a plain mesh.
 */
import { Bone } from "@babylonjs/core/Bones/bone";
import { Skeleton } from "@babylonjs/core/Bones/skeleton";
import { VertexBuffer } from "@babylonjs/core/Buffers/buffer";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { Scene } from "@babylonjs/core/scene";
import { mat } from "../kit";

/** What {@link buildTentacle} made. */
export interface Tentacle {
  /** The tentacle's space: at the base, upright. */
  holder: TransformNode;
  skeleton: Skeleton;
  /** The chain, root first; the last bone is the tip joint (no segment after it). */
  chain: Bone[];
  /** The chain's bones' linked nodes, root first. */
  nodes: TransformNode[];
  /** The obstacle: a sphere mesh in the world (not a bone), its radius in its own units. */
  ball: Mesh;
  tube: Mesh;
  /** Segment length. */
  segment: number;
}

/** Links a new bone to a new node (or `node`), both under their parents, at `position` in the parent's space. */
function joint(
  name: string,
  skeleton: Skeleton,
  parent: Bone | null,
  parentNode: TransformNode,
  position: Vector3,
  node: TransformNode = new TransformNode(name, skeleton.getScene()),
): Bone {
  node.parent = parentNode;
  node.position.copyFrom(position);
  node.rotationQuaternion = Quaternion.Identity();
  const bone = new Bone(name, skeleton, parent, Matrix.Translation(position.x, position.y, position.z));
  bone.linkTransformNode(node);
  return bone;
}

/**
 * A tentacle of `length` standing at `base` (world), `count` links, tapering from `radius` to a third of it,
 * and a ball of `ballRadius` at `ballAt` (world).
 */
export function buildTentacle(
  scene: Scene,
  base: Vector3,
  length: number,
  count: number,
  radius: number,
  ballAt: Vector3,
  ballRadius: number,
): Tentacle {
  const holder = new TransformNode("tentacle", scene);
  holder.position.copyFrom(base);
  const skeleton = new Skeleton("tentacle", "tentacle", scene);
  const root = joint("base", skeleton, null, holder, Vector3.Zero());
  const segment = length / count;
  const chain: Bone[] = [];
  for (let i = 0; i <= count; i++) {
    const parent = i === 0 ? root : chain[i - 1]!;
    const at = new Vector3(0, i === 0 ? 0 : segment, 0);
    chain.push(joint(`link${i}`, skeleton, parent, parent.getTransformNode()!, at));
  }
  const ball = CreateSphere("ball", { diameter: 2 * ballRadius, segments: 24 }, scene);
  ball.material = mat(scene, "ball", new Color3(0.75, 0.78, 0.85));
  ball.position.copyFrom(ballAt);
  // the tube in the holder's space, y from 0 to length, each ring skinned to the two links around it
  const tube = CreateCylinder(
    "tentacle tube",
    {
      height: length,
      diameterBottom: 2 * radius,
      diameterTop: 0.7 * radius,
      tessellation: 18,
      subdivisions: 4 * count,
    },
    scene,
  );
  tube.bakeTransformIntoVertices(Matrix.Translation(0, length / 2, 0));
  const pos = tube.getVerticesData(VertexBuffer.PositionKind)!;
  const indices: number[] = [];
  const weights: number[] = [];
  const first = skeleton.bones.indexOf(chain[0]!);
  for (let v = 0; v < pos.length / 3; v++) {
    const f = Math.min(count - 1e-6, Math.max(0, pos[3 * v + 1]! / segment));
    const i = Math.floor(f);
    // halfway along a link the ring follows it alone; toward its ends it blends with the neighbour
    const k = f - i - 0.5;
    const j = k < 0 ? Math.max(0, i - 1) : Math.min(count - 1, i + 1);
    const w = Math.abs(k);
    indices.push(first + i, first + j, 0, 0);
    weights.push(1 - w, w, 0, 0);
  }
  tube.setVerticesData(VertexBuffer.MatricesIndicesKind, indices, false);
  tube.setVerticesData(VertexBuffer.MatricesWeightsKind, weights, false);
  tube.parent = holder;
  tube.skeleton = skeleton;
  const tm = mat(scene, "tentacle", new Color3(0.7, 0.32, 0.78));
  tm.emissiveColor = new Color3(0.14, 0.05, 0.16);
  tm.specularColor = new Color3(0.35, 0.3, 0.35);
  tm.specularPower = 24;
  tube.material = tm;
  // a rounded tip on the last joint
  const cap = CreateSphere("tentacle tip", { diameter: 0.7 * radius, segments: 12 }, scene);
  cap.material = tm;
  cap.parent = chain[count]!.getTransformNode()!;
  for (const m of [tube, ball, cap]) m.isPickable = false;
  const nodes = chain.map((b) => b.getTransformNode()!);
  return { holder, skeleton, chain, nodes, ball, tube, segment };
}
