import { expect } from "vitest";
import { type CheckContext, type V, pct } from "../harness";

interface AimWorld {
  target: V;
  rightHand: V;
  home: V;
  barrel: V;
  angle: number;
  recoil: boolean;
  spineLimit: boolean;
  spineOver: number;
  height: number;
}

const degrees = (a: V, b: V) =>
  (Math.acos(Math.min(1, (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / Math.hypot(...a) / Math.hypot(...b))) * 180) /
  Math.PI;

/**
 * The aim scenario: the user drags the target, then it is moved again; each time the pistol's barrel (its
 * muzzle node's axis) points at the target sphere within 1°, having turned with it. A click fires: the
 * right hand kicks back visibly and comes back to where it was, on the target again.
 */
export async function checkAim({ hook, waitFor, page, lines, wait }: CheckContext): Promise<void> {
  await hook("h.hold(null)");
  // the clip paused, the target still and no automatic shots: any motion is the aim's or the recoil's
  await hook("(h.setPaused(true), h.control('auto', false))");
  const frames = async (n: number) => {
    const f0 = await hook<number>("h.frames");
    await waitFor(`h.frames > ${f0 + n}`, wait);
  };
  // until the right hand holds still (a frame's move under 1e-4 of the height): the solvers' memories may bring the
  // arm round over a few frames after a change, which a shot fired meanwhile would count as the recoil's
  const settle = async (h: number): Promise<number> => {
    let last = (await hook<AimWorld>("h.world()")).rightHand;
    for (let n = 1; n <= 120; n++) {
      await frames(1);
      const now = (await hook<AimWorld>("h.world()")).rightHand;
      if (Math.hypot(...(now.map((v, i) => v - last[i]!) as V)) < 1e-4 * h) return n;
      last = now;
    }
    return Number.NaN;
  };
  // a shot still running (or its measurement) ends first
  await waitFor("!h.world().recoil", wait);
  await frames(8);
  const w0 = await hook<AimWorld>("h.world()");
  const h = w0.height;
  // a drag of the target up and to the side with the mouse
  const [x, y] = await hook<[number, number]>(`h.project(${JSON.stringify(w0.target)})`);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x - 150, y - 90, { steps: 5 });
  await page.mouse.up();
  await frames(3);
  const w1 = await hook<AimWorld>("h.world()");
  // then down and to the other side
  const t2: V = [w1.target[0], w1.target[1] - 0.4 * h, w1.target[2]];
  await hook(`h.control('target', ${JSON.stringify(t2)})`);
  await frames(3);
  const w2 = await hook<AimWorld>("h.world()");
  const dragged = Math.hypot(...(w1.target.map((v, i) => v - w0.target[i]!) as V));
  const turn1 = degrees(w0.barrel, w1.barrel);
  const turn2 = degrees(w1.barrel, w2.barrel);
  lines.push(
    `target dragged ${pct(dragged, h)}: barrel turned ${turn1.toFixed(1)}°, off the target by ${w1.angle.toFixed(3)}°; moved again: turned ${turn2.toFixed(1)}°, off by ${w2.angle.toFixed(3)}° (tolerance 1°)`,
  );
  expect(dragged / h, "the drag moved the target").toBeGreaterThan(0.1);
  expect(turn1, "the barrel followed the drag").toBeGreaterThan(3);
  expect(turn2, "the barrel followed the move").toBeGreaterThan(3);
  expect(w1.angle, "on target after the drag").toBeLessThan(1);
  expect(w2.angle, "on target after the move").toBeLessThan(1);
  // the spine limit (a RotationLimitPolygonal per spine bone, its own range): a target high and far to the side
  // turns the spine past it without the limit; with it, every spine bone stays inside and the arm makes up the rest
  // (farther out until it is: where the drag left the target, and so how far the spine must turn, varies a little)
  let free = w2;
  let out = 0;
  for (out of [1.2, 1.5, 1.8]) {
    const side: V = [w2.target[0] + out * h, w2.target[1] + 0.7 * h, w2.target[2]];
    await hook(`h.control('target', ${JSON.stringify(side)})`);
    await settle(h);
    free = await hook<AimWorld>("h.world()");
    if (free.spineOver > 1) break;
  }
  await hook("h.control('spineLimit', true)");
  await settle(h);
  const limited = await hook<AimWorld>("h.world()");
  await hook("h.control('spineLimit', false)");
  const settled = await settle(h);
  lines.push(
    `spine limit (target ${out} h to the side): the spine ${free.spineOver.toFixed(1)}° past it without (barrel off ${free.angle.toFixed(3)}°), ${limited.spineOver.toFixed(4)}° with (barrel off ${limited.angle.toFixed(3)}°, tolerance 1°)`,
  );
  expect(limited.spineLimit, "the panel's switch reached the solver").toBe(true);
  expect(free.spineOver, "the target needs more than the spine's range").toBeGreaterThan(1);
  expect(limited.spineOver, "the spine inside its limit").toBeLessThan(0.01);
  expect(limited.angle, "the arm makes up the rest: on target").toBeLessThan(1);
  // a shot: a click on the floor, away from the target
  const [cw, ch] = await hook<[number, number]>(
    "[h.engine.getRenderingCanvas().clientWidth, h.engine.getRenderingCanvas().clientHeight]",
  );
  const before = await hook<number>("h.world().shots");
  await page.mouse.click(cw - 40, ch - 40);
  await waitFor(`h.world().shots > ${before}`, wait);
  const shot = (await hook<{ shots: { peak: number; residual: number; angle: number }[] }>("h.checks()")).shots[
    before
  ]!;
  lines.push(
    `shot (the hand still after ${settled} frames): right hand kicked ${pct(shot.peak, h)} (needs > 2 %), back to ${pct(shot.residual, h)} (tolerance 0.3 %), barrel off the target by ${shot.angle.toFixed(3)}°`,
  );
  expect(shot.peak / h, "the recoil moves the hand visibly").toBeGreaterThan(0.02);
  expect(shot.residual / h, "the hand comes back").toBeLessThan(0.003);
  expect(shot.angle, "back on target").toBeLessThan(1);
  // reset all: the target back where it started, wandering again (paused: it stays at the figure's start)
  const moved: V = [w2.target[0], w2.target[1] + 0.3 * h, w2.target[2]];
  await hook(`h.control('target', ${JSON.stringify(moved)})`);
  await page.click("#reset");
  await frames(2);
  const back = await hook<AimWorld>("h.world()");
  const off = Math.hypot(...(back.target.map((v, i) => v - back.home[i]!) as V));
  lines.push(`reset all: the target ${pct(off, h)} from where it started (tolerance 0.1 %)`);
  expect(off / h, "reset puts the target back").toBeLessThan(0.001);
  expect(await hook<boolean>("h.control('query')"), "the target wanders again").toBe(true);
  expect(await page.locator("#aim-wander").isChecked(), "the panel says so").toBe(true);
}
