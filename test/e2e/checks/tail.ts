import { expect } from "vitest";
import { type CheckContext, type V, dist, pct, sub } from "../harness";

interface TailRecord {
  hold: string;
  tip: V;
  target: V;
  ball: V;
  base: V;
  ballRadius: number;
  minClearance: number;
  maxOverLimit: number;
  settledOver: number;
  length: number;
  height: number;
}

/** Distance from `p` to the segment a–b. */
function segmentDistance(p: V, a: V, b: V): number {
  const ab = sub(b, a);
  const ap = sub(p, a);
  const t = Math.max(
    0,
    Math.min(1, (ab[0] * ap[0] + ab[1] * ap[1] + ab[2] * ap[2]) / (ab[0] ** 2 + ab[1] ** 2 + ab[2] ** 2)),
  );
  return dist(p, [a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]]);
}

/** The tail scenario: the tip on reachable targets, around the ball, never inside it, within its limits. */
export async function checkTail({ checks, lines }: CheckContext): Promise<void> {
  const reach = checks.reach as TailRecord;
  const wrap = checks.wrap as TailRecord;
  const all = checks.frames as TailRecord;
  const h = reach.height;
  for (const r of [reach, wrap]) {
    const d = dist(r.tip, r.target);
    lines.push(
      `${r.hold}: tip to the target ${pct(d, h)} (tolerance 1 %), target ${pct(dist(r.base, r.target), h)} from the base (tentacle ${pct(r.length, h)})`,
    );
    expect(dist(r.base, r.target), `${r.hold}: reachable`).toBeLessThan(r.length);
    expect(d / h, `${r.hold}: tip on the target`).toBeLessThan(0.01);
  }
  // the wrap's target is behind the ball: the straight way from the base to it goes through the ball
  const through = segmentDistance(wrap.ball, wrap.base, wrap.target);
  lines.push(
    `wrap: the straight line base–target passes ${pct(through, h)} from the ball's centre (radius ${pct(wrap.ballRadius, h)})`,
  );
  expect(through).toBeLessThan(wrap.ballRadius);
  // limits hold on every frame, also while the collider pushes the tentacle (limitsAfterColliders)
  for (const r of [reach, wrap]) {
    lines.push(`${r.hold}: largest bend beyond a link's limit while the target rests ${r.settledOver.toFixed(3)}°`);
  }
  lines.push(
    `every frame until the orbit: joints' smallest clearance to the ball ${pct(all.minClearance, h)} (needs > 0), largest bend beyond a limit ${all.maxOverLimit.toFixed(3)}° (tolerance 0.5°)`,
  );
  expect(all.minClearance, "no joint inside the ball").toBeGreaterThan(0);
  expect(all.maxOverLimit, "limits respected on every frame").toBeLessThan(0.5);
}
