import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { BabylonRig } from "./babylon-rig.js";
import { BipedMapping } from "../mapping/biped-mapping.js";
import { type BipedReferences, type BoneReference, referencedBones } from "./biped-references.js";
import type { BipedBones } from "../solver/biped-bones.js";
import { FBBIKError } from "../solver/errors.js";
import type { SolverWarning } from "../solver/full-body.js";
import { estimateForward, toeBones } from "./character-forward.js";
import { BabylonBipedSolver } from "./fbbik-solver.js";
import type { FullBodyBipedIKOptions } from "./full-body-biped-ik.js";

/** A solver built on a Babylon skeleton: its rig, the solver and its mapping. */
export interface BuiltBipedSolver {
  rig: BabylonRig;
  inner: BabylonBipedSolver;
  mapping: BipedMapping;
  rootNode: Bone;
}

/** The root node given by name or bone, checked against the references; null to let the solver detect it. */
export function resolveRootNode(
  skeleton: Skeleton,
  references: BipedReferences,
  ref: BoneReference | undefined,
): Bone | null {
  if (ref === undefined) return null;
  const named = typeof ref === "string" ? skeleton.bones.filter((b) => b.name === ref) : [];
  if (named.length > 1) {
    const where =
      named
        .slice(0, 4)
        .map((b) => `one below ${b.getParent()?.name ?? "nothing (a root bone)"}`)
        .join(", ") + (named.length > 4 ? ", …" : "");
    throw new FBBIKError([
      `rootNode: ${named.length} bones are named "${String(ref)}" in skeleton ${skeleton.name} (${where}); pass ` +
        `the Bone itself`,
    ]);
  }
  const rootNode = typeof ref === "string" ? (named[0] ?? null) : ref;
  if (rootNode === null)
    throw new FBBIKError([`rootNode: no bone named "${String(ref)}" in skeleton ${skeleton.name}`]);
  if (rootNode !== references.pelvis && !references.spine.includes(rootNode)) {
    throw new FBBIKError([
      `rootNode ${rootNode.name} has to be the pelvis or one of the spine bones (` +
        `${[references.pelvis, ...references.spine].map((b) => b.name).join(", ")})`,
    ]);
  }
  return rootNode;
}

/** Appended to a straight-limb warning: the T-pose it saw is most often the file's, the clip not applied yet. */
const CLIP_NOT_APPLIED =
  " With a clip playing, a clip started just before create() has not posed the bones yet: call " +
  "group.goToFrame(group.from) after group.start(), then create the IK.";

/**
 * Builds the rig over the referenced bones (and the toes, for the character's forward), the biped solver
 * on it (root node detected when null) and its mapping. Warnings go to `onWarning`; throws FBBIKError when
 * the rig cannot work (e.g. zero-length bones).
 */
export function buildBipedSolver(
  skeleton: Skeleton,
  references: BipedReferences,
  rootNode: Bone | null,
  options: FullBodyBipedIKOptions,
  setupWarnings: readonly string[],
  onWarning: (w: SolverWarning) => void,
): BuiltBipedSolver {
  const toes = toeBones(references);
  const rig = new BabylonRig(skeleton, [...referencedBones(references), ...toes.filter((t): t is Bone => t !== null)], {
    characterRoot: references.root ?? undefined,
    mesh: options.mesh ?? null,
  });
  const id = (b: Bone): number => rig.idOf(b);
  const bones: BipedBones = {
    root: 0,
    pelvis: id(references.pelvis),
    spine: references.spine.map(id),
    head: references.head !== null ? id(references.head) : -1,
    leftThigh: id(references.leftThigh),
    leftCalf: id(references.leftCalf),
    leftFoot: id(references.leftFoot),
    rightThigh: id(references.rightThigh),
    rightCalf: id(references.rightCalf),
    rightFoot: id(references.rightFoot),
    leftUpperArm: id(references.leftUpperArm),
    leftForearm: id(references.leftForearm),
    leftHand: id(references.leftHand),
    rightUpperArm: id(references.rightUpperArm),
    rightForearm: id(references.rightForearm),
    rightHand: id(references.rightHand),
  };
  const inner = new BabylonBipedSolver(rig);
  // the engine-neutral solver cannot know the usual Babylon cause of a straight limb: a clip not applied yet
  inner.onWarning.add((w) =>
    onWarning(w.cause.startsWith("straight-limb") ? { cause: w.cause, message: w.message + CLIP_NOT_APPLIED } : w),
  );
  // the solver words its own straight-limb warning (with the bend side it chose): keep that one
  for (const message of setupWarnings)
    if (!/ is straight in this pose/.test(message)) inner.warn(`setup:${message}`, message);
  inner.forward = estimateForward(rig, options.forward ?? null, toes, bones);
  // without an explicit root node the solver detects it as FinalIK does
  inner.setToReferences(bones, rootNode !== null ? id(rootNode) : undefined);
  const mapping = new BipedMapping(inner, {
    leftClavicle: references.leftClavicle !== null ? id(references.leftClavicle) : -1,
    rightClavicle: references.rightClavicle !== null ? id(references.rightClavicle) : -1,
  });
  inner.setMapping(mapping);
  return { rig, inner, mapping, rootNode: rig.bones[inner.rootNode]! };
}
