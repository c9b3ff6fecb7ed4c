/**
 * Two scenes on one engine, each with a character and its IK (QA round 32), rendered one after the other in each
 * engine frame (`engine.runRenderLoop(() => { sceneA.render(); sceneB.render(); })`), and a scene with a
 * `UtilityLayerRenderer` (EffectorHandles' gizmos, as the demo has), whose own scene renders within the main one's.
 * QA 31's clock adds no time for a render that skipped the animations after one that ran them in the same engine
 * frame: each scene's renders must still count in full on their own clock. UAL walking in each, a 1 s enable fade.
 */
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { EffectorHandles } from "../../src/babylon/effector-handles.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  // the shared scene's model before the one owning the engine
  for (const m of open.splice(0).reverse()) m.dispose();
});

/** UAL walking in `scene` (a new one on a new engine when none), its left hand held, a 1 s enable fade; solves counted. */
async function walker(scene?: Scene) {
  const m = await loadModel("UAL", { clips: (c) => c === "Walk_Loop", scene });
  open.push(m);
  const walk = m.container.animationGroups[0]!;
  walk.start(true);
  walk.goToFrame(walk.from);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton, { enableFadeSeconds: 1 });
  ik.solver.leftHandEffector.positionWeight = 1;
  ik.solver.leftHandEffector.position.set(0.3, 1.5, 0.3);
  let solves = 0;
  ik.solver.onPreUpdateObservable.add(() => solves++);
  return { m, ik, walk, solves: () => solves };
}

/** Each walker's solves in 30 frames, then the frames its fade-out took and the clip's seconds over them. */
function fadeOut(walkers: Awaited<ReturnType<typeof walker>>[], frame: () => void) {
  for (let f = 0; f < 30; f++) frame();
  const solves = walkers.map((w) => w.solves());
  for (const w of walkers) w.ik.enabled = false;
  const fades = walkers.map((w) => ({ w, frames: 0, clip: 0, last: w.walk.animatables[0]!.masterFrame }));
  for (let f = 1; fades.some((x) => x.w.ik.isFading) && f < 300; f++) {
    const fading = fades.filter((x) => x.w.ik.isFading);
    frame();
    for (const x of fading) {
      const now = x.w.walk.animatables[0]!.masterFrame;
      const length = x.w.walk.to - x.w.walk.from;
      x.clip += (now - x.last + length) % length;
      x.frames = f;
    }
    for (const x of fades) x.last = x.w.walk.animatables[0]!.masterFrame;
  }
  const fps = walkers[0]!.walk.targetedAnimations[0]!.animation.framePerSecond;
  return { solves, frames: fades.map((x) => x.frames), seconds: fades.map((x) => x.clip / fps) };
}

describe("the IK's clock with two scenes on one engine, and with a utility layer", () => {
  it("two scenes rendered in each engine frame: each IK solves once a frame, each fade takes 1 s", async () => {
    const a = await walker();
    const engine = a.m.engine;
    const sceneB = new Scene(engine);
    sceneB.useConstantAnimationDeltaTime = true;
    new FreeCamera("camera", new Vector3(0, 1, -5), sceneB);
    const b = await walker(sceneB);
    const r = fadeOut([a, b], () => {
      engine.beginFrame();
      a.m.scene.render();
      sceneB.render();
      engine.endFrame();
    });
    report("two scenes: solves in 30 frames, fade frames, clip seconds", ...r.solves, ...r.frames, ...r.seconds);
    expect(r.solves).toEqual([30, 30]);
    // 16 ms a step: 63 steps
    expect(r.frames).toEqual([63, 63]);
    for (const s of r.seconds) expect(Math.abs(s - 1)).toBeLessThan(0.02);
  });

  it("a scene with EffectorHandles' utility layer: one solve a frame, the fade takes 1 s", async () => {
    const a = await walker();
    const handles = EffectorHandles.create(a.ik);
    const engine = a.m.engine;
    const r = fadeOut([a], () => {
      engine.beginFrame();
      a.m.scene.render();
      engine.endFrame();
    });
    report(
      "with a utility layer: solves in 30 frames, fade frames, clip seconds",
      ...r.solves,
      ...r.frames,
      ...r.seconds,
    );
    // the layer's scene rendered in each frame, on the same engine
    const layer = handles.utilityLayer.utilityLayerScene;
    expect(layer.getEngine()).toBe(engine);
    expect(layer.getFrameId()).toBeGreaterThanOrEqual(30 + 63);
    expect(r.solves).toEqual([30]);
    expect(r.frames).toEqual([63]);
    expect(Math.abs(r.seconds[0]! - 1)).toBeLessThan(0.02);
    handles.dispose();
  });
});
