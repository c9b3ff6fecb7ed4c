/** Helpers shared by the solver tests: build a biped solver, read its output, measure it. */
import type { ReadonlyVec3 } from "../../src/math/vec3.js";
import { Vec3 } from "../../src/math/vec3.js";
import type { FBIKChain } from "../../src/solver/chain.js";
import { IKSolverFullBodyBiped } from "../../src/solver/full-body-biped.js";
import type { SolverWarning } from "../../src/solver/full-body.js";
import { type SyntheticBiped, type SyntheticBipedOptions, syntheticBiped } from "./synthetic-biped.js";
import { dist } from "./vectors.js";

/** A solver on a fresh synthetic biped, with the warnings it raised. */
export interface Harness {
  b: SyntheticBiped;
  solver: IKSolverFullBodyBiped;
  warnings: SolverWarning[];
}

/** Builds a biped solver on `variant` (or on a new synthetic biped with `options`). */
export function harness(variant?: SyntheticBiped | SyntheticBipedOptions): Harness {
  const b =
    variant !== undefined && "pose" in variant && typeof variant.pose === "object"
      ? (variant as SyntheticBiped)
      : syntheticBiped(variant as SyntheticBipedOptions | undefined);
  const solver = new IKSolverFullBodyBiped(b.pose);
  const warnings: SolverWarning[] = [];
  solver.onWarning.add((w) => warnings.push(w));
  solver.setToReferences(b.bones);
  return { b, solver, warnings };
}

/** Copies of every node's solver position, chain by chain. */
export function nodePositions(solver: IKSolverFullBodyBiped): Vec3[] {
  const out: Vec3[] = [];
  for (const c of solver.chains)
    for (const n of c.nodes) out.push(new Vec3(n.solverPosition.x, n.solverPosition.y, n.solverPosition.z));
  return out;
}

/** Copies of every node's animated bone position, chain by chain. */
export function bonePositions(solver: IKSolverFullBodyBiped): Vec3[] {
  const out: Vec3[] = [];
  for (const c of solver.chains)
    for (const n of c.nodes) out.push(new Vec3(n.bonePosition.x, n.bonePosition.y, n.bonePosition.z));
  return out;
}

/**
 * Where the limb's real bones put its end when laid along the solved node directions with their own
 * lengths (what the mapping does): differs from the end node when the target is out of reach.
 */
export function limbEnd(chain: FBIKChain): Vec3 {
  const [n0, n1, n2] = chain.nodes as [(typeof chain.nodes)[0], (typeof chain.nodes)[0], (typeof chain.nodes)[0]];
  const p0 = n0!.solverPosition;
  const p1 = n1!.solverPosition;
  const p2 = n2!.solverPosition;
  const d1 = dist(p0, p1);
  const d2 = dist(p1, p2);
  const e1 = new Vec3(
    p0.x + ((p1.x - p0.x) / d1) * n0!.length,
    p0.y + ((p1.y - p0.y) / d1) * n0!.length,
    p0.z + ((p1.z - p0.z) / d1) * n0!.length,
  );
  return new Vec3(
    e1.x + ((p2.x - p1.x) / d2) * n1!.length,
    e1.y + ((p2.y - p1.y) / d2) * n1!.length,
    e1.z + ((p2.z - p1.z) / d2) * n1!.length,
  );
}

/** Largest relative bone-length error of one chain's nodes (|node_i − node_i+1| vs length_i). */
export function chainBoneLengthError(chain: FBIKChain): number {
  let worst = 0;
  const nodes = chain.nodes;
  for (let i = 0; i < nodes.length - 1; i++) {
    const l = nodes[i]!.length;
    worst = Math.max(worst, Math.abs(dist(nodes[i]!.solverPosition, nodes[i + 1]!.solverPosition) - l) / l);
  }
  return worst;
}

/** Largest relative bone-length error over the four limbs' nodes. */
export function maxBoneLengthError(solver: IKSolverFullBodyBiped): number {
  let worst = 0;
  for (let c = 1; c < 5; c++) worst = Math.max(worst, chainBoneLengthError(solver.chains[c]!));
  return worst;
}

/** Largest relative root-length error (root node to each limb's first node vs rootLength). */
export function maxRootLengthError(solver: IKSolverFullBodyBiped): number {
  const root = solver.chains[0]!.nodes[0]!.solverPosition;
  let worst = 0;
  for (let c = 1; c < 5; c++) {
    const chain = solver.chains[c]!;
    worst = Math.max(worst, Math.abs(dist(root, chain.nodes[0]!.solverPosition) - chain.rootLength) / chain.rootLength);
  }
  return worst;
}

/** Sets every effector's weights to zero. */
export function clearWeights(solver: IKSolverFullBodyBiped): void {
  for (const e of solver.effectors) {
    e.positionWeight = 0;
    e.rotationWeight = 0;
  }
}

/** Point at `fraction` of the way from a to b. */
export function lerpPoint(a: ReadonlyVec3, b: ReadonlyVec3, t: number): Vec3 {
  return new Vec3(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
}
