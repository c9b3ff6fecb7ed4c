import { expect } from "vitest";
import { type Capture, type CheckContext, type V, pct } from "../harness";

/** The hit scenario: a click on the chest throws a ball; the body recoils and recovers, the feet stay. */
export async function checkHit({ hook, waitFor, page, lines, wait }: CheckContext): Promise<Capture> {
  // a still character (idle paused, no automatic throws): any motion is the hit's
  await hook("(h.setPaused(true), h.control('auto', false))");
  await waitFor("!h.world().inProgress && !h.world().flying", wait);
  const f0 = await hook<number>("h.frames");
  await waitFor(`h.frames > ${f0 + 5}`, wait);
  const w = await hook<{ chestCollider: V; height: number }>("h.world()");
  const h = w.height;
  const [x, y] = await hook<[number, number]>(`h.project(${JSON.stringify(w.chestCollider)})`);
  await page.mouse.click(x, y);
  // the ball flies in (0.35 s), then the body recoils: capture near the peak
  await waitFor(`h.world().displacement > ${0.03 * h}`, wait);
  const cap = await hook<Capture>("h.capture()");
  await waitFor("h.done()", wait);
  const click = (
    await hook<{ clicks: { peak: number; residual: number; feetDrift: number; frames: number; point: V }[] }>(
      "h.checks()",
    )
  ).clicks[0]!;
  lines.push(
    `click at (${x.toFixed(0)}, ${y.toFixed(0)}) on the chest: peak bone displacement ${pct(click.peak, h)} (needs > 3 %), after the reaction ${pct(click.residual, h)} (tolerance 0.3 %), feet drift ${pct(click.feetDrift, h)} (tolerance 1 %), ${click.frames} frames`,
  );
  expect(click.peak / h, "visible displacement").toBeGreaterThan(0.03);
  expect(click.residual / h, "recovered").toBeLessThan(0.003);
  expect(click.feetDrift / h, "feet planted").toBeLessThan(0.01);
  return cap;
}
