import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { gltfNodeBones, readVrmHumanoid, vrmReferenceNodes } from "../mapping/vrm-humanoid.js";
import { FBBIKError } from "../solver/errors.js";
import type { BipedReferencesInput } from "./biped-references.js";

const COMPONENT = "vrmHumanoidReferences";

/**
 * The biped references a VRM file's humanoid map gives, as FullBodyBipedIK's `references` option takes them: the
 * authoritative answer for a `.vrm`, whatever its nodes are named (MikuMikuDance's Japanese names, a converter's
 * numbers). `gltf` is the file's glTF JSON, which Babylon's glTF loader hands to `onParsed`:
 *
 * ```ts
 * let json: object | undefined;
 * const container = await LoadAssetContainerAsync("avatar.vrm", scene, {
 *   pluginExtension: ".glb", // a .vrm is a glTF binary
 *   pluginOptions: { gltf: { onParsed: (data) => (json = data.json) } },
 * });
 * container.addAllToScene();
 * const skeleton = container.skeletons[0]!;
 * const ik = FullBodyBipedIK.create(scene, skeleton, { references: vrmHumanoidReferences(skeleton, json!) });
 * ```
 *
 * VRM 0.x (`extensions.VRM.humanoid.humanBones`) and 1.0 (`extensions.VRMC_vrm.humanoid.humanBones`): `hips` is the
 * pelvis; `spine`, `chest` and `upperChest` (those mapped) the spine; `head`, the shoulders (clavicles), the upper
 * and lower arms and legs, hands, feet and eyes theirs. Toes and fingers are no references; a clavicle the map
 * leaves out is found by FinalIK's rule (the upper arm's parent unless it is a spine bone). A node is found among
 * the skeleton's bones by its index in the skin's `joints` (`Bone.getIndex()`), else by its name (the glTF loader
 * names a bone as its node), so clones from `instantiateModelsToScene` work too. Throws {@link FBBIKError} when the
 * JSON holds no VRM humanoid, when it lacks a bone FullBodyBipedIK needs, or when it names a node the skeleton has
 * no bone for (a skin's skeleton holds only that skin's joints and their parents).
 */
export function vrmHumanoidReferences(skeleton: Skeleton, gltf: object): BipedReferencesInput {
  const refs = vrmReferenceNodes(readVrmHumanoid(gltf, COMPONENT), COMPONENT);
  const bones = skeleton.bones;
  const boneOf = gltfNodeBones(
    gltf,
    bones.map((b) => ({ name: b.name, jointIndex: b.getIndex() })),
  );
  const problems: string[] = [];
  const find = (bone: string, node: number): Bone | null => {
    const found = boneOf(node);
    if (typeof found === "number") return bones[found]!;
    problems.push(`the VRM humanoid's ${bone}: ${found} (${skeleton.name})`);
    return null;
  };
  const out: BipedReferencesInput = {};
  for (const { key, bone, node } of refs.single) {
    const b = find(bone, node);
    if (b !== null) out[key] = b;
  }
  out.spine = refs.spine.map((s) => find(s.bone, s.node)).filter((b): b is Bone => b !== null);
  out.eyes = refs.eyes.map((e) => find(e.bone, e.node)).filter((b): b is Bone => b !== null);
  if (problems.length > 0) throw new FBBIKError(problems, COMPONENT);
  return out;
}
