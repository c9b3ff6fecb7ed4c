import { expect } from "vitest";
import { type CheckContext, pct } from "../harness";

interface CreatureWorld {
  tilt: number;
  noseRise: number;
  recentWorst: number;
  /** Frames of the last 30 with a tip standing on a plane. */
  recentStanding: number;
  walked: number;
  height: number;
  solver: string;
}

/**
 * The creature scenario: GrounderIK stands every tip on the surface under it (the steps' tops, the moving deck, the
 * ramp) and tilts the body with the ramp; with the IK off, the walk alone (made for flat ground) floats or sinks
 * its tips there and the body stays level.
 */
export async function checkCreature({ checks, lines, hook, waitFor, wait, page }: CheckContext): Promise<void> {
  type Rec = { count: number; worst: number; ground: number };
  const per = checks.perSurface as Record<string, Rec>;
  const ramps = checks.ramps as Record<string, { frames: number; tilt: number; noseRise: number; slope: number }>;
  const h = checks.height as number;
  const tol = checks.tolerance as number;
  // a standing tip stands on the surface under it (a ray down), wherever the ground around it is a plane
  for (const [surface, r] of Object.entries(per)) {
    lines.push(
      `tips standing on ${surface} (ground ${pct(r.ground, h)} up): worst height over it ${pct(Math.abs(r.worst), h)} over ${r.count} tip-frames (tolerance ${pct(tol, h)})`,
    );
    expect(Math.abs(r.worst), `tips on ${surface}`).toBeLessThan(tol);
  }
  // the walk went up the steps (the highest is three step heights), over the deck and up the ramp
  expect(Object.keys(per).some((n) => n.startsWith("step") && per[n]!.ground > 0.15 * h)).toBe(true);
  expect(Object.keys(per)).toContain("deck");
  expect(Object.keys(per)).toContain("ramp up");
  // on the ramp, the root turned toward the plane of the feet (rootRotationWeight 1): the nose up the slope
  const ramp = ramps["ramp up"]!;
  lines.push(
    `every tip on the ramp (${ramp.frames} frames): the ramp's slope ${ramp.slope.toFixed(2)}°, the body's tilt ${ramp.tilt.toFixed(2)}°, its nose up ${ramp.noseRise.toFixed(2)}° (means)`,
  );
  expect(ramp.slope, "the ramp rises along the walk").toBeGreaterThan(2);
  expect(Math.abs(ramp.noseRise - ramp.slope), "the body pitched with the ramp").toBeLessThan(1);
  // the IK switch: off (its fade over), the body is level on the ramp and the tips leave its surface
  // (scene time held at the moment: the wall time the test's calls take runs up to 20 times as much scene time)
  const at = async (walked: number) => {
    const until = `!h.fading() && h.world().walked >= ${walked}`;
    await hook(`h.hold(() => ${until})`);
    await waitFor(until, wait);
    return hook<CreatureWorld>("h.world()");
  };
  await hook("h.setIK(false)");
  const w0 = (await hook<CreatureWorld>("h.world()")).walked;
  // the fade (0.3 s) and 30 frames more: 0.17 h at the walk's pace, still on the ramp
  const off = await at(w0 + 0.17 * h);
  await hook("h.setIK(true)");
  await at(off.walked);
  lines.push(
    `IK off on the ramp: the body's tilt ${off.tilt.toFixed(3)}°, the worst standing tip ${pct(Math.abs(off.recentWorst), h)} off the ramp's surface over 30 frames (${off.recentStanding} with a tip standing)`,
  );
  expect(off.recentStanding).toBeGreaterThan(10);
  expect(off.tilt, "IK off: the body level").toBeLessThan(0.01);
  expect(Math.abs(off.recentWorst), "IK off: tips off the surface").toBeGreaterThan(2 * tol);
  // FABRIK legs, picked in the panel as a user does (the legs and the grounder made again): the tips stand too
  await page.selectOption("#creature-solver", "1");
  const fabrik = await at(off.walked + 0.25 * h);
  lines.push(
    `${fabrik.solver} legs, 0.25 h of walk later: the worst standing tip ${pct(Math.abs(fabrik.recentWorst), h)} off its surface (${fabrik.recentStanding} frames with a tip standing)`,
  );
  expect(fabrik.recentStanding).toBeGreaterThan(10);
  expect(fabrik.solver).toBe("FABRIK");
  expect(Math.abs(fabrik.recentWorst), "FABRIK: tips on the surface").toBeLessThan(tol);
}
