/**
 * Deterministic lockstep (`new Engine(canvas, true, { deterministicLockstep: true })`): Babylon steps the animations
 * by fixed steps, as many as the frame's time holds (none in some frames of a fast display, several in a slow one),
 * and `scene.deltaTime` then holds one step's time whatever the count. The components timed by the scene's
 * animation clock (enable fades, grounder, modifiers, interactions, level of detail) must keep pace with the
 * animations: their time is the steps taken × the step. UAL walks in a lockstep NullEngine at 60 steps a second,
 * rendered at 30 and 144 frames a second on a clock stepped by hand.
 */
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { PrecisionDate } from "@babylonjs/core/Misc/precisionDate.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { EffectorOffset } from "../../src/effectors/modifiers/effector-offset.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { sceneClock } from "../../src/index.js";
import { loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { heightfield } from "../helpers/heightfield.js";
import { report } from "../helpers/modifier-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const engines: NullEngine[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const e of engines.splice(0)) e.dispose();
});

/**
 * UAL walking in a lockstep scene rendered at `hz` for 3 s: over its first second the grounder's steps (not
 * clamped at these rates) and the animation time Babylon stepped (steps × 1/60 s) are summed; then the IK, with
 * `enableFadeSeconds` 1, is switched off and the animation time its fade took is returned. `still`: the largest
 * bone move (× h) in a frame that took no step, with an EffectorOffset holding a hand 0.17 h off. `user`: the
 * seconds a user's `onPreUpdateObservable` observer read from the exported {@link sceneClock} over that second
 * (docs/API.md's `fadeIk`).
 */
async function lockstep(
  hz: number,
): Promise<{ grounder: number; animation: number; fade: number; still: number; user: number }> {
  let now = 1000;
  vi.spyOn(PrecisionDate, "Now", "get").mockImplementation(() => now);
  const engine = new NullEngine({ deterministicLockstep: true, lockstepMaxSteps: 4, timeStep: 1 / 60 } as never);
  engines.push(engine);
  const scene = new Scene(engine);
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  const m = await loadModel("UAL", { scene, clips: (c) => c === "Walk_Loop" });
  const ik = FullBodyBipedIK.create(scene, m.skeleton, { enableFadeSeconds: 1 });
  const ground = heightfield(scene, 10, 10, () => 0);
  const grounder = GrounderFBBIK.create(ik, { raycast: StaticGroundRaycast.fromMeshes([ground]).raycast });
  const offset = new EffectorOffset(ik);
  offset.leftHandOffset.setAll(0.1 * height(m));
  m.container.animationGroups[0]!.start(true);
  let steps = 0;
  let still = 0;
  let before: Vector3[] = [];
  scene.onBeforeStepObservable.add(() => steps++);
  let grounderSeconds = 0;
  let animation = 0;
  let fadeFrom = -1;
  let fade = -1;
  let user = 0;
  const clock = sceneClock(scene);
  ik.solver.onPreUpdateObservable.add(() => {
    clock.tick();
    if (fadeFrom < 0) user += clock.delta;
  });
  for (let f = 0; f < 3 * hz; f++) {
    now += 1000 / hz;
    const stepsBefore = steps;
    engine.beginFrame();
    scene.render();
    engine.endFrame();
    const pose = m.skeleton.bones.map((b) => worldPos(b));
    if (f > 0 && f < hz && steps === stepsBefore)
      for (let i = 0; i < pose.length; i++) still = Math.max(still, Vector3.Distance(pose[i]!, before[i]!) / height(m));
    before = pose;
    if (f <= hz) grounderSeconds += grounder.solver.deltaTime;
    if (f === hz) {
      // the grounder stops with the IK once its fade is over: its time is compared over the frames before
      animation = steps / 60;
      ik.enabled = false;
      fadeFrom = steps;
    } else if (fadeFrom >= 0 && fade < 0 && !ik.isFading) fade = (steps - fadeFrom) / 60;
  }
  return { grounder: grounderSeconds, animation, fade, still, user };
}

describe.skipIf(!modelAvailable("UAL"))("the IK's components under deterministic lockstep (UAL)", () => {
  for (const hz of [30, 144]) {
    it(`rendered at ${hz} Hz, 60 steps a second: the grounder's time and a 1 s fade follow the animations`, async () => {
      const r = await lockstep(hz);
      report(
        `${hz} Hz: grounder seconds, animation seconds, fade seconds, still`,
        r.grounder,
        r.animation,
        r.fade,
        r.still,
        r.user,
      );
      // measured before: the grounder's time half the animations' at 30 Hz, 2.4 times it at 144 Hz (one step's
      // time a frame, steps taken or not); the fade not over after 2 s at 30 Hz, over in 0.42 s at 144 Hz
      expect(r.grounder).toBeCloseTo(r.animation, 9);
      // scene.deltaTime summed instead: 0.5 s at 30 Hz, 2.37 s at 144 Hz (NaN unless its first frame's undefined is caught)
      expect(r.user).toBeCloseTo(r.animation, 9);
      expect(Math.abs(r.fade - 1)).toBeLessThanOrEqual(1 / hz + 1e-9);
      // a frame without a step shows the last one's pose: nothing eases, nothing comes off (the offset stays;
      // with the modifiers skipping frames of 0 s it came off in every such frame at 144 Hz: 0.26 h)
      expect(r.still).toBeLessThan(1e-9);
    });
  }
});
