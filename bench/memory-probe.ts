/**
 * What a cache line costs this machine when a crowd's data does not fit its caches: every 64-byte line
 * of a buffer touched once per pass, in a random order, with independent loads (the processor may overlap
 * as many misses as it can). Working sets of 8, 32 and 72 MB: about what 100, 450 and 1,000 characters
 * touch in a frame (bench:touch counts ~1,100 lines, 71 KB, a character).
 *
 * It is the floor for the crowd's memory time on this machine: a frame that touches N lines nobody kept
 * in the caches costs at least about N × this, whatever the code does with them. Random lines also miss
 * the TLB (4 KB pages unless the heap uses huge pages), as a crowd's scattered objects do.
 */
import { quantile, round } from "./common.js";

/** The working-set sizes probed, in MB. */
export const MEMORY_PROBE_MB = [8, 32, 72] as const;

const DOUBLES_PER_LINE = 8;
const PASSES = 5;

/** ns per line for one working-set size: the median of {@link PASSES} timed passes after two untimed ones. */
function probe(mb: number, seed: number): number {
  const lines = (mb * 1024 * 1024) / 64;
  const data = new Float64Array(lines * DOUBLES_PER_LINE).fill(1);
  const order = new Int32Array(lines);
  for (let i = 0; i < lines; i++) order[i] = i * DOUBLES_PER_LINE;
  // a fixed pseudo-random permutation (xorshift), so every run walks the same order
  let s = seed | 0 || 1;
  for (let i = lines - 1; i > 0; i--) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const j = (s >>> 0) % (i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  let sink = 0;
  const pass = (): void => {
    for (let i = 0; i < lines; i++) sink += data[order[i]!]!;
  };
  pass();
  pass();
  const times = new Float64Array(PASSES);
  for (let p = 0; p < PASSES; p++) {
    const t0 = process.hrtime.bigint();
    pass();
    times[p] = Number(process.hrtime.bigint() - t0) / lines;
  }
  // the sum is used, so the loads cannot be dropped
  if (sink !== lines * (PASSES + 2)) throw new Error("memory probe: unexpected sum");
  return round(quantile(times.sort(), 0.5), 2);
}

/** ns per randomly ordered 64-byte line, for each size of {@link MEMORY_PROBE_MB}. */
export function memoryProbe(): number[] {
  return MEMORY_PROBE_MB.map((mb, i) => probe(mb, 0x9e3779b9 + i));
}
