import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { currentWorldMatrix, multiplyMatrices } from "../../babylon/world-matrix.js";
import type { GroundingBody } from "./grounding-common.js";
import { thinInstanceCount, thinInstanceMatrices } from "./mesh-triangles.js";

/**
 * A Babylon node (or one thin instance of a mesh) as the ground a ray hit: its current world matrix, read as the
 * library reads nodes (Babylon's cached one when current). Made once per node and instance ({@link groundBodyOf}).
 */
class NodeGroundBody implements GroundingBody {
  readonly node: TransformNode;
  /** The thin instance, or −1 for the node itself. */
  readonly instance: number;

  constructor(node: TransformNode, instance: number) {
    this.node = node;
    this.instance = instance;
  }

  worldMatrixToRef(out: Float64Array): boolean {
    const node = this.node;
    if (node.isDisposed() || !node.isEnabled()) return false;
    const m = currentWorldMatrix(node).m;
    const k = this.instance;
    if (k < 0) {
      for (let i = 0; i < 16; i++) out[i] = m[i]!;
      return true;
    }
    // a thin instance: its matrix × the mesh's world matrix
    const mesh = node as AbstractMesh;
    const data = thinInstanceMatrices(mesh);
    if (data === null || k >= thinInstanceCount(mesh)) return false;
    multiplyMatrices(data, k * 16, m, out);
    return true;
  }
}

/** The bodies made so far, per node: [0] the node's own, [1 + k] its thin instance k's. */
const bodies = new WeakMap<TransformNode, (NodeGroundBody | undefined)[]>();

/**
 * The {@link GroundingBody} of `node` (or of its thin instance `instance` ≥ 0), the same object on every call:
 * allocates only the first time a node or instance is asked for.
 */
export function groundBodyOf(node: TransformNode, instance: number): GroundingBody {
  let list = bodies.get(node);
  if (list === undefined) {
    list = [];
    bodies.set(node, list);
  }
  const slot = instance >= 0 ? instance + 1 : 0;
  let body = list[slot];
  if (body === undefined) {
    body = new NodeGroundBody(node, slot - 1);
    list[slot] = body;
  }
  return body;
}
