import { expect } from "vitest";
import { type CheckContext, type V, dist, pct } from "../harness";

interface GraspRecord {
  phase: string;
  hand: V;
  grip: V;
  cup: V;
  cupRadius: number;
  cupHeight: number;
  top: number;
  lowestFinger: number | null;
  fingerGap: number | null;
  curl: number[];
  open: number[];
  held: boolean;
  height: number;
}

/** Mean curl gained by the fingers (thumb, the first chain, left out) from the open hand, in radians. */
function closed(rec: GraspRecord): number {
  const n = rec.curl.length - 1;
  let sum = 0;
  for (let i = 1; i < rec.curl.length; i++) sum += rec.curl[i]! - rec.open[i]!;
  return n > 0 ? sum / n : 0;
}

/** The hand at the grasp: on the grip beside the cup, fingers closed around it and above the tabletop. */
function checkGrasp(label: string, rec: GraspRecord, lines: string[]): void {
  const h = rec.height;
  const toGrip = dist(rec.hand, rec.grip);
  lines.push(`${label}: left hand to its grip on the cup ${pct(toGrip, h)} (tolerance 1 %)`);
  expect(toGrip / h, `${label}: hand on the cup`).toBeLessThan(0.01);
  if (rec.lowestFinger === null || rec.fingerGap === null) {
    lines.push(`${label}: the model has no finger bones (no hand pose to check)`);
    return;
  }
  const above = rec.lowestFinger - rec.top;
  const c = closed(rec);
  lines.push(
    `${label}: lowest finger joint ${pct(above, h)} above the tabletop; nearest finger joint (thumb aside) ${pct(rec.fingerGap, h)} ` +
      `from the cup's wall; fingers curled ${((c * 180) / Math.PI).toFixed(0)}° more than open`,
  );
  expect(above / h, `${label}: the fist stays above the tabletop`).toBeGreaterThan(0.005);
  expect(Math.abs(rec.fingerGap) / h, `${label}: fingers on the cup`).toBeLessThan(0.015);
  expect(c, `${label}: fingers closed`).toBeGreaterThan(0.6);
}

/** The grab scenario's checks; it also drags the cup elsewhere and checks the next grasp there. */
export async function checkGrab({ checks, hook, waitFor, lines, wait }: CheckContext): Promise<void> {
  const grasp = checks.grasp as GraspRecord;
  const lifted = checks.lifted as GraspRecord;
  const h = grasp.height;
  checkGrasp("grasp", grasp, lines);
  // lifted: the cup went up with the hand (picked up), its grip still in the hand
  const rise = lifted.cup[1] - grasp.cup[1];
  const follow = dist(lifted.hand, lifted.grip);
  lines.push(`lifted: cup ${pct(rise, h)} above the table, its grip ${pct(follow, h)} from the hand (tolerance 1 %)`);
  expect(lifted.held, "the cup is in the hand").toBe(true);
  expect(rise / h, "the cup is lifted").toBeGreaterThan(0.05);
  expect(follow / h, "the cup follows the hand").toBeLessThan(0.01);
  // put down: back where it stood on the table (the release takes a world pose)
  const down = checks["put down"] as GraspRecord & { stood: V };
  const off = dist(down.cup, down.stood);
  lines.push(`put down: the cup ${pct(off, h)} from where it stood (tolerance 0.1 %), held ${down.held}`);
  expect(down.held, "the cup let go").toBe(false);
  expect(off / h, "the cup back where it stood").toBeLessThan(0.001);
  expect(Math.abs(down.stood[1] - grasp.cup[1]) / h, "where it stood: on the table").toBeLessThan(0.01);
  // the cup moved on the table (as a drag does, once it is back on it): the next grasp is there
  await hook("h.hold(null)");
  await waitFor("h.control('cup', [0.6, 0.7]) !== null", wait);
  await waitFor("h.checks()['moved grasp'] !== undefined", wait);
  const moved = (await hook<Record<string, unknown>>("h.checks()"))["moved grasp"] as GraspRecord;
  lines.push(`the cup moved ${pct(dist(moved.cup, grasp.cup), h)} on the table`);
  expect(dist(moved.cup, grasp.cup) / h).toBeGreaterThan(0.1);
  checkGrasp("moved grasp", moved, lines);
}
