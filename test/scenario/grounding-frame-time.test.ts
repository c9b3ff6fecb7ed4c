/**
 * GrounderFBBIK across uneven frame times: UAL walks on flat ground, its root carried at the clip's speed, on
 * Babylon's own clock (`PrecisionDate` stepped by hand, `useConstantAnimationDeltaTime` off). The foot velocity
 * that `prediction` probes ahead by is the foot's move over the time it took: a long frame (a tab switched back)
 * or frames the grounder sat out (weight 0) must not make it many times the foot's speed.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import type { GroundingLeg } from "../../src/effectors/grounding/grounding-leg.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { type LoadedModel, modelAvailable } from "../helpers/babylon-scene.js";
import { clockedUal } from "../helpers/clocked-ual.js";
import { heightfield } from "../helpers/heightfield.js";
import { report } from "../helpers/modifier-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const m of open.splice(0)) m.dispose();
});

/** UAL walking at about 1.2 h/s along +z on flat ground, stepped by `frame(seconds)`. */
async function walking() {
  const { m, h, ik, advance } = await clockedUal(open);
  const ground = heightfield(m.scene, 40 * h, 40, () => 0);
  const grounder = GrounderFBBIK.create(ik, { raycast: StaticGroundRaycast.fromMeshes([ground]).raycast });
  m.container.animationGroups[0]!.start(true);
  let t = 0;
  const frame = (seconds: number): void => {
    t += seconds;
    advance(seconds * 1000);
    m.root.position.z = 1.2 * h * t;
    m.scene.render();
  };
  return { h, grounder, frame };
}

/** The largest ratio over both legs of the velocity's length to the foot's horizontal move over `seconds`. */
function velocityOverMove(legs: readonly GroundingLeg[], before: readonly Vector3[], seconds: number): number {
  let worst = 0;
  for (let i = 0; i < legs.length; i++) {
    const leg = legs[i]!;
    const move = new Vector3(leg.footPosition.x, 0, leg.footPosition.z).subtract(
      new Vector3(before[i]!.x, 0, before[i]!.z),
    );
    const v = new Vector3(leg.velocity.x, leg.velocity.y, leg.velocity.z);
    worst = Math.max(worst, (v.length() * seconds) / move.length());
  }
  return worst;
}

const feet = (legs: readonly GroundingLeg[]): Vector3[] =>
  legs.map((l) => new Vector3(l.footPosition.x, l.footPosition.y, l.footPosition.z));

describe.skipIf(!modelAvailable("UAL"))("GrounderFBBIK's foot velocity over uneven frame times (UAL)", () => {
  it("after a 1 s frame the velocity is the foot's move over that second", async () => {
    const { grounder, frame } = await walking();
    for (let f = 0; f < 60; f++) frame(1 / 60);
    const before = feet(grounder.solver.legs);
    frame(1);
    const ratio = velocityOverMove(grounder.solver.legs, before, 1);
    report("velocity × 1 s / the foot's move in a 1 s frame", ratio);
    // measured: 10.0 before (the move divided by the grounder's step, clamped to 0.1 s)
    expect(ratio).toBeCloseTo(1, 6);
  });

  it("after 30 frames at weight 0 the velocity is the foot's move since the grounder last ran", async () => {
    const { grounder, frame } = await walking();
    for (let f = 0; f < 60; f++) frame(1 / 60);
    const before = feet(grounder.solver.legs);
    grounder.weight = 0;
    for (let f = 0; f < 30; f++) frame(1 / 60);
    grounder.weight = 1;
    frame(1 / 60);
    const ratio = velocityOverMove(grounder.solver.legs, before, 31 / 60);
    report("velocity × 31 frames / the foot's move since the grounder last ran", ratio);
    // measured: 31.0 before (the move over 31 frames divided by one frame's time)
    expect(ratio).toBeCloseTo(1, 6);
  });
});
