import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { BIPED_LIMB_KEYS } from "../solver/biped-bones.js";
import { FBBIKError } from "../solver/errors.js";
import { BabylonRig } from "./babylon-rig.js";
import { type OptionKinds, checkOptions, warnUnknownOptions } from "./option-check.js";
import { deformingBones } from "./deforming-bones.js";
import {
  type DetectedBipedReferences,
  type RigBoneInfo,
  detectBipedReferences as detectFromInfo,
  detectClavicles,
  detectTrunk,
  dropZeroLengthSpineBones,
  validateBipedReferences as validateInfo,
} from "../mapping/detection/detect-references.js";

/**
 * The bones FullBodyBipedIK is built on (FinalIK's BipedReferences), as Babylon bones.
 */
export interface BipedReferences {
  /** The character's root node: its up and forward are the character's (default: the model's top node). */
  root: TransformNode | null;
  /** Pelvis (hips). */
  pelvis: Bone;
  /** Spine bones from the pelvis up to the bone the arms hang from (pelvis excluded), 1..n. */
  spine: Bone[];
  /** Head, or null. */
  head: Bone | null;
  /** Eyes (optional; not driven by FullBodyBipedIK). */
  eyes: Bone[];
  /** Left upper leg. */
  leftThigh: Bone;
  /** Left lower leg. */
  leftCalf: Bone;
  /** Left foot. */
  leftFoot: Bone;
  /** Right upper leg. */
  rightThigh: Bone;
  /** Right lower leg. */
  rightCalf: Bone;
  /** Right foot. */
  rightFoot: Bone;
  /** Left upper arm. */
  leftUpperArm: Bone;
  /** Left forearm. */
  leftForearm: Bone;
  /** Left hand. */
  leftHand: Bone;
  /** Right upper arm. */
  rightUpperArm: Bone;
  /** Right forearm. */
  rightForearm: Bone;
  /** Right hand. */
  rightHand: Bone;
  /** Left clavicle (the upper arm's parent unless that is a spine bone), or null. */
  leftClavicle: Bone | null;
  /** Right clavicle, or null. */
  rightClavicle: Bone | null;
}

/** A bone given by object or by name. */
export type BoneReference = Bone | string;

/** References a user passes to override detection; anything left out is detected. */
export interface BipedReferencesInput {
  /** The character's root node: its up and forward are the character's (default: the model's top node). */
  root?: TransformNode | null;
  /** The pelvis (hips) bone. */
  pelvis?: BoneReference;
  /** The spine bones from the pelvis up to the bone the arms hang from (pelvis excluded). */
  spine?: BoneReference[];
  /** The head bone (null: none). */
  head?: BoneReference | null;
  /** The eye bones. */
  eyes?: BoneReference[];
  /** The left thigh (upper leg). */
  leftThigh?: BoneReference;
  /** The left calf (lower leg). */
  leftCalf?: BoneReference;
  /** The left foot. */
  leftFoot?: BoneReference;
  /** The right thigh (upper leg). */
  rightThigh?: BoneReference;
  /** The right calf (lower leg). */
  rightCalf?: BoneReference;
  /** The right foot. */
  rightFoot?: BoneReference;
  /** The left upper arm. */
  leftUpperArm?: BoneReference;
  /** The left forearm. */
  leftForearm?: BoneReference;
  /** The left hand. */
  leftHand?: BoneReference;
  /** The right upper arm. */
  rightUpperArm?: BoneReference;
  /** The right forearm. */
  rightForearm?: BoneReference;
  /** The right hand. */
  rightHand?: BoneReference;
  /** The left clavicle (shoulder) bone (null: none). */
  leftClavicle?: BoneReference | null;
  /** The right clavicle (shoulder) bone (null: none). */
  rightClavicle?: BoneReference | null;
}

/** The kinds of {@link BipedReferencesInput}, for the check at create of what takes references. */
export const BIPED_REFERENCES_INPUT_KINDS: OptionKinds<BipedReferencesInput> = {
  root: "object|null",
  pelvis: "object|string",
  spine: "array",
  head: "object|string|null",
  eyes: "array",
  leftThigh: "object|string",
  leftCalf: "object|string",
  leftFoot: "object|string",
  rightThigh: "object|string",
  rightCalf: "object|string",
  rightFoot: "object|string",
  leftUpperArm: "object|string",
  leftForearm: "object|string",
  leftHand: "object|string",
  rightUpperArm: "object|string",
  rightForearm: "object|string",
  rightHand: "object|string",
  leftClavicle: "object|string|null",
  rightClavicle: "object|string|null",
};

const LIMB_KEYS = BIPED_LIMB_KEYS;

/** The skeleton as detection sees it: joint bones only, parent-first, positions in component space. */
export interface SkeletonInfo {
  /** One entry per bone. */
  infos: RigBoneInfo[];
  /** The Babylon bone of each entry. */
  bones: Bone[];
  /**
   * The positions' frame is left-handed as the scene shows it: a left-handed scene with an unmirrored
   * parent space, or a right-handed scene with a mirrored one (what detection needs to tell left from right).
   */
  leftHanded: boolean;
}

/** Reads a skeleton's bones (names, parents, component-space positions of the current pose). */
export function readSkeletonInfo(skeleton: Skeleton): SkeletonInfo {
  const rig = new BabylonRig(skeleton, skeleton.bones);
  const bones: Bone[] = [];
  const indexOfId = new Map<number, number>();
  for (let id = 1; id < rig.count; id++) {
    const b = rig.bones[id];
    if (b === null || b === undefined) continue;
    indexOfId.set(id, bones.length);
    bones.push(b);
  }
  // the mesh is read only when detection asks (limbs named twice): it costs a quarter of a create
  let deforming: Set<Bone> | null | undefined;
  const deforms = (b: Bone): boolean | undefined => {
    deforming = deforming === undefined ? deformingBones(skeleton) : deforming;
    return deforming === null ? undefined : deforming.has(b);
  };
  const infos: RigBoneInfo[] = [];
  for (let id = 1; id < rig.count; id++) {
    const b = rig.bones[id];
    if (b === null || b === undefined) continue;
    // nearest ancestor that is a bone (non-joint nodes in between are skipped)
    let p = rig.parents[id]!;
    while (p > 0 && !indexOfId.has(p)) p = rig.parents[p]!;
    const pos = rig.positions[id]!;
    // the local rotation as Babylon holds it (the rig's own copy is normalised, a NaN one to identity)
    const node = rig.nodes[id];
    const q =
      node === null || node === undefined
        ? b.rotationQuaternion
        : (node.rotationQuaternion ??
          Quaternion.RotationYawPitchRoll(node.rotation.y, node.rotation.x, node.rotation.z));
    infos.push({
      name: b.name,
      parent: p > 0 ? indexOfId.get(p)! : -1,
      position: { x: pos.x, y: pos.y, z: pos.z },
      rotation: { x: q.x, y: q.y, z: q.z, w: q.w },
      get deforms() {
        return deforms(b);
      },
    });
  }
  return { infos, bones, leftHanded: !skeleton.getScene().useRightHandedSystem !== rig.mirrored };
}

/** The limb bones the trunk is found from (detection's pelvis is above the thighs, its spine leads to the arms). */
const TRUNK_ANCHORS = ["leftThigh", "rightThigh", "leftUpperArm", "rightUpperArm"] as const;

/**
 * Detects the biped references of `skeleton` by bone names (Mixamo, Unreal, Blender/Rigify, VRM, 3ds
 * Max Biped, HumanIK, Unity humanoid, DAZ Genesis, Character Creator, MakeHuman, Auto-Rig Pro, Synty
 * conventions) and, where names do not decide, by topology and geometry. `overrides` replace detected
 * bones (by object or name). Throws {@link FBBIKError} naming each missing or bad reference and the bones
 * considered, or an override of the wrong type; returns the references and any warnings (among them each
 * unknown key of `overrides`, with the nearest reference's name).
 */
export function resolveBipedReferences(
  skeleton: Skeleton,
  overrides: BipedReferencesInput = {},
): { references: BipedReferences; warnings: string[] } {
  const unknown: string[] = [];
  warnUnknownOptions(
    { warn: (_cause, message) => unknown.push(message) },
    "resolveBipedReferences",
    checkOptions("resolveBipedReferences", overrides, BIPED_REFERENCES_INPUT_KINDS),
    BIPED_REFERENCES_INPUT_KINDS,
  );
  const resolved = resolveReferences(skeleton, overrides ?? {});
  resolved.warnings.unshift(...unknown);
  return resolved;
}

/**
 * {@link resolveBipedReferences} for callers that checked `overrides` already (as a nested option of their own,
 * whose unknown keys they warned).
 */
export function resolveReferences(
  skeleton: Skeleton,
  overrides: BipedReferencesInput,
): { references: BipedReferences; warnings: string[] } {
  const info = readSkeletonInfo(skeleton);
  const byName = new Map<string, number>();
  info.bones.forEach((b, i) => {
    if (!byName.has(b.name)) byName.set(b.name, i);
  });
  const problems: string[] = [];
  const indexOf = (ref: BoneReference, label: string): number => {
    const i = typeof ref === "string" ? (byName.get(ref) ?? -1) : info.bones.indexOf(ref);
    if (typeof ref === "string" && i >= 0) {
      // a name several bones share does not say which one is meant
      const same = info.bones.filter((b) => b.name === ref);
      if (same.length > 1) {
        const where =
          same
            .slice(0, 4)
            .map((b) => `one below ${b.getParent()?.name ?? "nothing (a root bone)"}`)
            .join(", ") + (same.length > 4 ? ", …" : "");
        problems.push(
          `${label}: ${same.length} bones are named "${ref}" in skeleton ${skeleton.name} (${where}); pass the ` +
            `Bone itself`,
        );
        return -1;
      }
    }
    if (i < 0) {
      problems.push(
        typeof ref === "string"
          ? `${label}: no bone named "${ref}" in skeleton ${skeleton.name} ` +
              `(bones: ${info.bones.map((b) => b.name).join(", ")})`
          : `${label}: bone ${ref.name} is not in skeleton ${skeleton.name}`,
      );
    }
    return i;
  };
  // sides are judged in the frame the scene shows the character in
  const detection = detectFromInfo(info.infos, { leftHanded: info.leftHanded });
  // start from whatever was found, so overrides need only supply what detection missed
  const found = detection.references ?? detection.partial;
  const refs: DetectedBipedReferences = { ...found, spine: [...found.spine], eyes: [...found.eyes] };
  const overridden = new Set<string>();
  for (const key of [...LIMB_KEYS, "pelvis"] as const) {
    const o = overrides[key];
    if (o !== undefined) {
      refs[key] = indexOf(o, key);
      overridden.add(key);
    }
  }
  if (overrides.spine !== undefined) {
    refs.spine = overrides.spine.map((s, i) => indexOf(s, `spine[${i}]`));
    overridden.add("spine");
  }
  if (overrides.head !== undefined) refs.head = overrides.head === null ? -1 : indexOf(overrides.head, "head");
  if (overrides.eyes !== undefined) refs.eyes = overrides.eyes.map((e, i) => indexOf(e, `eyes[${i}]`));
  for (const side of ["leftClavicle", "rightClavicle"] as const) {
    const o = overrides[side];
    if (o !== undefined) refs[side] = o === null ? -1 : indexOf(o, side);
  }
  if (problems.length > 0) throw new FBBIKError(problems);
  // detection's warnings speak of bones it chose: none when the user gave the pelvis, spine and limbs (a VRM's map)
  const allGiven = [...LIMB_KEYS, "pelvis", "spine"].every((k) => overridden.has(k));
  // thighs or upper arms other than detection's: the pelvis, spine and head left out are found above those
  // (detection's own warnings then speak of the trunk it found: replaced by the new trunk's)
  let detectionWarnings = allGiven ? [] : detection.warnings;
  const movedRoots = TRUNK_ANCHORS.some((k) => overridden.has(k) && refs[k] !== found[k]);
  if (movedRoots && !overridden.has("pelvis") && !overridden.has("spine") && TRUNK_ANCHORS.every((k) => refs[k] >= 0)) {
    const trunk = detectTrunk(info.infos, refs, { leftHanded: info.leftHanded });
    if (trunk.problems.length > 0) throw new FBBIKError(trunk.problems);
    refs.pelvis = trunk.references.pelvis;
    refs.spine = trunk.references.spine;
    if (overrides.head === undefined) refs.head = trunk.references.head;
    if (overrides.eyes === undefined) refs.eyes = trunk.references.eyes;
    detectionWarnings = trunk.warnings;
  }
  // detection problems matter only for what the user did not provide
  const complete = LIMB_KEYS.every((k) => refs[k] >= 0) && refs.pelvis >= 0 && refs.spine.length > 0;
  if (!complete) {
    throw new FBBIKError(
      detection.problems.length > 0 ? detection.problems : [`could not detect a biped in skeleton ${skeleton.name}`],
    );
  }
  // clavicles follow FinalIK's rule unless given: the upper arm's parent when it is not a spine bone
  const clavicles = detectClavicles(info.infos, refs);
  for (const side of ["leftClavicle", "rightClavicle"] as const) {
    if (overrides[side] === undefined) refs[side] = clavicles[side];
  }
  // a spine given (or a pelvis moved) by the user may hold a zero-length bone detection did not see
  const dropped = dropZeroLengthSpineBones(info.infos, refs);
  const validation = validateInfo(info.infos, refs);
  if (validation.problems.length > 0) throw new FBBIKError(validation.problems);
  // detection already includes the validation warnings of what it found; keep each message once
  const warnings = [...new Set([...detectionWarnings, ...dropped, ...validation.warnings])];
  const bone = (i: number): Bone => info.bones[i]!;
  const optional = (i: number): Bone | null => (i >= 0 ? info.bones[i]! : null);
  const references: BipedReferences = {
    root: overrides.root !== undefined ? overrides.root : null,
    pelvis: bone(refs.pelvis),
    spine: refs.spine.map(bone),
    head: optional(refs.head),
    eyes: refs.eyes.map(bone),
    leftThigh: bone(refs.leftThigh),
    leftCalf: bone(refs.leftCalf),
    leftFoot: bone(refs.leftFoot),
    rightThigh: bone(refs.rightThigh),
    rightCalf: bone(refs.rightCalf),
    rightFoot: bone(refs.rightFoot),
    leftUpperArm: bone(refs.leftUpperArm),
    leftForearm: bone(refs.leftForearm),
    leftHand: bone(refs.leftHand),
    rightUpperArm: bone(refs.rightUpperArm),
    rightForearm: bone(refs.rightForearm),
    rightHand: bone(refs.rightHand),
    leftClavicle: optional(refs.leftClavicle),
    rightClavicle: optional(refs.rightClavicle),
  };
  return { references, warnings };
}

/** The references as a list of every bone they name (for the rig). */
export function referencedBones(r: BipedReferences): Bone[] {
  const list: (Bone | null)[] = [
    r.pelvis,
    ...r.spine,
    r.head,
    ...LIMB_KEYS.map((k) => r[k]),
    r.leftClavicle,
    r.rightClavicle,
  ];
  return list.filter((b): b is Bone => b !== null);
}
