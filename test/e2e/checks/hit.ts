import { expect } from "vitest";
import { type Capture, type CheckContext, type V, pct } from "../harness";

interface Click {
  peak: number;
  peakIK: number;
  residual: number;
  residualIK: number;
  feetDrift: number;
  frames: number;
}

/**
 * The hit scenario: a click on the chest throws a ball; at the impact the hit clip (when the model has one)
 * plays with HitReaction on top. The body moves visibly, the IK's share over the animation-only pose grows
 * visibly beyond what the pinned feet give it before the hit, both recover, and the feet stay planted.
 */
export async function checkHit({ hook, waitFor, page, lines, wait }: CheckContext): Promise<Capture> {
  // the looping animation held (the demo's pause would stop the ball too), no automatic throws: any motion
  // is the hit's (its clip and the reaction)
  await hook("(h.control('still', true), h.control('auto', false))");
  await waitFor("!h.world().inProgress && !h.world().flying && !h.world().clip", wait);
  const f0 = await hook<number>("h.frames");
  await waitFor(`h.frames > ${f0 + 5}`, wait);
  const w = await hook<{ chestCollider: V; height: number }>("h.world()");
  const h = w.height;
  const [x, y] = await hook<[number, number]>(`h.project(${JSON.stringify(w.chestCollider)})`);
  // the ball flies in (0.7 s), then the body recoils: scene time held there for the capture
  const recoiled = `h.world().displacement > ${0.03 * h}`;
  await hook(`h.hold(() => ${recoiled})`);
  await page.mouse.click(x, y);
  await waitFor(recoiled, wait);
  const cap = await hook<Capture>("h.capture()");
  await hook("h.hold(null)");
  await waitFor("h.done()", wait);
  const click = (await hook<{ clicks: Click[] }>("h.checks()")).clicks[0]!;
  lines.push(
    `click at (${x.toFixed(0)}, ${y.toFixed(0)}) on the chest: peak bone displacement ${pct(click.peak, h)} (needs > 5 %), the reaction's share over the animation ${pct(click.peakIK, h)} (needs > 3 %); after the reaction ${pct(click.residual, h)} from the pose before, the IK's share ${pct(click.residualIK, h)} from its own before the hit (tolerance 0.3 %); feet drift ${pct(click.feetDrift, h)} (tolerance 1 %), ${click.frames} frames`,
  );
  expect(click.peak / h, "visible displacement").toBeGreaterThan(0.05);
  expect(click.peakIK / h, "HitReaction visible on top of the clip").toBeGreaterThan(0.03);
  expect(click.residual / h, "back to the pose before the hit").toBeLessThan(0.003);
  expect(click.residualIK / h, "the reaction has ended").toBeLessThan(0.003);
  expect(click.feetDrift / h, "feet planted").toBeLessThan(0.01);
  return cap;
}
