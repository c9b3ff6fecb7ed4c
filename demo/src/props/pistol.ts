/** A box pistol fitted into a character's hand, its barrel along a given direction. */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator";
import type { Scene } from "@babylonjs/core/scene";
import { hangOnBone } from "../bone-world";
import { bonePos, mat } from "../kit";
import { fistScale, isUnder, quantile, skinVertices } from "./skin";

/** The pistol: its root under the hand's node and the muzzle, whose +Z is the barrel's axis. */
export interface Pistol {
  root: TransformNode;
  muzzle: TransformNode;
}

/** The pistol's parts for a character 1 tall (local: +Z barrel, +Y top): the slide above the fist, the grip in it. */
const SLIDE = { width: 0.022, height: 0.028, depth: 0.13, y: 0.03, z: 0.035 };
const GRIP = { width: 0.02, height: 0.065, depth: 0.03, y: -0.002, z: -0.012 };
const MUZZLE_Z = 0.1;

/**
 * The pistol's size (× the height-sized one) and lift (× height, along its top) for a fist whose skin lies at
 * `points` (the pistol's frame, in heights): as big as the fist is thick, and raised until at least the upper
 * half of the slide shows above the skin under it.
 */
function fitToFist(points: Vector3[]): { size: number; lift: number } {
  if (points.length < 8) return { size: 1, lift: 0 };
  const size = fistScale(points, 1);
  const back = (SLIDE.z - SLIDE.depth / 2) * size;
  const front = (SLIDE.z + SLIDE.depth / 2) * size;
  const under = points
    .filter((p) => Math.abs(p.x) < (SLIDE.width / 2) * size && p.z > back && p.z < front)
    .map((p) => p.y);
  const lift = under.length === 0 ? 0 : Math.max(0, quantile(under, 0.95) - SLIDE.y * size);
  return { size, lift };
}

/**
 * Builds a pistol with its grip in `hand`'s fist (between the wrist and the finger roots), the barrel along
 * `barrel` and its top toward `up` (both world), and parents it to the hand's node. Its size is proportional to
 * `h` (the character's height), or to the fist when the hand's skin is bigger than a realistic one (a chibi's),
 * and it sits high enough in the fist for the slide and the muzzle to show. Call it with the hand where the
 * animation holds it.
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
  const fingers = hand.children;
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
  const x = Vector3.Cross(y, z);
  root.rotationQuaternion = Quaternion.RotationQuaternionFromAxis(x, y, z);
  const local = (p: Vector3) => {
    const d = p.subtract(root.position);
    return new Vector3(Vector3.Dot(d, x) / h, Vector3.Dot(d, y) / h, Vector3.Dot(d, z) / h);
  };
  const { size, lift } = fitToFist(skinVertices(hand.getSkeleton(), (b) => isUnder(b, hand)).map(local));
  const s = size * h;
  const metal = mat(scene, "pistol", new Color3(0.12, 0.12, 0.14));
  const box = (name: string, d: typeof GRIP) =>
    CreateBox(name, { width: d.width * s, height: d.height * s, depth: d.depth * s }, scene);
  const slide = box("pistol slide", SLIDE);
  slide.position.set(0, SLIDE.y * s + lift * h, SLIDE.z * s);
  const grip = box("pistol grip", GRIP);
  grip.position.set(0, GRIP.y * s + lift * h, GRIP.z * s);
  grip.rotation.x = -0.25;
  const muzzle = new TransformNode("pistol muzzle", scene);
  muzzle.position.set(0, SLIDE.y * s + lift * h, MUZZLE_Z * s);
  for (const part of [slide, grip, muzzle]) part.parent = root;
  for (const m of [slide, grip]) {
    m.material = metal;
    m.isPickable = false;
    shadows.addShadowCaster(m, false);
  }
  // the pistol follows the hand from now on (its world pose kept)
  hangOnBone(root, hand);
  return { root, muzzle } satisfies Pistol;
}
