/**
 * Skeletons for the limb and aim tests, built in code with HierarchyPose from component-space rest
 * positions and rotations, in four variants: as built, mirrored (z → −z), ×0.01 and ×100. A variant maps
 * every input point and rotation the same way, so a solver's results can be compared across variants.
 */
import { Quat } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import type { V } from "../../helpers/vectors.js";

/** A bone at a component-space position, turned by an axis-angle (axis x, y, z, degrees). */
export interface BoneSpec {
  name: string;
  parent: string | null;
  at: [number, number, number];
  rot?: [number, number, number, number];
}

/** How a rig is placed: scale and handedness. */
export interface Variant {
  name: string;
  scale: number;
  mirrored: boolean;
}

export const VARIANTS: readonly Variant[] = [
  { name: "as built", scale: 1, mirrored: false },
  { name: "mirrored z", scale: 1, mirrored: true },
  { name: "×0.01", scale: 0.01, mirrored: false },
  { name: "×100 mirrored", scale: 100, mirrored: true },
];

export const BASE: Variant = VARIANTS[0]!;

type Q = { x: number; y: number; z: number; w: number };

export const qmul = (a: Q, b: Q): Q => ({
  x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
  y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
  z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
  w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
});
const qconj = (a: Q): Q => ({ x: -a.x, y: -a.y, z: -a.z, w: a.w });
/** Rotates v by unit q (written out, independent of src/math). */
export const qrot = (q: Q, v: V): V => {
  const p = qmul(qmul(q, { x: v.x, y: v.y, z: v.z, w: 0 }), qconj(q));
  return { x: p.x, y: p.y, z: p.z };
};
export const qaxis = (x: number, y: number, z: number, deg: number): Q => {
  const l = Math.hypot(x, y, z);
  const h = (deg * Math.PI) / 360;
  const s = Math.sin(h) / l;
  return { x: x * s, y: y * s, z: z * s, w: Math.cos(h) };
};

/** A point of the as-built rig in the variant's space. */
export function mapPoint(p: V, variant: Variant): Vec3 {
  return new Vec3(p.x * variant.scale, p.y * variant.scale, (variant.mirrored ? -1 : 1) * p.z * variant.scale);
}

/** A direction (a local axis included) in the variant's space: mirrored, never scaled. */
export function mapDir(p: V, variant: Variant): Vec3 {
  return new Vec3(p.x, p.y, (variant.mirrored ? -1 : 1) * p.z);
}

/** A rotation in the variant's space: conjugated by the mirror. */
export function mapRot(q: Q, variant: Variant): Quat {
  return variant.mirrored ? new Quat(-q.x, -q.y, q.z, q.w) : new Quat(q.x, q.y, q.z, q.w);
}

/** Back from the variant's space to the as-built one (points). */
export function unmapPoint(p: V, variant: Variant): V {
  return { x: p.x / variant.scale, y: p.y / variant.scale, z: ((variant.mirrored ? -1 : 1) * p.z) / variant.scale };
}

/** Back from the variant's space to the as-built one (rotations). */
export function unmapRot(q: Q, variant: Variant): Q {
  return variant.mirrored ? { x: -q.x, y: -q.y, z: q.z, w: q.w } : { x: q.x, y: q.y, z: q.z, w: q.w };
}

/** Builds the pose of `specs` (depth-first order) in `variant`. */
export function buildPose(specs: readonly BoneSpec[], variant: Variant = BASE): HierarchyPose {
  const world = specs.map((s) => ({
    p: mapPoint({ x: s.at[0], y: s.at[1], z: s.at[2] }, variant),
    q: mapRot(s.rot ? qaxis(...s.rot) : { x: 0, y: 0, z: 0, w: 1 }, variant),
  }));
  const names = specs.map((s) => s.name);
  return new HierarchyPose(
    specs.map((s, i) => {
      const parent = s.parent === null ? -1 : names.indexOf(s.parent);
      const me = world[i]!;
      if (parent < 0) return { name: s.name, parent, position: me.p, rotation: me.q };
      const pw = world[parent]!;
      const inv = qconj(pw.q);
      const lp = qrot(inv, { x: me.p.x - pw.p.x, y: me.p.y - pw.p.y, z: me.p.z - pw.p.z });
      const lq = qmul(inv, me.q);
      return { name: s.name, parent, position: new Vec3(lp.x, lp.y, lp.z), rotation: new Quat(lq.x, lq.y, lq.z, lq.w) };
    }),
  );
}

/** A left arm (+X), elbow slightly bent backward, twisted bone frames, a finger after the hand. */
export const ARM: readonly BoneSpec[] = [
  { name: "root", parent: null, at: [0, 0, 0] },
  { name: "chest", parent: "root", at: [0, 1.35, 0], rot: [0, 1, 0, 10] },
  { name: "clavicle", parent: "chest", at: [0.05, 1.45, 0.02], rot: [0, 0, 1, -80] },
  { name: "upperArm", parent: "clavicle", at: [0.18, 1.45, 0], rot: [0.2, 0.1, 1, -95] },
  { name: "forearm", parent: "upperArm", at: [0.46, 1.44, -0.04], rot: [1, 0.3, 0.2, 40] },
  { name: "hand", parent: "forearm", at: [0.72, 1.42, 0.01], rot: [0.3, 1, -0.2, 75] },
  { name: "finger", parent: "hand", at: [0.8, 1.42, 0.02], rot: [0, 0, 1, -90] },
];

/** A left leg, knee slightly forward, shin longer than the thigh. */
export const LEG: readonly BoneSpec[] = [
  { name: "pelvis", parent: null, at: [0, 1, 0], rot: [0, 1, 0, 5] },
  { name: "thigh", parent: "pelvis", at: [0.1, 0.95, 0], rot: [1, 0, 0, 180] },
  { name: "calf", parent: "thigh", at: [0.11, 0.52, 0.05], rot: [1, 0.1, 0, 175] },
  { name: "foot", parent: "calf", at: [0.1, 0.07, -0.01], rot: [1, 0, 0.1, 120] },
  { name: "toe", parent: "foot", at: [0.1, 0.0, 0.12] },
];

/** A character's spine, neck, head and eyes, facing +Z, with twisted bone frames. */
export const HEAD: readonly BoneSpec[] = [
  { name: "hips", parent: null, at: [0, 1, 0], rot: [0, 1, 0, 15] },
  { name: "spine0", parent: "hips", at: [0, 1.1, 0.01], rot: [1, 0.2, 0, -10] },
  { name: "spine1", parent: "spine0", at: [0, 1.25, 0.02], rot: [0.1, 1, 0, 30] },
  { name: "spine2", parent: "spine1", at: [0, 1.4, 0.0], rot: [0, 0, 1, 20] },
  { name: "neck", parent: "spine2", at: [0, 1.55, 0.01], rot: [1, 0, 0, 15] },
  { name: "head", parent: "neck", at: [0, 1.65, 0.02], rot: [0.3, 1, 0.2, -40] },
  { name: "eyeL", parent: "head", at: [0.03, 1.72, 0.09], rot: [0, 1, 0, 90] },
  { name: "eyeR", parent: "head", at: [-0.03, 1.72, 0.09], rot: [1, 0, 0, -90] },
  { name: "jaw", parent: "head", at: [0, 1.62, 0.06] },
  { name: "armL", parent: "spine2", at: [0.2, 1.45, 0] },
];

/** A right arm holding a gun: spine, spine1, chest, shoulder, hand (the 5-bone chain), the gun under the hand. */
export const GUN: readonly BoneSpec[] = [
  { name: "hips", parent: null, at: [0, 1, 0] },
  { name: "spine", parent: "hips", at: [0, 1.1, 0], rot: [0, 1, 0, 20] },
  { name: "spine1", parent: "spine", at: [0, 1.3, 0.01], rot: [1, 0, 0.3, 10] },
  { name: "chest", parent: "spine1", at: [0, 1.45, 0], rot: [0, 0.2, 1, -15] },
  { name: "shoulder", parent: "chest", at: [-0.18, 1.45, 0], rot: [0.2, 1, 0.1, 60] },
  { name: "hand", parent: "shoulder", at: [-0.25, 1.3, 0.45], rot: [1, 1, 0, 35] },
  { name: "gun", parent: "hand", at: [-0.25, 1.33, 0.5], rot: [0, 1, 0.2, -25] },
];

/** Bone id by name. */
export function id(pose: HierarchyPose, name: string): number {
  const i = pose.indexOf(name);
  if (i < 0) throw new Error(`no bone ${name}`);
  return i;
}

/** Every local transform of the pose, for bit-exact comparisons. */
export function snapshot(pose: HierarchyPose): number[] {
  const out: number[] = [];
  for (let i = 0; i < pose.count; i++) {
    const p = pose.localPositions[i]!;
    const q = pose.localRotations[i]!;
    out.push(p.x, p.y, p.z, q.x, q.y, q.z, q.w);
  }
  return out;
}

/** The component-space position of a bone as a plain record. */
export function pos(pose: HierarchyPose, bone: number): V {
  const p = pose.positions[bone]!;
  return { x: p.x, y: p.y, z: p.z };
}

/** The component-space rotation of a bone as a plain record. */
export function rot(pose: HierarchyPose, bone: number): Q {
  const q = pose.rotations[bone]!;
  return { x: q.x, y: q.y, z: q.z, w: q.w };
}

/** Angle in radians between two rotations (q and −q alike). */
export function rotAngle(a: Q, b: Q): number {
  const d = Math.abs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
  return 2 * Math.acos(Math.min(1, d));
}
