/**
 * FoldMemory's limit and limitDirection allocate nothing once warm, through changes of side in which the folded
 * direction is held back (limitDirection's `held` branch) and updates between them that pass it bit for bit (in a
 * fresh module graph: vitest.config.ts, HEAP). Four limbs a frame, as the full body's bend constraints run them.
 */
import { expect, it } from "vitest";
import { FoldMemory } from "../../../src/solver/fold-memory.js";
import { bytesPerFrame, whereFramesAllocate } from "../../helpers/frame-heap.js";

/** Updates in a cycle: a partial fold on one side, then the other, its direction jumping 90° as it flips. */
const CYCLE = 24;

it("FoldMemory through partial folds changing side, four limbs a frame: 0 B a frame", async () => {
  const limbs = Array.from({ length: 4 }, () => new FoldMemory());
  // the inputs made beforehand, per update of the cycle: the frame itself builds nothing
  const turn = new Float64Array(CYCLE);
  const fx = new Float64Array(CYCLE);
  const fz = new Float64Array(CYCLE);
  for (let i = 0; i < CYCLE; i++) {
    const side = i < CYCLE / 2 ? 1 : -1;
    turn[i] = side * (0.15 + 0.01 * (i % 5));
    const a = (side > 0 ? 0 : Math.PI / 2) + 0.02 * (i % 3);
    fx[i] = Math.cos(a);
    fz[i] = Math.sin(a);
  }
  let held = 0;
  let update = 0;
  const frame = (f: number): void => {
    update++;
    const k = f % CYCLE;
    for (let l = 0; l < 4; l++) {
      const m = limbs[l]!;
      m.update = update;
      m.turn = turn[k]!;
      m.amount = 1;
      m.far = 2;
      m.share = 0.5;
      m.x = 0;
      m.y = -1;
      m.z = 0;
      m.limit();
      m.fx = fx[k]!;
      m.fy = 0;
      m.fz = fz[k]!;
      m.limitDirection();
      held += m.held;
    }
  };
  const least = bytesPerFrame(frame, 20_000);
  process.stderr.write(`fold memory heap: ${least.toFixed(2)} B a frame, held in ${held} limb-updates\n`);
  if (least >= 1) process.stderr.write(`${await whereFramesAllocate(frame)}\n`);
  // the held branch ran in a good share of the updates measured: 3 of each 12 after a flip, on four limbs
  expect(held).toBeGreaterThan(0.1 * 4 * (5_000 + 3 * 20_000));
  expect(least).toBeLessThan(1);
});
