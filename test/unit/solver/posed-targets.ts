/**
 * Biped solvers with their mapping on the synthetic biped, and targets reachable by construction: the bones
 * of a copy of the biped posed at random (spine, clavicles, limbs turned, pelvis moved).
 */
import { BipedMapping } from "../../../src/mapping/biped-mapping.js";
import type { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import { Quat, fromAxisAngle, multiply } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import type { IKEffector } from "../../../src/solver/effector.js";
import { IKSolverFullBodyBiped } from "../../../src/solver/full-body-biped.js";
import type { SolverWarning } from "../../../src/solver/full-body.js";
import type { Random } from "../../helpers/random.js";
import { type SyntheticBiped, type SyntheticBipedOptions, syntheticBiped } from "../../helpers/synthetic-biped.js";

/** A mapped biped solver, its rest pose and the five effectors with the bones they drive. */
export interface MappedBiped {
  b: SyntheticBiped;
  solver: IKSolverFullBodyBiped;
  rest: HierarchyPose;
  /** Body (its root-node bone), hands, feet. */
  effectors: { effector: IKEffector; bone: number }[];
  warnings: SolverWarning[];
}

/** Builds the biped solver with its mapping (clavicles included). */
export function mappedBiped(options: SyntheticBipedOptions = { pose: "A" }): MappedBiped {
  const b = syntheticBiped(options);
  const solver = new IKSolverFullBodyBiped(b.pose);
  const warnings: SolverWarning[] = [];
  solver.onWarning.add((w) => warnings.push(w));
  solver.setToReferences(b.bones);
  const clavicle = (s: string) => b.pose.indexOf(`Clavicle.${s}`);
  solver.setMapping(new BipedMapping(solver, { leftClavicle: clavicle("L"), rightClavicle: clavicle("R") }));
  const bb = b.bones;
  const effectors = [
    { effector: solver.bodyEffector, bone: solver.chains[0]!.nodes[0]!.bone },
    { effector: solver.leftHandEffector, bone: bb.leftHand },
    { effector: solver.rightHandEffector, bone: bb.rightHand },
    { effector: solver.leftFootEffector, bone: bb.leftFoot },
    { effector: solver.rightFootEffector, bone: bb.rightFoot },
  ];
  return { b, solver, rest: b.pose.clone(), effectors, warnings };
}

const axis = new Vec3();
const q = new Quat();

/** Poses `target` (a copy of the rest pose) at random: turns of up to ±`limbAngle`/2 rad on limbs. */
export function randomPose(m: MappedBiped, target: HierarchyPose, r: Random, limbAngle = 1.6): void {
  const bb = m.b.bones;
  target.copyLocalsFrom(m.rest);
  const spine = [bb.spine[0]!, bb.spine[1]!];
  const turned = [
    ...spine,
    bb.leftThigh,
    bb.leftCalf,
    bb.rightThigh,
    bb.rightCalf,
    bb.leftUpperArm,
    bb.leftForearm,
    bb.rightUpperArm,
    bb.rightForearm,
    m.rest.indexOf("Clavicle.L"),
    m.rest.indexOf("Clavicle.R"),
  ];
  for (const id of turned) {
    axis.x = r.next() - 0.5;
    axis.y = r.next() - 0.5;
    axis.z = r.next() - 0.5;
    const l = Math.hypot(axis.x, axis.y, axis.z);
    axis.x /= l;
    axis.y /= l;
    axis.z /= l;
    fromAxisAngle(q, axis, (r.next() - 0.5) * (spine.includes(id) ? 0.5 : limbAngle));
    target.setLocalRotation(id, multiply(q, target.localRotations[id]!, q));
  }
  const h = m.b.height;
  const lp = target.localPositions[bb.pelvis]!;
  target.setLocalPosition(
    bb.pelvis,
    new Vec3(lp.x + (r.next() - 0.5) * 0.1 * h, lp.y + (r.next() - 0.5) * 0.1 * h, lp.z + (r.next() - 0.5) * 0.1 * h),
  );
}

/** Sets the five effectors onto `target`'s bones at weight 1, the solver's pose back to rest. */
export function aimAt(m: MappedBiped, target: HierarchyPose): void {
  m.b.pose.copyLocalsFrom(m.rest);
  for (const { effector, bone } of m.effectors) {
    target.getPosition(bone, effector.position);
    effector.positionWeight = 1;
  }
}

const p = new Vec3();

/** The largest distance from an effector's bone to its target, after a solve. */
export function worstEffectorError(m: MappedBiped): number {
  let worst = 0;
  for (const { effector, bone } of m.effectors) {
    m.b.pose.getPosition(bone, p);
    const e = effector.position;
    worst = Math.max(worst, Math.hypot(p.x - e.x, p.y - e.y, p.z - e.z));
  }
  return worst;
}

const a = new Vec3();
const c = new Vec3();

/** The largest change of any parent–child distance (pelvis to its parent excluded: the root moves). */
export function worstLengthChange(m: MappedBiped): number {
  const pose = m.b.pose;
  let worst = 0;
  for (let i = 0; i < pose.count; i++) {
    const parent = pose.parents[i]!;
    if (parent < 0 || i === m.b.bones.pelvis) continue;
    const now = Math.hypot(...diff(pose, i, parent));
    const before = Math.hypot(...diff(m.rest, i, parent));
    worst = Math.max(worst, Math.abs(now - before));
  }
  return worst;
}

function diff(pose: HierarchyPose, i: number, j: number): [number, number, number] {
  pose.getPosition(i, a);
  pose.getPosition(j, c);
  return [a.x - c.x, a.y - c.y, a.z - c.z];
}
