/**
 * A synthetic biped with human proportions (1.75 m tall, facing +Z, its left side at +X as in glTF),
 * built as a real hierarchy whose bone frames point +Y along the bone with a per-bone twist, so the
 * solver never sees conveniently aligned axes.
 */
import { HierarchyPose } from "../../src/mapping/hierarchy-pose.js";
import {
  Quat,
  conjugateMultiply,
  fromAxisAngle,
  fromToRotation,
  inverseRotateVector,
  multiply,
} from "../../src/math/quat.js";
import { Vec3, normalize, sub } from "../../src/math/vec3.js";
import type { BipedBones } from "../../src/solver/biped-bones.js";

/** Options of the synthetic biped. */
export interface SyntheticBipedOptions {
  /** Arms straight out (T) or 45° down (A). Default "T". */
  pose?: "T" | "A";
  /** Uniform scale of the whole rig. Default 1. */
  scale?: number;
  /** Mirror across the YZ plane (negative determinant: the character's left ends up at −X). */
  mirrored?: boolean;
  /** Elbow bend in degrees (behind the arm line). Default 8. */
  elbowBend?: number;
  /** Knee bend in degrees (in front of the leg line). Default 8. */
  kneeBend?: number;
}

/** A variant of the synthetic biped with its bone ids. */
export interface SyntheticBiped {
  /** Name of the variant, for test titles. */
  name: string;
  /** The pose (fresh copy per call). */
  pose: HierarchyPose;
  /** Ids of the biped's bones in the pose. */
  bones: BipedBones;
  /** Height of the character (feet to head top), in its units. */
  height: number;
  /** Uniform scale. */
  scale: number;
  /** Mirrored copy. */
  mirrored: boolean;
}

interface Joint {
  name: string;
  parent: string | null;
  position: [number, number, number];
  /** Twist about the bone axis, degrees: makes bone frames irregular on purpose. */
  twist: number;
}

function joints(o: Required<Omit<SyntheticBipedOptions, "scale" | "mirrored">>): Joint[] {
  const elbow = (o.elbowBend * Math.PI) / 180;
  const knee = (o.kneeBend * Math.PI) / 180;
  const upperArm = 0.28;
  const forearm = 0.26;
  const thigh = 0.43;
  const shin = 0.42;
  // arm direction: straight out (T) or 45° down (A), in the character's left side (+X)
  const down = o.pose === "A" ? Math.PI / 4 : 0;
  const ax = Math.cos(down);
  const ay = -Math.sin(down);
  const shoulder: [number, number, number] = [0.18, 1.42, 0];
  // the elbow sits behind the straight line (−Z) so the arm is bent naturally
  const half = elbow / 2;
  const elbowPos: [number, number, number] = [
    shoulder[0] + ax * upperArm * Math.cos(half),
    shoulder[1] + ay * upperArm * Math.cos(half),
    -upperArm * Math.sin(half),
  ];
  const handPos: [number, number, number] = [
    elbowPos[0] + ax * forearm * Math.cos(half),
    elbowPos[1] + ay * forearm * Math.cos(half),
    elbowPos[2] + forearm * Math.sin(half),
  ];
  const kh = knee / 2;
  const hip: [number, number, number] = [0.1, 0.93, 0];
  const kneePos: [number, number, number] = [0.1, hip[1] - thigh * Math.cos(kh), thigh * Math.sin(kh)];
  const anklePos: [number, number, number] = [0.1, kneePos[1] - shin * Math.cos(kh), kneePos[2] - shin * Math.sin(kh)];
  const mirror = (p: [number, number, number]): [number, number, number] => [-p[0], p[1], p[2]];
  const side = (s: "L" | "R", p: [number, number, number]) => (s === "L" ? p : mirror(p));
  const list: Joint[] = [
    { name: "Root", parent: null, position: [0, 0, 0], twist: 0 },
    { name: "Hips", parent: "Root", position: [0, 0.98, 0.0], twist: 3 },
  ];
  for (const s of ["L", "R"] as const) {
    list.push(
      { name: `Thigh.${s}`, parent: "Hips", position: side(s, hip), twist: 17 },
      { name: `Calf.${s}`, parent: `Thigh.${s}`, position: side(s, kneePos), twist: -11 },
      { name: `Foot.${s}`, parent: `Calf.${s}`, position: side(s, anklePos), twist: 29 },
      { name: `Toe.${s}`, parent: `Foot.${s}`, position: side(s, [0.1, 0.02, 0.14]), twist: 0 },
    );
  }
  list.push(
    { name: "Spine", parent: "Hips", position: [0, 1.08, -0.01], twist: 5 },
    { name: "Chest", parent: "Spine", position: [0, 1.28, 0.0], twist: -4 },
    { name: "Neck", parent: "Chest", position: [0, 1.5, 0.01], twist: 2 },
    { name: "Head", parent: "Neck", position: [0, 1.6, 0.02], twist: 0 },
    { name: "HeadTop", parent: "Head", position: [0, 1.75, 0.02], twist: 0 },
  );
  for (const s of ["L", "R"] as const) {
    list.push(
      { name: `Clavicle.${s}`, parent: "Chest", position: side(s, [0.03, 1.4, 0.02]), twist: 13 },
      { name: `UpperArm.${s}`, parent: `Clavicle.${s}`, position: side(s, shoulder), twist: 41 },
      { name: `Forearm.${s}`, parent: `UpperArm.${s}`, position: side(s, elbowPos), twist: -23 },
      { name: `Hand.${s}`, parent: `Forearm.${s}`, position: side(s, handPos), twist: 7 },
      {
        name: `Finger.${s}`,
        parent: `Hand.${s}`,
        position: side(s, [handPos[0] + ax * 0.09, handPos[1] + ay * 0.09, handPos[2]]),
        twist: 0,
      },
    );
  }
  return list;
}

/** Depth-first order of the joints (each parent before its subtree). */
function depthFirst(list: Joint[]): Joint[] {
  const out: Joint[] = [];
  const visit = (parent: string | null): void => {
    for (const j of list) {
      if (j.parent === parent) {
        out.push(j);
        visit(j.name);
      }
    }
  };
  visit(null);
  return out;
}

/** Builds a synthetic biped variant. */
export function syntheticBiped(options: SyntheticBipedOptions = {}): SyntheticBiped {
  const o = { pose: options.pose ?? "T", elbowBend: options.elbowBend ?? 8, kneeBend: options.kneeBend ?? 8 };
  const scale = options.scale ?? 1;
  const mirrored = options.mirrored ?? false;
  const list = depthFirst(joints(o));
  const byName = new Map(list.map((j, i) => [j.name, i]));
  const childOf = (name: string): Joint | undefined => list.find((j) => j.parent === name);
  // world positions (scaled, mirrored) and world rotations: +Y along the bone, then a twist about it
  const worldPos = list.map(
    (j) => new Vec3((mirrored ? -1 : 1) * j.position[0] * scale, j.position[1] * scale, j.position[2] * scale),
  );
  const worldRot = list.map(() => new Quat());
  const axis = new Vec3();
  const twist = new Quat();
  for (let i = 0; i < list.length; i++) {
    const j = list[i]!;
    const child = childOf(j.name);
    if (child !== undefined && j.name !== "Root") {
      normalize(axis, sub(axis, worldPos[byName.get(child.name)!]!, worldPos[i]!));
      fromToRotation(worldRot[i]!, new Vec3(0, 1, 0), axis);
      fromAxisAngle(twist, axis, ((mirrored ? -1 : 1) * j.twist * Math.PI) / 180);
      multiply(worldRot[i]!, twist, worldRot[i]!);
    } else if (j.parent !== null) {
      worldRot[i]!.x = worldRot[byName.get(j.parent)!]!.x;
      worldRot[i]!.y = worldRot[byName.get(j.parent)!]!.y;
      worldRot[i]!.z = worldRot[byName.get(j.parent)!]!.z;
      worldRot[i]!.w = worldRot[byName.get(j.parent)!]!.w;
    }
  }
  const bonesIn = list.map((j, i) => {
    const p = j.parent === null ? -1 : byName.get(j.parent)!;
    const position = new Vec3();
    const rotation = new Quat();
    if (p < 0) {
      position.x = worldPos[i]!.x;
      position.y = worldPos[i]!.y;
      position.z = worldPos[i]!.z;
      rotation.x = worldRot[i]!.x;
      rotation.y = worldRot[i]!.y;
      rotation.z = worldRot[i]!.z;
      rotation.w = worldRot[i]!.w;
    } else {
      inverseRotateVector(position, worldRot[p]!, sub(position, worldPos[i]!, worldPos[p]!));
      conjugateMultiply(rotation, worldRot[p]!, worldRot[i]!);
    }
    return { name: j.name, parent: p, position, rotation };
  });
  const pose = new HierarchyPose(bonesIn);
  const id = (name: string): number => pose.indexOf(name);
  const bones: BipedBones = {
    root: id("Root"),
    pelvis: id("Hips"),
    spine: [id("Spine"), id("Chest"), id("Neck")],
    head: id("Head"),
    leftThigh: id("Thigh.L"),
    leftCalf: id("Calf.L"),
    leftFoot: id("Foot.L"),
    rightThigh: id("Thigh.R"),
    rightCalf: id("Calf.R"),
    rightFoot: id("Foot.R"),
    leftUpperArm: id("UpperArm.L"),
    leftForearm: id("Forearm.L"),
    leftHand: id("Hand.L"),
    rightUpperArm: id("UpperArm.R"),
    rightForearm: id("Forearm.R"),
    rightHand: id("Hand.R"),
  };
  const name = `${o.pose}-pose${scale !== 1 ? ` ×${scale}` : ""}${mirrored ? " mirrored" : ""}`;
  return { name, pose, bones, height: 1.75 * scale, scale, mirrored };
}

/** The variants every solver test runs on: T, A, ×0.01, ×100 and mirrored. */
export function bipedVariants(): SyntheticBiped[] {
  return [
    syntheticBiped({ pose: "T" }),
    syntheticBiped({ pose: "A" }),
    syntheticBiped({ pose: "T", scale: 0.01 }),
    syntheticBiped({ pose: "A", scale: 100 }),
    syntheticBiped({ pose: "T", mirrored: true }),
  ];
}
