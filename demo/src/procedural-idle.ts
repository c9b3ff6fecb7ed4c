/**
 * A gentle procedural idle for models without clips: the spine sways and both arms swing, as keys on the
 * linked TransformNodes' rotationQuaternion (so it drives the skeleton like a glTF clip), or on the bones
 * themselves for a skeleton without linked nodes (a native .babylon one). Shared by the demo's
 * characters and the tests' scenes (test/helpers/babylon-scene.ts).
 */
// `.js` on the deep imports: the benchmarks run this file in Node (bench/ → test/helpers → here)
import { Animation } from "@babylonjs/core/Animations/animation.js";
import { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";

/** The idle's swing: its amplitude (rad) and its period (frames at 30 fps). */
export interface IdleShape {
  amplitude: number;
  frames: number;
}

/** Node `i` swings about the x, y or z axis in turn, each a phase `i` apart (keys every 10 frames). */
export function proceduralIdle(
  scene: Scene,
  nodes: (TransformNode | Bone)[],
  name: string,
  { amplitude, frames }: IdleShape,
): AnimationGroup {
  const group = new AnimationGroup(name, scene);
  nodes.forEach((node, i) => {
    const base = node.rotationQuaternion?.clone() ?? Quaternion.FromEulerVector(node.rotation);
    const anim = new Animation(
      `${name}-${node.name}`,
      "rotationQuaternion",
      30,
      Animation.ANIMATIONTYPE_QUATERNION,
      Animation.ANIMATIONLOOPMODE_CYCLE,
    );
    const keys = [];
    for (let f = 0; f <= frames; f += 10) {
      const a = amplitude * Math.sin((f / frames) * Math.PI * 2 + i);
      const axis = new Vector3(i % 3 === 0 ? 1 : 0, i % 3 === 1 ? 1 : 0, i % 3 === 2 ? 1 : 0);
      keys.push({ frame: f, value: Quaternion.RotationAxis(axis, a).multiply(base) });
    }
    anim.setKeys(keys);
    group.addTargetedAnimation(anim, node);
  });
  return group;
}
