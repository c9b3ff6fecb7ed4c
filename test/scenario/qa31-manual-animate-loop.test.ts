/**
 * Apps that step the animations themselves (QA round 31): `scene.animate(); scene.render(false, true)`, a loop
 * written around physics or a fixed step. Babylon's render notifies `onBeforeAnimationsObservable`, where the IK's
 * FixTransforms runs, after that `animate()` then: a clip started between frames took its start snapshot from the
 * bones with the IK's output on them, and an additive one on bones only it animates kept it for as long as it
 * played (UAL with LookAtIK + AimIK + LimbIK: Babylon's pose read 2.2e-2 off, the IK on since frame 0 0.10 from
 * the IK switched on at the frame). The scene now gets an own `animate` that runs FixTransforms first, once
 * a frame, taken off with the scene's last IK component.
 */
import type { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import type { TwinScenario } from "../helpers/animation-twins.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { ADDITIVE_STARTED_BETWEEN_FRAMES, IKS, expectOnTop, group, idleBlending } from "../helpers/twin-iks.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** The app's frame: the animations stepped by hand, then a render that does not step them again. */
function manual(scene: Scene): void {
  scene.animate();
  scene.render(false, true);
}

const SCENARIOS: Record<string, TwinScenario> = {
  "an additive clip started between frames, on bones only it animates": {
    ...ADDITIVE_STARTED_BETWEEN_FRAMES,
    frames: 300,
    render: manual,
  },
  "cross-fade by animationPropertiesOverride, clips switched between frames": {
    clips: ["Idle_Loop", "Walk_Loop"],
    frames: 200,
    render: manual,
    prepare: idleBlending(0.02),
    between: (t, f) => {
      if (f === 100) {
        group(t, "Idle_Loop").stop();
        group(t, "Walk_Loop").start(true);
      }
    },
  },
};

describe("scene.animate(); scene.render(false, true): the IK on Babylon's pose (UAL)", () => {
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    it(name, async () => {
      await expectOnTop(name, scenario, IKS);
    });
  }
});

describe("the scene's own animate", () => {
  it("runs FixTransforms once a frame, calls what was there, and goes with the last IK", async () => {
    const m = await loadModel("UAL");
    open.push(m);
    const scene = m.scene;
    const ik = FullBodyBipedIK.create(scene, m.skeleton);
    expect(Object.hasOwn(scene, "animate")).toBe(true);
    expect(Object.keys(scene)).not.toContain("animate");
    let fixes = 0;
    const fix = ik.rig.fixTransforms.bind(ik.rig);
    ik.rig.fixTransforms = () => {
      fixes++;
      fix();
    };
    scene.render();
    manual(scene);
    scene.render();
    scene.render(true, true);
    manual(scene);
    // two logic steps a frame
    scene.animate();
    manual(scene);
    // once in each of the six frames: not again in the render after the app's animate, nor in render's own
    expect(fixes).toBe(6);
    // an app's wrapper installed over the IK's stays and is still called after the IK goes
    const ours = scene.animate;
    let calls = 0;
    scene.animate = () => {
      calls++;
      ours.call(scene);
    };
    ik.dispose();
    scene.render();
    expect(calls).toBe(1);
    const again = FullBodyBipedIK.create(scene, m.skeleton);
    again.dispose();
    scene.render();
    expect(calls).toBe(2);
    // without one over it, the scene's animate is Babylon's again
    const bare = await loadModel("UAL");
    open.push(bare);
    FullBodyBipedIK.create(bare.scene, bare.skeleton).dispose();
    expect(Object.hasOwn(bare.scene, "animate")).toBe(false);
  });
});
