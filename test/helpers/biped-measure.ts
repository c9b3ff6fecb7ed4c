/**
 * Measuring a solved biped (test/helpers/biped-problem.ts) against a target set: each effector's error and the
 * largest change of a bone's length, from the bones' float64 local transforms composed in float64; and issue 19's
 * figures of one solver over a table of sets.
 */
import {
  BIPED_HEIGHT_M,
  type BipedRest,
  type BipedScene,
  EFFECTOR_BONES,
  SET_STRIDE,
  distanceBetween,
  forwardKinematics,
} from "./biped-problem.js";
import type { BipedTargetSets } from "./biped-target-sets.js";

/** What one solved set measured. */
export class SetMeasurement {
  /** Distance of each effector bone from its target (pelvis, hands, feet), mm. */
  readonly errorsMm = new Float64Array(EFFECTOR_BONES.length);
  /** The largest of {@link errorsMm}. */
  worstMm = 0;
  /** Largest change of a parent–child distance from rest (the pelvis's own link excepted), mm. */
  boneLengthChangeMm = 0;
  /** The child bone of that link (index in the rest pose), −1 when no length changed. */
  boneLengthChangeBone = -1;
  /** Change of each link's length (in {@link BipedRest.links}' order), mm; sized on first use. */
  linkChangesMm = new Float64Array(0);
  /** False when any bone's position came out NaN or infinite. */
  finite = true;
}

/** Scratch for {@link measureSet}: float64 copies of the bones' local transforms and their world positions. */
export class SetProbe {
  private readonly localPositions: Float64Array;
  private readonly localRotations: Float64Array;
  private readonly worldRotations: Float64Array;
  /** World positions of every bone after the last {@link measure}, 3 per bone. */
  readonly positions: Float64Array;
  private readonly effectors: number[];

  /** The biped's rest pose. */
  readonly rest: BipedRest;

  constructor(private readonly biped: BipedScene) {
    this.rest = biped.rest;
    const n = biped.bones.length;
    this.localPositions = new Float64Array(3 * n);
    this.localRotations = new Float64Array(4 * n);
    this.worldRotations = new Float64Array(4 * n);
    this.positions = new Float64Array(3 * n);
    this.effectors = EFFECTOR_BONES.map((b) => biped.rest.index(b));
  }

  /**
   * Measures the skeleton against set `s`: reads each Bone's local position and rotation (float64, as the IK or
   * controller left them), composes them in float64 and compares with the targets and the rest lengths.
   */
  measure(sets: BipedTargetSets, s: number, out: SetMeasurement): SetMeasurement {
    const { bones, rest } = this.biped;
    for (let i = 0; i < bones.length; i++) {
      const p = bones[i]!.position;
      const q = bones[i]!.rotationQuaternion;
      this.localPositions.set([p.x, p.y, p.z], 3 * i);
      this.localRotations.set([q.x, q.y, q.z, q.w], 4 * i);
    }
    const w = this.positions;
    forwardKinematics(rest.parents, this.localPositions, this.localRotations, w, this.worldRotations);
    out.finite = w.every(Number.isFinite);
    out.worstMm = 0;
    const o = s * SET_STRIDE;
    const t = sets.targets;
    this.effectors.forEach((b, e) => {
      const d = Math.hypot(
        w[3 * b]! - t[o + 3 * e]!,
        w[3 * b + 1]! - t[o + 3 * e + 1]!,
        w[3 * b + 2]! - t[o + 3 * e + 2]!,
      );
      out.errorsMm[e] = 1000 * d;
      // NaN compares false: a non-finite error becomes the worst
      if (!(d * 1000 <= out.worstMm)) out.worstMm = 1000 * d;
    });
    out.boneLengthChangeMm = 0;
    out.boneLengthChangeBone = -1;
    if (out.linkChangesMm.length !== rest.links.length) out.linkChangesMm = new Float64Array(rest.links.length);
    for (let k = 0; k < rest.links.length; k++) {
      const c = rest.links[k]!;
      const change = 1000 * Math.abs(distanceBetween(w, c, rest.parents[c]!) - rest.linkLengths[k]!);
      out.linkChangesMm[k] = change;
      if (!(change <= out.boneLengthChangeMm)) {
        out.boneLengthChangeMm = change;
        out.boneLengthChangeBone = c;
      }
    }
    return out;
  }
}

/** Limbs stretched beyond this share of their reach count as near full extension (see {@link BipedAccuracy}). */
export const NEAR_EXTENSION = 0.98;

/** Figures of a solver over a table of sets (issue 19's table row). */
export interface BipedAccuracy {
  /** Sets measured. */
  sets: number;
  /** Reachable sets measured. */
  reachableSets: number;
  /** Far sets measured. */
  farSets: number;
  /** Share of reachable sets with every effector within 1 mm. */
  reachableWithin1mmShare: number;
  /** Reachable sets with no limb beyond {@link NEAR_EXTENSION} of its reach. */
  innerSets: number;
  /** Share of those with every effector within 1 mm. */
  innerWithin1mmShare: number;
  /** Mean over reachable sets of the worst effector's error, mm. */
  reachableWorstMeanMm: number;
  /** Largest worst-effector error over reachable sets, mm. */
  reachableWorstMaxMm: number;
  /** Mean over far sets of the worst effector's error, mm. */
  farWorstMeanMm: number;
  /** Share of far sets with every effector within 1 cm. */
  farWithin1cmShare: number;
  /** Mean over far sets of each effector's error (pelvis, left hand, right hand, left foot, right foot), mm. */
  farEffectorMeanMm: number[];
  /** Largest change of any parent–child distance over all sets, mm. */
  boneLengthChangeMaxMm: number;
  /** The same, % of the biped's height. */
  boneLengthChangePercentOfHeight: number;
  /** The link it happened on, "parent→child". */
  boneLengthChangeLink: string;
  /** Largest change per link over all sets, mm, for links that changed by more than 1e-3 mm ("parent→child"). */
  boneLengthChangeByLinkMm: Record<string, number>;
  /** Sets whose solved pose had a NaN or infinite position. */
  nonFiniteSets: number;
}

/**
 * Runs `solve(s)` for sets `0…count−1` (all by default) and measures each with `probe` right after: the issue-19
 * figures of one solver.
 */
export function measureAccuracy(
  sets: BipedTargetSets,
  probe: SetProbe,
  solve: (s: number) => void,
  count = sets.count,
): BipedAccuracy {
  const m = new SetMeasurement();
  let reach = 0;
  let reachOk = 0;
  let reachSum = 0;
  let reachMax = 0;
  let inner = 0;
  let innerOk = 0;
  let far = 0;
  let farOk = 0;
  let farSum = 0;
  const farEffector = new Float64Array(EFFECTOR_BONES.length);
  let lengthMax = 0;
  let lengthBone = -1;
  const perLink = new Float64Array(probe.rest.links.length);
  let nonFinite = 0;
  for (let s = 0; s < count; s++) {
    solve(s);
    probe.measure(sets, s, m);
    if (!m.finite) nonFinite++;
    for (let k = 0; k < perLink.length; k++)
      if (!(m.linkChangesMm[k]! <= perLink[k]!)) perLink[k] = m.linkChangesMm[k]!;
    if (!(m.boneLengthChangeMm <= lengthMax)) {
      lengthMax = m.boneLengthChangeMm;
      lengthBone = m.boneLengthChangeBone;
    }
    if (sets.far[s] === 1) {
      far++;
      farSum += m.worstMm;
      if (m.worstMm <= 10) farOk++;
      for (let e = 0; e < farEffector.length; e++) farEffector[e]! += m.errorsMm[e]!;
    } else {
      reach++;
      reachSum += m.worstMm;
      if (!(m.worstMm <= reachMax)) reachMax = m.worstMm;
      if (m.worstMm <= 1) reachOk++;
      if (sets.extension[s]! <= NEAR_EXTENSION) {
        inner++;
        if (m.worstMm <= 1) innerOk++;
      }
    }
  }
  const rest = probe.rest;
  const linkName = (c: number) => `${rest.names[rest.parents[c]!]}→${rest.names[c]}`;
  const byLink: Record<string, number> = {};
  perLink.forEach((v, k) => {
    if (!(v <= 1e-3)) byLink[linkName(rest.links[k]!)] = v;
  });
  return {
    sets: count,
    reachableSets: reach,
    farSets: far,
    reachableWithin1mmShare: reach > 0 ? reachOk / reach : Number.NaN,
    innerSets: inner,
    innerWithin1mmShare: inner > 0 ? innerOk / inner : Number.NaN,
    reachableWorstMeanMm: reach > 0 ? reachSum / reach : Number.NaN,
    reachableWorstMaxMm: reachMax,
    farWorstMeanMm: far > 0 ? farSum / far : Number.NaN,
    farWithin1cmShare: far > 0 ? farOk / far : Number.NaN,
    farEffectorMeanMm: Array.from(farEffector, (v) => (far > 0 ? v / far : Number.NaN)),
    boneLengthChangeMaxMm: lengthMax,
    boneLengthChangePercentOfHeight: (100 * lengthMax) / (1000 * BIPED_HEIGHT_M),
    boneLengthChangeLink: lengthBone < 0 ? "" : linkName(lengthBone),
    boneLengthChangeByLinkMm: byLink,
    nonFiniteSets: nonFinite,
  };
}
