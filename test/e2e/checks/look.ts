import { expect } from "vitest";
import { type CheckContext, type V, dist, pct, sub } from "../harness";

interface LookRecord {
  stop: string;
  headRotation: [number, number, number, number];
  headAxis: V;
  head: V;
  target: V;
  height: number;
}

/** `v` turned by the quaternion `q` (x, y, z, w). */
function rotate(q: LookRecord["headRotation"], v: V): V {
  const [x, y, z, w] = q;
  const t: V = [2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])];
  return [
    v[0] + w * t[0] + (y * t[2] - z * t[1]),
    v[1] + w * t[1] + (z * t[0] - x * t[2]),
    v[2] + w * t[2] + (x * t[1] - y * t[0]),
  ];
}

const angle = (a: V, b: V) => {
  const d = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (Math.hypot(...a) * Math.hypot(...b));
  return (Math.acos(Math.min(1, Math.max(-1, d))) * 180) / Math.PI;
};

/** The head bone's forward (its rest-pose axis turned by its world rotation) now. */
const headForward = (r: LookRecord) => rotate(r.headRotation, r.headAxis);
/** Degrees between the head's forward and the way from the head bone to the target mesh. */
const offTarget = (r: LookRecord) => angle(headForward(r), sub(r.target, r.head));

/** The look scenario: the head points at the target at every scripted stop, and at the cursor's point. */
export async function checkLook({ checks, hook, waitFor, page, lines, wait }: CheckContext): Promise<void> {
  const stops = ["right", "left"].map((k) => checks[k] as LookRecord);
  // the ball on screen at each stop, a diameter clear of the panel and the window's edges (the framing takes
  // in the stops and leaves out the panel's side)
  const [panel, width, height] = await hook<[number, number, number]>(
    "[document.getElementById('panel').getBoundingClientRect().right, innerWidth, innerHeight]",
  );
  for (const r of stops) {
    const top: V = [r.target[0], r.target[1] + 0.03 * r.height, r.target[2]];
    const [x, y] = await hook<[number, number]>(`h.project(${JSON.stringify(r.target)})`);
    const d = 2 * Math.abs((await hook<[number, number]>(`h.project(${JSON.stringify(top)})`))[1] - y);
    lines.push(
      `stop "${r.stop}": the ball (${d.toFixed(0)} px wide) at (${x.toFixed(0)}, ${y.toFixed(0)}), the panel's edge at ${panel} px, the window ${width}×${height}`,
    );
    expect(x - d, `the ball at "${r.stop}" clear of the panel`).toBeGreaterThan(panel);
    expect(x + d, `the ball at "${r.stop}" inside the window`).toBeLessThan(width);
    expect(y - d, `the ball at "${r.stop}" inside the window`).toBeGreaterThan(0);
    expect(y + d, `the ball at "${r.stop}" inside the window`).toBeLessThan(height);
  }
  for (const r of stops) {
    lines.push(`stop "${r.stop}": the head's forward ${offTarget(r).toFixed(2)}° from the target (tolerance 3°)`);
    expect(offTarget(r), `head toward the target at "${r.stop}"`).toBeLessThan(3);
  }
  // the head really turned: its forward differs between the stops on either side
  const swing = angle(headForward(stops[0]!), headForward(stops[1]!));
  lines.push(`the head's forward turns ${swing.toFixed(1)}° between the right and the left stops (needs > 20°)`);
  expect(swing).toBeGreaterThan(20);
  // the cursor leads the target: a point of the target's vertical plane, a little above its centre
  await hook("h.hold(null)");
  const now = await hook<LookRecord & { centre: V }>("h.world()");
  const h = now.height;
  const goal: V = [now.centre[0], now.centre[1] + 0.15 * h, now.centre[2]];
  const [x, y] = await hook<[number, number]>(`h.project(${JSON.stringify(goal)})`);
  await page.mouse.move(x, y - 5);
  await page.mouse.move(x, y);
  // recorded by the scenario on the third frame after the move, before its script may take the target back
  await waitFor("h.checks().pointer !== undefined", wait);
  const r = await hook<LookRecord>("h.checks().pointer");
  lines.push(
    `cursor at (${x.toFixed(0)}, ${y.toFixed(0)}): target ${pct(dist(r.target, goal), h)} from the point under it (tolerance 1 %), the head ${offTarget(r).toFixed(2)}° from it`,
  );
  expect(dist(r.target, goal) / h, "the target under the cursor").toBeLessThan(0.01);
  expect(offTarget(r), "the head toward the cursor's target").toBeLessThan(3);
  // the cursor on the floor nearer than the plane, at the view's bottom right corner: the plane's point under it
  // lies under the floor (16 cm at 960×600); the ball stays on the floor (it went there, hidden)
  const [ux, uy] = await hook<[number, number]>("[innerWidth - 4, innerHeight - 4]");
  await page.mouse.move(ux, uy);
  await waitFor("h.checks().pointer !== undefined", wait);
  const low = await hook<LookRecord>("h.checks().pointer");
  lines.push(`cursor at (${ux}, ${uy}), on the floor: the ball's centre ${pct(low.target[1], h)} above it`);
  expect(low.target[1], "the ball above the floor").toBeGreaterThan(0);
}
