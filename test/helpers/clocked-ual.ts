/**
 * UAL playing one clip on Babylon's own clock stepped by hand: `PrecisionDate.Now` mocked to a time the test advances
 * (the caller's `afterEach` restores it with `vi.restoreAllMocks()`), `useConstantAnimationDeltaTime` off so that the
 * animations and the components timed by the scene take the frame's time as the clock says.
 */
import { PrecisionDate } from "@babylonjs/core/Misc/precisionDate.js";
import { vi } from "vitest";
import { FullBodyBipedIK, type FullBodyBipedIKOptions } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "./babylon-scene.js";
import { height } from "./scene-probes.js";

/** The character, its IK and the clock. */
export interface ClockedUal {
  m: LoadedModel;
  /** The character's height. */
  h: number;
  ik: FullBodyBipedIK;
  /** Moves Babylon's clock on by `ms` milliseconds (the next frame's time). */
  advance(ms: number): void;
}

/**
 * Loads UAL with only `clip` (not started: the test starts it once its components are made) into `open`, the clock
 * at 1000 ms, and attaches a FullBodyBipedIK with `options`.
 */
export async function clockedUal(
  open: LoadedModel[],
  clip = "Walk_Loop",
  options: FullBodyBipedIKOptions = {},
): Promise<ClockedUal> {
  let now = 1000;
  vi.spyOn(PrecisionDate, "Now", "get").mockImplementation(() => now);
  const m = await loadModel("UAL", { clips: (c) => c === clip });
  open.push(m);
  m.scene.useConstantAnimationDeltaTime = false;
  const h = height(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton, options);
  return {
    m,
    h,
    ik,
    advance: (ms) => {
      now += ms;
    },
  };
}
