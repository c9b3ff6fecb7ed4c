/**
 * Small humanoid skeletons for detection tests: one template with realistic rest positions (metres,
 * 1.78 m tall, facing +Z with +Y up and the character's left at +X as in glTF, elbows and knees slightly
 * bent, toes forward), named after any convention, optionally moved (turned, tipped to Z-up, mirrored).
 */
import type {
  DetectedBipedReferences,
  DetectionResult,
  RigBoneInfo,
} from "../../src/mapping/detection/detect-references.js";

export type Side = "L" | "R";
type Vec = [number, number, number];

/** Names of one side's bones; optional bones are left out when not named. */
export interface SideNames {
  clavicle?: string;
  upperArm: string;
  upperTwist?: string;
  forearm: string;
  foreTwist?: string;
  hand: string;
  /** A bone after the hand (KayKit: wrist.l → hand.l). */
  handEnd?: string;
  /** Finger chains, each three bones or more, hanging from the hand. */
  fingers?: string[][];
  thigh: string;
  thighTwist?: string;
  calf: string;
  calfTwist?: string;
  foot: string;
  toe?: string;
  toeEnd?: string;
  eye?: string;
}

/** A naming convention for the template. */
export interface HumanoidNames {
  /** A bone above the root (Roblox: `Root` → `HumanoidRootNode`). */
  top?: string;
  root?: string;
  pelvis: string;
  /** Spine bones above the pelvis, bottom to top (at least one). */
  spine: string[];
  neck?: string[];
  head?: string;
  headEnd?: string;
  /** A bone between the pelvis and the thighs (DAZ Genesis: hip → pelvis → ThighBend). */
  thighRoot?: string;
  side: (s: Side) => SideNames;
}

/** How the template is assembled and placed. */
export interface HumanoidOptions {
  /** Where the clavicles (or upper arms) hang: the top spine bone (default) or the last neck bone (3ds Max Biped). */
  armsFrom?: "spine" | "neck";
  /** Where the thighs hang: the pelvis (default) or the first spine bone (3ds Max Biped without triangle pelvis). */
  thighsFrom?: "pelvis" | "spine";
  /** Twist bones between the upper and middle bones (default: as leaf children of the upper bones, like Unreal). */
  inlineTwist?: boolean;
  /** Applied to every position (e.g. turn to face −Z). */
  transform?: (p: Vec) => Vec;
  /** Knees straight (no forward cue from the knees). */
  straightLegs?: boolean;
}

/** Turns the character to face −Z (its left ends at −X). */
export const faceMinusZ = (p: Vec): Vec => [-p[0], p[1], -p[2]];
/** Tips the character to Z-up (a proper rotation, +90° about X: forward ends along −Y). */
export const zUp = (p: Vec): Vec => [p[0], -p[2], p[1]];
/** Mirrors across the YZ plane (left bones at −X while still facing +Z): not a rotation. */
export const mirrorX = (p: Vec): Vec => [-p[0], p[1], p[2]];

/** A skeleton under construction, addressed by name. */
export class RigBuilder {
  readonly bones: RigBoneInfo[] = [];
  private readonly transform: (p: Vec) => Vec;

  constructor(transform: (p: Vec) => Vec = (p) => p) {
    this.transform = transform;
  }

  /** Adds a bone under `parent` (a name, or null for a root). */
  add(name: string, parent: string | null, p: Vec): this {
    const [x, y, z] = this.transform(p);
    this.bones.push({ name, parent: parent === null ? -1 : this.index(parent), position: { x, y, z } });
    return this;
  }

  index(name: string): number {
    const i = this.bones.findIndex((b) => b.name === name);
    if (i < 0) throw new Error(`no bone ${name}`);
    return i;
  }
}

/** The template humanoid in a naming convention. */
export function humanoid(names: HumanoidNames, options: HumanoidOptions = {}): RigBoneInfo[] {
  const b = new RigBuilder(options.transform);
  const top = names.top ?? null;
  if (top !== null) b.add(top, null, [0, 0, 0]);
  const root = names.root ?? top;
  if (names.root !== undefined) b.add(names.root, top, [0, 0, 0]);
  b.add(names.pelvis, root, [0, 1.0, 0]);
  let parent = names.pelvis;
  names.spine.forEach((n, i) => {
    const y = names.spine.length === 1 ? 1.2 : 1.08 + (0.28 * i) / (names.spine.length - 1);
    b.add(n, parent, [0, y, 0]);
    parent = n;
  });
  const spineTop = parent;
  (names.neck ?? []).forEach((n, i) => {
    b.add(n, parent, [0, 1.48 + 0.05 * i, 0]);
    parent = n;
  });
  const neckTop = parent;
  if (names.head !== undefined) {
    b.add(names.head, parent, [0, 1.6, 0.01]);
    if (names.headEnd !== undefined) b.add(names.headEnd, names.head, [0, 1.78, 0.01]);
  }
  if (names.thighRoot !== undefined) b.add(names.thighRoot, names.pelvis, [0, 0.97, 0]);
  const thighParent = options.thighsFrom === "spine" ? names.spine[0]! : (names.thighRoot ?? names.pelvis);
  const armParent = options.armsFrom === "neck" ? neckTop : spineTop;
  for (const s of ["L", "R"] as const) {
    const n = names.side(s);
    const x = (v: number): number => (s === "L" ? v : -v);
    if (n.eye !== undefined && names.head !== undefined) b.add(n.eye, names.head, [x(0.03), 1.66, 0.08]);
    let p = armParent;
    if (n.clavicle !== undefined) {
      b.add(n.clavicle, p, [x(0.05), 1.44, 0]);
      p = n.clavicle;
    }
    b.add(n.upperArm, p, [x(0.17), 1.44, -0.02]);
    p = n.upperArm;
    if (n.upperTwist !== undefined) {
      b.add(n.upperTwist, n.upperArm, [x(0.31), 1.44, -0.035]);
      if (options.inlineTwist) p = n.upperTwist;
    }
    b.add(n.forearm, p, [x(0.45), 1.44, -0.05]);
    p = n.forearm;
    if (n.foreTwist !== undefined) {
      b.add(n.foreTwist, n.forearm, [x(0.58), 1.44, -0.035]);
      if (options.inlineTwist) p = n.foreTwist;
    }
    b.add(n.hand, p, [x(0.72), 1.44, -0.02]);
    if (n.handEnd !== undefined) b.add(n.handEnd, n.hand, [x(0.79), 1.44, -0.02]);
    (n.fingers ?? []).forEach((chain, f) => {
      let fp = n.hand;
      chain.forEach((name, k) => {
        b.add(name, fp, [x(0.8 + 0.03 * k), 1.44 - (f === 0 ? 0.02 + 0.01 * k : 0), 0.03 - 0.025 * f]);
        fp = name;
      });
    });
    const knee = options.straightLegs ? 0 : 0.03;
    b.add(n.thigh, thighParent, [x(0.09), 0.95, 0]);
    p = n.thigh;
    if (n.thighTwist !== undefined) {
      b.add(n.thighTwist, n.thigh, [x(0.09), 0.74, knee / 2]);
      if (options.inlineTwist) p = n.thighTwist;
    }
    b.add(n.calf, p, [x(0.09), 0.52, knee]);
    p = n.calf;
    if (n.calfTwist !== undefined) {
      b.add(n.calfTwist, n.calf, [x(0.09), 0.3, knee / 2]);
      if (options.inlineTwist) p = n.calfTwist;
    }
    b.add(n.foot, p, [x(0.09), 0.08, 0]);
    if (n.toe !== undefined) {
      b.add(n.toe, n.foot, [x(0.09), 0.0, 0.1]);
      if (n.toeEnd !== undefined) b.add(n.toeEnd, n.toe, [x(0.09), 0.0, 0.18]);
    }
  }
  // parent-first is guaranteed by construction; keep the template's order
  return b.bones;
}

/** The names a convention should be detected as (clavicle/eyes "-" / [] when absent). */
export function expectedNames(names: HumanoidNames, options: HumanoidOptions = {}): Record<string, string | string[]> {
  const l = names.side("L");
  const r = names.side("R");
  const spine = options.armsFrom === "neck" ? [...names.spine, ...(names.neck ?? [])] : names.spine;
  return {
    pelvis: names.pelvis,
    spine,
    head: names.head ?? "-",
    leftThigh: l.thigh,
    leftCalf: l.calf,
    leftFoot: l.foot,
    rightThigh: r.thigh,
    rightCalf: r.calf,
    rightFoot: r.foot,
    leftUpperArm: l.upperArm,
    leftForearm: l.forearm,
    leftHand: l.hand,
    rightUpperArm: r.upperArm,
    rightForearm: r.forearm,
    rightHand: r.hand,
    leftClavicle: l.clavicle ?? "-",
    rightClavicle: r.clavicle ?? "-",
    eyes: [l.eye, r.eye].filter((e): e is string => e !== undefined),
  };
}

/** References as bone names ("-" for -1), for readable assertions. */
export function referenceNames(
  bones: readonly RigBoneInfo[],
  refs: DetectedBipedReferences,
): Record<string, string | string[]> {
  const n = (i: number): string => (i >= 0 ? bones[i]!.name : "-");
  return Object.fromEntries(Object.entries(refs).map(([k, v]) => [k, Array.isArray(v) ? v.map(n) : n(v as number)]));
}

/** The detected references as names; throws with the problems when detection failed. */
export function detectedNames(
  bones: readonly RigBoneInfo[],
  result: DetectionResult,
): Record<string, string | string[]> {
  if (result.references === null) throw new Error(`detection failed:\n${result.problems.join("\n")}`);
  return referenceNames(bones, result.references);
}
