/** A box pistol fitted into a character's hand, its barrel along a given direction. */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator";
import type { Scene } from "@babylonjs/core/scene";
import { bonePos, mat } from "../kit";

/** The pistol: its root under the hand's node and the muzzle, whose +Z is the barrel's axis. */
export interface Pistol {
  root: TransformNode;
  muzzle: TransformNode;
}

/**
 * Builds a pistol of a size proportional to `h` (the character's height) with its grip in `hand`'s fist
 * (between the wrist and the finger roots), the barrel along `barrel` and its top toward `up` (both world),
 * and parents it to the hand's node. Call it with the hand where the animation holds it.
 */
export function makePistol(
  scene: Scene,
  shadows: ShadowGenerator,
  hand: Bone,
  h: number,
  barrel: Vector3,
  up: Vector3,
) {
  const wrist = bonePos(hand);
  const fingers = hand.children.filter((b) => b.getTransformNode() !== null);
  const knuckles =
    fingers.length > 0
      ? fingers
          .map(bonePos)
          .reduce((a, p) => a.addInPlace(p), Vector3.Zero())
          .scaleInPlace(1 / fingers.length)
      : wrist.add(barrel.scale(0.05 * h));
  const root = new TransformNode("pistol", scene);
  root.position.copyFrom(Vector3.Lerp(wrist, knuckles, 0.6));
  const z = barrel.normalizeToNew();
  const y = up.subtract(z.scale(Vector3.Dot(up, z))).normalize();
  root.rotationQuaternion = Quaternion.RotationQuaternionFromAxis(Vector3.Cross(y, z), y, z);
  // the slide above the fist, the grip in it (local: +Z barrel, +Y top)
  const metal = mat(scene, "pistol", new Color3(0.12, 0.12, 0.14));
  const slide = CreateBox("pistol slide", { width: 0.022 * h, height: 0.028 * h, depth: 0.13 * h }, scene);
  slide.position.set(0, 0.03 * h, 0.035 * h);
  const grip = CreateBox("pistol grip", { width: 0.02 * h, height: 0.065 * h, depth: 0.03 * h }, scene);
  grip.position.set(0, -0.002 * h, -0.012 * h);
  grip.rotation.x = -0.25;
  const muzzle = new TransformNode("pistol muzzle", scene);
  muzzle.position.set(0, 0.03 * h, 0.1 * h);
  for (const part of [slide, grip, muzzle]) part.parent = root;
  for (const m of [slide, grip]) {
    m.material = metal;
    m.isPickable = false;
    shadows.addShadowCaster(m, false);
  }
  // the pistol follows the hand from now on (its world pose kept)
  const node = hand.getTransformNode()!;
  node.computeWorldMatrix(true);
  root.setParent(node);
  return { root, muzzle } satisfies Pistol;
}
