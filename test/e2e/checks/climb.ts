import { expect } from "vitest";
import { type CheckContext, type V, dist, pct } from "../harness";

interface LimbState {
  bone: V;
  hold: V | null;
  holdName: string | null;
  holding: boolean;
}

/** The climb scenario's checks. */
export async function checkClimb({ checks, lines }: CheckContext): Promise<void> {
  const finish = checks.finish as {
    frame: number;
    limbs: Record<string, LimbState>;
    top: Record<string, string>;
    pelvisStart: V;
    pelvis: V;
    spacing: number;
    rungsClimbed: number;
    height: number;
  };
  const all = checks.allHolding as { frame: number; limbs: Record<string, LimbState> };
  const worst = checks.worst as Record<string, { hold: number; frames: number; holds: string[] }>;
  const h = finish.height;
  // the moment with all four holding comes during the climb, before the top
  lines.push(`all four holding at frame ${all.frame}, the top at frame ${finish.frame}`);
  expect(all.frame, "all four holding mid-climb, before the top").toBeLessThan(finish.frame);
  // a hand or foot on a rung 3 % of h thick: within 1 % of h of the hold's point (on the rung's axis)
  for (const [label, limbs] of [
    ["all four holding", all.limbs],
    ["at the top", finish.limbs],
  ] as const) {
    for (const [limb, s] of Object.entries(limbs)) {
      const dh = dist(s.bone, s.hold!);
      lines.push(`${label}: ${limb} on ${s.holdName}: ${pct(dh, h)} from the hold (tolerance 1 %)`);
      expect(dh / h, `${label}: ${limb} on its hold`).toBeLessThan(0.01);
    }
  }
  // at the top, every limb on its hold of the last rung
  for (const [limb, name] of Object.entries(finish.top))
    expect(finish.limbs[limb]?.holdName, `at the top: ${limb} on the last rung`).toBe(name);
  for (const [limb, w] of Object.entries(worst)) {
    lines.push(
      `${limb}: worst while holding over ${w.frames} frames on ${w.holds.length} holds: ${pct(w.hold, h)} from the hold`,
    );
    expect(w.holds.length, `${limb} went hold to hold`).toBeGreaterThanOrEqual(3);
    expect(w.hold / h).toBeLessThan(0.01);
  }
  const rise = finish.pelvis[1] - finish.pelvisStart[1];
  lines.push(
    `the body follows: pelvis rose ${pct(rise, h)} over ${finish.rungsClimbed} rungs of ${pct(finish.spacing, h)}`,
  );
  expect(rise, "the pelvis climbs with the limbs").toBeGreaterThan(finish.spacing);
}
