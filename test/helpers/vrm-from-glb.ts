/**
 * A VRM 0.x file made from a committed glTF binary (no VRM file may be committed here): the humanoid's nodes
 * renamed as VRoid exports them (`J_Bip_L_UpperArm`), and the `VRM` extension with its humanoid bone list, so
 * a loader sees what a real `.vrm` holds (an optional extension it skips) and the IK must find the bones by
 * their VRM names.
 */

import { rewriteGlbJson } from "./glb-json.js";

/** VRM humanoid bone → the VRoid node name. */
const VRM_NAMES: Record<string, string> = {
  hips: "J_Bip_C_Hips",
  spine: "J_Bip_C_Spine",
  chest: "J_Bip_C_Chest",
  head: "J_Bip_C_Head",
  leftUpperArm: "J_Bip_L_UpperArm",
  leftLowerArm: "J_Bip_L_LowerArm",
  leftHand: "J_Bip_L_Hand",
  rightUpperArm: "J_Bip_R_UpperArm",
  rightLowerArm: "J_Bip_R_LowerArm",
  rightHand: "J_Bip_R_Hand",
  leftUpperLeg: "J_Bip_L_UpperLeg",
  leftLowerLeg: "J_Bip_L_LowerLeg",
  leftFoot: "J_Bip_L_Foot",
  leftToes: "J_Bip_L_ToeBase",
  rightUpperLeg: "J_Bip_R_UpperLeg",
  rightLowerLeg: "J_Bip_R_LowerLeg",
  rightFoot: "J_Bip_R_Foot",
  rightToes: "J_Bip_R_ToeBase",
};

/**
 * `glb` with the nodes named in `humanoid` (VRM bone → the source's node name) renamed to VRoid's names,
 * `rename` for other nodes (e.g. a hand tip the IK should not take for the hand), and the `VRM` extension.
 */
export function vrmFromGlb(glb: Uint8Array, humanoid: Record<string, string>, rename: Record<string, string> = {}) {
  return rewriteGlbJson<VrmJson>(glb, (json) => {
    const nodes = json.nodes;
    const humanBones = Object.entries(humanoid).map(([bone, source]) => {
      const node = nodes.findIndex((n) => n.name === source);
      if (node < 0) throw new Error(`no node ${source} for the VRM bone ${bone}`);
      nodes[node]!.name = VRM_NAMES[bone] ?? bone;
      return { bone, node, useDefaultValues: true };
    });
    for (const n of nodes) if (n.name !== undefined && rename[n.name] !== undefined) n.name = rename[n.name];
    json.extensionsUsed = [...(json.extensionsUsed ?? []), "VRM"];
    json.extensions = {
      ...json.extensions,
      VRM: {
        exporterVersion: "babylon-fbbik test",
        specVersion: "0.0",
        meta: { title: "test" },
        humanoid: { humanBones },
      },
    };
  });
}

/** The part of a glTF's JSON a VRM adds to. */
interface VrmJson {
  nodes: { name?: string }[];
  extensionsUsed?: string[];
  extensions?: Record<string, unknown>;
}

/** Mannequin.glb's humanoid (KayKit names; its `wrist` joints are the hands, `hand` their tips). */
export const MANNEQUIN_HUMANOID: Record<string, string> = {
  hips: "hips",
  spine: "spine",
  chest: "chest",
  head: "head",
  leftUpperArm: "upperarm.l",
  leftLowerArm: "lowerarm.l",
  leftHand: "wrist.l",
  rightUpperArm: "upperarm.r",
  rightLowerArm: "lowerarm.r",
  rightHand: "wrist.r",
  leftUpperLeg: "upperleg.l",
  leftLowerLeg: "lowerleg.l",
  leftFoot: "foot.l",
  leftToes: "toes.l",
  rightUpperLeg: "upperleg.r",
  rightLowerLeg: "lowerleg.r",
  rightFoot: "foot.r",
  rightToes: "toes.r",
};

/** Mannequin.glb as a VRM 0.x avatar (`loadModel`'s `glb`): its hand tips renamed as VRoid's, not taken for hands. */
export const mannequinAsVrm = (bytes: Uint8Array): Uint8Array =>
  vrmFromGlb(bytes, MANNEQUIN_HUMANOID, { "hand.l": "J_Adj_L_HandTip", "hand.r": "J_Adj_R_HandTip" });
