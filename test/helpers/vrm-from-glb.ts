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
  const vroid = Object.fromEntries(Object.entries(humanoid).map(([bone, source]) => [source, VRM_NAMES[bone] ?? bone]));
  return vrmFile(glb, humanoid, { ...vroid, ...rename }, "0.x");
}

/**
 * `glb` as a VRM `version` file: the humanoid's map (VRM bone → the source's node name, looked up before any
 * renaming) in VRM 0.x's `VRM` extension (`humanBones: [{ bone, node }]`) or VRM 1.0's `VRMC_vrm`
 * (`humanBones: { hips: { node } }`), and the nodes renamed by `rename` (source name → new name).
 */
export function vrmFile(
  glb: Uint8Array,
  humanoid: Record<string, string>,
  rename: Record<string, string>,
  version: "0.x" | "1.0",
) {
  return rewriteGlbJson<VrmJson>(glb, (json) => {
    const nodes = json.nodes;
    const map = Object.entries(humanoid).map(([bone, source]) => {
      const node = nodes.findIndex((n) => n.name === source);
      if (node < 0) throw new Error(`no node ${source} for the VRM bone ${bone}`);
      return [bone, node] as const;
    });
    for (const n of nodes) if (n.name !== undefined && rename[n.name] !== undefined) n.name = rename[n.name];
    const extension = version === "0.x" ? "VRM" : "VRMC_vrm";
    json.extensionsUsed = [...(json.extensionsUsed ?? []), extension];
    const humanBones =
      version === "0.x"
        ? map.map(([bone, node]) => ({ bone, node, useDefaultValues: true }))
        : Object.fromEntries(map.map(([bone, node]) => [bone, { node }]));
    const meta = version === "0.x" ? { title: "test" } : { name: "test", authors: ["babylon-fbbik tests"] };
    json.extensions = {
      ...json.extensions,
      [extension]: { specVersion: version === "0.x" ? "0.0" : "1.0", meta, humanoid: { humanBones } },
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

/** Each of the Mannequin's sided names (`upperarm.l`) for both sides → what `name(base, side)` makes of it. */
export function sidedNames(name: (base: string, side: "l" | "r") => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const base of ["upperarm", "lowerarm", "wrist", "hand", "upperleg", "lowerleg", "foot", "toes"])
    for (const side of ["l", "r"] as const) out[`${base}.${side}`] = name(base, side);
  return out;
}

/** The Mannequin's names → MMD's English (PMX) names: `leg_L` is the thigh, `knee_L` the calf, `ankle_L` the foot. */
export const PMX_NAMES: Record<string, string> = {
  root: "center",
  hips: "waist",
  spine: "upper body",
  chest: "upper body2",
  head: "head",
  ...sidedNames((base, side) => {
    const pmx: Record<string, string> = {
      upperarm: "arm",
      lowerarm: "elbow",
      wrist: "wrist",
      hand: "middle1",
      upperleg: "leg",
      lowerleg: "knee",
      foot: "ankle",
      toes: "toe",
    };
    return `${pmx[base]}_${side.toUpperCase()}`;
  }),
};
