import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Node } from "@babylonjs/core/node.js";
import type { ReadonlyVec3, Vec3 } from "../math/vec3.js";
import { currentWorldMatrix, multiplyMatrices, transformPoint } from "./world-matrix.js";

/**
 * A node's transform relative to a bone above it (a shield under the hand, a spike under a tail segment): the
 * local matrices from the node up to the bone, as Babylon last composed them, multiplied in doubles. They do not
 * depend on the solve (no bone lies between), so the node can be carried by the bone's solved pose. Affine, row
 * vectors (Babylon's). Allocation-free.
 */
export class NodeUnderBone {
  /** The matrix (16 numbers, row vectors; its last column stays 0, 0, 0, 1). */
  readonly m = new Float64Array(16);
  private readonly product = new Float64Array(16);

  /** Reads `node`'s transform relative to `bone`, one of its ancestors (a linked node or a Bone). */
  read(node: TransformNode, bone: Node): void {
    // brings the local matrices up to date (recomputed only when something moved)
    currentWorldMatrix(node);
    const r = this.m;
    r.set(node._localMatrix.m);
    for (let a = node.parent; a !== null && a !== bone; a = a.parent) {
      r.set(multiplyMatrices(r, 0, (a as TransformNode)._localMatrix.m, this.product));
    }
  }

  /** `out` = `p` through the matrix (a point in the node's space into the bone's). */
  transformPoint(p: ReadonlyVec3, out: Vec3): void {
    transformPoint(this.m, p, out);
  }
}
