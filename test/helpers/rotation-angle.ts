/**
 * Angles between rotations for tests. `2·acos(|dot|)` is badly conditioned near 0: Babylon's quaternions are not
 * exactly unit, and two identical characters read up to 1.9e-3 rad apart that way; the chord is not.
 */
import { Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Node } from "@babylonjs/core/node.js";

/** The angle between two rotations (q and −q alike), radians, from the chord between the unit quaternions. */
export function rotationAngle(a: Quaternion, b: Quaternion): number {
  const p = a.normalizeToNew();
  const q = b.normalizeToNew().scaleInPlace(Quaternion.Dot(a, b) < 0 ? -1 : 1);
  return 4 * Math.asin(Math.min(1, p.subtract(q).length() / 2));
}

/** A node's world rotation, its ancestors' world matrices and its own computed now (root first). */
export function worldRotation(n: TransformNode): Quaternion {
  const chain: TransformNode[] = [];
  for (let a: Node | null = n; a !== null; a = a.parent) chain.push(a as TransformNode);
  for (let i = chain.length - 1; i > 0; i--) chain[i]!.computeWorldMatrix(true);
  const q = new Quaternion();
  n.computeWorldMatrix(true).decompose(undefined, q);
  return q;
}
