/**
 * Checks of biped references against their skeleton ({@link validateBipedReferences}), and the one repair
 * detection makes to a spine ({@link dropZeroLengthSpineBones}). Both serve detected and hand-given references.
 * @module
 */
import { BIPED_LIMB_KEYS } from "../../solver/biped-bones.js";
import type { DetectedBipedReferences, ReferenceValidation } from "./detect-references.js";
import { leftBehindWarning } from "./left-behind.js";
import { type RigBoneInfo, RigSkeleton, skeletonInputProblems, vcross, vdot, vlen, vsub } from "./rig-skeleton.js";

/** Relative tolerance (× character size) under which two bones are at the same position. */
const SAME_POSITION = 1e-6;
/** A limb bent less than this (degrees) at its middle joint is reported as straight. */
const STRAIGHT_DEGREES = 0.5;

/**
 * Leaves out of `refs.spine` each spine bone at the same position as the bone below it in the spine (the
 * pelvis or the previous spine bone, within 1e-6 × the character's size), as VRM 0.x rigs place their first
 * spine bone on the pelvis; the last spine bone (the arms' branch) is kept, so a pair ending with it drops
 * the lower one. Such a bone has no length for the spine to bend, and the IK leaves its rotation to the
 * animation. Returns one warning per bone dropped; a spine left with a zero-length bone (the last one on the
 * pelvis) stays a problem for {@link validateBipedReferences}.
 */
export function dropZeroLengthSpineBones(
  bones: readonly RigBoneInfo[] | RigSkeleton,
  refs: DetectedBipedReferences,
): string[] {
  const rig = bones instanceof RigSkeleton ? bones : new RigSkeleton(bones);
  const valid = (b: number): boolean => Number.isInteger(b) && b >= 0 && b < rig.bones.length;
  const warnings: string[] = [];
  if (!valid(refs.pelvis) || refs.spine.length < 2 || !refs.spine.every(valid)) return warnings;
  const tolerance = SAME_POSITION * rig.extent;
  const chain = [refs.pelvis, ...refs.spine];
  for (let i = 1; i < chain.length; ) {
    const below = chain[i - 1]!;
    const bone = chain[i]!;
    const last = i === chain.length - 1;
    if (!rig.isAncestor(below, bone) || rig.distance(below, bone) > tolerance || (last && i === 1)) {
      i++;
      continue;
    }
    // drop the spine bone of the pair that is neither the pelvis nor the arms' branch
    const drop = last ? i - 1 : i;
    const kept = chain[drop === i ? i - 1 : i]!;
    warnings.push(
      `zero-length bone in the spine: ${rig.name(chain[drop]!)} is at the same position as ${rig.name(kept)}; ` +
        `it was left out of the spine (the IK leaves its rotation to the animation).`,
    );
    chain.splice(drop, 1);
    if (drop < i) i = Math.max(1, i - 1);
  }
  if (chain.length - 1 !== refs.spine.length) refs.spine = chain.slice(1);
  return warnings;
}

/** The references' bones as [label, bone] pairs, optional ones only when set. */
function labelled(refs: DetectedBipedReferences): [string, number][] {
  const out: [string, number][] = [["pelvis", refs.pelvis]];
  refs.spine.forEach((b, i) => out.push([`spine[${i}]`, b]));
  if (refs.head >= 0) out.push(["head", refs.head]);
  for (const key of BIPED_LIMB_KEYS) out.push([key, refs[key]]);
  if (refs.leftClavicle >= 0) out.push(["leftClavicle", refs.leftClavicle]);
  if (refs.rightClavicle >= 0) out.push(["rightClavicle", refs.rightClavicle]);
  refs.eyes.forEach((b, i) => out.push([`eyes[${i}]`, b]));
  return out;
}

/**
 * Checks biped references against their skeleton. Problems: missing or out-of-range bones, a bone used
 * twice, a limb that is not a parent chain (upper above middle above end; twist bones between are
 * fine), a spine that is not a parent chain from the pelvis to a common ancestor of both upper arms,
 * thighs not below the pelvis, a clavicle not between the spine and its upper arm, and zero-length bones
 * (consecutive limb or spine bones at the same position, within 1e-6 × the character's size).
 * Warnings: a limb straight in this pose (bend direction unknown), a head not above the spine or inside
 * an arm, eyes not below the head, bones that deform outside the pelvis's hierarchy (the IK cannot move them).
 */
export function validateBipedReferences(
  bones: readonly RigBoneInfo[],
  refs: DetectedBipedReferences,
): ReferenceValidation {
  const problems = skeletonInputProblems(bones);
  const warnings: string[] = [];
  if (problems.length > 0) return { problems, warnings };
  const rig = new RigSkeleton(bones);
  const valid = (b: number): boolean => Number.isInteger(b) && b >= 0 && b < bones.length;
  const all = labelled(refs);

  for (const [label, b] of all) {
    if (valid(b)) continue;
    problems.push(b === -1 ? `${label} is missing` : `${label} is not a bone of the skeleton (index ${b})`);
  }
  if (refs.spine.length === 0) {
    problems.push("there are no spine bones (at least one is needed between the pelvis and the arms)");
  }
  for (const [key, label] of [
    ["head", "head"],
    ["leftClavicle", "leftClavicle"],
    ["rightClavicle", "rightClavicle"],
  ] as const) {
    if (refs[key] !== -1 && !valid(refs[key])) {
      problems.push(`${label} is not a bone of the skeleton (index ${refs[key]})`);
    }
  }
  const seen = new Map<number, string>();
  for (const [label, b] of all) {
    if (!valid(b)) continue;
    const first = seen.get(b);
    if (first !== undefined) problems.push(`${label} and ${first} are the same bone (${rig.name(b)})`);
    else seen.set(b, label);
  }
  if (problems.length > 0) return { problems, warnings };

  const name = (b: number): string => rig.name(b);
  const tolerance = SAME_POSITION * rig.extent;
  const zeroLength = (a: number, b: number, what: string): void => {
    if (rig.distance(a, b) > tolerance) return;
    problems.push(`zero-length bone in the ${what}: ${name(a)} and ${name(b)} are at the same position`);
  };

  // spine
  const spine = [refs.pelvis, ...refs.spine];
  for (let i = 1; i < spine.length; i++) {
    if (!rig.isAncestor(spine[i - 1]!, spine[i]!)) {
      problems.push(
        `the spine is not a parent chain: ${name(spine[i]!)} (spine[${i - 1}]) is not below ${name(spine[i - 1]!)}`,
      );
    } else {
      zeroLength(spine[i - 1]!, spine[i]!, "spine");
    }
  }
  const top = refs.spine[refs.spine.length - 1]!;
  for (const [label, b] of [
    ["leftUpperArm", refs.leftUpperArm],
    ["rightUpperArm", refs.rightUpperArm],
  ] as const) {
    if (rig.isAncestor(top, b)) continue;
    problems.push(
      `the spine does not lead to the arms: ${label} ${name(b)} is not below the last spine bone ${name(top)}`,
    );
  }
  for (const [label, b] of [
    ["leftThigh", refs.leftThigh],
    ["rightThigh", refs.rightThigh],
  ] as const) {
    if (!rig.isAncestor(refs.pelvis, b)) {
      problems.push(`${label} ${name(b)} is not below the pelvis ${name(refs.pelvis)}`);
    }
  }

  // limbs
  const limbs: [string, number, number, number][] = [
    ["left arm", refs.leftUpperArm, refs.leftForearm, refs.leftHand],
    ["right arm", refs.rightUpperArm, refs.rightForearm, refs.rightHand],
    ["left leg", refs.leftThigh, refs.leftCalf, refs.leftFoot],
    ["right leg", refs.rightThigh, refs.rightCalf, refs.rightFoot],
  ];
  for (const [label, a, b, c] of limbs) {
    let chain = true;
    for (const [x, y] of [
      [a, b],
      [b, c],
    ] as const) {
      if (!rig.isAncestor(x, y)) {
        problems.push(`the ${label} is not a parent chain: ${name(y)} is not below ${name(x)}`);
        chain = false;
      } else {
        zeroLength(x, y, label);
      }
    }
    if (!chain) continue;
    const u = vsub(rig.pos(b), rig.pos(a));
    const v = vsub(rig.pos(c), rig.pos(b));
    if (vlen(u) > tolerance && vlen(v) > tolerance) {
      const bend = (Math.atan2(vlen(vcross(u, v)), vdot(u, v)) * 180) / Math.PI;
      if (bend < STRAIGHT_DEGREES) {
        warnings.push(
          `the ${label} ${name(a)} → ${name(b)} → ${name(c)} is straight in this pose (bent ${bend.toFixed(2)}°): ` +
            `the solver cannot read which way the ${label.endsWith("arm") ? "elbow" : "knee"} bends and will ` +
            `assume it; set a bend goal if it bends the wrong way`,
        );
      }
    }
  }

  // clavicles, head, eyes
  for (const [label, clavicle, upper] of [
    ["leftClavicle", refs.leftClavicle, refs.leftUpperArm],
    ["rightClavicle", refs.rightClavicle, refs.rightUpperArm],
  ] as const) {
    if (clavicle < 0) continue;
    if (!rig.isAncestor(clavicle, upper) || !rig.isAncestor(top, clavicle)) {
      problems.push(
        `${label} ${name(clavicle)} is not between the last spine bone ${name(top)} and the upper arm ${name(upper)}`,
      );
    }
  }
  if (refs.head >= 0) {
    const armTops = [refs.leftUpperArm, refs.rightUpperArm, refs.leftClavicle, refs.rightClavicle];
    const inArm = armTops.some((a) => a >= 0 && rig.isAncestorOrSelf(a, refs.head));
    if (!rig.isAncestor(top, refs.head) || inArm) {
      warnings.push(`the head ${name(refs.head)} is not on the spine above ${name(top)}`);
    }
  }
  for (const eye of refs.eyes) {
    if (refs.head < 0 || !rig.isAncestor(refs.head, eye)) warnings.push(`the eye ${name(eye)} is not below the head`);
  }
  const leftBehind = leftBehindWarning(rig, refs.pelvis);
  if (leftBehind !== null) warnings.push(leftBehind);
  return { problems, warnings };
}
