/**
 * The humanoid map a VRM file carries, read from its glTF JSON, engine-free: VRM 0.x's
 * `extensions.VRM.humanoid.humanBones` (`[{ bone, node }]`) and VRM 1.0's `extensions.VRMC_vrm.humanoid.humanBones`
 * (`{ hips: { node }, … }`), each `node` a glTF node index; which biped reference each VRM bone is; and which bone
 * of a loaded skeleton a glTF node became (the Babylon side is src/babylon/vrm-references.ts).
 * @module
 */
import { FBBIKError } from "../solver/errors.js";

/** The single-bone references a VRM humanoid gives (the spine and the eyes are lists). */
export type VrmReferenceKey =
  | "pelvis"
  | "head"
  | "leftThigh"
  | "leftCalf"
  | "leftFoot"
  | "rightThigh"
  | "rightCalf"
  | "rightFoot"
  | "leftUpperArm"
  | "leftForearm"
  | "leftHand"
  | "rightUpperArm"
  | "rightForearm"
  | "rightHand"
  | "leftClavicle"
  | "rightClavicle";

/** VRM human bone → the reference it is (the same names in VRM 0.x and 1.0). */
export const VRM_REFERENCE_BONES: Readonly<Record<string, VrmReferenceKey>> = {
  hips: "pelvis",
  head: "head",
  leftUpperLeg: "leftThigh",
  leftLowerLeg: "leftCalf",
  leftFoot: "leftFoot",
  rightUpperLeg: "rightThigh",
  rightLowerLeg: "rightCalf",
  rightFoot: "rightFoot",
  leftUpperArm: "leftUpperArm",
  leftLowerArm: "leftForearm",
  leftHand: "leftHand",
  rightUpperArm: "rightUpperArm",
  rightLowerArm: "rightForearm",
  rightHand: "rightHand",
  leftShoulder: "leftClavicle",
  rightShoulder: "rightClavicle",
};

/** VRM's torso bones above the hips, bottom up: the references' spine is those the file maps. */
export const VRM_SPINE_BONES: readonly string[] = ["spine", "chest", "upperChest"];
/** VRM's eye bones, left first. */
export const VRM_EYE_BONES: readonly string[] = ["leftEye", "rightEye"];
/** The references FullBodyBipedIK cannot do without (head and clavicles may be left out). */
const REQUIRED: readonly VrmReferenceKey[] = Object.values(VRM_REFERENCE_BONES).filter(
  (k) => k !== "head" && k !== "leftClavicle" && k !== "rightClavicle",
);

/** A VRM file's humanoid: its version and each human bone's glTF node. */
export interface VrmHumanoid {
  /** `"0.x"` (the `VRM` extension) or `"1.0"` (`VRMC_vrm`). */
  version: "0.x" | "1.0";
  /** VRM human bone name (`hips`, `leftUpperArm`, …) → glTF node index, for every bone the file maps. */
  bones: Map<string, number>;
}

/** The glTF JSON as far as it is read here. */
interface GltfJson {
  nodes?: { name?: string }[];
  skins?: { joints?: number[] }[];
  extensions?: {
    VRM?: { humanoid?: { humanBones?: { bone?: string; node?: number }[] } };
    VRMC_vrm?: { humanoid?: { humanBones?: Record<string, { node?: number } | undefined> } };
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/**
 * Reads the humanoid of a VRM file from its glTF JSON (VRM 1.0 first when a file has both). Throws
 * {@link FBBIKError} when the JSON holds no VRM humanoid, or maps a bone to something other than one of its nodes.
 */
export function readVrmHumanoid(gltf: unknown, component = "vrmHumanoidReferences"): VrmHumanoid {
  const json = (isObject(gltf) ? gltf : {}) as GltfJson;
  const nodeCount = Array.isArray(json.nodes) ? json.nodes.length : 0;
  const bones = new Map<string, number>();
  const problems: string[] = [];
  const add = (bone: string, node: unknown): void => {
    // VRM 0.x exporters write -1 for a bone they leave out
    if (node === -1 || node === undefined || bones.has(bone)) return;
    if (Number.isInteger(node) && (node as number) >= 0 && (node as number) < nodeCount)
      bones.set(bone, node as number);
    else problems.push(`the VRM humanoid maps ${bone} to node ${String(node)}, which is not a node of the file`);
  };
  const v1 = json.extensions?.VRMC_vrm?.humanoid?.humanBones;
  const v0 = json.extensions?.VRM?.humanoid?.humanBones;
  let version: VrmHumanoid["version"];
  if (isObject(v1)) {
    version = "1.0";
    for (const [bone, entry] of Object.entries(v1)) add(bone, isObject(entry) ? entry.node : undefined);
  } else if (Array.isArray(v0)) {
    version = "0.x";
    for (const entry of v0) if (isObject(entry) && typeof entry.bone === "string") add(entry.bone, entry.node);
  } else {
    throw new FBBIKError(
      [
        "the glTF JSON holds no VRM humanoid (extensions.VRMC_vrm.humanoid.humanBones for VRM 1.0, " +
          "extensions.VRM.humanoid.humanBones for VRM 0.x): pass the JSON of a .vrm file, as the glTF loader's " +
          "onParsed gives it",
      ],
      component,
    );
  }
  if (problems.length > 0) throw new FBBIKError(problems, component);
  return { version, bones };
}

/** The glTF nodes of the references a VRM humanoid gives. */
export interface VrmReferenceNodes {
  /** Each single-bone reference the humanoid maps, with the VRM bone it came from. */
  single: { key: VrmReferenceKey; bone: string; node: number }[];
  /** The spine's nodes, bottom up (`spine`, `chest`, `upperChest`, those mapped), with their VRM bones. */
  spine: { bone: string; node: number }[];
  /** The eyes' nodes, left first (those mapped). */
  eyes: { bone: string; node: number }[];
}

/** The references' nodes in `humanoid`; throws {@link FBBIKError} naming each required VRM bone it lacks. */
export function vrmReferenceNodes(humanoid: VrmHumanoid, component = "vrmHumanoidReferences"): VrmReferenceNodes {
  const single: VrmReferenceNodes["single"] = [];
  for (const [bone, key] of Object.entries(VRM_REFERENCE_BONES)) {
    const node = humanoid.bones.get(bone);
    if (node !== undefined) single.push({ key, bone, node });
  }
  const listed = (names: readonly string[]) =>
    names.filter((b) => humanoid.bones.has(b)).map((bone) => ({ bone, node: humanoid.bones.get(bone)! }));
  const spine = listed(VRM_SPINE_BONES);
  const missing = REQUIRED.filter((k) => !single.some((s) => s.key === k)).map(
    (k) => Object.entries(VRM_REFERENCE_BONES).find(([, key]) => key === k)![0],
  );
  if (spine.length === 0) missing.push("spine");
  if (missing.length > 0) {
    throw new FBBIKError(
      [`the VRM ${humanoid.version} humanoid does not map ${missing.join(", ")}, which FullBodyBipedIK needs`],
      component,
    );
  }
  return { single, spine, eyes: listed(VRM_EYE_BONES) };
}

/** A skeleton bone as the glTF loader made it: its name, and its index in its skin's `joints` (-1 for none). */
export interface GltfBoneInfo {
  /** The bone's name: its node's name, or `joint<node index>` for a node without one (Babylon's glTF loader). */
  name: string;
  /** The bone's index in the skin's `joints` (Babylon's `Bone.getIndex()`), -1 for a bone that is no joint. */
  jointIndex: number;
}

/**
 * Which of `bones` each glTF node became. The skin whose `joints` name the bones (every bone with a joint index
 * is named as its joint's node) links a joint node to the bone with that index, whatever the names; a node that
 * is no joint of it is found by name. Returns the bone's index in `bones`, or why there is none.
 */
export function gltfNodeBones(gltf: unknown, bones: readonly GltfBoneInfo[]): (node: number) => number | string {
  const json = (isObject(gltf) ? gltf : {}) as GltfJson;
  const nodes = Array.isArray(json.nodes) ? json.nodes : [];
  const nodeName = (n: number): string => nodes[n]?.name || `joint${n}`;
  const skin = (json.skins ?? []).find(
    (s) =>
      Array.isArray(s.joints) &&
      bones.every(
        (b) =>
          b.jointIndex < 0 || (s.joints![b.jointIndex] !== undefined && nodeName(s.joints![b.jointIndex]!) === b.name),
      ),
  );
  return (node) => {
    const joint = skin?.joints?.indexOf(node) ?? -1;
    const byJoint = joint >= 0 ? bones.findIndex((b) => b.jointIndex === joint) : -1;
    if (byJoint >= 0) return byJoint;
    const name = nodeName(node);
    const named = bones.flatMap((b, i) => (b.name === name ? [i] : []));
    if (named.length === 1) return named[0]!;
    return named.length === 0
      ? `node ${node} ("${name}") is not a bone of the skeleton`
      : `node ${node} ("${name}") shares its name with ${named.length} bones of the skeleton, and is not a joint of ` +
          "its skin to tell them apart";
  };
}
