/**
 * IKLevelOfDetail in a paused game whose camera still moves (`scene.animationTimeScale = 0`: a pause menu over an
 * orbiting camera, a photo mode). The clips stand still, but a character the camera comes to must still fade to
 * its level, as smoothly as in play: the level follows the view, not the clips. UAL on Idle, its left hand held
 * 0.3 h above the animated place, on Babylon's own clock (`PrecisionDate` stepped by hand, the engine's frame
 * measured by `beginFrame`).
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { type LoadedModel, modelAvailable } from "../helpers/babylon-scene.js";
import { clockedUal } from "../helpers/clocked-ual.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const m of open.splice(0)) m.dispose();
});

describe.skipIf(!modelAvailable("UAL"))("IKLevelOfDetail while the scene's animation time stands still (UAL)", () => {
  it("the camera comes to a character that was Off: it fades to Full on the engine's frame time", async () => {
    const { m, h, ik, advance } = await clockedUal(open, "Idle_Loop");
    const scene = m.scene;
    const lod = IKLevelOfDetail.for(scene);
    m.container.animationGroups[0]!.start(true);
    const frame = (): void => {
      advance(16);
      m.engine.beginFrame();
      scene.render();
      m.engine.endFrame();
    };
    frame();
    const target = worldPos(ik.references.leftHand).add(new Vector3(0.1 * h, 0.3 * h, 0.1 * h));
    const hand = ik.solver.leftHandEffector;
    hand.position.copyFrom(target);
    hand.positionWeight = 1;
    // far away: Off
    scene.activeCamera!.position.set(0, 1, -60 * h);
    for (let f = 0; f < 120; f++) frame();
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    // paused, the camera flies to the character: 2 s, past the level's 1.2 s fade
    scene.animationTimeScale = 0;
    scene.activeCamera!.position.set(0, 1, -3 * h);
    let last = worldPos(ik.references.leftHand);
    let step = 0;
    for (let f = 0; f < 125; f++) {
      frame();
      const now = worldPos(ik.references.leftHand);
      step = Math.max(step, Vector3.Distance(now, last) / h);
      last = now;
    }
    const off = Vector3.Distance(worldPos(ik.references.leftHand), target) / h;
    report(
      "paused 2 s: level, weight, the hand from its target (h), its largest step a frame (h)",
      lod.levelOf(ik),
      lod.weightOf(ik),
      off,
      step,
    );
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    // measured before: Full but weight 0, the hand 0.34 h off its target for as long as the pause lasted
    expect(lod.weightOf(ik)).toBe(1);
    expect(off).toBeLessThan(1e-5);
    // a fade, not a pop: 0.34 h over 1.2 s at 16 ms a frame is 0.0045 h a frame
    expect(step).toBeLessThan(0.01);
  });
});
