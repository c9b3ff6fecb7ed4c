import type { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";

/** PhysicsMotionType.ANIMATED (Physics v2): moved by the code, pushing dynamic bodies out of its way. */
const ANIMATED = 1;

/** What a held node's Physics v2 body needs of itself (read without importing the physics code). */
interface HeldBody {
  getMotionType(): number;
  setMotionType(type: number): void;
  disablePreStep: boolean;
  disableSync: boolean;
  setTargetTransform(position: Vector3, rotation: Quaternion): void;
  transformNode: TransformNode;
}

/** A held body's own settings, given back when the last hand lets go. */
interface Saved {
  motionType: number;
  disablePreStep: boolean;
  disableSync: boolean;
}

/** The bodies held now, by their node: a hand taking a node over from another keeps the first one's settings. */
const saved = new Map<TransformNode, Saved>();

function bodyOf(node: TransformNode): HeldBody | null {
  return (node as { physicsBody?: HeldBody | null }).physicsBody ?? null;
}

/**
 * Makes a picked-up node's Physics v2 body follow the hand: ANIMATED, and neither read from the node before
 * the step nor written to it after, since the step runs between the animations and the IK, when the hand
 * bone holds its animated pose, not the solved one ({@link moveHeldBody} moves it after each solve instead).
 */
export function holdBody(node: TransformNode): void {
  const body = bodyOf(node);
  if (body === null) return;
  if (!saved.has(node)) {
    saved.set(node, {
      motionType: body.getMotionType(),
      disablePreStep: body.disablePreStep,
      disableSync: body.disableSync,
    });
  }
  if (body.getMotionType() !== ANIMATED) body.setMotionType(ANIMATED);
  body.disablePreStep = true;
  body.disableSync = true;
}

/** True while `node`'s body is held (and so moved by {@link moveHeldBody}). */
export function isHeldBody(node: TransformNode): boolean {
  return saved.has(node);
}

/** Forgets a disposed node's body (nothing to give back). */
export function forgetBody(node: TransformNode): void {
  saved.delete(node);
}

/** Moves a held body toward the pose its node is shown at: it gets there, with that velocity, in the next step. */
export function moveHeldBody(node: TransformNode, position: Vector3, rotation: Quaternion): void {
  if (!saved.has(node)) return;
  bodyOf(node)?.setTargetTransform(position, rotation);
}

/**
 * Gives a released body its own settings back. Let go where it was shown, it is there already (moved after the
 * last solve) and keeps the hand's velocity: a DYNAMIC body flies on, a throw. `placed` (let go elsewhere):
 * it reads its node once, at the next step, and starts there at rest.
 */
export function releaseBody(node: TransformNode, placed: boolean): void {
  const s = saved.get(node);
  if (s === undefined) return;
  saved.delete(node);
  const body = bodyOf(node);
  if (body === null || body.transformNode !== node) return;
  if (body.getMotionType() !== s.motionType) body.setMotionType(s.motionType);
  body.disableSync = s.disableSync;
  body.disablePreStep = s.disablePreStep;
  if (!placed || !s.disablePreStep) return;
  body.disablePreStep = false;
  const scene = node.getScene() as { onAfterPhysicsObservable?: { addOnce(f: () => void): unknown } };
  scene.onAfterPhysicsObservable?.addOnce(() => {
    body.disablePreStep = true;
  });
}
