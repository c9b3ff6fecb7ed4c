/**
 * The moving targets of the solver and frame benchmarks, tabulated once. A benchmark then moves a target
 * by copying three numbers instead of calling sin/cos three times: the sines took 0.27 µs of a 6 µs
 * solve (measured 2026-11-22), the harness's time, not the solver's.
 */

/** The paths repeat every PATH_FRAMES frames (10 s at 60 frames a second) without a jump. */
export const PATH_FRAMES = 600;
/** Numbers per frame in the table: four limbs × x, y, z. */
export const PATH_STRIDE = 12;

/** Cycles per PATH_FRAMES of each limb's x, y and z (0.3–1.1 Hz; Lissajous, no two limbs alike). */
const CYCLES = [
  [5, 7, 3],
  [6, 8, 4],
  [7, 10, 4],
  [8, 11, 5],
] as const;

let table: Float64Array | null = null;

/**
 * Unit offsets of the four limbs' targets for each of PATH_FRAMES frames, PATH_STRIDE numbers a frame
 * (limb i's x, y, z at i × 3): a target at `centre + radius × offset` stays within `radius` of its
 * centre (per-axis amplitudes 0.6 / 0.5 / 0.6). Shared by every caller, so a crowd reads one table.
 */
export function unitTargetPath(): Float64Array {
  if (table !== null) return table;
  const t = new Float64Array(PATH_FRAMES * PATH_STRIDE);
  for (let f = 0; f < PATH_FRAMES; f++) {
    const a = (f / PATH_FRAMES) * Math.PI * 2;
    for (let i = 0; i < 4; i++) {
      const [cx, cy, cz] = CYCLES[i]!;
      const phase = i * 1.3;
      t[f * PATH_STRIDE + i * 3] = 0.6 * Math.sin(cx * a + phase);
      t[f * PATH_STRIDE + i * 3 + 1] = 0.5 * Math.sin(cy * a);
      t[f * PATH_STRIDE + i * 3 + 2] = 0.6 * Math.cos(cz * a + phase);
    }
  }
  table = t;
  return t;
}
