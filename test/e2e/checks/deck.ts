import { expect } from "vitest";
import { type CheckContext, pct } from "../harness";

/** The deck scenario's checks: both feet stay on the heaving, rolling deck. */
export async function checkDeck({ checks, lines }: CheckContext): Promise<void> {
  const h = checks.height as number;
  const tol = checks.tolerance as number;
  const worst = checks.worst as number;
  const footRange = checks.footRange as [number, number][];
  const deckRange = checks.deckRange as [number, number][];
  // the ankles stand as high above the moving deck (a ray down onto it) as the clip has them above the root
  lines.push(
    `on the heaving, rolling deck: worst ankle height error ${pct(Math.abs(worst), h)} over ${checks.frames as number} frames (tolerance ${pct(tol, h)})`,
  );
  expect(Math.abs(worst), "ankle height above the deck").toBeLessThan(tol);
  footRange.forEach(([lo, hi], i) => {
    const [dlo, dhi] = deckRange[i]!;
    const foot = i === 0 ? "left foot" : "right foot";
    lines.push(`${foot}: the deck under it moved ${pct(dhi - dlo, h)} up and down, the ankle ${pct(hi - lo, h)}`);
    // the deck clearly moved under the foot (heave 9 % of h each way, plus the roll), and the foot went with it
    expect(dhi - dlo, `${foot}: deck motion`).toBeGreaterThan(0.1 * h);
    expect(Math.abs(hi - lo - (dhi - dlo)), `${foot} follows the deck`).toBeLessThan(2 * tol);
  });
  // the roll shows in the legs: at some moment one foot stood clearly higher than the other
  const spread = checks.feetSpread as number;
  lines.push(`largest height difference between the feet: ${pct(spread, h)}`);
  expect(spread, "the feet at different heights on the rolled deck").toBeGreaterThan(0.015 * h);
}
