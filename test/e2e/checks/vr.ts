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
  /** How far each knee stands ahead of its thigh-to-ankle line (× h; negative: bent backward). */
  kneesAhead: [number, number];
  /** The largest move of any bone in one frame of the script so far (× h). */
  jump: number;
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

/** The vr scenario's checks: the scripted moments, the headset taken below the legs' fold, trackers moved. */
export async function checkVR({ checks, hook, waitFor, page, lines }: CheckContext): Promise<void> {
  const moments = Object.entries(checks) as [string, Sample][];
  expect(moments.length).toBe(3);
  // the script stays within the legs' fold: the head on the headset at every moment, t3 the deepest crouch
  for (const [k, s] of moments) onTrackers(`script ${k}`, s, lines);
  const crouched = checks.t3 as Sample;
  const h = crouched.height;
  lines.push(
    `deepest of the script (t = 3 s): headset ${pct(crouched.headsetMoved, h)} moved; largest bone move in a ` +
      `frame ${(crouched.jump * 100).toFixed(2)} % of h`,
  );
  expect(crouched.headsetMoved / h, "the headset went down").toBeGreaterThan(0.3);
  expect(crouched.jump, "no bone jumps in a frame (2 % of h)").toBeLessThan(0.02);
  const drop = crouched.pelvisAnimated![1] - crouched.pelvis[1];
  lines.push(`crouched (t = 3 s): pelvis ${pct(drop, h)} below the animation's`);
  expect(drop / h, "the pelvis crouches under the headset").toBeGreaterThan(0.05);
  // the script stopped at its deepest; the headset then sinks 0.2 h further, 0.005 h a frame (the script's top
  // speed is 0.0044), below the legs' fold: minKneeAngle lifts the torso, the head stays above the headset, the
  // knees ahead, and no frame of the way down jumps (the legs flipped)
  await hook("h.control('script', false)");
  expect(await page.locator("#vr-script").isChecked()).toBe(false);
  await hook("h.control('pose', 3)");
  const f3 = await hook<number>("h.frames");
  await waitFor(`h.frames > ${f3 + 2}`, 20_000);
  await hook("h.control('jumps')");
  await hook(
    "(async () => { for (let i = 0; i < 40; i++) { h.control('move', [0, 0, -0.005, 0]); const f = h.frames; " +
      "while (h.frames === f) await new Promise((r) => setTimeout(r, 5)); } })()",
  );
  const f4 = await hook<number>("h.frames");
  await waitFor(`h.frames > ${f4 + 2}`, 20_000);
  const deep = await hook<Sample>("h.world()");
  const above = deep.head[1] - deep.headTarget[1];
  const hands = Math.max(...[0, 1].map((i) => dist(deep.hands[i]!, deep.handTargets[i]!)));
  lines.push(
    `below the fold: headset ${pct(deep.headsetMoved, h)} moved, the head ${pct(above, h)} above it; knees ahead ` +
      `by ${deep.kneesAhead.map((k) => `${(k * 100).toFixed(1)} %`).join(", ")} of h; hands to the controllers ` +
      `${pct(hands, h)}; largest bone move in a frame on the way ${(deep.jump * 100).toFixed(2)} % of h`,
  );
  expect(deep.headsetMoved / h, "the headset below the legs' fold").toBeGreaterThan(0.45);
  expect(above / h, "minKneeAngle lifts the torso: the head above the headset").toBeGreaterThan(0.03);
  for (const k of deep.kneesAhead) expect(k, "the knees bend forward").toBeGreaterThan(0.05);
  expect(hands / h, "hands on the controllers").toBeLessThan(0.01);
  expect(deep.jump, "no bone jumps in a frame (2 % of h)").toBeLessThan(0.02);
  // trackers moved through the hook
  expect(await page.locator("#legend .legend-item").count()).toBe(3);
  // from the script's pose at t = 1, back up from below the fold
  await hook("h.control('pose', 1)");
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
