/**
 * More of Babylon's animation features under the IK (animation-features.test.ts has the first ones): clips played
 * backwards, `scene.beginDirectAnimation` on bones' nodes (over a group, additive, blending, started and stopped
 * between frames), masks edited while their group plays, and a clip started from another's end observable. Each
 * runs on copies of UAL beside one without IK, FullBodyBipedIK with a GrounderFBBIK on flat ground and the family
 * (LookAtIK + AimIK + LimbIK) each on two: weight 0 is Babylon's pose, the IK reads Babylon's pose and reaches, the
 * bones it does not write keep Babylon's pose, and frame N does not depend on the frames solved before it.
 */
import { Animation } from "@babylonjs/core/Animations/animation.js";
import { AnimationGroupMask, AnimationGroupMaskMode } from "@babylonjs/core/Animations/animationGroupMask.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, it } from "vitest";
import type { Twin, TwinScenario } from "../helpers/animation-twins.js";
import { modelAvailable } from "../helpers/babylon-scene.js";
import { blending, expectOnTop, family, fbbik, group } from "../helpers/twin-iks.js";

const IKS = [
  ["FullBodyBipedIK + GrounderFBBIK", (t: Twin) => fbbik(t, true)],
  ["LookAtIK + AimIK + LimbIK", family],
] as const;

/** The node of the first bone whose name matches. */
const node = (t: Twin, name: RegExp): TransformNode =>
  t.m.skeleton.bones.find((b) => name.test(b.name))!.getTransformNode()!;

/** The names of the bones' nodes that match. */
const names = (t: Twin, name: RegExp): string[] =>
  t.m.skeleton.bones.map((b) => b.getTransformNode()!.name).filter((n) => name.test(n));

/** A lean of 0.4 rad and back, two seconds a cycle; about identity, so it also serves as an additive clip. */
function lean(name: string): Animation {
  const a = new Animation(
    name,
    "rotationQuaternion",
    30,
    Animation.ANIMATIONTYPE_QUATERNION,
    Animation.ANIMATIONLOOPMODE_CYCLE,
  );
  a.setKeys([
    { frame: 0, value: Quaternion.Identity() },
    { frame: 30, value: Quaternion.RotationAxis(new Vector3(1, 0, 0.3).normalize(), 0.4) },
    { frame: 60, value: Quaternion.Identity() },
  ]);
  return a;
}

const SCENARIOS: Record<string, TwinScenario> = {
  "reverse play: negative speedRatio, its sign switched, paused, resumed backwards": {
    clips: ["Walk_Loop"],
    clock: true,
    frames: 400,
    prepare: (t) => {
      group(t, "Walk_Loop").start(true, -1);
    },
    between: (t, f) => {
      const walk = group(t, "Walk_Loop");
      if (f === 100) walk.speedRatio = 1;
      else if (f === 150) walk.speedRatio = -2.5;
      else if (f === 200) walk.pause();
      else if (f === 300) {
        walk.speedRatio = -0.3;
        walk.play(true);
      }
    },
  },
  "beginDirectAnimation on bones' nodes: over a group, additive, blending, started and stopped between frames": {
    clips: ["Idle_Loop"],
    frames: 400,
    prepare: (t) => {
      const idle = group(t, "Idle_Loop");
      idle.weight = 1;
      idle.start(true);
    },
    between: (t, f) => {
      const s = t.m.scene;
      if (f === 50) s.beginDirectAnimation(node(t, /spine/i), [lean("lean")], 0, 60, true);
      else if (f === 100) {
        // additive on the left upper arm, which the IK writes: Babylon mixes it in its weighted pass
        const a = s.beginDirectAnimation(
          node(t, /upper_arm\.L/),
          [lean("swing")],
          0,
          60,
          true,
          1,
          undefined,
          undefined,
          true,
        );
        a.weight = 1;
      } else if (f === 150) {
        const a = lean("reach");
        a.enableBlending = true;
        a.blendingSpeed = 0.05;
        s.beginDirectAnimation(node(t, /forearm\.R/), [a], 0, 60, true);
      } else if (f === 250) s.stopAnimation(node(t, /spine/i));
    },
  },
  "masks edited while their group plays: disabled, enabled, names removed, mode switched": {
    clips: ["Walk_Loop"],
    frames: 400,
    prepare: (t) => {
      // the arms only: every other bone keeps the file's pose
      const walk = group(t, "Walk_Loop");
      walk.mask = new AnimationGroupMask(names(t, /arm|hand/i), AnimationGroupMaskMode.Include);
      walk.start(true);
    },
    between: (t, f) => {
      const mask = group(t, "Walk_Loop").mask!;
      if (f === 100) mask.disabled = true;
      else if (f === 150) mask.disabled = false;
      else if (f === 200) mask.removeTargetName(names(t, /hand/i));
      else if (f === 300) mask.mode = AnimationGroupMaskMode.Exclude;
    },
  },
  "a clip started from another's end or loop observable, cross-fading": {
    clips: ["Punch_Jab", "Idle_Loop", "Walk_Loop"],
    frames: 400,
    prepare: (t) => {
      t.m.scene.animationPropertiesOverride = blending(0.05);
      const punch = group(t, "Punch_Jab");
      const idle = group(t, "Idle_Loop");
      punch.onAnimationGroupEndObservable.add(() => idle.start(true));
      idle.onAnimationGroupLoopObservable.add(() => {
        idle.stop();
        group(t, "Walk_Loop").start(true);
      });
      punch.start(false);
    },
  },
};

/** Soldier (../shared, skipped without it): idle, walk, run cross-faded by the groups, walk and run backwards. */
const SOLDIER: TwinScenario = {
  model: "Soldier",
  clips: ["Idle", "Walk", "Run"],
  frames: 400,
  prepare: (t) => {
    for (const g of t.groups.values()) {
      g.enableBlending = true;
      g.blendingSpeed = 0.04;
    }
    group(t, "Idle").start(true);
  },
  between: (t, f) => {
    if (f === 100) {
      group(t, "Idle").stop();
      group(t, "Walk").start(true, -1);
    } else if (f === 250) {
      group(t, "Walk").stop();
      group(t, "Run").start(true);
    } else if (f === 320) group(t, "Run").speedRatio = -1;
  },
};

describe(`${IKS.map(([ik]) => ik).join("; ")} on more of Babylon's animation features`, () => {
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    it(name, async () => {
      await expectOnTop(name, scenario, IKS);
    });
  }
  it.skipIf(!modelAvailable("Soldier"))("Soldier: cross-fades by the groups, played backwards", async () => {
    await expectOnTop("Soldier", SOLDIER, IKS);
  });
});
