import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";

/** PhysicsMotionType.DYNAMIC (Physics v2): the step moves the body and writes its pose to the node. */
const DYNAMIC = 2;

/** What a picked-up node's Physics v2 body shows of itself (read without importing the physics code). */
interface HeldBody {
  getMotionType(): number;
  disablePreStep: boolean;
}

/**
 * Why a node parented to a hand will not go with it because of its physics body, or null when it will
 * (no body, or an ANIMATED/STATIC one that reads the node before each step: `disablePreStep` false).
 * A DYNAMIC body is simulated and written back to the node every step; a body with `disablePreStep` true
 * does not read the node, so its collision shape stays behind.
 */
export function heldBodyProblem(node: TransformNode): string | null {
  const body = (node as { physicsBody?: HeldBody | null }).physicsBody;
  if (body === undefined || body === null) return null;
  if (body.getMotionType() === DYNAMIC) return "a DYNAMIC physics body, which the physics step keeps moving";
  if (body.disablePreStep) return "a physics body with disablePreStep true, which does not follow the node";
  return null;
}
