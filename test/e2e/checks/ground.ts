import { expect } from "vitest";
import { type CheckContext, pct } from "../harness";

/** The ground scenario's checks: planted feet on the steps and on the moving deck, while walking the loop. */
export async function checkGround({ checks, lines }: CheckContext): Promise<void> {
  type Rec = { count: number; worst: number; ground: number; foot: number };
  const per = checks.perSurface as Record<string, Rec>[];
  const h = checks.height as number;
  const tol = checks.tolerance as number;
  const walked = checks.walked as number;
  lines.push(
    `walked ${(walked / h).toFixed(1)} h (the loop is ${((checks.loop as number) / h).toFixed(1)} h) at ${pct(checks.pace as number, h)}/s`,
  );
  // it really walks the course: up and down the steps, onto the deck beyond them
  expect(walked / h, "distance walked (× h)").toBeGreaterThan(3.5);
  // a planted foot's ankle stands as high above the surface under it (a ray down) as the clip has it above
  // the character root's level
  per.forEach((m, i) => {
    const foot = i === 0 ? "left foot" : "right foot";
    for (const [surface, r] of Object.entries(m)) {
      lines.push(
        `${foot} planted on ${surface} (ground ${pct(r.ground, h)} up): worst ankle height error ${pct(Math.abs(r.worst), h)} over ${r.count} frames (tolerance ${pct(tol, h)})`,
      );
      expect(Math.abs(r.worst), `${foot} on ${surface}`).toBeLessThan(tol);
    }
    const names = Object.keys(m);
    expect(names.length, `${foot} planted on three surfaces or more`).toBeGreaterThanOrEqual(3);
    expect(names, `${foot} planted on the deck`).toContain("deck");
    // on a step that stands clearly above the floor (the steps are 1, 2, 3 step heights)
    const high = names.filter((n) => n.startsWith("step") && m[n]!.ground > 0.05 * h);
    expect(high.length, `${foot} planted on a step above 5 % of h`).toBeGreaterThan(0);
  });
}
