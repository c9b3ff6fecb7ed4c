/**
 * The IK on top of Babylon's animation features a game uses: cross-fades (blending), weighted and synchronised
 * groups, additive clips, masks, time (time scale, pause, scrubbing, animations disabled, stop) and a clip that
 * animates only some of the bones the IK writes. Each runs 600 frames on copies of the UAL character
 * (test/helpers/animation-twins.ts), FullBodyBipedIK and the family each on two, both beside one copy without
 * IK: the IK at weight 0 must leave Babylon's pose, the IK on must read Babylon's pose every frame, reach its
 * target and leave the other bones alone, and frame N must not depend on the frames the IK solved before it.
 */
import { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import { AnimationGroupMask, AnimationGroupMaskMode } from "@babylonjs/core/Animations/animationGroupMask.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import type { TwinScenario } from "../helpers/animation-twins.js";
import {
  ADDITIVE_STARTED_BETWEEN_FRAMES,
  IKS,
  blending,
  expectOnTop,
  group,
  idleBlending,
  onlyArms,
} from "../helpers/twin-iks.js";

const SCENARIOS: Record<string, TwinScenario> = {
  "cross-fade, scene animationPropertiesOverride, clips switched between frames": {
    clips: ["Idle_Loop", "Walk_Loop"],
    prepare: idleBlending(0.02),
    between: (t, f) => {
      if (f === 150) {
        group(t, "Idle_Loop").stop();
        group(t, "Walk_Loop").start(true);
      } else if (f === 350) {
        group(t, "Walk_Loop").stop();
        group(t, "Idle_Loop").start(true);
      }
    },
  },
  "cross-fade, group enableBlending, started then goToFrame between frames": {
    clips: ["Idle_Loop", "Walk_Loop"],
    prepare: (t) => {
      for (const g of t.groups.values()) {
        g.enableBlending = true;
        g.blendingSpeed = 0.02;
      }
      group(t, "Idle_Loop").start(true);
    },
    between: (t, f) => {
      if (f === 150) {
        group(t, "Idle_Loop").stop();
        group(t, "Walk_Loop").start(true).goToFrame(10);
      }
    },
  },
  "two groups weighted, weights changed, a third synchronised": {
    clips: ["Idle_Loop", "Walk_Loop", "Jog_Fwd_Loop"],
    prepare: (t) => {
      group(t, "Idle_Loop").start(true).setWeightForAllAnimatables(0.7);
      group(t, "Walk_Loop").start(true).weight = 0.3;
    },
    between: (t, f) => {
      if (f === 200) {
        group(t, "Idle_Loop").weight = 0.2;
        group(t, "Walk_Loop").setWeightForAllAnimatables(0.5);
      } else if (f === 300) {
        const jog = group(t, "Jog_Fwd_Loop").start(true);
        jog.weight = 0.4;
        jog.syncAllAnimationsWith(group(t, "Walk_Loop").animatables[0]!);
      }
    },
  },
  "additive clip on a base clip": {
    clips: ["Idle_Loop", "Pistol_Aim_Neutral", "Punch_Jab"],
    prepare: (t) => {
      AnimationGroup.MakeAnimationAdditive(group(t, "Pistol_Aim_Neutral"), { referenceFrame: 0 });
      AnimationGroup.MakeAnimationAdditive(group(t, "Punch_Jab"), { referenceFrame: 0 });
      // Babylon mixes additive clips in its weighted pass only: every clip on those bones needs a weight
      group(t, "Idle_Loop").weight = 1;
      group(t, "Idle_Loop").start(true);
      group(t, "Pistol_Aim_Neutral").weight = 1;
      group(t, "Pistol_Aim_Neutral").start(true, 1, undefined, undefined, true);
    },
    between: (t, f) => {
      if (f === 200) {
        const punch = group(t, "Punch_Jab");
        punch.isAdditive = true;
        punch.start(true);
        punch.weight = 0.6;
      }
    },
  },
  "masks: one clip on the upper body, another on the legs": {
    clips: ["Punch_Jab", "Walk_Loop"],
    prepare: (t) => {
      const legs = t.m.skeleton.bones
        .map((b) => b.getTransformNode()!.name)
        .filter((n) => /thigh|shin|foot|toe|hips|root/.test(n));
      group(t, "Walk_Loop").mask = new AnimationGroupMask(legs, AnimationGroupMaskMode.Include);
      group(t, "Punch_Jab").mask = new AnimationGroupMask(legs, AnimationGroupMaskMode.Exclude);
      group(t, "Walk_Loop").start(true);
      group(t, "Punch_Jab").start(true);
    },
  },
  "time: scale 0, 0.25, 2; paused; scrubbed while paused; animations disabled; stopped": {
    clips: ["Walk_Loop"],
    clock: true,
    prepare: (t) => {
      group(t, "Walk_Loop").start(true);
    },
    between: (t, f) => {
      const s = t.m.scene;
      const walk = group(t, "Walk_Loop");
      if (f === 50) s.animationTimeScale = 0;
      else if (f === 100) s.animationTimeScale = 0.25;
      else if (f === 150) s.animationTimeScale = 2;
      else if (f === 200) walk.pause();
      else if (f > 250 && f < 350) walk.goToFrame((f * 7) % 30);
      else if (f === 350) walk.play(true);
      else if (f === 400) s.animationsEnabled = false;
      else if (f === 450) {
        s.animationsEnabled = true;
        walk.stop();
      }
    },
  },
  "an additive clip started between frames, on bones only it animates": ADDITIVE_STARTED_BETWEEN_FRAMES,
  "scrubbing a paused clip with blending on (a cutscene editor)": {
    clips: ["Idle_Loop", "Walk_Loop"],
    prepare: idleBlending(0.05),
    between: (t, f) => {
      const walk = group(t, "Walk_Loop");
      if (f === 100) {
        group(t, "Idle_Loop").stop();
        walk.start(true).pause();
      }
      if (f >= 100 && f < 300) walk.goToFrame((f * 3) % 30);
    },
  },
  "a clip that animates only the arms": {
    clips: ["Walk_Loop"],
    prepare: (t) => {
      onlyArms(t, group(t, "Walk_Loop")).start(true);
    },
  },
};

/**
 * Xbot (../shared, skipped without it): three.js's additive example, idle, walk and run weighted by speed with
 * `sad_pose` and `headShake` made additive on top, the weights changed between frames.
 */
const XBOT: TwinScenario = {
  model: "Xbot",
  clips: ["idle", "walk", "run", "sad_pose", "headShake"],
  prepare: (t) => {
    for (const name of ["sad_pose", "headShake"]) {
      AnimationGroup.MakeAnimationAdditive(group(t, name), { referenceFrame: 0 });
      group(t, name).weight = name === "sad_pose" ? 0.7 : 0;
      group(t, name).start(true, 1, undefined, undefined, true);
    }
    const weights = { idle: 1, walk: 0, run: 0 };
    for (const [name, w] of Object.entries(weights)) {
      group(t, name).weight = w;
      group(t, name).start(true);
    }
  },
  between: (t, f) => {
    // the speed rises, then falls: idle → walk → run → walk
    const speed = f < 300 ? f / 150 : Math.max(0, 2 - (f - 300) / 150);
    group(t, "idle").weight = Math.max(0, 1 - speed);
    group(t, "walk").weight = speed <= 1 ? speed : 2 - speed;
    group(t, "run").weight = Math.max(0, speed - 1);
    if (f === 200) group(t, "headShake").weight = 1;
  },
};

describe.skipIf(!modelAvailable("Xbot"))("Xbot: weighted locomotion with additive poses", () => {
  it(IKS.map(([ik]) => ik).join("; "), async () => {
    await expectOnTop("Xbot", XBOT);
  });
});

describe(`${IKS.map(([ik]) => ik).join("; ")} on Babylon's animation features`, () => {
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    it(name, async () => {
      await expectOnTop(name, scenario);
    });
  }
});

describe("plain Bones (a .babylon file's skeleton, `_matrix` clips)", () => {
  it("a cross-fade started with goToFrame between frames blends from the animated pose, not the IK's", async () => {
    const copies = [await loadModel("RiggedFigureBabylon"), await loadModel("RiggedFigureBabylon")];
    try {
      for (const m of copies) {
        // the file starts its clip by itself (autoAnimate): start it again, blending
        m.scene.stopAnimation(m.scene.meshes.find((x) => x.skeleton === m.skeleton)!);
        m.skeleton.animationPropertiesOverride = blending(0.05);
        m.scene.beginAnimation(m.skeleton, 0, 20, true);
      }
      const [withIk, without] = copies as [(typeof copies)[0], (typeof copies)[0]];
      const mesh = withIk.scene.meshes.find((x) => x.skeleton === withIk.skeleton)!;
      const ik = FullBodyBipedIK.create(withIk.scene, withIk.skeleton);
      const hand = ik.solver.leftHandEffector;
      hand.positionWeight = 1;
      const positions = (m: (typeof copies)[0]) => {
        m.skeleton.computeAbsoluteMatrices(true);
        return m.skeleton.bones.map((b) => b.getAbsoluteMatrix().getTranslation());
      };
      const ys = positions(without).map((p) => p.y);
      const h = Math.max(...ys) - Math.min(...ys);
      let read = 0;
      // what the IK reads: Babylon's pose after the animations
      withIk.scene.onBeforeRenderObservable.add(() => {
        const a = positions(withIk);
        const b = positions(without);
        for (let i = 0; i < a.length; i++) read = Math.max(read, Vector3.Distance(a[i]!, b[i]!) / h);
      });
      for (let f = 0; f < 120; f++) {
        if (f === 30) for (const m of copies) m.scene.beginAnimation(m.skeleton, 20, 40, true).goToFrame(25);
        without.scene.render();
        hand.position.copyFrom(ik.references.leftHand.getAbsolutePosition(mesh).add(new Vector3(0.05, 0.05, 0)));
        withIk.scene.render();
      }
      console.log(`plain Bones, cross-fade by goToFrame: read ${read.toExponential(2)} of the height`);
      expect(read).toBeLessThan(1e-6);
    } finally {
      for (const m of copies) m.dispose();
    }
  });
});
