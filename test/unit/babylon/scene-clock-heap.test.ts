/**
 * The scene clock's tick allocates nothing a frame even when V8 inlines none of its calls. It read the frame's
 * milliseconds from a function that returned them: a returned double is boxed (16 B) whenever V8 did not inline
 * the call, which it did or not by run (its inlining budget, the order the code warmed up in). The head effector's
 * heap test counted it as 16,256 B per 1,000 updates in 1 run of 10 (each update a frame: one tick). V8 told to
 * inline nothing is the worst case, every run. In a fresh process (vitest.config.ts, HEAP): the flag stays set.
 */
import { setFlagsFromString } from "node:v8";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Scene } from "@babylonjs/core/scene.js";
import { expect, it } from "vitest";
import { FadeClock } from "../../../src/babylon/scene-time.js";
import { bytesPerFrame, whereFramesAllocate } from "../../helpers/frame-heap.js";

// before any of the clock's code is optimised: it then inlines nothing
setFlagsFromString("--max-inlined-bytecode-size=0");

it("the scene clock, V8 inlining none of its calls, allocates nothing a frame", async () => {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  // a frame's time that is not a small integer (V8 keeps those unboxed)
  scene.deltaTime = 16.7;
  const clock = new FadeClock();
  const frame = (): void => {
    (scene as unknown as { _frameId: number })._frameId++;
    clock.step(scene);
  };
  const bytes = bytesPerFrame(frame, 10_000);
  if (process.env.FBBIK_REPORT) console.log(`[figures] scene clock, nothing inlined: ${bytes} B a frame`);
  // the clock runs: each frame's step is one frame's time
  expect(clock.dt).toBeCloseTo(0.0167, 12);
  // measured 0.03 B a frame; 16.02 B when the frame's milliseconds were returned
  expect(bytes, bytes < 1 ? "" : await whereFramesAllocate(frame)).toBeLessThan(1);
  scene.dispose();
  engine.dispose();
});
