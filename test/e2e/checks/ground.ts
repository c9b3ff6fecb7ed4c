import { expect } from "vitest";
import { type CheckContext, pct } from "../harness";

/** The ground scenario's checks. */
export async function checkGround({ checks, lines }: CheckContext): Promise<void> {
  type Rec = { count: number; worst: number; ground: number; foot: number; rest: number };
  const per = checks.perSurface as Record<string, Rec>[];
  const doubles = checks.doubles as {
    left: { ground: number; err: number; surface: string };
    right: { ground: number; err: number; surface: string };
    travel: number;
  }[];
  const h = checks.height as number;
  const tol = 0.01;
  // a standing foot's ankle stands as high above the surface under it (a ray down) as above the floor at rest
  per.forEach((m, i) => {
    const foot = i === 0 ? "left foot" : "right foot";
    for (const [surface, r] of Object.entries(m)) {
      lines.push(
        `${foot} standing on ${surface} (ground y ${(r.ground * 1000).toFixed(0)} mm): worst ankle height error ${pct(Math.abs(r.worst), h)} over ${r.count} frames (tolerance ${tol * 100} % of h)`,
      );
      expect(Math.abs(r.worst) / h, `${foot} on ${surface}`).toBeLessThan(tol);
    }
    expect(Object.keys(m).length, `${foot} stood on three surfaces`).toBeGreaterThanOrEqual(3);
  });
  // both feet standing at once on surfaces more than 3 % of h apart in height (the page records only
  // those; their errors are among the per-surface ones above)
  expect(doubles.length, "both feet planted at different heights").toBeGreaterThan(0);
  for (const d of doubles.slice(0, 3)) {
    lines.push(
      `both feet standing: left on ${d.left.surface} at ${(d.left.ground * 1000).toFixed(0)} mm (error ${pct(Math.abs(d.left.err), h)}), right on ${d.right.surface} at ${(d.right.ground * 1000).toFixed(0)} mm (error ${pct(Math.abs(d.right.err), h)})`,
    );
  }
}
