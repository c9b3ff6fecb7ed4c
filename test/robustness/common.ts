/** Shared checks of the robustness tests. */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import type { BabylonEffector } from "../../src/babylon/babylon-effector.js";
import type { Random } from "../helpers/random.js";

/** World position of a bone: its linked node, else the bone (in the skeleton's space). */
export function boneWorldPosition(bone: Bone): Vector3 {
  const node = bone.getTransformNode();
  if (node !== null) {
    node.computeWorldMatrix(true);
    return node.getAbsolutePosition().clone();
  }
  bone.getSkeleton().computeAbsoluteMatrices(true);
  return bone.getAbsolutePosition();
}

/** The character's size: the largest distance between two of its bones (height for a standing figure). */
export function characterSize(skeleton: Skeleton, worldPos: (b: Bone) => Vector3): number {
  const p = skeleton.bones.map(worldPos);
  let max = 0;
  for (let i = 0; i < p.length; i++)
    for (let j = i + 1; j < p.length; j++) max = Math.max(max, Vector3.Distance(p[i]!, p[j]!));
  return max;
}

/** Every value of every bone's world matrix (linked node or bone) is finite. */
export function bonesFinite(skeleton: Skeleton): boolean {
  skeleton.computeAbsoluteMatrices(true);
  for (const b of skeleton.bones) {
    const node = b.getTransformNode();
    const m = node !== null ? node.computeWorldMatrix(true).m : b.getFinalMatrix().m;
    for (let k = 0; k < 16; k++) if (!Number.isFinite(m[k]!)) return false;
  }
  return true;
}

/** The hand effectors with the bones of their arms. */
export function arms(ik: FullBodyBipedIK): { effector: BabylonEffector; bones: [Bone, Bone, Bone] }[] {
  const r = ik.references;
  return [
    { effector: ik.solver.leftHandEffector, bones: [r.leftUpperArm, r.leftForearm, r.leftHand] },
    { effector: ik.solver.rightHandEffector, bones: [r.rightUpperArm, r.rightForearm, r.rightHand] },
  ];
}

/**
 * Puts a hand on `count` reachable targets (alternating hands; random directions from the shoulder at
 * 0.35–0.85 of the arm's reach, the other hand free) and returns the worst distance to the target, and
 * whether every bone stayed finite. `render` advances a frame.
 */
export function reachHandTargets(
  ik: FullBodyBipedIK,
  render: () => void,
  worldPos: (b: Bone) => Vector3,
  rng: Random,
  count: number,
): { worst: number; finite: boolean } {
  const limbs = arms(ik);
  let worst = 0;
  let finite = true;
  for (let trial = 0; trial < count; trial++) {
    const limb = limbs[trial % 2]!;
    for (const l of limbs) l.effector.positionWeight = 0;
    render();
    const [b1, b2, b3] = limb.bones.map(worldPos) as [Vector3, Vector3, Vector3];
    const reach = Vector3.Distance(b1, b2) + Vector3.Distance(b2, b3);
    const d = rng.unitVector();
    const target = b1.add(new Vector3(d.x, d.y, d.z).scale(rng.range(0.35, 0.85) * reach));
    limb.effector.position.copyFrom(target);
    limb.effector.positionWeight = 1;
    render();
    worst = Math.max(worst, Vector3.Distance(worldPos(limb.bones[2]), target));
    finite &&= bonesFinite(ik.skeleton);
  }
  for (const l of limbs) l.effector.positionWeight = 0;
  render();
  return { worst, finite };
}

/** Advances a scene one frame without rendering: FixTransforms, (no animation), IK update. */
export function cheapFrame(scene: Scene, ik: FullBodyBipedIK): void {
  // the IK tells frames apart by the scene's frame id, which only render() advances
  (scene as unknown as { _frameId: number })._frameId++;
  ik._beforeAnimations();
  ik.update();
}
