/**
 * A fixed workload that says which speed the machine was at. The reference VM switches between two
 * speeds every few seconds to minutes (bench/README.md): the same code runs about 1.7 × slower in the
 * slow one. Every result file records this probe before and after its benchmark, so a figure can be read
 * against the state of the machine it was measured on.
 *
 * The workload: a 13-point FABRIK-style loop (square roots, divisions, loads and stores on small
 * objects), like the solver's inner loops but independent of the library, so a change to the library
 * never moves the probe.
 */
import { quantile, round } from "./common.js";

class Point {
  constructor(
    public x: number,
    public y: number,
    public z: number,
  ) {}
}

const POINTS = 13;
const points: Point[] = [];
const lengths: number[] = [];
for (let i = 0; i < POINTS; i++) {
  // fixed, irregular values: the same workload in every run
  points.push(new Point(Math.sin(i * 1.7), Math.cos(i * 2.3), Math.sin(i * 0.9 + 1)));
  lengths.push(0.3 + 0.01 * Math.sin(i * 3.1));
}

// The same step as the solver's solveFabrikJoint, copied on purpose: a change to the library must never
// move the probe.
function follow(a: Point, b: Point, length: number): void {
  const dx = a.x - b.x;
  const dy = a.y - b.y;
  const dz = a.z - b.z;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  const k = l > 0 ? length / l : 0;
  a.x = b.x + dx * k;
  a.y = b.y + dy * k;
  a.z = b.z + dz * k;
}

/** Four limbs of three points around point 0: forward, four passes of links, backward; four times. */
function workload(): void {
  const p = points;
  const len = lengths;
  for (let it = 0; it < 4; it++) {
    for (let limb = 0; limb < 4; limb++) {
      const o = 1 + limb * 3;
      follow(p[o + 1]!, p[o + 2]!, len[o + 1]!);
      follow(p[o]!, p[o + 1]!, len[o]!);
    }
    for (let pass = 0; pass < 4; pass++) for (let limb = 0; limb < 4; limb++) follow(p[1 + limb * 3]!, p[0]!, len[0]!);
    for (let limb = 0; limb < 4; limb++) {
      const o = 1 + limb * 3;
      follow(p[o + 1]!, p[o]!, len[o]!);
      follow(p[o + 2]!, p[o + 1]!, len[o + 1]!);
    }
  }
}

/** µs per workload over one segment of 1,000. */
function segment(): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 1_000; i++) workload();
  return Number(process.hrtime.bigint() - t0) / 1000 / 1_000;
}

/** Median µs of one workload over 30 segments of 1,000 (about 30 ms), after 30 warm-up segments. */
export function machineProbe(): number {
  // warm up through the same function that is timed, so the timed loop is not an on-stack replacement
  for (let s = 0; s < 30; s++) segment();
  const segments = new Float64Array(30);
  for (let s = 0; s < segments.length; s++) segments[s] = segment();
  return round(quantile(segments.sort(), 0.5));
}
