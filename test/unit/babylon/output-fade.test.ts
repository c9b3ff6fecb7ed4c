/**
 * OutputFade's slerp keeps its way round while the target offset turns through half a turn from the fade's start:
 * on the near side the partial turn would jump to the other side in one frame (an enable fade's 0.75 h pop on UAL).
 */
import { describe, expect, it } from "vitest";
import { OutputFade } from "../../../src/babylon/lod/output-fade.js";

/** One bone (rig id 1) animated at identity, its solved local rotation `degrees` about +Y; returns the angle shown. */
function shown(fade: OutputFade, degrees: number): number {
  const half = (degrees * Math.PI) / 360;
  const lrot = new Float64Array([0, 0, 0, 1, 0, Math.sin(half), 0, Math.cos(half)]);
  const lpos = new Float64Array(6);
  const animated = new Float64Array([0, 0, 0, 0, 0, 0, 1]);
  fade.apply(lrot, lpos, new Uint8Array([0, 1]), new Uint8Array([0, 0]), new Int32Array([-1, 0]), animated);
  // the signed angle about +Y of the rotation written
  return (2 * Math.atan2(lrot[5]!, lrot[7]!) * 180) / Math.PI;
}

/** The angle's change between two frames, wrapped into (−180, 180]. */
const turn = (a: number, b: number): number => Math.abs(((((b - a) % 360) + 540) % 360) - 180);

describe("OutputFade", () => {
  it("a target offset passing 180° from the start mid-fade keeps turning the same way", () => {
    const fade = new OutputFade(2);
    fade.clear();
    fade.step = 0.5;
    let last = shown(fade, 170);
    let worst = 0;
    for (let a = 171; a <= 190; a++) {
      const now = shown(fade, a);
      worst = Math.max(worst, turn(last, now));
      last = now;
    }
    // half of each 1° step: 0.5° a frame; on the near side it flipped from +89.5° to −89.5° (179°) at 180°
    expect(worst).toBeLessThan(1);
    expect(last).toBeCloseTo(95, 6);
  });

  it("a new fade starts on the near side again", () => {
    const fade = new OutputFade(2);
    fade.clear();
    fade.step = 0.5;
    for (let a = 170; a <= 200; a++) shown(fade, a);
    fade.clear();
    // 200° is −160° the near way: half of it
    expect(shown(fade, 200)).toBeCloseTo(-80, 6);
  });
});
