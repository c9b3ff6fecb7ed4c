/**
 * Where one FullBodyBipedIK frame (+ the skeleton's matrices) on issue 19's biped problem spends its time: a
 * timestamp at each stage boundary (the solver's hooks and the calls around `ik.update()`), per frame, medians per
 * stage. Each stamp
 * (`performance.now()`) costs ~50 ns, so the stages sum to a little more than a frame timed whole: use them to
 * attribute, `npm run bench -- biped-frame`'s rows for totals. Used by bench/biped-frame.ts and
 * bench/profile-biped-frame.ts.
 */
import type { BabylonEffector } from "../src/babylon/babylon-effector.js";
import { SET_STRIDE } from "../test/helpers/biped-problem.js";
import { type FbbikBipedSolver, advanceFrame } from "../test/helpers/biped-solvers.js";
import type { BipedTargetSets } from "../test/helpers/biped-target-sets.js";
import { quantile } from "./common.js";

/** The stages, in frame order. */
export const BIPED_FRAME_STAGES = [
  "FixTransforms (what the IK wrote taken off)",
  "rig.read (Babylon's bones, FK)",
  "solver read (LimitBend, effectors, chains)",
  "mapping readPose (planes, axes)",
  "solver iterations",
  "bend constraints (final trigonometric pass)",
  "mapping writePose",
  "rig.write + update's checks",
  "skeleton.computeAbsoluteMatrices()",
] as const;

const WARMUP = 20_000;

/**
 * Times frames of one FullBodyBipedIK on the biped problem stage by stage (see the file comment); `run` may be
 * called in segments, alternating with other timers so a change of the machine's speed hits all alike. Adds
 * observers to the solver's hooks (they stay). The mapping's readPose is timed by calling it a second time after
 * the frame (it only reads) and taken off the solver's read.
 */
export class BipedStageTimer {
  private readonly stamps = new Float64Array(10);
  private readonly samples: Float64Array[];
  private count = 0;
  private frame = 0;
  private readonly effectors: BabylonEffector[];

  constructor(
    private readonly ours: FbbikBipedSolver,
    private readonly sets: BipedTargetSets,
    capacity: number,
  ) {
    const ik = ours.ik;
    const inner = ik.solver.inner;
    const stamp = (k: number) => () => {
      this.stamps[k] = performance.now();
    };
    ik.solver.onPreUpdateObservable.add(stamp(1));
    inner.onPreUpdate.add(stamp(2));
    inner.onPreSolve.add(stamp(3));
    inner.onPreBend.add(stamp(5));
    inner.onPostSolve.add(stamp(6));
    inner.onPostUpdate.add(stamp(7));
    this.samples = BIPED_FRAME_STAGES.map(() => new Float64Array(capacity));
    const s = ik.solver;
    this.effectors = [s.bodyEffector, s.leftHandEffector, s.rightHandEffector, s.leftFootEffector, s.rightFootEffector];
    for (let f = 0; f < WARMUP; f++) this.step(false);
  }

  /** Times `frames` more frames (up to the capacity). */
  run(frames: number): void {
    for (let f = 0; f < frames && this.count < this.samples[0]!.length; f++) this.step(true);
  }

  /** Each stage's median so far, µs. */
  medians(): number[] {
    return this.samples.map((x) => quantile(x.subarray(0, this.count).sort(), 0.5));
  }

  private step(record: boolean): void {
    const { ours, sets, stamps } = this;
    const ik = ours.ik;
    const inner = ik.solver.inner;
    advanceFrame(ours.biped.scene);
    const t = sets.targets;
    const o = (this.frame++ % sets.count) * SET_STRIDE;
    for (let e = 0; e < 5; e++) this.effectors[e]!.position.set(t[o + 3 * e]!, t[o + 3 * e + 1]!, t[o + 3 * e + 2]!);
    stamps[0] = performance.now();
    ik._beforeAnimations();
    ik.update();
    stamps[8] = performance.now();
    ours.biped.skeleton.computeAbsoluteMatrices();
    stamps[9] = performance.now();
    const m0 = performance.now();
    inner.mapping!.readPose(inner, true);
    const m1 = performance.now();
    if (!record) return;
    const k = this.count++;
    const us = (a: number, b: number) => (stamps[b]! - stamps[a]!) * 1000;
    const mapRead = (m1 - m0) * 1000;
    const x = this.samples;
    x[0]![k] = us(0, 1);
    x[1]![k] = us(1, 2);
    x[2]![k] = us(2, 3) - mapRead;
    x[3]![k] = mapRead;
    x[4]![k] = us(3, 5);
    x[5]![k] = us(5, 6);
    x[6]![k] = us(6, 7);
    x[7]![k] = us(7, 8);
    x[8]![k] = us(8, 9);
  }
}

/**
 * Times several solvers' stages in alternating segments of `segment` frames, `frames` each; returns each solver's
 * stage medians, µs.
 */
export function timeBipedStages(
  solvers: readonly FbbikBipedSolver[],
  sets: BipedTargetSets,
  frames: number,
  segment = 2_000,
): number[][] {
  const timers = solvers.map((s) => new BipedStageTimer(s, sets, frames));
  for (let done = 0; done < frames; done += segment) for (const t of timers) t.run(segment);
  return timers.map((t) => t.medians());
}
