/**
 * Seeded fuzz of IKSolverLimb, IKSolverAim and IKSolverLookAt: random animated poses, targets from
 * ordinary to absurd (1e-30 … 1e30 away, on the root, NaN, ±Infinity), random weights (negative, above 1,
 * NaN) and modes. Nothing non-finite is ever written; a solve that reports no skip with usable input
 * meets its contract (limb: exact when reachable, straight when beyond reach; aim: at most 100 passes).
 */
import { describe, expect, it } from "vitest";
import { IKSolverAim } from "../../src/aim/ik-solver-aim.js";
import { IKSolverLookAt } from "../../src/aim/ik-solver-look-at.js";
import { IKSolverLimb } from "../../src/limb/ik-solver-limb.js";
import type { HierarchyPose } from "../../src/mapping/hierarchy-pose.js";
import { Quat } from "../../src/math/quat.js";
import type { Vec3 } from "../../src/math/vec3.js";
import { Failures } from "../helpers/math-reference.js";
import { Random } from "../helpers/random.js";
import { type V, add, angleDeg, dist, mul, sub } from "../helpers/vectors.js";
import { ARM, GUN, HEAD, LEG, buildPose, id, pos } from "../unit/limb/rigs.js";

const CASES = 4000;

/** A number that is mostly ordinary, sometimes absurd. */
function wild(r: Random, ordinary: () => number): number {
  const k = r.next();
  if (k < 0.9) return ordinary();
  return r.pick([0, NaN, Infinity, -Infinity, 1e30, -1e30, 1e-30, 1e300]);
}

function wildPoint(r: Random, centre: V, radius: number, out: Vec3): void {
  const k = r.next();
  let p: V;
  if (k < 0.03) p = centre;
  else if (k < 0.06) p = add(centre, mul(r.unitVector(), radius * 1e-12));
  else if (k < 0.09) p = add(centre, mul(r.unitVector(), 1e30));
  else p = add(centre, mul(r.unitVector(), r.range(0, 2.5) * radius));
  out.x = wild(r, () => p.x);
  out.y = wild(r, () => p.y);
  out.z = wild(r, () => p.z);
}

function weight(r: Random): number {
  return wild(r, () => (r.next() < 0.5 ? 1 : r.range(-0.3, 1.3)));
}

/** Turns every bone of `names` by a random local rotation (the animation of this frame). */
function animate(r: Random, pose: HierarchyPose, names: readonly string[], degrees: number): void {
  for (const n of names) {
    const u = r.unitVector();
    const a = (r.range(-degrees, degrees) * Math.PI) / 360;
    const s = Math.sin(a);
    const l = pose.localRotations[id(pose, n)]!;
    const q = new Quat(u.x * s, u.y * s, u.z * s, Math.cos(a));
    const x = q.w * l.x + q.x * l.w + q.y * l.z - q.z * l.y;
    const y = q.w * l.y - q.x * l.z + q.y * l.w + q.z * l.x;
    const z = q.w * l.z + q.x * l.y - q.y * l.x + q.z * l.w;
    const w = q.w * l.w - q.x * l.x - q.y * l.y - q.z * l.z;
    pose.setLocalRotation(id(pose, n), new Quat(x, y, z, w));
  }
}

function allFinite(pose: HierarchyPose): boolean {
  for (let i = 0; i < pose.count; i++) {
    const p = pose.positions[i]!;
    const q = pose.rotations[i]!;
    if (![p.x, p.y, p.z, q.x, q.y, q.z, q.w].every(Number.isFinite)) return false;
  }
  return true;
}

const finiteV = (v: Vec3): boolean => Number.isFinite(v.x) && Number.isFinite(v.y) && Number.isFinite(v.z);

describe("limb, aim and look-at fuzz", () => {
  it(`IKSolverLimb: ${CASES} seeded frames on an arm and a leg`, () => {
    const r = new Random(0x18a);
    const bad = new Failures();
    let exact = 0;
    let straight = 0;
    for (const spec of [ARM, LEG]) {
      const names = spec === ARM ? ["upperArm", "forearm", "hand"] : ["thigh", "calf", "foot"];
      const pose = buildPose(spec);
      const b = names.map((n) => id(pose, n)) as [number, number, number];
      const ik = new IKSolverLimb(pose, b[0], b[1], b[2], spec === ARM ? { parent: id(pose, "clavicle") } : {});
      for (let k = 0; k < CASES / 2; k++) {
        animate(r, pose, names, 60);
        const root = pos(pose, b[0]);
        const l1 = dist(root, pos(pose, b[1]));
        const l2 = dist(pos(pose, b[1]), pos(pose, b[2]));
        wildPoint(r, root, l1 + l2, ik.ikPosition);
        wildPoint(r, root, l1 + l2, ik.bendGoal);
        const uq = r.unitQuaternion();
        ik.ikRotation.x = wild(r, () => uq.x);
        ik.ikRotation.y = uq.y;
        ik.ikRotation.z = uq.z;
        ik.ikRotation.w = uq.w;
        ik.ikPositionWeight = weight(r);
        ik.ikRotationWeight = weight(r);
        ik.bendModifierWeight = weight(r);
        ik.bendGoalWeight = weight(r);
        ik.maintainRotationWeight = weight(r);
        ik.bendModifier = r.pick(["animation", "target", "parent", "goal"] as const);
        ik.solve();
        if (!allFinite(pose)) bad.add(`case ${k}: non-finite pose after ${JSON.stringify(ik.ikPosition)}`);
        if (ik.skipReason !== "" || ik.ikPositionWeight !== 1 || !finiteV(ik.ikPosition)) continue;
        const t = { x: ik.ikPosition.x, y: ik.ikPosition.y, z: ik.ikPosition.z };
        const d = dist(t, root);
        const end = pos(pose, b[2]);
        const L = l1 + l2;
        if (d > Math.abs(l1 - l2) * 1.0001 && d < L * 0.9999) {
          exact++;
          if (dist(end, t) > 1e-9 * L) bad.add(`case ${k}: reachable target missed by ${dist(end, t) / L} L`);
        } else if (d > L) {
          straight++;
          const a = angleDeg(sub(end, root), sub(t, root));
          if (a > 1e-6 || Math.abs(dist(end, root) - L) > 1e-9 * L)
            bad.add(`case ${k}: beyond reach, not straight (${a}°)`);
        }
      }
    }
    bad.check();
    expect(exact).toBeGreaterThan(CASES / 20);
    expect(straight).toBeGreaterThan(CASES / 50);
  });

  it(`IKSolverAim: ${CASES} seeded frames on a 5-bone gun chain`, () => {
    const r = new Random(0x18b);
    const bad = new Failures();
    const pose = buildPose(GUN);
    const chain = ["spine", "spine1", "chest", "shoulder", "hand"];
    const ik = new IKSolverAim(
      pose,
      chain.map((n) => id(pose, n)),
      { aimBone: id(pose, "gun"), aimOffset: { x: 0, y: 0.05, z: 0.3 } },
    );
    for (let k = 0; k < CASES; k++) {
      animate(r, pose, chain, 20);
      const gun = pos(pose, id(pose, "gun"));
      wildPoint(r, gun, 3, ik.ikPosition);
      wildPoint(r, gun, 3, ik.polePosition);
      ik.ikPositionWeight = weight(r);
      ik.poleWeight = weight(r);
      ik.clampWeight = wild(r, () => r.range(-0.2, 1.2));
      ik.clampSmoothing = wild(r, () => r.int(4));
      ik.maxIterations = wild(r, () => r.int(6));
      ik.tolerance = wild(r, () => r.range(0, 1));
      for (const bone of ik.bones) bone.weight = weight(r);
      ik.solve();
      if (!allFinite(pose)) bad.add(`case ${k}: non-finite pose`);
      if (ik.iterationsUsed > 100) bad.add(`case ${k}: ${ik.iterationsUsed} passes`);
    }
    bad.check();
  });

  it(`IKSolverLookAt: ${CASES} seeded frames on a spine, head and eyes`, () => {
    const r = new Random(0x18c);
    const bad = new Failures();
    const pose = buildPose(HEAD);
    const spine = ["spine0", "spine1", "spine2", "neck"];
    const ik = new IKSolverLookAt(pose, {
      spine: spine.map((n) => id(pose, n)),
      head: id(pose, "head"),
      eyes: [id(pose, "eyeL"), id(pose, "eyeR")],
    });
    for (let k = 0; k < CASES; k++) {
      animate(r, pose, [...spine, "head"], 30);
      const head = pos(pose, id(pose, "head"));
      wildPoint(r, head, 2, ik.ikPosition);
      ik.ikPositionWeight = weight(r);
      ik.bodyWeight = weight(r);
      ik.headWeight = weight(r);
      ik.eyesWeight = weight(r);
      ik.clampWeight = wild(r, () => r.range(-0.2, 1.2));
      ik.clampWeightHead = wild(r, () => r.range(0, 1));
      ik.clampWeightEyes = wild(r, () => r.range(0, 1));
      ik.clampSmoothing = wild(r, () => r.int(3));
      ik.solve();
      if (!allFinite(pose)) bad.add(`case ${k}: non-finite pose`);
    }
    bad.check();
  });
});
