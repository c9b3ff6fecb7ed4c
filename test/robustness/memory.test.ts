/**
 * Memory, measured in a child process with gc() (vitest's workers are not started with --expose-gc):
 * `node --expose-gc --import tsx test/robustness/memory-child.ts`. The heap (V8's compiled code
 * excluded) stays flat over 100,000 frames; 1,000 instances created and disposed on one skeleton leave no
 * observer, are all garbage-collected, do not grow the heap, and leave the bones as the animation left them.
 * Interactions restarted 60,000 frames in a loop (start, pick up, pause, resume, release, start again) leave
 * no observer, child or node behind and do not grow the heap.
 * Rows are checked against docs/ROBUSTNESS.md (section "memory").
 */
import { execFileSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ReportSection, staleMessage } from "./report.js";

const report = new ReportSection("memory");
const here = dirname(fileURLToPath(import.meta.url));
const FRAMES = 100_000;
const INSTANCES = 1000;
/** Heap growth allowed after warm-up: noise (old space is not compacted by every gc) is a few hundred KB. */
const FRAME_LIMIT = 1 << 20;
const INSTANCE_LIMIT = 2 << 20;
const INTERACTION_FRAMES = 60_000;
/** Measured −60 to +90 KB (the JIT's metadata outside the code spaces); a closure kept per start: +1 MB. */
const INTERACTION_LIMIT = 512 << 10;

interface ChildResult {
  interactionFrames: number;
  interactionStarts: number;
  interactionHeap0: number;
  interactionHeap1: number;
  interactionCounts0: number[];
  interactionCounts1: number[];
  frames: number;
  seconds: number;
  samples: number[];
  instances: number;
  createSeconds: number;
  warm: number;
  heapCreate0: number;
  heapCreate1: number;
  observersBefore: number[];
  observersAfter: number[];
  updaterActive: boolean;
  alive: number;
  bonesExact: boolean;
  dropped: number;
  droppedAlive: number;
  updaterActiveAfterDropped: boolean;
}

const mb = (n: number): string => `${(n / 1048576).toFixed(2)} MB`;

describe("memory (child process with --expose-gc)", () => {
  let result: ChildResult;

  it(`runs ${FRAMES} frames and ${INSTANCES} create/dispose cycles`, () => {
    const out = execFileSync(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        "tsx",
        resolve(here, "memory-child.ts"),
        String(FRAMES),
        String(INSTANCES),
        String(INTERACTION_FRAMES),
      ],
      {
        cwd: resolve(here, "../.."),
        encoding: "utf8",
        maxBuffer: 1 << 24,
      },
    );
    result = JSON.parse(out.trim().split("\n").pop()!) as ChildResult;
    const s = result.samples;
    console.log(
      `memory: ${FRAMES} frames in ${result.seconds.toFixed(1)} s (${Math.round(FRAMES / result.seconds)} frames/s), heap after each tenth: ${s.map(mb).join(", ")}; ` +
        `${INSTANCES} instances in ${result.createSeconds.toFixed(1)} s, heap ${mb(result.heapCreate0)} after ${result.warm} → ${mb(result.heapCreate1)}, alive ${result.alive}`,
    );
  });

  it("the heap does not grow over 100,000 frames", () => {
    const s = result.samples;
    // the first tenth includes the warm-up of the frame loop's own code paths
    const growth = Math.max(...s.slice(-3)) - s[1]!;
    expect(growth).toBeLessThan(FRAME_LIMIT);
    report.add({
      what: "heap over 100,000 frames of one IK with wandering effectors (ik.update() with a cheap frame advance; V8's compiled code excluded)",
      cases: `${FRAMES} frames, 11 samples after a full gc`,
      outcome: `flat: growth from the second sample to the last below ${mb(FRAME_LIMIT)} (the measured value is in the test output)`,
    });
  });

  it("1,000 instances created, run and disposed on one skeleton leave nothing behind", () => {
    expect(result.observersAfter).toEqual(result.observersBefore);
    expect(result.updaterActive).toBe(false);
    expect(result.alive).toBe(0);
    expect(result.bonesExact).toBe(true);
    expect(result.heapCreate1 - result.heapCreate0).toBeLessThan(INSTANCE_LIMIT);
    report.add({
      what: "FullBodyBipedIK created, run two frames and disposed on one skeleton (Mannequin)",
      cases: `${INSTANCES} instances`,
      outcome:
        `no scene observer left, the scene updater gone; all ${INSTANCES} instances garbage-collected (WeakRef); heap growth after ${result.warm} instances below ${mb(INSTANCE_LIMIT)}; ` +
        "every bone's local position, rotation and scale bit for bit as before",
    });
  });

  it("characters disposed without ik.dispose() take their IK with them", () => {
    expect(result.droppedAlive).toBe(0);
    expect(result.updaterActiveAfterDropped).toBe(false);
    report.add({
      what: "characters (Mannequin instances) given an IK, run, then disposed without ik.dispose(): root nodes disposed (half) or the skeleton disposed (half)",
      cases: `${result.dropped} characters`,
      outcome:
        "each IK disposes itself at the next frame (warned once); all garbage-collected (WeakRef), the scene updater gone",
    });
  });

  it("interactions restarted in a loop leave nothing behind and do not grow the heap", () => {
    const growth = result.interactionHeap1 - result.interactionHeap0;
    console.log(
      `memory: ${result.interactionStarts} interaction starts over ${INTERACTION_FRAMES} frames, heap ${mb(result.interactionHeap0)} → ${mb(result.interactionHeap1)}`,
    );
    expect(result.interactionStarts).toBeGreaterThan(5000);
    expect(result.interactionCounts1).toEqual(result.interactionCounts0);
    expect(growth).toBeLessThan(INTERACTION_LIMIT);
    report.add({
      what: "interactions restarted in a loop on one hand (Mannequin, ik.update() with a cheap frame advance): start, pick up, pause, resume, a message, end; released and started again from the stop observer, every third start an interrupt",
      cases: `${INTERACTION_FRAMES} frames after ${INTERACTION_FRAMES / 6} of warm-up`,
      outcome: `no observer, child or node added; heap growth below ${mb(INTERACTION_LIMIT)} (a closure kept per start would add about 1 MB)`,
    });
  });

  it('docs/ROBUSTNESS.md section "memory" matches what these tests measured', () => {
    const differences = report.check();
    expect(differences, staleMessage("memory", differences)).toEqual([]);
  });
});
