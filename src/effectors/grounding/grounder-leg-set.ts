import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { BabylonRig } from "../../babylon/babylon-rig.js";
import { isAncestorBone } from "../../babylon/bone-chain.js";
import type { CCDIK, FABRIK } from "../../babylon/chain-ik.js";
import type { LimbIK } from "../../babylon/limb-ik.js";
import { worldDeltaToComponent } from "../../babylon/world-delta.js";
import { NumberRef } from "../../math/number-ref.js";
import { Quat, multiply, slerpByRef } from "../../math/quat.js";
import type { Grounding } from "./grounding.js";
import { readLegInputs } from "./leg-reader.js";

/** A leg a grounder drives: a LimbIK, or a CCDIK or FABRIK chain; its last bone is the foot. */
export type GrounderLeg = LimbIK | CCDIK | FABRIK;

const tq = new Quat();
const tq2 = new Quat();
const IDENTITY = new Quat();
const weightRef = new NumberRef();

/**
 * Why `legs` cannot be grounded under `ancestor` on `skeleton` (another skeleton, not hanging from it, already
 * grounded), added to `problems`.
 */
export function legProblems(
  legs: readonly GrounderLeg[],
  ancestor: Bone,
  skeleton: Skeleton,
  problems: string[],
): void {
  for (const leg of legs) {
    if (leg.skeleton !== skeleton) problems.push(`leg ${leg.bones[0]!.name} is not on the pelvis's skeleton`);
    else if (leg.bones[0] !== ancestor && !isAncestorBone(ancestor, leg.bones[0]!))
      problems.push(`leg ${leg.bones[0]!.name} does not hang from ${ancestor.name}`);
    if (leg._legDriver !== null) problems.push(`leg ${leg.bones[0]!.name} is already grounded`);
  }
}

/**
 * One {@link Grounding} solver and the legs it grounds (GrounderIK's legs, GrounderQuadruped's hind legs or
 * forelegs): reads each leg's hip, foot and reach from the grounder's rig, aims a leg at its foot's ground for its
 * solve and turns its foot to the ground after it.
 */
export class GrounderLegSet {
  /** The legs, in the solver's order (`solver.legs[i]` is `legs[i]`'s foot). */
  readonly legs: readonly GrounderLeg[];
  /** The grounding solver of these legs. */
  readonly solver: Grounding;
  /** This frame's weight (a field: a double handed to a call may be boxed, ARCHITECTURE.md). */
  weight = 0;
  /** Per leg, the grounder's rig ids of its bones, root first (the foot last). */
  private readonly legIds: readonly Int32Array[];
  /** Per leg, its foot's id in the leg's own rig. */
  private readonly footIds: Int32Array;
  /** Per leg, its ikPositionWeight as set, kept over its solve. */
  private readonly ownWeights: Float64Array;
  /** Per leg, the foot's component-space rotation before the solve. */
  private readonly footRotations: Quat[];

  /** `legs`, whose bones `rig` holds, grounded by `solver`. */
  constructor(rig: BabylonRig, legs: readonly GrounderLeg[], solver: Grounding) {
    this.legs = [...legs];
    this.solver = solver;
    this.legIds = legs.map((l) => Int32Array.from(l.bones, (b) => rig.idOf(b)));
    this.footIds = Int32Array.from(legs, (l) => l.rig.idOf(l.bones[l.bones.length - 1]!));
    this.ownWeights = new Float64Array(legs.length);
    this.footRotations = legs.map(() => new Quat());
  }

  /** Each leg's hip, foot and reach from `rig`'s pose (the animation's) into the solver. */
  readInputs(rig: BabylonRig): void {
    const legs = this.solver.legs;
    for (let i = 0; i < this.legIds.length; i++) readLegInputs(rig, this.legIds[i]!, legs[i]!);
  }

  /** Aims leg `i` at its foot's ground for this solve at {@link weight}, keeping its foot's rotation before it. */
  beforeSolve(i: number): void {
    const w = this.weight;
    const l = this.legs[i]!;
    const s = l.solver;
    this.ownWeights[i] = s.ikPositionWeight;
    l.rig.worldToComponentPoint(this.solver.legs[i]!.ikPosition, s.ikPosition);
    s.ikPositionWeight = w;
    l.rig.getRotation(this.footIds[i]!, this.footRotations[i]!);
  }

  /** Gives leg `i` its weight back and turns its foot to the ground by {@link weight}. */
  afterSolve(i: number): void {
    const w = this.weight;
    const l = this.legs[i]!;
    l.solver.ikPositionWeight = this.ownWeights[i]!;
    const rig = l.rig;
    const foot = this.footIds[i]!;
    weightRef.value = w;
    slerpByRef(tq, IDENTITY, this.solver.legs[i]!.rotationOffset, weightRef);
    worldDeltaToComponent(rig, tq, tq);
    multiply(tq, tq, this.footRotations[i]!);
    slerpByRef(tq, rig.getRotation(foot, tq2), tq, weightRef);
    rig.setRotation(foot, tq);
  }
}
