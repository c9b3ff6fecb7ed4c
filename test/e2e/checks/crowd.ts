import { expect } from "vitest";
import { type CheckContext, type V, dist, pct } from "../harness";

/** The crowd scenario's checks. */
export async function checkCrowd({ checks, lines }: CheckContext): Promise<void> {
  const samples = checks.samples as { frame: number; time: number; pairs: { hand: V; target: V }[] }[];
  const h = checks.height as number;
  const sample = [0, 9, 23, 37, 50, 64, 78, 91, 99];
  for (const s of samples) {
    const d = s.pairs.map((p) => dist(p.hand, p.target));
    const worstSampled = Math.max(...sample.map((i) => d[i]!));
    lines.push(
      `frame ${s.frame}: right hand to its target sphere, characters ${sample.join(", ")}: worst ${pct(worstSampled, h)}; all 100: worst ${pct(Math.max(...d), h)} (tolerance 1 % of h)`,
    );
    expect(Math.max(...d) / h, `frame ${s.frame}: every right hand on its target`).toBeLessThan(0.01);
  }
  const moved = Math.min(...sample.map((i) => dist(samples[0]!.pairs[i]!.target, samples[2]!.pairs[i]!.target)));
  lines.push(
    `the targets moved at least ${pct(moved, h)} between frames ${samples[0]!.frame} and ${samples[2]!.frame}`,
  );
  expect(moved / h).toBeGreaterThan(0.02);
}
