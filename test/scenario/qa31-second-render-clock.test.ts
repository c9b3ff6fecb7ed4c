/**
 * A scene rendered twice in one engine frame, the second time without the animations (QA round 31): an app that
 * draws a second view or a mirror by hand, `scene.render(); scene.render(true, true)`. Both renders solve (each
 * from the animated pose FixTransforms gives back), but the animations step once: the IK's clock must step once
 * too. It took `scene.deltaTime` at each render, so a 1 s `enableFadeSeconds` fade ran over 0.51 s of UAL's
 * walk. Also the loops that call `scene.animate()` themselves (`animate(); render(false, true)`) and an app that
 * never steps the animations (`render(true, true)` alone), whose fades must still run. Each display frame is an
 * engine frame (`beginFrame`/`endFrame`, as `runRenderLoop` brackets it).
 */
import type { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { ikTwin } from "../helpers/ik-twin.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const m of open.splice(0)) m.dispose();
});

/** One display frame of each app, inside the engine's frame as `runRenderLoop` brackets it. */
const LOOPS: [string, (scene: Scene) => void][] = [
  ["render()", (s) => s.render()],
  [
    "animate(); render(false, true)",
    (s) => {
      s.animate();
      s.render(false, true);
    },
  ],
  [
    "render(); render(true, true)",
    (s) => {
      s.render();
      s.render(true, true);
    },
  ],
];

/**
 * UAL walking, the left hand held above its clip's place, `enabled` switched off with a 1 s fade: the frames the fade
 * takes, the clip's seconds over them, and the hand's largest distance from its target before (× h).
 */
async function fadeOut(frame: (scene: Scene) => void) {
  const t = await ikTwin("UAL", "Walk_Loop", open);
  const scene = t.m.scene;
  const engine = scene.getEngine();
  const walk = t.m.container.animationGroups[0]!;
  const hand = t.ik.solver.leftHandEffector;
  hand.positionWeight = 1;
  t.ik.enableFadeSeconds = 1;
  const display = () => {
    hand.position.copyFrom(worldPos(t.twinBone(t.ik.references.leftHand)));
    hand.position.y += 0.2 * t.h;
    engine.beginFrame();
    frame(scene);
    engine.endFrame();
  };
  let reach = 0;
  for (let f = 0; f < 30; f++) {
    display();
    reach = Math.max(reach, worldPos(t.ik.references.leftHand).subtract(hand.position).length() / t.h);
  }
  t.ik.enabled = false;
  const fps = walk.targetedAnimations[0]!.animation.framePerSecond;
  const length = walk.to - walk.from;
  let last = walk.animatables[0]!.masterFrame;
  let frames = 0;
  let clip = 0;
  while (t.ik.isFading && frames < 300) {
    display();
    frames++;
    const now = walk.animatables[0]!.masterFrame;
    clip += (now - last + length) % length;
    last = now;
  }
  return { frames, seconds: clip / fps, reach };
}

describe("the IK's clock with renders that skip the animations (UAL walking, a 1 s enable fade)", () => {
  for (const [name, frame] of LOOPS) {
    it(`${name}: the fade takes 1 s of the clip`, async () => {
      const r = await fadeOut(frame);
      report(`${name}: fade frames, clip seconds, reach (h)`, r.frames, r.seconds, r.reach);
      // 16 ms a step: 63 steps; 32 (0.51 s) when the second render counted its own 16 ms
      expect(r.frames).toBe(63);
      expect(Math.abs(r.seconds - 1)).toBeLessThan(0.02);
      expect(r.reach).toBeLessThan(1e-5);
    });
  }

  it("an app that never steps the animations (render(true, true) alone, in engine frames): the fade still runs", async () => {
    const t = await ikTwin("UAL", "Walk_Loop", open);
    const scene = t.m.scene;
    const engine = scene.getEngine();
    // a NullEngine outside a render loop measures no frame time: 16 ms, as a 60 Hz display's
    vi.spyOn(engine, "getDeltaTime").mockReturnValue(16);
    t.ik.solver.leftHandEffector.positionWeight = 1;
    t.ik.enableFadeSeconds = 1;
    t.ik.enabled = false;
    let frames = 0;
    while (t.ik.isFading && frames < 300) {
      engine.beginFrame();
      scene.render(true, true);
      engine.endFrame();
      frames++;
    }
    report("render(true, true) alone: fade frames", frames);
    // no animations ran: the engine's frame time counts, as before
    expect(frames).toBe(63);
  });
});
