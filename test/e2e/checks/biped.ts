import { expect } from "vitest";
import { type CheckContext, type V, dist, pct } from "../harness";

/** What the biped scenario records: each palm against its ball, the head against the look ball, the feet. */
interface BipedFigures {
  palms: { gap: number; angle: number; palm: V }[];
  head: number;
  feet: number[];
  /** Each hand's farthest fingertip from its ball's surface. */
  tips: number[];
  balls: V[];
  look: V;
  sway: boolean;
  height: number;
}

const describe = (f: BipedFigures) =>
  `palms ${f.palms.map((p) => `${pct(p.gap, f.height)} off the ball, ${p.angle.toFixed(2)}° from its centre`).join("; ")}; ` +
  `fingertips ${f.tips.map((d) => pct(d, f.height)).join(", ")} off the balls; ` +
  `head ${f.head.toFixed(2)}° from the look ball; feet ${f.feet.map((d) => pct(d, f.height)).join(", ")} from their spots`;

/** Palms on the balls' surface (2 mm per metre of height) facing their centres (2°), head on the look ball (3°), feet planted. */
function expectHeld(f: BipedFigures, when: string): void {
  for (const [i, p] of f.palms.entries()) {
    expect(Math.abs(p.gap), `${when}: palm ${i} on its ball's surface`).toBeLessThan(0.002 * f.height);
    expect(p.angle, `${when}: palm ${i} facing its ball's centre`).toBeLessThan(2);
  }
  // the fingers curled over the ball, not sticking out past it (opened straight: 6.3 % of h on UAL, 5.8 % on Xbot)
  for (const [i, d] of f.tips.entries())
    expect(d, `${when}: hand ${i}'s fingertips on its ball`).toBeLessThan(0.015 * f.height);
  expect(f.head, `${when}: the head toward the look ball`).toBeLessThan(3);
  for (const d of f.feet) expect(d, `${when}: a foot where it was planted`).toBeLessThan(0.002 * f.height);
}

/**
 * The biped scenario: BipedIK alone on the character (no FullBodyBipedIK; the overlay names it); at the recorded
 * moment and after the user drags the left ball, each palm lies on its ball facing its centre, the head looks at
 * the orange ball and the feet stay put; the IK switched off, the same figures show the palms far from the balls.
 */
export async function checkBiped({ checks, hook, waitFor, page, lines, wait }: CheckContext): Promise<void> {
  const held = checks.held as BipedFigures;
  const h = held.height;
  lines.push(`IK on, the balls swaying: ${describe(held)}`);
  expectHeld(held, "recorded");
  await hook("h.hold(null)");
  expect(await hook<number>("h.iks.length"), "no FullBodyBipedIK beside the BipedIK").toBe(0);
  await waitFor("document.getElementById('stats').textContent.includes('BipedIK')", wait);
  const stats = await hook<string>("document.getElementById('stats').textContent");
  lines.push(`overlay: ${stats.replace(/\n/g, " | ")}`);
  expect(stats).toContain("1 character");

  const frames = async (n: number) => {
    const f0 = await hook<number>("h.frames");
    await waitFor(`h.frames > ${f0 + n}`, wait);
  };
  // the look ball over a period of its sway (9 s) clear of the stats overlay at the top right: the framing
  // took its centre alone, and the overlay's first line only, so on Xbot its top passed 16 px under the overlay
  const overlay = await hook<{ left: number; bottom: number }>(
    "(() => { const r = document.getElementById('stats').getBoundingClientRect(); return { left: r.left, bottom: r.bottom }; })()",
  );
  let clearance = Infinity;
  for (let k = 0; k < 12; k++) {
    await frames(45);
    const [x, y, top] = await hook<[number, number, number]>(
      "(() => { const l = h.world().look; const c = h.project(l); return [c[0], c[1], h.project([l[0], l[1] + 0.035 * h.height, l[2]])[1]]; })()",
    );
    // the ball's screen radius from its top; under the overlay's columns, how far below its bottom
    if (x + (y - top) > overlay.left) clearance = Math.min(clearance, top - overlay.bottom);
  }
  lines.push(
    `look ball over its sway: ${Number.isFinite(clearance) ? `${clearance.toFixed(0)} px below the overlay` : "never under the overlay's columns"}`,
  );
  // a visible gap, 4 % of the view's height (before: 12 px on UAL, 7 px on Xbot at 960×600, under it at 1280×800)
  const gap = 0.04 * (await hook<number>("window.innerHeight"));
  expect(clearance, "the look ball clear of the stats overlay").toBeGreaterThan(gap);
  // the user drags the left ball up and outward: the sway stops, the palm follows the ball (scene time held
  // from the ball's place on screen to the release: the sway would take it from under the cursor)
  await hook("h.hold(() => true)");
  const before = await hook<BipedFigures>("h.world()");
  const [x, y] = await hook<[number, number]>(`h.project(${JSON.stringify(before.balls[0])})`);
  await page.mouse.move(x, y);
  await page.mouse.down();
  for (let k = 1; k <= 5; k++) await page.mouse.move(x - 8 * k, y - 8 * k);
  // held down while frames run: the drag behaviour eases the ball toward the cursor frame by frame
  await hook("h.hold(null)");
  await frames(10);
  await page.mouse.up();
  await frames(3);
  const dragged = await hook<BipedFigures>("h.world()");
  const moved = dist(dragged.balls[0]!, before.balls[0]!);
  lines.push(`left ball dragged (${x.toFixed(0)}, ${y.toFixed(0)}) by 40 px up and out: it moved ${pct(moved, h)}`);
  lines.push(`after the drag: ${describe(dragged)}`);
  expect(dragged.sway, "a drag stops the sway").toBe(false);
  expect(moved, "the dragged ball moved").toBeGreaterThan(0.05 * h);
  expectHeld(dragged, "dragged");

  // the IK switched off (faded): the palms hang at the sides, far from the balls
  await hook("h.setIK(false)");
  await waitFor("!h.fading()", wait);
  await frames(3);
  const off = await hook<BipedFigures>("h.world()");
  lines.push(`IK off: ${describe(off)}`);
  for (const [i, p] of off.palms.entries())
    expect(p.gap, `IK off: palm ${i} away from its ball`).toBeGreaterThan(0.05 * h);
  await hook("h.setIK(true)");
  await waitFor("!h.fading()", wait);
}
