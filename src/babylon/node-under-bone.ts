import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Node } from "@babylonjs/core/node.js";
import type { ReadonlyVec3, Vec3 } from "../math/vec3.js";
import { currentWorldMatrix, transformPoint } from "./world-matrix.js";

/**
 * A node's transform relative to a bone above it (a shield under the hand, a spike under a tail segment): the
 * local matrices from the node up to the bone, as Babylon last composed them, multiplied in doubles. They do not
 * depend on the solve (no bone lies between), so the node can be carried by the bone's solved pose. Affine, row
 * vectors (Babylon's). Allocation-free.
 */
export class NodeUnderBone {
  /** The matrix (16 numbers, row vectors; its last column stays 0, 0, 0, 1). */
  readonly m = new Float64Array(16);
  private readonly row = new Float64Array(3);

  /** Reads `node`'s transform relative to `bone`, one of its ancestors (a linked node or a Bone). */
  read(node: TransformNode, bone: Node): void {
    // brings the local matrices up to date (recomputed only when something moved)
    currentWorldMatrix(node);
    const r = this.m;
    r.set(node._localMatrix.m);
    for (let a = node.parent; a !== null && a !== bone; a = a.parent) {
      this.append((a as TransformNode)._localMatrix.m);
    }
  }

  /** `out` = `p` through the matrix (a point in the node's space into the bone's). */
  transformPoint(p: ReadonlyVec3, out: Vec3): void {
    transformPoint(this.m, p, out);
  }

  /** Into `out`, the lengths of the matrix's axes (the node's scale in the bone's space). */
  axisLengths(out: Vec3): void {
    const m = this.m;
    out.x = Math.sqrt(m[0]! * m[0]! + m[1]! * m[1]! + m[2]! * m[2]!);
    out.y = Math.sqrt(m[4]! * m[4]! + m[5]! * m[5]! + m[6]! * m[6]!);
    out.z = Math.sqrt(m[8]! * m[8]! + m[9]! * m[9]! + m[10]! * m[10]!);
  }

  /** m = m × `b` (`b` affine: its last column 0, 0, 0, 1). */
  private append(b: ArrayLike<number>): void {
    const r = this.m;
    const row = this.row;
    for (let i = 0; i < 4; i++) {
      const x = r[4 * i]!;
      const y = r[4 * i + 1]!;
      const z = r[4 * i + 2]!;
      const w = i === 3 ? 1 : 0;
      for (let c = 0; c < 3; c++) row[c] = x * b[c]! + y * b[4 + c]! + z * b[8 + c]! + w * b[12 + c]!;
      r[4 * i] = row[0]!;
      r[4 * i + 1] = row[1]!;
      r[4 * i + 2] = row[2]!;
    }
  }
}
