import { expect } from "vitest";
import { type CheckContext, type V, dist, pct } from "../harness";

/** What the vr scenario records: the trackers' targets and the bones they drive, after the solve. */
interface Sample {
  head: V;
  headTarget: V;
  hands: [V, V];
  handTargets: [V, V];
  pelvis: V;
  pelvisAnimated: V | null;
  headsetMoved: number;
  height: number;
}

/** Head on the headset's target and hands on the controllers' within 1 % of h. */
function onTrackers(label: string, s: Sample, lines: string[]): void {
  const h = s.height;
  const head = dist(s.head, s.headTarget);
  const hands = Math.max(dist(s.hands[0], s.handTargets[0]), dist(s.hands[1], s.handTargets[1]));
  lines.push(
    `${label}: headset moved ${pct(s.headsetMoved, h)}; head to its target ${pct(head, h)}, ` +
      `hands to the controllers ${pct(hands, h)} (tolerance 1 %)`,
  );
  expect(head / h, `${label}: head on the headset`).toBeLessThan(0.01);
  expect(hands / h, `${label}: hands on the controllers`).toBeLessThan(0.01);
}

/** The vr scenario's checks: the scripted moments, then trackers moved through the hook. */
export async function checkVR({ checks, hook, waitFor, page, lines }: CheckContext): Promise<void> {
  const moments = Object.entries(checks) as [string, Sample][];
  expect(moments.length).toBe(3);
  for (const [k, s] of moments) onTrackers(`script ${k}`, s, lines);
  // the body follows: the headset went down and the pelvis with it (from the animation-only pose)
  const crouched = checks.t3 as Sample;
  const h = crouched.height;
  expect(crouched.headsetMoved / h, "the headset moved down").toBeGreaterThan(0.1);
  const drop = crouched.pelvisAnimated![1] - crouched.pelvis[1];
  lines.push(`crouched (t = 3 s): pelvis ${pct(drop, h)} below the animation's`);
  expect(drop / h, "the pelvis crouches under the headset").toBeGreaterThan(0.05);
  // trackers moved through the hook, the script off: the panel's switch follows
  await hook("h.control('script', false)");
  expect(await page.locator("#vr-script").isChecked()).toBe(false);
  expect(await page.locator("#legend .legend-item").count()).toBe(3);
  await hook("h.control('move', [0, 0.06, -0.08, 0.05])");
  await hook("h.control('move', [1, -0.05, 0.1, 0.04])");
  await hook("h.control('move', [2, 0.04, -0.06, 0.06])");
  const f0 = await hook<number>("h.frames");
  await waitFor(`h.frames > ${f0 + 3}`, 20_000);
  onTrackers("moved through the hook", await hook<Sample>("h.world()"), lines);
  // the controllers dragged far out (1.6 h to each side, one high): the feet stay on the floor where they stood
  // (the arms' pull tore them 1.7 m off it, the body flying after the right hand)
  await hook("h.control('move', [1, -1.6, 0, 0])");
  await hook("h.control('move', [2, 1.6, 0.6, 0])");
  const f2 = await hook<number>("h.frames");
  await waitFor(`h.frames > ${f2 + 3}`, 20_000);
  const far = await hook<Sample & { feetOff: number }>("h.world()");
  lines.push(`controllers 1.6 h out: the feet ${pct(far.feetOff, h)} from where they stood (tolerance 1 %)`);
  expect(far.feetOff / h, "the feet stay").toBeLessThan(0.01);
  // standing again for the screenshot
  await hook("h.control('pose', 0)");
  const f1 = await hook<number>("h.frames");
  await waitFor(`h.frames > ${f1 + 2}`, 20_000);
}
